"""poetone.stats at each threshold, cap and degenerate case, on both sides.

The thresholds of stats.py: the bootstrap p-value counts resampled means ``<= 0`` and ``>= 0``
(zero itself on both sides) and is capped at 1; Holm's adjusted p-values are capped at 1; a
sample with one value or all values equal, paired differences all equal or all zero, an empty
sample and ``n = 0`` are the degenerate cases; ``Interval.format`` prints a dash for ``n = 0`` or
a NaN estimate. Each expected number is an exact binomial probability (``scipy.stats.binom``), an
exact sign-flip count written out here, or plain arithmetic, never a value poetone computed.
"""

from __future__ import annotations

import math

import pytest
from scipy.stats import binom

from poetone.stats import Interval, bootstrap_ci, holm, paired_bootstrap, wilcoxon_p, wilson

# --- the bootstrap p-value: resampled means equal to zero count on both sides -------------------
#
# d = five +1 and three -1 (mean 1/4). A resample of the 8 items has K ~ Binomial(8, 5/8) copies of
# +1 and mean (2K - 8)/8, which is exactly 0 for K = 4 (probability 0.21). So the share of means
# <= 0 is P(K <= 4) and the two-sided p-value is 2·P(K <= 4) = 0.697; counting only means < 0
# would give 2·P(K <= 3) = 0.275. Monte Carlo error with 10,000 resamples: about 0.01.

P_AT_OR_BELOW_ZERO = 2 * binom.cdf(4, 8, 5 / 8)  # 0.6973
P_BELOW_ZERO = 2 * binom.cdf(3, 8, 5 / 8)  # 0.2748


def test_bootstrap_p_counts_means_at_zero_on_the_low_side() -> None:
    res = paired_bootstrap([1.0] * 5 + [-1.0] * 3, [0.0] * 8)
    assert res.p_bootstrap == pytest.approx(P_AT_OR_BELOW_ZERO, abs=0.03)
    assert abs(res.p_bootstrap - P_BELOW_ZERO) > 0.3
    assert res.mean_diff == 0.25 and res.n == 8


def test_bootstrap_p_counts_means_at_zero_on_the_high_side() -> None:
    # the mirror image: mean -1/4, the smaller tail is the share of means >= 0
    res = paired_bootstrap([-1.0] * 5 + [1.0] * 3, [0.0] * 8)
    assert res.p_bootstrap == pytest.approx(P_AT_OR_BELOW_ZERO, abs=0.03)
    assert res.mean_diff == -0.25


def test_bootstrap_p_is_capped_at_one() -> None:
    # d = (+1, -1): resampled means are -1, 0, 0, +1 with probabilities 1/4, 1/2, 1/4, so 3/4 of them
    # are <= 0 and 3/4 are >= 0; twice the smaller share is 1.5, reported as 1
    res = paired_bootstrap([1.0, -1.0], [0.0, 0.0])
    assert res.p_bootstrap == 1.0
    assert (res.low, res.high) == (-1.0, 1.0)


def test_bootstrap_p_just_below_the_cap() -> None:
    # the other side of the cap: d = 5 × +1, 3 × -1 above gives 0.70 < 1, kept as it is
    res = paired_bootstrap([1.0] * 5 + [-1.0] * 3, [0.0] * 8)
    assert 0.6 < res.p_bootstrap < 0.8


# --- paired differences all equal: no resampling ----------------------------------------------


def test_one_pair_is_a_degenerate_comparison() -> None:
    # one item: the difference is the whole sample; nonzero, so the bootstrap p is 0
    res = paired_bootstrap([1.5], [1.0])
    assert (res.mean_diff, res.low, res.high, res.p_bootstrap, res.n) == (0.5, 0.5, 0.5, 0.0, 1)
    # one nonzero difference: the exact signed-rank p is 2 · 1/2 = 1
    assert res.p_wilcoxon == 1.0


def test_one_pair_without_a_difference() -> None:
    res = paired_bootstrap([1.0], [1.0])
    assert (res.mean_diff, res.low, res.high, res.p_bootstrap, res.p_wilcoxon) == (0.0, 0.0, 0.0, 1.0, 1.0)


def test_equal_nonzero_differences_against_equal_zero_differences() -> None:
    shifted = paired_bootstrap([2.0, 3.0, 4.0], [1.0, 2.0, 3.0])
    assert (shifted.p_bootstrap, shifted.low, shifted.high) == (0.0, 1.0, 1.0)
    same = paired_bootstrap([2.0, 3.0, 4.0], [2.0, 3.0, 4.0])
    assert (same.p_bootstrap, same.low, same.high) == (1.0, 0.0, 0.0)


def test_empty_pairs_raise_with_the_documented_message() -> None:
    with pytest.raises(ValueError, match=r"^no paired items to compare$"):
        paired_bootstrap([], [])
    with pytest.raises(ValueError, match=r"^paired samples must have the same length, got 2 and 1$"):
        paired_bootstrap([0.1, 0.2], [0.1])


# --- Wilcoxon: every difference zero, against every difference one ------------------------------


def test_wilcoxon_every_difference_zero_is_one() -> None:
    assert wilcoxon_p([0.5, 0.25, 1.0], [0.5, 0.25, 1.0]) == 1.0


def test_wilcoxon_every_difference_one_is_tested() -> None:
    # six equal positive differences: of the 2^6 equally likely sign patterns only all-plus and
    # all-minus are as extreme, p = 2/64
    assert wilcoxon_p([2.0] * 6, [1.0] * 6) == pytest.approx(2 / 64, abs=1e-12)
    assert wilcoxon_p([1.0] * 6, [0.0] * 6) == pytest.approx(2 / 64, abs=1e-12)


def test_wilcoxon_drops_zero_differences() -> None:
    # d = 0, 1, 2, 3, -4, 5: the zero is dropped (zero_method="wilcox"), leaving ranks 1..5 with
    # W- = 4; subsets of {1..5} with sum <= 4: {}, {1}, {2}, {3}, {4}, {1,2}, {1,3} = 7 of 32,
    # two-sided 14/32. (Pratt's method, keeping the zero, gives 0.375.)
    assert wilcoxon_p([0, 1, 2, 3, -4, 5], [0] * 6) == pytest.approx(14 / 32, abs=1e-12)


def test_wilcoxon_tied_differences_by_hand() -> None:
    # five +1 and three -1, all |d| tied: W+ is set by the number K of plus signs, K ~ Bin(8, 1/2);
    # P(K >= 5) = (56 + 28 + 8 + 1)/256, two-sided 186/256
    assert wilcoxon_p([1.0] * 5 + [-1.0] * 3, [0.0] * 8) == pytest.approx(186 / 256, abs=1e-12)


# --- Holm: the cap at 1 on both sides -----------------------------------------------------------


def test_holm_below_the_cap() -> None:
    # 0.45 · 2 = 0.90, then 0.9 · 1 = 0.9
    assert holm([0.45, 0.9]) == pytest.approx([0.9, 0.9], abs=1e-12)


def test_holm_above_the_cap() -> None:
    # 0.55 · 2 = 1.10 -> 1; 0.9 · 1 = 0.9 < 1 -> kept monotone at 1
    assert holm([0.55, 0.9]) == [1.0, 1.0]
    # 0.6 · 2 = 1.2 and 0.7: both 1
    assert holm([0.7, 0.6]) == [1.0, 1.0]


def test_holm_exactly_at_the_cap() -> None:
    assert holm([0.5, 0.9]) == [1.0, 1.0]


# --- bootstrap_ci: one value, equal values, two distinct values, none -------------------------


def test_bootstrap_ci_two_distinct_values_is_resampled() -> None:
    # (0, 1): resampled means are 0, 1/2, 1 with probabilities 1/4, 1/2, 1/4, so the 2.5% and
    # 97.5% percentiles are 0 and 1
    assert bootstrap_ci([0.0, 1.0]) == Interval(0.5, 0.0, 1.0, 2)


def test_bootstrap_ci_equal_values_are_degenerate() -> None:
    assert bootstrap_ci([0.25, 0.25]) == Interval(0.25, 0.25, 0.25, 2)
    assert bootstrap_ci([2.0]) == Interval(2.0, 2.0, 2.0, 1)


def test_empty_intervals_are_nan_throughout() -> None:
    for iv in (bootstrap_ci([]), wilson(0, 0)):
        assert iv.n == 0
        assert math.isnan(iv.estimate) and math.isnan(iv.low) and math.isnan(iv.high)


# --- Interval.format: the dash for no data ----------------------------------------------------


def test_format_prints_three_digits_by_default() -> None:
    assert Interval(0.5, 0.25, 0.75, 4).format() == "0.500 [0.250, 0.750]"
    assert Interval(0.123456, 0.1, 0.2, 10).format(2) == "0.12 [0.10, 0.20]"


def test_format_of_one_observation_is_a_number() -> None:
    assert Interval(0.7, 0.7, 0.7, 1).format() == "0.700 [0.700, 0.700]"


def test_format_dashes_no_data_or_a_nan_estimate() -> None:
    nan = float("nan")
    assert Interval(nan, nan, nan, 0).format() == "–"
    assert Interval(0.5, 0.5, 0.5, 0).format() == "–"  # n = 0 alone
    assert Interval(nan, nan, nan, 5).format() == "–"  # a NaN estimate alone


def test_format_of_newcombes_first_example() -> None:
    # Newcombe (1998) Table I: 81/263 = 0.308, Wilson interval 0.2553 to 0.3662
    assert wilson(81, 263).format() == "0.308 [0.255, 0.366]"
