"""poetone.stats and Krippendorff's alpha: the field's libraries, with the numbers the project had.

Wilson intervals and the bootstrap come from ``scipy.stats``, alpha from the ``krippendorff``
package. Each is checked three ways: it calls the library, it gives the numbers of the
hand-written code it replaced (kept below, verbatim in substance, as the oracle), and it gives
the published worked examples.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pytest

from poetone.bazi.report import newcombe
from poetone.human_eval.stats import agreement, krippendorff_alpha
from poetone.stats import bootstrap_ci, paired_bootstrap, wilson

# ------------------------------------------------------------------ the code these replaced


def old_wilson(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    from scipy.stats import norm

    z = float(norm.ppf(1 - (1 - level) / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def old_bootstrap_means(x: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return x[rng.integers(0, x.size, size=(n_boot, x.size))].mean(axis=1)


def old_bootstrap_ci(values: Sequence[float], n_boot: int, level: float, seed: int) -> tuple[float, float]:
    alpha = (1 - level) / 2
    low, high = np.quantile(old_bootstrap_means(np.asarray(values, dtype=float), n_boot, seed), [alpha, 1 - alpha])
    return float(low), float(high)


def old_paired_p(d: np.ndarray, n_boot: int, seed: int) -> float:
    means = old_bootstrap_means(d, n_boot, seed)
    return min(1.0, 2 * min((np.sum(means <= 0) + 1) / (n_boot + 1), (np.sum(means >= 0) + 1) / (n_boot + 1)))


def old_alpha(units: list[list[Hashable]], metric: str) -> float:
    units = [u for u in units if len(u) >= 2]
    if not units:
        return float("nan")
    values = sorted({v for u in units for v in u})
    index = {v: i for i, v in enumerate(values)}
    k = len(values)
    o = np.zeros((k, k))
    for u in units:
        counts = np.zeros(k)
        for v in u:
            counts[index[v]] += 1
        o += (np.outer(counts, counts) - np.diag(counts)) / (len(u) - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if metric == "nominal":
        delta = 1.0 - np.eye(k)
    else:
        c, d = np.meshgrid(np.asarray(values, dtype=float), np.asarray(values, dtype=float), indexing="ij")
        if metric == "interval":
            delta = (c - d) ** 2
        elif metric == "ratio":
            total = c + d
            delta = np.where(total == 0, 0.0, ((c - d) / np.where(total == 0, 1, total)) ** 2)
        else:
            cum = np.concatenate([[0.0], np.cumsum(n_c)])
            i, j = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
            lo, hi = np.minimum(i, j), np.maximum(i, j)
            delta = (cum[hi + 1] - cum[lo] - (n_c[i] + n_c[j]) / 2) ** 2
    expected = (np.outer(n_c, n_c) * delta).sum()
    if n <= 1 or expected == 0:
        return float("nan")
    return float(1 - (n - 1) * (o * delta).sum() / expected)


# ------------------------------------------------------------------ the libraries are used


class Spy:
    def __init__(self, target: Any) -> None:
        self.target, self.calls = target, 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.target(*args, **kwargs)


def test_the_intervals_and_alpha_come_from_scipy_and_krippendorff(monkeypatch: pytest.MonkeyPatch) -> None:
    import krippendorff
    import scipy.stats

    spies = {name: Spy(getattr(scipy.stats, name)) for name in ("binomtest", "bootstrap")}
    for name, spy in spies.items():
        monkeypatch.setattr(scipy.stats, name, spy)
    alpha = Spy(krippendorff.alpha)
    monkeypatch.setattr(krippendorff, "alpha", alpha)
    wilson(3, 10)
    bootstrap_ci([0.1, 0.5, 0.9], n_boot=100)
    paired_bootstrap([0.1, 0.5, 0.9], [0.2, 0.2, 0.3], n_boot=100)
    krippendorff_alpha([[1, 2, 3], [1, 2, 2]], "ordinal")
    assert (spies["binomtest"].calls, spies["bootstrap"].calls, alpha.calls) == (1, 2, 1)


# ------------------------------------------------------------------ the numbers the project had


def test_wilson_equals_the_hand_written_formula() -> None:
    for n in (1, 2, 3, 5, 10, 29, 70, 148, 263, 1000):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            for level in (0.95, 0.9, 0.99):
                iv = wilson(k, n, level)
                assert (iv.low, iv.high) == pytest.approx(old_wilson(k, n, level), abs=1e-12), (k, n, level)
                assert (iv.estimate, iv.n) == (k / n, n)
    assert math.isnan(wilson(0, 0).estimate) and wilson(0, 0).n == 0


@pytest.mark.parametrize("size", [2, 3, 7, 30, 120])
@pytest.mark.parametrize("seed", [0, 1])
def test_bootstrap_equals_the_hand_written_resampling(size: int, seed: int) -> None:
    """Same seed, same resamples: scipy draws the indices with the same ``Generator.integers`` call."""
    rng = np.random.default_rng(size * 10 + seed)
    x = rng.integers(0, 6, size) / 5
    if np.all(x == x[0]):
        x[0] = 1 - x[0]
    y = rng.random(size)
    for n_boot, level in ((2000, 0.95), (1000, 0.9)):
        iv = bootstrap_ci(x.tolist(), n_boot=n_boot, level=level, seed=seed)
        assert (iv.low, iv.high) == pytest.approx(old_bootstrap_ci(x, n_boot, level, seed), abs=1e-12)
        assert iv.estimate == pytest.approx(x.mean())
        pc = paired_bootstrap(x.tolist(), y.tolist(), n_boot=n_boot, level=level, seed=seed)
        assert (pc.low, pc.high) == pytest.approx(old_bootstrap_ci(x - y, n_boot, level, seed), abs=1e-12)
        assert pc.p_bootstrap == pytest.approx(old_paired_p(x - y, n_boot, seed), abs=1e-12)


def test_degenerate_samples_keep_their_intervals() -> None:
    assert (bootstrap_ci([0.4]).low, bootstrap_ci([0.4]).high) == (0.4, 0.4)
    iv = bootstrap_ci([0.7] * 5)
    assert (iv.estimate, iv.low, iv.high, iv.n) == (0.7, 0.7, 0.7, 5)
    assert math.isnan(bootstrap_ci([]).estimate)
    same = paired_bootstrap([1.0, 2.0], [1.0, 2.0])
    assert (same.mean_diff, same.p_bootstrap, same.p_wilcoxon) == (0.0, 1.0, 1.0)


def test_alpha_equals_the_hand_written_coincidence_matrices() -> None:
    rng = np.random.default_rng(42)
    compared = 0
    for _ in range(60):
        coders, n_units = int(rng.integers(2, 6)), int(rng.integers(2, 15))
        data = rng.integers(1, 6, (coders, n_units)).astype(object)
        data[rng.random((coders, n_units)) < 0.3] = None
        rows = data.tolist()
        units = [[r[u] for r in rows if r[u] is not None] for u in range(n_units)]
        for metric in ("nominal", "ordinal", "interval", "ratio"):
            got, want = krippendorff_alpha(rows, metric), old_alpha(units, metric)
            assert got == pytest.approx(want, abs=1e-12) or (math.isnan(got) and math.isnan(want)), (rows, metric)
            compared += not math.isnan(want)
    assert compared > 150


def test_agreement_keeps_its_numbers_and_its_undefined_cases() -> None:
    rows = []
    for who, shift in (("u1", 0), ("u2", 1), ("u3", 0)):
        for i in range(6):
            rows.append({"pair_id": f"p{i}", "annotator": who, "identified_human": (i + shift) % 2,
                         "faithfulness": 1 + (i + shift) % 5, "artistry": 3, "overall": None})  # fmt: skip
    ag = agreement(rows)
    choice = [[r["identified_human"] for r in rows if r["pair_id"] == f"p{i}"] for i in range(6)]
    faith = [[r["faithfulness"] for r in rows if r["pair_id"] == f"p{i}"] for i in range(6)]
    assert ag["identified_human"]["nominal"] == pytest.approx(old_alpha(choice, "nominal"), abs=1e-6)
    assert ag["faithfulness"]["ordinal"] == pytest.approx(old_alpha(faith, "ordinal"), abs=1e-6)
    assert ag["faithfulness"]["interval"] == pytest.approx(old_alpha(faith, "interval"), abs=1e-6)
    assert ag["artistry"] == {"interval": None, "ordinal": None, "units": 6}  # everyone said 3: undefined
    assert ag["overall"] == {"interval": None, "ordinal": None, "units": 0}  # nobody rated: nothing pairable


# ------------------------------------------------------------------ the worked examples


def test_wilson_on_newcombes_worked_examples() -> None:
    """Newcombe (1998), "Two-sided confidence intervals for the single proportion", method 3."""
    for (k, n), (low, high) in {
        (81, 263): (0.2553, 0.3662),
        (15, 148): (0.0624, 0.1605),
        (0, 20): (0.0, 0.1611),
        (1, 29): (0.0061, 0.1718),
        (29, 29): (0.8830, 1.0),
    }.items():
        iv = wilson(k, n)
        assert (round(iv.low, 4), round(iv.high, 4)) == (low, high), (k, n)


def test_newcombe_difference_on_the_worked_examples() -> None:
    """Newcombe (1998), "Interval estimation for the difference between independent proportions",
    method 10 (hybrid score): 56/70 − 48/80 and 9/10 − 3/10."""
    d = newcombe(wilson(56, 70), wilson(48, 80))
    assert (round(d.estimate, 4), round(d.low, 4), round(d.high, 4)) == (0.2, 0.0524, 0.3339)
    d = newcombe(wilson(9, 10), wilson(3, 10))
    assert (round(d.low, 4), round(d.high, 4)) == (0.1705, 0.8090)


def test_alpha_on_krippendorffs_worked_example() -> None:
    """Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C."""
    n = None
    data = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
        [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n],
    ]
    for metric, value in {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}.items():
        assert round(krippendorff_alpha(data, metric), 3) == value, metric
    assert round(krippendorff_alpha([["a", "b", "a"], ["a", "b", "b"]], "nominal"), 3) == 0.444
