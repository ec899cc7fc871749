"""The statistics every poetone report uses: intervals, paired tests, multiple-comparison control.

One module so that the Songci report, the human evaluation and the BaZi report compute the same
thing the same way (the reporting discipline of the BaZi benchmark paper, arXiv 2610.05682):
a mean always comes with a 95% interval, comparisons of two systems are paired on the same
items, and the p-values of one report are Holm-corrected together. Deterministic given a seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054


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
    """Percentile bootstrap interval of the mean, resampling items (prompts)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0)
    mean = float(x.mean())
    if x.size == 1 or np.all(x == x[0]):
        return Interval(mean, mean, mean, int(x.size))
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(n_boot, x.size))].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return Interval(mean, float(low), float(high), int(x.size))


@dataclass(frozen=True, slots=True)
class PairedComparison:
    mean_diff: float
    low: float
    high: float
    p_bootstrap: float
    p_wilcoxon: float
    n: int


def paired_bootstrap(a: Sequence[float], b: Sequence[float], n_boot: int = 10_000, level: float = 0.95, seed: int = 0) -> PairedComparison:
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
        rng = np.random.default_rng(seed)
        means = d[rng.integers(0, d.size, size=(n_boot, d.size))].mean(axis=1)
        alpha = (1 - level) / 2
        low, high = (float(v) for v in np.quantile(means, [alpha, 1 - alpha]))
        # two-sided: how often the resampled mean falls on the other side of zero (with +1 smoothing)
        p_boot = min(1.0, 2 * min((np.sum(means <= 0) + 1) / (n_boot + 1), (np.sum(means >= 0) + 1) / (n_boot + 1)))
    return PairedComparison(mean, low, high, float(p_boot), wilcoxon_p(x, y), int(d.size))


def wilcoxon_p(a: Sequence[float], b: Sequence[float]) -> float:
    from scipy.stats import wilcoxon

    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if not np.any(d != 0):
        return 1.0
    return float(wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the input order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def wilson(successes: int, n: int, level: float = 0.95) -> Interval:
    """Wilson score interval of a proportion."""
    if n == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0)
    z = Z95 if level == 0.95 else _z(level)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), n)


def binomial_test_p(successes: int, n: int, p: float = 0.5) -> float:
    """Two-sided exact binomial test."""
    from scipy.stats import binomtest

    return float(binomtest(successes, n, p).pvalue) if n else 1.0


def mcnemar_p(only_a: int, only_b: int) -> float:
    """Exact McNemar test on the discordant pairs (a right and b wrong, and the reverse)."""
    n = only_a + only_b
    return binomial_test_p(only_a, n, 0.5) if n else 1.0


def _z(level: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(1 - (1 - level) / 2))
