"""The statistics every poetone report uses: intervals, paired tests, multiple-comparison control.

One module so that the Songci report, the human evaluation and the BaZi report compute the same
thing the same way (the reporting discipline of the BaZi benchmark paper, arXiv 2610.05682):
a mean always comes with a 95% interval, comparisons of two systems are paired on the same
items, and the p-values of one report are Holm-corrected together. Deterministic given a seed.

The intervals and tests are ``scipy.stats``'s (``bootstrap``, ``binomtest``, ``wilcoxon``); this
module fixes their settings and the degenerate cases. Only Holm's correction is written here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True, slots=True)
class Interval:
    estimate: float
    low: float
    high: float
    n: int

    def format(self, digits: int = 3) -> str:
        if self.n == 0 or math.isnan(self.estimate):
            return "–"
        return f"{self.estimate:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def bootstrap_ci(values: Sequence[float], n_boot: int = 10_000, level: float = 0.95, seed: int = 0) -> Interval:
    """Percentile bootstrap interval of the mean, resampling items (prompts): ``scipy.stats.bootstrap``.

    A single value, or values that are all equal, have a degenerate interval at the mean, given
    at once (scipy needs two observations, and would resample a constant sample for nothing).
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0)
    mean = float(x.mean())
    if x.size == 1 or np.all(x == x[0]):
        return Interval(mean, mean, mean, int(x.size))
    result = _bootstrap_mean(x, n_boot, level, seed)
    ci = result.confidence_interval
    return Interval(mean, float(ci.low), float(ci.high), int(x.size))


def _bootstrap_mean(x: np.ndarray, n_boot: int, level: float, seed: int) -> Any:
    """``scipy.stats.bootstrap`` of the mean, percentile method, seeded: the one call every interval uses."""
    from scipy.stats import bootstrap

    return bootstrap(
        (x,),
        np.mean,
        n_resamples=n_boot,
        confidence_level=level,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(seed),
    )


@dataclass(frozen=True, slots=True)
class PairedComparison:
    mean_diff: float
    low: float
    high: float
    p_bootstrap: float
    p_wilcoxon: float
    n: int


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], n_boot: int = 10_000, level: float = 0.95, seed: int = 0
) -> PairedComparison:
    """Mean of a − b over paired items with a bootstrap interval and two-sided p-value, plus the
    Wilcoxon signed-rank p-value (1.0 when every difference is zero)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples must have the same length, got {x.size} and {y.size}")
    if x.size == 0:
        raise ValueError("no paired items to compare")
    d = x - y
    mean = float(d.mean())
    if np.all(d == d[0]):
        p_boot = 1.0 if d[0] == 0 else 0.0
        low = high = mean
    else:
        result = _bootstrap_mean(d, n_boot, level, seed)
        low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
        # scipy gives the interval, not a p-value: read the two-sided p off its bootstrap distribution,
        # how often the resampled mean falls on the other side of zero (with +1 smoothing)
        means = result.bootstrap_distribution
        p_boot = min(1.0, 2 * min((np.sum(means <= 0) + 1) / (n_boot + 1), (np.sum(means >= 0) + 1) / (n_boot + 1)))
    return PairedComparison(mean, low, high, float(p_boot), wilcoxon_p(x, y), int(d.size))


def wilcoxon_p(a: Sequence[float], b: Sequence[float]) -> float:
    from scipy.stats import wilcoxon

    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if not np.any(d != 0):
        return 1.0
    return float(wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the input order.

    Hand-written: scipy adjusts only for the false discovery rate (``false_discovery_control``:
    Benjamini–Hochberg/Yekutieli), not the family-wise error, and statsmodels' ``multipletests``
    would pull in a large dependency for these six lines.
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def wilson(successes: int, n: int, level: float = 0.95) -> Interval:
    """Wilson score interval of a proportion: ``scipy.stats.binomtest(...).proportion_ci``."""
    if n == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0)
    from scipy.stats import binomtest

    ci = binomtest(successes, n).proportion_ci(confidence_level=level, method="wilson")
    return Interval(successes / n, float(ci.low), float(ci.high), n)


def binomial_test_p(successes: int, n: int, p: float = 0.5) -> float:
    """Two-sided exact binomial test."""
    from scipy.stats import binomtest

    return float(binomtest(successes, n, p).pvalue) if n else 1.0


def mcnemar_p(only_a: int, only_b: int) -> float:
    """Exact McNemar test on the discordant pairs (a right and b wrong, and the reverse)."""
    n = only_a + only_b
    return binomial_test_p(only_a, n, 0.5) if n else 1.0
