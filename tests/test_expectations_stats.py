"""poetone.stats and Krippendorff's alpha against values that do not come from poetone.

Each expected number is either a published worked example (Newcombe 1998 for Wilson intervals,
Krippendorff 2011 for alpha), an exact binomial sum written out here, or an independent
implementation (scipy's ``binomtest(...).proportion_ci(method="wilson")``, ``scipy.stats.bootstrap``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest, bootstrap

from poetone.human_eval.stats import krippendorff_alpha
from poetone.stats import (
    Interval,
    binomial_test_p,
    bootstrap_ci,
    holm,
    mcnemar_p,
    paired_bootstrap,
    wilcoxon_p,
    wilson,
)

# --- Wilson --------------------------------------------------------------------------------

#: Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score, no continuity correction).
NEWCOMBE_WILSON = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
]


@pytest.mark.parametrize(("k", "n", "low", "high"), NEWCOMBE_WILSON)
def test_wilson_matches_newcombe_1998(k: int, n: int, low: float, high: float) -> None:
    iv = wilson(k, n)
    assert (iv.low, iv.high) == (pytest.approx(low, abs=5e-5), pytest.approx(high, abs=5e-5))
    assert iv.estimate == k / n and iv.n == n


@pytest.mark.parametrize(("k", "n", "level"), [(7, 10, 0.95), (50, 60, 0.95), (3, 40, 0.90), (20, 25, 0.99)])
def test_wilson_matches_scipy(k: int, n: int, level: float) -> None:
    ref = binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    iv = wilson(k, n, level=level)
    assert iv.low == pytest.approx(ref.low, abs=1e-9) and iv.high == pytest.approx(ref.high, abs=1e-9)


def test_wilson_is_not_wald() -> None:
    # Wald for 1/29: 0.0345 ± 1.96·sqrt(0.0345·0.9655/29) = [-0.032, 0.101]; Wilson is [0.0061, 0.1718]
    iv = wilson(1, 29)
    assert iv.high > 0.15 and iv.low > 0.0


def test_wilson_of_nothing_is_nan() -> None:
    iv = wilson(0, 0)
    assert iv.n == 0 and math.isnan(iv.estimate) and iv.format() == "–"


# --- exact binomial and McNemar ------------------------------------------------------------


def test_binomial_test_is_the_two_sided_exact_sum() -> None:
    # 9 of 10 at p = 1/2: P(X <= 1) + P(X >= 9) = 2 · (1 + 10) / 1024
    assert binomial_test_p(9, 10) == pytest.approx(22 / 1024, abs=1e-12)
    # 5 of 10 is the mode: p = 1
    assert binomial_test_p(5, 10) == pytest.approx(1.0)
    assert binomial_test_p(0, 0) == 1.0


def test_binomial_test_honours_p() -> None:
    # 0 of 3 at p = 0.1: P(X = 0) = 0.729 is the most likely outcome, so p-value 1
    assert binomial_test_p(0, 3, 0.1) == pytest.approx(1.0)
    # 3 of 3 at p = 0.1: only X = 3 is as unlikely (0.001): p-value 0.001
    assert binomial_test_p(3, 3, 0.1) == pytest.approx(0.001, abs=1e-12)


def test_mcnemar_is_exact_on_the_discordant_pairs() -> None:
    # 1 vs 9 discordant pairs: 2 · (C(10,0) + C(10,1)) / 2^10
    assert mcnemar_p(1, 9) == pytest.approx(22 / 1024, abs=1e-12)
    assert mcnemar_p(9, 1) == pytest.approx(22 / 1024, abs=1e-12)
    # 0 vs 6: 2 / 64, just above 0.03; 0 vs 5: 2 / 32 = 0.0625, not significant at 0.05
    assert mcnemar_p(0, 6) == pytest.approx(2 / 64, abs=1e-12)
    assert mcnemar_p(0, 5) == pytest.approx(2 / 32, abs=1e-12)
    assert mcnemar_p(0, 0) == 1.0


# --- Holm ----------------------------------------------------------------------------------


def test_holm_by_hand() -> None:
    # sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 -> kept monotone at 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-12)


def test_holm_caps_at_one_and_keeps_ties_and_order() -> None:
    assert holm([0.5, 0.2, 0.9]) == pytest.approx([1.0, 0.6, 1.0], abs=1e-12)
    assert holm([0.02, 0.02]) == pytest.approx([0.04, 0.04], abs=1e-12)
    assert holm([0.04]) == [0.04]
    assert holm([]) == []


# --- bootstrap -----------------------------------------------------------------------------


def _sample(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(0.6, 0.2, size=n)


def test_bootstrap_ci_agrees_with_scipy_percentile_bootstrap() -> None:
    x = _sample(300, 1)
    ref = bootstrap((x,), np.mean, n_resamples=20_000, method="percentile", random_state=7).confidence_interval
    iv = bootstrap_ci(x.tolist(), n_boot=20_000)
    se = x.std(ddof=1) / math.sqrt(x.size)
    # two Monte Carlo estimates of the same quantiles agree to a small fraction of the standard error
    assert iv.low == pytest.approx(ref.low, abs=0.1 * se) and iv.high == pytest.approx(ref.high, abs=0.1 * se)
    # and both are the normal interval mean ± 1.96·se, to within the skew of the sample
    assert iv.low == pytest.approx(x.mean() - 1.96 * se, abs=0.15 * se)
    assert iv.estimate == pytest.approx(float(x.mean()), abs=1e-12) and iv.n == 300


def test_bootstrap_ci_level_widens_the_interval() -> None:
    x = _sample(100, 2).tolist()
    narrow, wide = bootstrap_ci(x, level=0.80), bootstrap_ci(x, level=0.99)
    assert wide.low < narrow.low < narrow.high < wide.high


def test_bootstrap_ci_of_constant_and_empty_samples() -> None:
    assert bootstrap_ci([0.5, 0.5, 0.5]) == Interval(0.5, 0.5, 0.5, 3)
    assert bootstrap_ci([0.7]) == Interval(0.7, 0.7, 0.7, 1)
    assert bootstrap_ci([]).n == 0


def test_paired_bootstrap_p_is_two_sided() -> None:
    # differences symmetric about zero: a two-sided p-value is near 1 (one-sided would be near 0.5)
    rng = np.random.default_rng(3)
    d = rng.normal(0, 1, size=200)
    d = np.concatenate([d, -d])
    res = paired_bootstrap(d.tolist(), [0.0] * d.size)
    assert res.p_bootstrap > 0.9 and res.mean_diff == pytest.approx(0.0, abs=1e-12)


def test_paired_bootstrap_p_matches_the_normal_approximation() -> None:
    # mean / se = 2.5 by construction: two-sided normal p = 2·(1 - Φ(2.5)) = 0.0124
    rng = np.random.default_rng(4)
    d = rng.normal(0, 1, size=400)
    d = (d - d.mean()) / d.std(ddof=1)
    d = d + 2.5 / math.sqrt(d.size)
    res = paired_bootstrap(d.tolist(), [0.0] * d.size, n_boot=40_000)
    assert res.p_bootstrap == pytest.approx(0.0124, abs=0.006)
    se = 1 / math.sqrt(d.size)
    assert res.low == pytest.approx(res.mean_diff - 1.96 * se, abs=0.2 * se)
    assert res.high == pytest.approx(res.mean_diff + 1.96 * se, abs=0.2 * se)


def test_paired_bootstrap_constant_differences_and_errors() -> None:
    same = paired_bootstrap([0.3, 0.4], [0.3, 0.4])
    assert (same.mean_diff, same.p_bootstrap, same.p_wilcoxon, same.n) == (0.0, 1.0, 1.0, 2)
    shifted = paired_bootstrap([1.5, 2.5], [1.0, 2.0])
    assert shifted.p_bootstrap == 0.0 and shifted.low == shifted.high == 0.5
    with pytest.raises(ValueError, match="same length"):
        paired_bootstrap([0.1], [0.1, 0.2])
    with pytest.raises(ValueError, match="no paired items"):
        paired_bootstrap([], [])


def test_wilcoxon_exact_by_hand() -> None:
    # five positive differences: the exact two-sided p is 2 · 1/2^5 = 0.0625
    assert wilcoxon_p([1, 2, 3, 4, 5], [0, 0, 0, 0, 0]) == pytest.approx(0.0625, abs=1e-12)
    # ranks 1..5 with the smallest negative: W- = 1, P(W <= 1) = 2/32, two-sided 0.125
    assert wilcoxon_p([-1, 2, 3, 4, 5], [0] * 5) == pytest.approx(0.125, abs=1e-12)
    assert wilcoxon_p([1, 2], [1, 2]) == 1.0


# --- Krippendorff's alpha ------------------------------------------------------------------

#: Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 coders, 12 units.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


@pytest.mark.parametrize(
    ("metric", "alpha"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)]
)
def test_krippendorff_alpha_matches_the_worked_example(metric: str, alpha: float) -> None:
    assert krippendorff_alpha(KRIPPENDORFF_2011, metric) == pytest.approx(alpha, abs=5e-4)


def test_krippendorff_alpha_two_coders_by_hand() -> None:
    # nominal, 2 coders, 4 units (a,a) (a,b) (b,b) (b,b): o_ab = 2 of 8 pairable values;
    # n_a = 3, n_b = 5: D_e = 2·3·5 / (8·7) = 30/56; D_o = 2/8; alpha = 1 - (2/8)/(30/56) = 1 - 14/30
    data = [["a", "a", "b", "b"], ["a", "b", "b", "b"]]
    assert krippendorff_alpha(data, "nominal") == pytest.approx(1 - 14 / 30, abs=1e-12)
    assert krippendorff_alpha([["a", "a"], ["a", "a"]]) != krippendorff_alpha([["a", "a"], ["a", "a"]])  # NaN


# --- the documented defaults: scipy's percentile bootstrap, 10,000 resamples, seed 0 -----------


def _scipy_percentile(x: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """scipy's own percentile bootstrap of the mean with the settings stats.py documents."""
    ci = bootstrap(
        (x,), np.mean, n_resamples=10_000, confidence_level=level, method="percentile", rng=np.random.default_rng(0)
    ).confidence_interval
    return float(ci.low), float(ci.high)


def test_bootstrap_ci_defaults_reproduce_scipy_exactly() -> None:
    # a report's interval must be reproducible from its description ("percentile bootstrap,
    # 10,000 resamples, seed 0"): the same resamples, so the same numbers to the last bit
    x = _sample(50, 5)
    assert bootstrap_ci(x.tolist()) == Interval(float(x.mean()), *_scipy_percentile(x), 50)


def test_paired_bootstrap_defaults_reproduce_scipy_exactly() -> None:
    a, b = _sample(40, 6), _sample(40, 7)
    res = paired_bootstrap(a.tolist(), b.tolist())
    assert (res.low, res.high) == _scipy_percentile(a - b)
    assert res.mean_diff == pytest.approx(float((a - b).mean()), abs=1e-15) and res.n == 40


# --- inputs that are not float64: the statistics are computed in double precision -------------


def test_float32_scores_are_averaged_in_double_precision() -> None:
    # a model's float32 scores: the mean of their exact double values, not a float32 mean
    x = np.array([0.1, 0.2, 0.7, 0.3], dtype=np.float32)
    exact = math.fsum(float(v) for v in x) / 4  # 0.32500000111758709
    assert bootstrap_ci(x).estimate == pytest.approx(exact, abs=1e-16)
    assert bootstrap_ci(x).estimate != pytest.approx(0.325, abs=1e-12)


def test_decimal_scores_are_accepted() -> None:
    # scores read as Decimal (a NUMERIC database column, json's parse_float=Decimal) are numbers too
    from decimal import Decimal

    a = [Decimal("0.25"), Decimal("0.5"), Decimal("0.75"), Decimal("1")]
    zero = [Decimal(0)] * 4
    # four positive differences: exact signed-rank p = 2/16
    assert wilcoxon_p(a, zero) == pytest.approx(2 / 16, abs=1e-12)
    assert wilcoxon_p(zero, a) == pytest.approx(2 / 16, abs=1e-12)
    res = paired_bootstrap(a, zero)
    assert res.mean_diff == 0.625 and res.p_wilcoxon == pytest.approx(2 / 16, abs=1e-12)
    assert (res.low, res.high) == _scipy_percentile(np.array([0.25, 0.5, 0.75, 1.0]))
    res = paired_bootstrap([0.0] * 4, a)
    assert res.mean_diff == -0.625
    iv = bootstrap_ci(a)
    assert (iv.estimate, iv.low, iv.high) == (0.625, *_scipy_percentile(np.array([0.25, 0.5, 0.75, 1.0])))
