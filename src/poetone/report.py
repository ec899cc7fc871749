"""``poetone report``: the paper's tables and figures from Inspect logs and lm-eval outputs.

Reporting discipline after the BaZi benchmark paper (arXiv 2610.05682): every mean over prompts
comes with a 95% bootstrap interval; invalid outputs are counted as 0 and their rate is shown;
two runs are compared on the same prompts only (paired bootstrap and Wilcoxon signed-rank),
with all the p-values of one report Holm-corrected together; and every report carries a record
of exactly what was run. A file that cannot be read is named and the rest are still reported.
"""

from __future__ import annotations

import csv
import html
import itertools
import json
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from statistics import fmean
from typing import Any

from poetone import corpus, judge, prompts
from poetone._hash import short_sha256
from poetone.logs import Candidate, RunInfo, log_files, read_runs
from poetone.stats import Interval, bootstrap_ci, holm, paired_bootstrap

COMPONENTS = ("conformity", "structure", "tonal", "rhyme")
JUDGE_KEYS = tuple(key for key, _ in judge.DIMENSIONS)
INVALID_POLICY = (
    "An output with no extractable poem (empty, prose, refusal, unparseable) scores 0 on every component and counts "
    "in the invalid rate; a completion 下阕 that reuses at least half of the poet's own scores 0 and counts as copied. "
    "No output is dropped. Epochs of one prompt are averaged (avg) or maximised (best) before the mean over prompts. "
    "Judge dimensions are averaged over valid judgments only; invalid judgments are counted."
)


@dataclass
class Table:
    name: str
    title: str
    columns: list[str]
    rows: list[dict[str, Any]]
    note: str = ""


@dataclass
class Report:
    tables: list[Table]
    figures: list[Path]
    record: dict[str, Any]
    errors: list[str] = field(default_factory=list)


@dataclass
class _Prompt:
    """One prompt of one run, its epochs reduced."""

    model: str
    strategy: str
    prompt_id: str
    cipai: str
    theme: str
    epochs: int
    avg: dict[str, float]
    best: float
    invalid: float
    copied: float | None
    judge: dict[str, float | None]
    invalid_judgments: float
    band: str = ""  # the long-tail track's frequency band (poetone.longtail)


def cipai_resource_hash() -> str:
    """SHA-256 (12 hex digits) of the cipai resource shipped with this poetone."""
    folder = resources.files("poetone") / "cipai"
    files = sorted((p for p in folder.iterdir() if p.name.endswith(".json")), key=lambda p: p.name)
    return short_sha256(*(part for f in files for part in (f.name, f.read_bytes())))


def _reduce(candidates: list[Candidate]) -> list[_Prompt]:
    groups: dict[tuple[str, str, str], list[Candidate]] = defaultdict(list)
    for c in candidates:
        groups[(c.model, c.strategy, c.prompt_id)].append(c)
    out = []
    for (model, strategy, prompt_id), group in groups.items():
        judged: dict[str, list[float]] = defaultdict(list)
        invalid_judgments = 0.0
        for c in group:
            j = c.extra.get("judge")
            if j:
                invalid_judgments += j.get("invalid_judgments", 0.0)
                for k in JUDGE_KEYS:
                    v = j.get(k)
                    if v is not None and not math.isnan(v):
                        judged[k].append(v)
        out.append(
            _Prompt(
                model=model,
                strategy=strategy,
                prompt_id=prompt_id,
                cipai=group[0].cipai,
                theme=group[0].theme,
                epochs=len(group),
                avg={k: fmean(getattr(c, k) for c in group) for k in COMPONENTS},
                best=max(c.conformity for c in group),
                invalid=fmean(0.0 if c.valid else 1.0 for c in group),
                copied=fmean(1.0 if c.copied else 0.0 for c in group) if strategy == "completion" else None,
                judge={k: (fmean(judged[k]) if judged[k] else None) for k in JUDGE_KEYS},
                invalid_judgments=invalid_judgments,
                band=str(group[0].extra.get("band") or ""),
            )
        )
    return out


def _ci(values: Sequence[float], n_boot: int, seed: int) -> Interval:
    return bootstrap_ci(values, n_boot=n_boot, seed=seed)


def _cell(iv: Interval) -> dict[str, float]:
    return {"mean": iv.estimate, "low": iv.low, "high": iv.high}


def _group(items: list[_Prompt], key: Callable[[_Prompt], tuple[str, ...]]) -> dict[tuple[str, ...], list[_Prompt]]:
    out: dict[tuple[str, ...], list[_Prompt]] = defaultdict(list)
    for p in items:
        out[key(p)].append(p)
    return dict(sorted(out.items(), key=lambda kv: tuple(_order(x) for x in kv[0])))


def _order(value: str) -> tuple[int, str]:
    """Strategies, cipai and themes in their canonical order; anything else alphabetically."""
    for seq in (prompts.STRATEGIES, corpus.CIPAI, tuple(corpus.THEMES)):
        if value in seq:
            return (list(seq).index(value), value)
    return (10_000, value)


def main_tables(items: list[_Prompt], n_boot: int, seed: int, profile: str = "default") -> list[Table]:
    by_run = _group(items, lambda p: (p.model, p.strategy))
    main, components, judge_rows = [], [], []
    for (model, strategy), ps in by_run.items():
        epochs = max(p.epochs for p in ps)
        row: dict[str, Any] = {"model": model, "strategy": strategy, "prompts": len(ps), "epochs": epochs}
        row["conformity_avg"] = _cell(_ci([p.avg["conformity"] for p in ps], n_boot, seed))
        row["conformity_best"] = _cell(_ci([p.best for p in ps], n_boot, seed)) if epochs > 1 else None
        row["invalid_rate"] = _cell(_ci([p.invalid for p in ps], n_boot, seed))
        copies = [p.copied for p in ps if p.copied is not None]
        row["copy_rate"] = _cell(_ci(copies, n_boot, seed)) if copies else None
        main.append(row)
        comp = {"model": model, "strategy": strategy, "prompts": len(ps)}
        for k in ("structure", "tonal", "rhyme"):
            comp[k] = _cell(_ci([p.avg[k] for p in ps], n_boot, seed))
        components.append(comp)
        if any(any(v is not None for v in p.judge.values()) or p.invalid_judgments for p in ps):
            jrow: dict[str, Any] = {"model": model, "strategy": strategy}
            for k in JUDGE_KEYS:
                values = [p.judge[k] for p in ps if p.judge[k] is not None]
                jrow[k] = _cell(_ci(values, n_boot, seed)) if values else None
            jrow["judged"] = sum(1 for p in ps if p.judge["fluency"] is not None)
            jrow["invalid_judgments"] = int(sum(p.invalid_judgments for p in ps))
            judge_rows.append(jrow)
    main.append(chance_row(items, profile, n_boot, seed))
    tables = [
        Table("main", "Conformity by model and strategy (Table 1)", ["model", "strategy", "prompts", "epochs", "conformity_avg", "conformity_best", "invalid_rate", "copy_rate"], main,
              "avg: epochs averaged per prompt; best: the best epoch per prompt (best-of-N). 95% bootstrap intervals over prompts. "
              "The chance row is the score of random characters (drawn by their frequency in the corpus) in each prompt's cipai "
              "shape, its epochs column the texts per cipai: the floor a number must clear to mean the form was kept."),
        Table("components", "Structure, tonal and rhyme components", ["model", "strategy", "prompts", "structure", "tonal", "rhyme"], components),
    ]
    for dim, title in (("cipai", "Conformity by cipai"), ("theme", "Conformity by theme")):
        rows = []
        for (model, name), ps in _group(items, lambda p, d=dim: (p.model, getattr(p, d))).items():
            rows.append({"model": model, dim: name, "prompts": len(ps), "conformity": _cell(_ci([p.avg["conformity"] for p in ps], n_boot, seed))})
        tables.append(Table(f"by_{dim}", title + " (all strategies pooled)", ["model", dim, "prompts", "conformity"], rows))
    banded = [p for p in items if p.band]
    if banded:
        from poetone.longtail import BANDS

        rows = []
        for (model, band), ps in sorted(_group(banded, lambda p: (p.model, p.band)).items(), key=lambda kv: (kv[0][0], BANDS.index(kv[0][1]) if kv[0][1] in BANDS else 99)):
            rows.append({"model": model, "band": band, "prompts": len(ps), "conformity": _cell(_ci([p.avg["conformity"] for p in ps], n_boot, seed))})
        tables.append(Table("by_band", "Long-tail track: conformity by frequency band of the 全宋词", ["model", "band", "prompts", "conformity"], rows,
                            "Bands are ranks of the tunes by their poems in the dev 全宋词 (docs/longtail.md): where a model's knowledge of the forms ends."))
    if judge_rows:
        tables.append(
            Table("judge", "LLM judge: fluency 流畅, coherence 连贯, 意境 (Table 2)", ["model", "strategy", *JUDGE_KEYS, "judged", "invalid_judgments"], judge_rows,
                  f"1–5, the mean over graders with a valid judgment; invalid judgments are counted, not averaged. Rubric {judge.RUBRIC_VERSION}."),
        )
    return tables


def chance_row(items: list[_Prompt], profile: str, n_boot: int, seed: int, per_cipai: int = 200) -> dict[str, Any]:
    """The reference row: what random characters in the form score, over this report's prompts.

    Each prompt counts the chance level of its cipai (random characters drawn by their frequency
    in the corpus, in the 正体's exact shape, ``per_cipai`` texts, seeded), so a published mean can
    be read against the floor the formula gives text that is no poem.
    """
    from poetone.critic import Critic
    from poetone.validation import chance_level_of

    critic = Critic(profile=profile)
    prompts = {p.prompt_id: p.cipai for p in items}
    level = {name: chance_level_of(critic, name, per_cipai, seed) for name in set(prompts.values()) if name in critic.registry}
    values = [level[c] for c in prompts.values() if c in level]
    return {
        "model": "(chance: random characters in the form)",
        "strategy": "-",
        "prompts": len(values),
        "epochs": per_cipai,
        "conformity_avg": _cell(_ci(values, n_boot, seed)) if values else None,
        "conformity_best": None,
        "invalid_rate": None,
        "copy_rate": None,
    }


def comparisons(items: list[_Prompt], n_boot: int, seed: int) -> Table:
    """Every pair of models on each strategy, and every pair of strategies within each model
    (paired by cipai × theme cell); Holm across all of them."""
    rows: list[dict[str, Any]] = []
    by_run = _group(items, lambda p: (p.model, p.strategy))
    strategies = sorted({s for _, s in by_run}, key=_order)
    models = sorted({m for m, _ in by_run})

    def compare(kind: str, within: str, a: str, b: str, pa: list[_Prompt], pb: list[_Prompt], key: Callable[[_Prompt], str]) -> None:
        va = {key(p): p.avg["conformity"] for p in pa}
        vb = {key(p): p.avg["conformity"] for p in pb}
        common = sorted(set(va) & set(vb))
        if len(common) < 2:
            return
        result = paired_bootstrap([va[k] for k in common], [vb[k] for k in common], n_boot=n_boot, seed=seed)
        rows.append(
            {"comparison": kind, "within": within, "a": a, "b": b, "pairs": result.n,
             "difference": {"mean": result.mean_diff, "low": result.low, "high": result.high},
             "p_bootstrap": result.p_bootstrap, "p_wilcoxon": result.p_wilcoxon}
        )

    for strategy in strategies:
        for a, b in itertools.combinations([m for m in models if (m, strategy) in by_run], 2):
            compare("models", strategy, a, b, by_run[(a, strategy)], by_run[(b, strategy)], lambda p: p.prompt_id)
    for model in models:
        for a, b in itertools.combinations([s for s in strategies if (model, s) in by_run], 2):
            compare("strategies", model, a, b, by_run[(model, a)], by_run[(model, b)], lambda p: p.prompt_id.split("-", 1)[-1])
    for column in ("p_bootstrap", "p_wilcoxon"):
        for row, adjusted in zip(rows, holm([r[column] for r in rows])):
            row[column + "_holm"] = adjusted
    return Table(
        "comparisons",
        "Paired comparisons of conformity (a − b)",
        ["comparison", "within", "a", "b", "pairs", "difference", "p_bootstrap", "p_bootstrap_holm", "p_wilcoxon", "p_wilcoxon_holm"],
        rows,
        f"Paired on the same prompts (strategies: on the same cipai × theme cell). Holm-corrected across all {len(rows)} comparisons of this report.",
    )


# ---------------------------------------------------------------------------- rendering


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, dict) and "mean" in value:
        if value["mean"] is None or math.isnan(value["mean"]):
            return "–"
        return f"{value['mean']:.3f} [{value['low']:.3f}, {value['high']:.3f}]"
    if isinstance(value, float):
        return f"{value:.4f}" if value >= 0.0001 or value == 0 else f"{value:.2e}"
    return str(value)


def to_markdown(report: Report) -> str:
    out = ["# poetone report", ""]
    for fig in report.figures:
        out += [f"![{fig.stem}]({fig.name})", ""]
    for t in report.tables:
        out += [f"## {t.title}", ""]
        if t.note:
            out += [t.note, ""]
        if not t.rows:
            out += ["(no rows)", ""]
            continue
        out.append("| " + " | ".join(t.columns) + " |")
        out.append("|" + "---|" * len(t.columns))
        for row in t.rows:
            out.append("| " + " | ".join(_fmt(row.get(c)) for c in t.columns) + " |")
        out.append("")
    out += ["## Reporting record", "", "```json", json.dumps(report.record, ensure_ascii=False, indent=2), "```", ""]
    return "\n".join(out)


def to_html(report: Report) -> str:
    parts = [
        "<!doctype html><html lang='zh'><head><meta charset='utf-8'><title>poetone report</title>",
        "<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}th{background:#f4f4f4}img{max-width:100%}"
        "pre{background:#f8f8f8;padding:1em;overflow:auto}</style></head><body><h1>poetone report</h1>",
    ]
    for fig in report.figures:
        parts.append(f"<p><img src='{html.escape(fig.name)}' alt='{html.escape(fig.stem)}'></p>")
    for t in report.tables:
        parts.append(f"<h2>{html.escape(t.title)}</h2>")
        if t.note:
            parts.append(f"<p>{html.escape(t.note)}</p>")
        parts.append("<table><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in t.columns) + "</tr>")
        for row in t.rows:
            parts.append("<tr>" + "".join(f"<td>{html.escape(_fmt(row.get(c)))}</td>" for c in t.columns) + "</tr>")
        parts.append("</table>")
    parts.append("<h2>Reporting record</h2><pre>" + html.escape(json.dumps(report.record, ensure_ascii=False, indent=2)) + "</pre></body></html>")
    return "\n".join(parts)


def write_csv(table: Table, path: Path) -> None:
    """Numbers unformatted: an interval becomes three columns (``x``, ``x_low``, ``x_high``)."""
    header: list[str] = []
    for c in table.columns:
        sample = next((r.get(c) for r in table.rows if r.get(c) is not None), None)
        header += [c, f"{c}_low", f"{c}_high"] if isinstance(sample, dict) else [c]
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        for row in table.rows:
            line: list[Any] = []
            for c in table.columns:
                sample = next((r.get(c) for r in table.rows if r.get(c) is not None), None)
                v = row.get(c)
                if isinstance(sample, dict):
                    line += [v["mean"], v["low"], v["high"]] if v else ["", "", ""]
                else:
                    line.append("" if v is None else v)
            writer.writerow(line)


# ---------------------------------------------------------------------------- figures


def _matplotlib() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import font_manager

    cjk = [f.name for f in font_manager.fontManager.ttflist if any(k in f.name for k in ("Noto Sans CJK", "Noto Serif CJK", "WenQuanYi", "Source Han", "SimHei", "AR PL"))]
    if cjk:
        plt.rcParams["font.sans-serif"] = [cjk[0], *plt.rcParams["font.sans-serif"]]
    plt.rcParams["axes.unicode_minus"] = False
    return plt, bool(cjk)


def heatmap(items: list[_Prompt], path: Path) -> Path:
    """Conformity by cipai × model (× strategy when there is one model), every cell annotated."""
    plt, cjk = _matplotlib()
    models = sorted({p.model for p in items})
    if len(models) > 1:
        columns, col_of = models, (lambda p: p.model)
        xlabel = "model"
    else:
        columns = sorted({p.strategy for p in items}, key=_order)
        col_of, xlabel = (lambda p: p.strategy), f"strategy ({models[0]})"
    cipai = sorted({p.cipai for p in items}, key=_order)
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    for p in items:
        cells[(p.cipai, col_of(p))].append(p.avg["conformity"])
    grid = [[fmean(cells[(c, m)]) if cells[(c, m)] else float("nan") for m in columns] for c in cipai]
    labels = cipai if cjk else [corpus.SLUGS.get(c, c) for c in cipai]
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(columns), 0.9 + 0.38 * len(cipai)))
    im = ax.imshow(grid, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(columns)), [str(c) for c in columns], rotation=30, ha="right")
    ax.set_yticks(range(len(cipai)), labels)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if not math.isnan(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", color="white" if v < 0.6 else "black", fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title("Formal conformity by cipai")
    fig.colorbar(im, ax=ax, fraction=0.04)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def component_bars(items: list[_Prompt], path: Path) -> Path:
    """Structure, tonal, rhyme and conformity per run, with 95% bootstrap intervals as error bars."""
    plt, _ = _matplotlib()
    runs = _group(items, lambda p: (p.model, p.strategy))
    names = [f"{m}\n{s}" for m, s in runs]
    keys = ("structure", "tonal", "rhyme", "conformity")
    width = 0.8 / len(keys)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(names) + 2), 4.2))
    for k_i, key in enumerate(keys):
        means, lows, highs = [], [], []
        for ps in runs.values():
            iv = bootstrap_ci([p.avg[key] for p in ps], n_boot=2000, seed=0)
            means.append(iv.estimate)
            lows.append(iv.estimate - iv.low)
            highs.append(iv.high - iv.estimate)
        xs = [i + (k_i - 1.5) * width for i in range(len(names))]
        ax.bar(xs, means, width, yerr=[lows, highs], capsize=2, label=key)
    ax.set_xticks(range(len(names)), names, fontsize=8)
    ax.set_ylim(0, 1.2)
    ax.set_ylabel("score")
    ax.set_title("Components of the formal conformity score (95% bootstrap CI)")
    ax.legend(ncol=4, fontsize=8, loc="upper center", frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


# ---------------------------------------------------------------------------- the report


def reporting_record(runs: list[RunInfo], candidates: list[Candidate], errors: list[str], n_boot: int, seed: int) -> dict[str, Any]:
    from poetone import __version__

    return {
        "poetone_version": __version__,
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "cipai_resource_hash": cipai_resource_hash(),
        "prompt_version_current": prompts.PROMPT_VERSION,
        "prompt_hash_current": prompts.prompt_hash(),
        "prompt_hashes_in_logs": sorted({c.prompt_hash for c in candidates if c.prompt_hash}),
        "rubric_version": judge.RUBRIC_VERSION,
        "rubric_hash": judge.rubric_hash(),
        "critic_profiles": sorted({r.profile for r in runs}),
        "invalid_outputs": INVALID_POLICY,
        "intervals": f"95% percentile bootstrap over prompts, {n_boot} resamples, seed {seed}",
        "tests": "paired bootstrap (two-sided) and Wilcoxon signed-rank; Holm across all comparisons of this report",
        "runs": [
            {"source": r.source, "framework": r.framework, "model": r.model, "task": r.task, "created": r.created, "prompts": r.samples,
             "epochs": r.epochs, "generation": r.generation, "profile": r.profile, "prompt_hashes": r.prompt_hashes, "versions": r.versions}
            for r in runs
        ],
        "candidates": len(candidates),
        "skipped_files": errors,
    }


def _is_calibration(path: Path) -> bool:
    if path.suffix not in (".eval", ".json"):
        return False
    from inspect_ai.log import read_eval_log

    try:
        return read_eval_log(str(path), header_only=True).eval.task.endswith("judge_calibration")
    except Exception:  # unreadable: read_runs names it
        return False


def calibration_table(files: list[Path], errors: list[str] | None = None) -> Table:
    """Per judge, degradation and dimension: how often the authentic poem was rated higher, and
    whether the judge can be trusted there (Wilson 95% lower bound above one half)."""
    from inspect_ai.log import read_eval_log

    from poetone.stats import wilson

    rows = []
    for path in files:
        try:
            log = read_eval_log(str(path))
        except Exception as exc:  # the header read, the samples torn: this file only
            if errors is None:
                raise
            errors.append(f"{path}: not a readable Inspect log ({type(exc).__name__}: {str(exc)[:200]})")
            continue
        roles = log.eval.model_roles or {}
        judge_model = str(getattr(roles.get("grader"), "model", "") or log.eval.model)
        by_kind: dict[str, list[dict[str, float]]] = defaultdict(list)
        for sample in log.samples or []:
            score = (sample.scores or {}).get("prefers_authentic")
            if score is not None and isinstance(score.value, dict):
                by_kind[(sample.metadata or {}).get("degradation", "?")].append(score.value)
        for kind, values in sorted(by_kind.items()):
            for key in JUDGE_KEYS:
                judged = [v[key] for v in values if not math.isnan(v[key])]
                iv = wilson(int(sum(judged)), len(judged))
                trusted = len(judged) > 0 and iv.low > 0.5
                rows.append(
                    {"judge": judge_model, "degradation": kind, "dimension": key, "pairs": len(judged),
                     "authentic_higher": {"mean": iv.estimate, "low": iv.low, "high": iv.high},
                     "invalid_judgments": int(sum(v["invalid_judgments"] for v in values)),
                     "verdict": "trusted" if trusted else "NOT TRUSTED: cannot tell the authentic poem from the damaged copy"}
                )
    return Table(
        "judge_calibration", "Judge calibration: authentic poems against degraded copies",
        ["judge", "degradation", "dimension", "pairs", "authentic_higher", "invalid_judgments", "verdict"], rows,
        "Rate at which the judge rates the authentic poem strictly higher (ties count as not higher), 95% Wilson interval. "
        "A dimension is trusted only if the interval's lower bound is above 0.5; report no judge scores on an untrusted one.",
    )


def build_report(paths: Sequence[str | Path], out: str | Path, n_boot: int = 10_000, seed: int = 0) -> Report:
    existing = [p for p in paths if Path(p).exists()]
    files = log_files(existing)
    calibration = [f for f in files if _is_calibration(f)]
    others = [f for f in files if f not in calibration] + [p for p in paths if not Path(p).exists()]
    candidates, runs, errors = read_runs(others) if others else ([], [], [])
    if calibration and not candidates:
        target = Path(out)
        target.mkdir(parents=True, exist_ok=True)
        table = calibration_table(calibration, errors)
        report = Report([table], [], {"calibration_logs": [str(f) for f in calibration], "skipped_files": errors}, errors)
        (target / "report.md").write_text(to_markdown(report), encoding="utf-8")
        (target / "report.html").write_text(to_html(report), encoding="utf-8")
        write_csv(table, target / f"{table.name}.csv")
        return report
    if not candidates:
        detail = "; ".join(errors) if errors else "no Inspect log or lm-eval samples file found"
        raise ValueError(f"nothing to report in {', '.join(map(str, paths))}: {detail}")
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    items = _reduce(candidates)
    profile = Counter(c.profile for c in candidates).most_common(1)[0][0]
    tables = [*main_tables(items, n_boot, seed, profile), comparisons(items, n_boot, seed)]
    record = reporting_record(runs, candidates, errors, n_boot, seed)
    if calibration:
        tables.append(calibration_table(calibration, errors))
        record["calibration_logs"] = [str(f) for f in calibration]
    figures = [heatmap(items, target / "heatmap_conformity.png"), component_bars(items, target / "components.png")]
    report = Report(tables, figures, record, errors)
    (target / "report.md").write_text(to_markdown(report), encoding="utf-8")
    (target / "report.html").write_text(to_html(report), encoding="utf-8")
    for t in tables:
        write_csv(t, target / f"{t.name}.csv")
    (target / "record.json").write_text(json.dumps(report.record, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return report
