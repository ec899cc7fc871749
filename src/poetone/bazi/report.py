"""The BaZi report: what the paper reports, from Inspect logs and lm-eval samples files.

Per model: accuracy per category with Wilson intervals, invalid rates and accuracy over the
valid replies only; micro (over items) and macro (over categories) averages for Theory, Case and
all; the Theory − Case gap (Newcombe's interval for a difference of independent proportions, from
the two Wilson intervals). Between models: exact McNemar tests on the items both answered (paired
by content hash, so two runs of the same file pair up and two different item sets never do),
Holm-corrected over every test of the report. The statistics are ``poetone.stats``, shared with
the other poetone reports.

Replies are re-scored from the logged text with ``poetone.bazi.parse`` (the tasks' own rule), so
both frameworks are read the same way. A file that cannot be read is reported by name and the
others are still read, and so is a line of a samples file (file and line named, the rest of the
file read; lines split on ``\n`` only, as ``poetone.logs`` reads them); a model that answered an item twice (epochs, repeated runs) keeps its
first answer and the report says how many were dropped.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from poetone.bazi.parse import score_reply
from poetone.logs import capped, find_log_files, lm_eval_model, read_jsonl
from poetone.stats import Interval, holm, mcnemar_p, wilson

FAMILIES: tuple[str, ...] = ("theory", "case")
SCOPES: tuple[str, ...] = ("theory", "case", "all")


class ReportError(ValueError):
    """A log file that cannot be read as BaZi results, with the file named."""


class NotBazi(ReportError):
    """A readable log of another task: skipped quietly when found by scanning a folder."""


@dataclass(slots=True)
class Answer:
    """One model's reply to one item, scored."""

    model: str
    framework: str  # "inspect" | "lm-eval"
    source: str
    item: str  # the item id
    key: str  # pairs items across models: the id and the content hash
    task: str  # theory | case
    category: str
    answer: str  # the key letter
    reply: str
    parsed: str | None
    correct: bool
    invalid: bool


# ---------------------------------------------------------------------------- reading


def read_answers(paths: Iterable[str | Path]) -> tuple[list[Answer], list[str]]:
    """Every answer of every BaZi log under ``paths``; plus one message per file not read."""
    answers: list[Answer] = []
    errors: list[str] = []
    for path, explicit in find_log_files(paths, samples_prefix="samples_bazi", skip={"report.json"}):
        try:
            answers.extend(read_file(path, errors))
        except NotBazi as exc:
            if explicit:
                errors.append(str(exc))
        except ReportError as exc:
            errors.append(str(exc))
    return answers, errors


def read_file(path: Path, errors: list[str] | None = None) -> list[Answer]:
    """The answers of one log; a bad line of a samples file is named in ``errors`` and skipped
    (without ``errors``, the first bad line raises ``ReportError``)."""
    if path.name.startswith("samples_") and path.suffix == ".jsonl":
        skipped: list[str] = []
        found = list(_read_lm_eval(path, skipped))
        if errors is None and skipped:
            raise ReportError(skipped[0])
        if errors is not None:
            errors.extend(capped(path, skipped))
        return found
    if path.suffix in (".eval", ".json"):
        return list(_read_inspect(path))
    raise ReportError(f"{path}: not an Inspect log (.eval, .json) or an lm-eval samples_*.jsonl file")


def _key(item_id: str, content_hash: str) -> str:
    return f"{item_id}#{content_hash}" if content_hash else item_id


def _read_inspect(path: Path) -> Iterator[Answer]:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # a torn or foreign file: name it, keep going with the others
        raise ReportError(f"{path}: not a readable Inspect log ({type(exc).__name__}: {str(exc)[:200]})") from None
    if not log.eval.task.split("/")[-1].startswith("bazi"):
        raise NotBazi(f"{path}: task {log.eval.task} is not a BaZi task (poetone/bazi, poetone/bazi_verified)")
    if not log.samples:
        raise ReportError(f"{path}: the Inspect log holds no samples (status {log.status})")
    for sample in log.samples:
        meta = sample.metadata or {}
        if "task" not in meta or "category" not in meta:
            raise ReportError(f"{path}: sample {sample.id!r} has no task/category metadata")
        target = sample.target if isinstance(sample.target, str) else "".join(sample.target)
        reply = sample.output.completion if sample.output else ""
        s = score_reply(reply, target)
        yield Answer(
            model=log.eval.model,
            framework="inspect",
            source=str(path),
            item=str(sample.id),
            key=_key(str(sample.id), str(meta.get("hash", ""))),
            task=str(meta["task"]),
            category=str(meta["category"]),
            answer=target,
            reply=reply,
            parsed=s["parsed"],
            correct=s["correct"],
            invalid=s["invalid"],
        )


def _read_lm_eval(path: Path, skipped: list[str]) -> Iterator[Answer]:
    model = lm_eval_model(path)
    task = re.sub(r"_\d{4}-\d{2}-\d{2}T.*$", "", path.stem[len("samples_") :])
    try:
        lines = read_jsonl(path, skipped)
    except ValueError as exc:  # LogError: the file cannot be opened
        raise ReportError(str(exc)) from None
    for number, row in lines:
        try:
            doc = row.get("doc") if isinstance(row, dict) else None
            if not isinstance(doc, dict):
                raise TypeError(f"'doc' must be an object, not {type(doc).__name__}")
            item_id, family, category, key = str(doc["id"]), doc["task"], doc["category"], doc["answer"]
            if not all(isinstance(v, str) for v in (family, category, key)):
                raise TypeError("task, category and answer must be strings")
            filtered = row.get("filtered_resps") or []
            reply = filtered[0] if isinstance(filtered, list) and filtered and isinstance(filtered[0], str) else ""
            if not reply and row.get("resps"):
                first = row["resps"][0]
                reply = first[0] if isinstance(first, list) and first else first
            reply = reply if isinstance(reply, str) else "" if reply is None else str(reply)
        except (KeyError, TypeError, IndexError, AttributeError) as exc:
            reason = str(exc) if isinstance(exc, TypeError) else f"{type(exc).__name__}: {exc}"
            skipped.append(f"{path}, line {number}: not a sample of a BaZi task ({task}): {reason}")
            continue
        s = score_reply(reply, key)
        yield Answer(
            model=model,
            framework="lm-eval",
            source=str(path),
            item=item_id,
            key=_key(item_id, str(doc.get("hash", ""))),
            task=family,
            category=category,
            answer=key,
            reply=reply,
            parsed=s["parsed"],
            correct=s["correct"],
            invalid=s["invalid"],
        )


# ---------------------------------------------------------------------------- computing


def _interval(prefix: str, iv: Interval) -> dict[str, float]:
    return {prefix: iv.estimate, f"{prefix}_low": iv.low, f"{prefix}_high": iv.high}


def _counts(answers: Sequence[Answer]) -> dict[str, Any]:
    n = len(answers)
    correct = sum(a.correct for a in answers)
    invalid = sum(a.invalid for a in answers)
    return {
        "n": n,
        "correct": correct,
        "invalid": invalid,
        **_interval("accuracy", wilson(correct, n)),
        "invalid_rate": invalid / n if n else math.nan,
        **_interval("accuracy_valid", wilson(correct, n - invalid)),
    }


def newcombe(a: Interval, b: Interval) -> Interval:
    """Difference a − b of two independent proportions with Newcombe's hybrid score interval
    (method 10 of Newcombe 1998), built from their Wilson intervals.

    Hand-written: scipy has no interval for a difference of independent proportions, and
    statsmodels' ``confint_proportions_2indep`` (which has it) is a large dependency for two lines
    on top of scipy's Wilson intervals; ``tests/test_stats.py`` checks Newcombe's worked examples."""
    if a.n == 0 or b.n == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    d = a.estimate - b.estimate
    low = d - math.sqrt((a.estimate - a.low) ** 2 + (b.high - b.estimate) ** 2)
    high = d + math.sqrt((a.high - a.estimate) ** 2 + (b.estimate - b.low) ** 2)
    return Interval(d, low, high, a.n + b.n)


def dedupe(answers: Iterable[Answer]) -> tuple[list[Answer], int]:
    """One answer per (model, item): the first read. Returns the kept answers and how many were dropped."""
    kept: dict[tuple[str, str], Answer] = {}
    dropped = 0
    for a in answers:
        if (a.model, a.key) in kept:
            dropped += 1
        else:
            kept[(a.model, a.key)] = a
    return list(kept.values()), dropped


def build_report(answers: Iterable[Answer]) -> dict[str, Any]:
    """All tables, as lists of dicts of plain numbers (``render_markdown`` formats them)."""
    answers, dropped = dedupe(answers)
    models = sorted({a.model for a in answers})
    by_model = {m: [a for a in answers if a.model == m] for m in models}
    categories, summary, gaps = [], [], []
    for model in models:
        mine = by_model[model]
        cats = sorted(
            {(a.task, a.category) for a in mine}, key=lambda tc: (FAMILIES.index(tc[0]) if tc[0] in FAMILIES else 9, tc)
        )
        cat_rows = []
        for task, cat in cats:
            row = {
                "model": model,
                "task": task,
                "category": cat,
                **_counts([a for a in mine if (a.task, a.category) == (task, cat)]),
            }
            cat_rows.append(row)
        categories += cat_rows
        for scope in SCOPES:
            scoped = [a for a in mine if scope == "all" or a.task == scope]
            if not scoped:
                continue
            accs = [r["accuracy"] for r in cat_rows if scope == "all" or r["task"] == scope]
            summary.append(
                {
                    "model": model,
                    "scope": scope,
                    "categories": len(accs),
                    **_counts(scoped),
                    "macro_accuracy": sum(accs) / len(accs) if accs else math.nan,
                }
            )
        rows = {r["scope"]: r for r in summary if r["model"] == model}
        if "theory" in rows and "case" in rows:
            t, c = rows["theory"], rows["case"]
            gap = newcombe(wilson(t["correct"], t["n"]), wilson(c["correct"], c["n"]))
            gaps.append(
                {
                    "model": model,
                    "theory_accuracy": t["accuracy"],
                    "case_accuracy": c["accuracy"],
                    **_interval("gap", gap),
                    "macro_gap": t["macro_accuracy"] - c["macro_accuracy"],
                }
            )
    return {
        "models": models,
        "summary": summary,
        "categories": categories,
        "gaps": gaps,
        "comparisons": compare(by_model),
        "notes": [f"{dropped} repeated answers (same model, same item) dropped; the first was kept"] if dropped else [],
    }


def compare(by_model: dict[str, list[Answer]]) -> list[dict[str, Any]]:
    """Exact McNemar test for every pair of models and scope on their shared items, Holm-corrected
    over the whole table."""
    rows: list[dict[str, Any]] = []
    for a, b in combinations(sorted(by_model), 2):
        right_a = {x.key: (x.correct, x.task) for x in by_model[a]}
        right_b = {x.key: x.correct for x in by_model[b]}
        shared = sorted(set(right_a) & set(right_b))
        for scope in SCOPES:
            keys = [k for k in shared if scope == "all" or right_a[k][1] == scope]
            if not keys:
                continue
            both = sum(right_a[k][0] and right_b[k] for k in keys)
            only_a = sum(right_a[k][0] and not right_b[k] for k in keys)
            only_b = sum(right_b[k] and not right_a[k][0] for k in keys)
            rows.append(
                {
                    "model_a": a,
                    "model_b": b,
                    "scope": scope,
                    "n": len(keys),
                    "accuracy_a": (both + only_a) / len(keys),
                    "accuracy_b": (both + only_b) / len(keys),
                    "both_correct": both,
                    "only_a": only_a,
                    "only_b": only_b,
                    "both_wrong": len(keys) - both - only_a - only_b,
                    "p": mcnemar_p(only_a, only_b),
                }
            )
    for row, adjusted in zip(rows, holm([r["p"] for r in rows])):
        row["p_holm"] = adjusted
    return rows


# ---------------------------------------------------------------------------- rendering


def _fmt_iv(row: dict[str, Any], prefix: str, n: int | None = None) -> str:
    return Interval(row[prefix], row[f"{prefix}_low"], row[f"{prefix}_high"], row["n"] if n is None else n).format()


def _pct(x: float) -> str:
    return "–" if x is None or math.isnan(x) else f"{x:.1%}"


def _p(x: float) -> str:
    return f"{x:.3g}" if x >= 0.001 else f"{x:.1e}"


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return lines


def render_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown: summary, gap, categories, comparisons. Intervals are 95%."""
    out = ["# BaZi report", ""]
    if not report["models"]:
        return "\n".join([*out, "No BaZi answers were read.", ""])
    out += ["Accuracy counts invalid replies as wrong; intervals are 95% Wilson intervals.", "", "## Summary", ""]
    out += _table(
        ("model", "scope", "n", "accuracy (micro)", "macro", "invalid", "accuracy, valid only"),
        (
            (r["model"], r["scope"], r["n"], _fmt_iv(r, "accuracy"), f"{r['macro_accuracy']:.3f}", _pct(r["invalid_rate"]),
             _fmt_iv(r, "accuracy_valid", r["n"] - r["invalid"]))
            for r in report["summary"]
        ),
    )  # fmt: skip
    if report["gaps"]:
        out += [
            "",
            "## Theory − Case gap",
            "",
            "Micro gap with Newcombe's 95% interval; macro gap over categories.",
            "",
        ]
        out += _table(
            ("model", "theory", "case", "gap (micro)", "gap (macro)"),
            (
                (g["model"], f"{g['theory_accuracy']:.3f}", f"{g['case_accuracy']:.3f}",
                 Interval(g["gap"], g["gap_low"], g["gap_high"], 1).format(), f"{g['macro_gap']:+.3f}")
                for g in report["gaps"]
            ),
        )  # fmt: skip
    out += ["", "## Per category", ""]
    out += _table(
        ("model", "family", "category", "n", "accuracy", "invalid", "accuracy, valid only"),
        (
            (r["model"], r["task"], r["category"], r["n"], _fmt_iv(r, "accuracy"), _pct(r["invalid_rate"]),
             _fmt_iv(r, "accuracy_valid", r["n"] - r["invalid"]))
            for r in report["categories"]
        ),
    )  # fmt: skip
    if report["comparisons"]:
        out += [
            "",
            "## Paired comparisons",
            "",
            "Exact McNemar tests on the items both models answered; p Holm-corrected over this table.",
            "",
        ]
        out += _table(
            ("model A", "model B", "scope", "n", "acc A", "acc B", "only A right", "only B right", "p", "p (Holm)"),
            (
                (c["model_a"], c["model_b"], c["scope"], c["n"], f"{c['accuracy_a']:.3f}", f"{c['accuracy_b']:.3f}",
                 c["only_a"], c["only_b"], _p(c["p"]), _p(c["p_holm"]))
                for c in report["comparisons"]
            ),
        )  # fmt: skip
    for note in report.get("notes", []):
        out += ["", f"Note: {note}"]
    return "\n".join(out) + "\n"


def write_report(report: dict[str, Any], answers: Sequence[Answer], out_dir: str | Path) -> list[Path]:
    """``report.md``, ``report.json`` (the tables) and ``answers.jsonl`` (every scored reply)."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    md, js, rows = folder / "report.md", folder / "report.json", folder / "answers.jsonl"
    md.write_text(render_markdown(report), encoding="utf-8")
    js.write_text(json.dumps(_clean(report), ensure_ascii=False, indent=2), encoding="utf-8")
    with rows.open("w", encoding="utf-8") as f:
        for a in answers:
            f.write(json.dumps(asdict(a), ensure_ascii=False) + "\n")
    return [md, js, rows]


def _clean(value: Any) -> Any:
    """NaN (an empty denominator) as null, so the JSON is strict."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value
