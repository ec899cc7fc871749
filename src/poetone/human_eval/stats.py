"""The statistics of a poetic Turing test.

Per model: how often annotators picked the human poem (a Wilson interval and a two-sided exact
binomial test against 50%, the rate at which a model is indistinguishable from the Song poets;
p-values Holm-corrected across models), the mean confidence and the mean stage-2 ratings with
bootstrap intervals. Agreement between annotators is Krippendorff's alpha over the pairs that two
or more annotators answered: nominal for the stage-1 choice (human poem picked or not: sides are
randomised per annotator, so the side itself is not comparable), interval and ordinal for the
1–5 ratings. Intervals and tests come from ``poetone.stats`` so every poetone report agrees.

The bootstrap resamples answers; answers by one annotator or on one pair are not independent, so
with few annotators the intervals are optimistic. Read them with the agreement figures.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from poetone.stats import Interval, binomial_test_p, bootstrap_ci, holm, wilson

METRICS = ("nominal", "ordinal", "interval", "ratio")
RATINGS = ("faithfulness", "artistry", "overall")
RATING_LABELS = {"faithfulness": "主题契合度", "artistry": "艺术性", "overall": "整体质量"}


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def krippendorff_alpha(reliability_data: Sequence[Sequence[Any]], metric: str = "nominal") -> float:
    """Krippendorff's alpha of a reliability matrix: one row per coder, one column per unit,
    ``None`` (or NaN) where a coder did not code a unit. Units coded by fewer than two coders are
    not pairable and are left out. NaN when nothing is pairable or no value varies (alpha is then
    undefined). Computed by the ``krippendorff`` package (Krippendorff 2011, "Computing
    Krippendorff's Alpha-Reliability"); this function adds the checks and the NaN cases."""
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    rows = [list(r) for r in reliability_data]
    if not rows:
        return float("nan")
    width = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != width:
            raise ValueError(f"coder row {i} has {len(r)} units, row 0 has {width}")
    units = [[r[u] for r in rows if not _missing(r[u])] for u in range(width)]
    return _alpha(units, metric)


def _alpha(units: Iterable[Sequence[Hashable]], metric: str) -> float:
    """Alpha over units given as their lists of values (coders unnamed), through the ``krippendorff``
    package's value-count form. Only the pairable units and the values they hold are passed on:
    the package raises where alpha is undefined (one value, nothing pairable), poetone says NaN."""
    import krippendorff

    units = [list(u) for u in units if len(u) >= 2]
    if not units:
        return float("nan")
    values = sorted({v for u in units for v in u})
    if metric != "nominal":
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise ValueError(f"{metric} alpha needs numeric values, got {v!r}")
    if len(values) < 2:
        return float("nan")
    index = {v: i for i, v in enumerate(values)}
    counts = np.zeros((len(units), len(values)), dtype=int)
    for row, u in zip(counts, units):
        for v in u:
            row[index[v]] += 1
    domain = np.arange(len(values)) if metric == "nominal" else np.asarray(values, dtype=float)
    return float(krippendorff.alpha(value_counts=counts, value_domain=domain, level_of_measurement=metric))


def _interval(iv: Interval) -> dict[str, Any]:
    def num(x: float) -> float | None:
        return None if math.isnan(x) else round(x, 6)

    return {"mean": num(iv.estimate), "low": num(iv.low), "high": num(iv.high), "n": iv.n}


def _group(rows: Sequence[Mapping[str, Any]], n_boot: int, seed: int) -> dict[str, Any]:
    n = len(rows)
    identified = sum(int(r["identified_human"]) for r in rows)
    rate = wilson(identified, n)
    out: dict[str, Any] = {
        "answers": n,
        "identified": identified,
        "rate": _interval(rate),
        "p": binomial_test_p(identified, n, 0.5) if n else None,
        "confidence": _interval(bootstrap_ci([r["confidence"] for r in rows], n_boot=n_boot, seed=seed)),
        "rated": sum(r.get("overall") is not None for r in rows),
    }
    for name in RATINGS:
        values = [r[name] for r in rows if r.get(name) is not None]
        out[name] = _interval(bootstrap_ci(values, n_boot=n_boot, seed=seed))
    return out


def agreement(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Krippendorff's alpha of the stage-1 choice (nominal) and of each rating (interval, ordinal),
    with the pairs coded by two or more annotators as units."""
    by_pair: dict[str, dict[str, Mapping[str, Any]]] = defaultdict(dict)
    for r in rows:
        by_pair[r["pair_id"]][r["annotator"]] = r

    def units(field: str) -> list[list[Any]]:
        return [[r[field] for r in coders.values() if r.get(field) is not None] for coders in by_pair.values()]

    def num(x: float) -> float | None:
        return None if math.isnan(x) else round(x, 6)

    choice = units("identified_human")
    out: dict[str, Any] = {
        "identified_human": {
            "nominal": num(_alpha(choice, "nominal")),
            "units": sum(len(u) >= 2 for u in choice),
        }
    }
    for name in RATINGS:
        u = units(name)
        out[name] = {
            "interval": num(_alpha(u, "interval")),
            "ordinal": num(_alpha(u, "ordinal")),
            "units": sum(len(x) >= 2 for x in u),
        }
    return out


def study_stats(rows: Sequence[Mapping[str, Any]], n_boot: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """The report of a study from its answer rows (``Database.answers()``)."""
    by_model: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        by_model[r["model"]].append(r)
    models = [{"model": m, **_group(rs, n_boot, seed)} for m, rs in sorted(by_model.items())]
    adjusted = holm([m["p"] for m in models]) if models else []
    for m, p in zip(models, adjusted):
        m["p_holm"] = p
    return {
        "annotators": len({r["annotator"] for r in rows}),
        "pairs": len({r["pair_id"] for r in rows}),
        "answers": len(rows),
        "models": models,
        "all": _group(rows, n_boot, seed),
        "agreement": agreement(rows),
    }


def _fmt(iv: Mapping[str, Any]) -> str:
    if not iv["n"] or iv["mean"] is None:
        return "–"
    return f"{iv['mean']:.2f} [{iv['low']:.2f}, {iv['high']:.2f}]"


def _fmt_alpha(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def format_report(report: Mapping[str, Any]) -> str:
    """The report as plain text tables."""
    lines = [
        f"{report['answers']} answers by {report['annotators']} annotators on {report['pairs']} pairs",
        "",
        "Human poem identified (50% = the model passes as human):",
        f"  {'model':<28} {'n':>4}  {'rate [95% Wilson]':<22} {'p (vs 50%)':>10} {'p (Holm)':>9}",
    ]
    for m in report["models"]:
        lines.append(f"  {m['model']:<28} {m['answers']:>4}  {_fmt(m['rate']):<22} {m['p']:>10.4f} {m['p_holm']:>9.4f}")
    a = report["all"]
    if a["answers"]:
        lines.append(f"  {'(all models)':<28} {a['answers']:>4}  {_fmt(a['rate']):<22} {a['p']:>10.4f}")
    lines += ["", "Mean confidence and ratings of the generated poem, 1–5 [95% bootstrap]:"]
    header = f"  {'model':<28} {'confidence':<18}" + "".join(f" {RATING_LABELS[r] + ' ' + r:<24}" for r in RATINGS)
    lines.append(header)
    for m in [*report["models"], {"model": "(all models)", **a}]:
        if not m["answers"]:
            continue
        lines.append(f"  {m['model']:<28} {_fmt(m['confidence']):<18}" + "".join(f" {_fmt(m[r]):<24}" for r in RATINGS))
    ag = report["agreement"]
    lines += ["", "Agreement (Krippendorff's alpha; units = pairs answered by 2+ annotators):"]
    lines.append(
        f"  stage 1 choice   nominal {_fmt_alpha(ag['identified_human']['nominal'])}  ({ag['identified_human']['units']} units)"
    )
    for r in RATINGS:
        g = ag[r]
        lines.append(
            f"  {r:<16} interval {_fmt_alpha(g['interval'])}  ordinal {_fmt_alpha(g['ordinal'])}  ({g['units']} units)"
        )
    return "\n".join(lines)
