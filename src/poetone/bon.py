"""Best-of-N: per prompt, the candidate the critic scores highest becomes a training example.

The paper's Generate-Critic step. Candidates come from Inspect logs run with ``--epochs N`` or
lm-eval sample files run with ``repeats`` (``poetone.logs``). Invalid or copied candidates never
win; ties go to the earlier candidate (file order, then epoch), so a rerun selects the same
rows. The summary says what selection alone gains: the mean of the first candidate against the
mean of the best, per model and strategy.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

from poetone.logs import Candidate, read_candidates


@dataclass(frozen=True, slots=True)
class Selection:
    rows: list[dict[str, Any]]
    summary: list[dict[str, Any]]
    errors: list[str]


def _row(c: Candidate, n_candidates: int) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "system", "content": c.system},
            {"role": "user", "content": c.user},
            {"role": "assistant", "content": c.poem},
        ],
        "prompt_id": c.prompt_id,
        "strategy": c.strategy,
        "cipai": c.cipai,
        "theme": c.theme,
        "model": c.model,
        "epoch": c.epoch,
        "candidates": n_candidates,
        "conformity": c.conformity,
        "structure": c.structure,
        "tonal": c.tonal,
        "rhyme": c.rhyme,
        "prompt_hash": c.prompt_hash,
        "source": c.source,
    }


@dataclass(slots=True)
class _Tally:
    first: list[float] = field(default_factory=list)
    best: list[float] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    kept: int = 0
    no_valid: int = 0
    below: int = 0


def select(candidates: list[Candidate], min_score: float = 0.0) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(training rows, summary rows). Groups are (model, prompt id), in first-seen order."""
    groups: dict[tuple[str, str], list[Candidate]] = defaultdict(list)
    for c in candidates:
        groups[(c.model, c.prompt_id)].append(c)
    rows: list[dict[str, Any]] = []
    tallies: dict[tuple[str, str], _Tally] = defaultdict(_Tally)
    for (model, _), group in groups.items():
        ordered = sorted(group, key=lambda c: c.epoch)  # sorted is stable: file order within an epoch
        t = tallies[(model, ordered[0].strategy)]
        t.first.append(ordered[0].conformity if ordered[0].eligible else 0.0)
        t.sizes.append(len(ordered))
        eligible = [c for c in ordered if c.eligible]
        if not eligible:
            t.best.append(0.0)
            t.no_valid += 1
            continue
        best = max(eligible, key=lambda c: c.conformity)  # max keeps the first of equal scores
        t.best.append(best.conformity)
        if best.conformity < min_score:
            t.below += 1
            continue
        t.kept += 1
        rows.append(_row(best, len(ordered)))
    summary = []
    for (model, strategy), t in sorted(tallies.items()):
        first_mean, best_mean = fmean(t.first), fmean(t.best)
        summary.append(
            {
                "model": model,
                "strategy": strategy,
                "prompts": len(t.first),
                "candidates_per_prompt": fmean(t.sizes),
                "first_mean": round(first_mean, 6),
                "best_mean": round(best_mean, 6),
                "gain": round(best_mean - first_mean, 6),
                "kept": t.kept,
                "no_valid_candidate": t.no_valid,
                "below_min_score": t.below,
            }
        )
    return rows, summary


def messages_hash(conversations: Iterable[Sequence[dict[str, Any]]]) -> str:
    """SHA-256 of the training conversations in order (canonical JSON): what an adapter was
    trained on. ``poetone sft`` records the same hash in its run card."""
    h = hashlib.sha256()
    for messages in conversations:
        h.update(json.dumps(list(messages), ensure_ascii=False, sort_keys=True).encode())
    return h.hexdigest()


def data_hash(rows: list[dict[str, Any]]) -> str:
    return messages_hash(row["messages"] for row in rows)


def build(paths: list[str | Path], out: str | Path, min_score: float = 0.0) -> Selection:
    """Select from the logs and write ``train.jsonl``, ``dataset/`` (datasets) and ``summary.json``."""
    candidates, errors = read_candidates(paths)
    if not candidates:
        detail = "; ".join(errors) if errors else "no Inspect log or lm-eval samples file found"
        raise ValueError(f"no candidates in {', '.join(map(str, paths))}: {detail}")
    rows, summary = select(candidates, min_score)
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    with (target / "train.jsonl").open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    import datasets

    if rows:
        datasets.Dataset.from_list(rows).save_to_disk(str(target / "dataset"))
    meta = {
        "min_score": min_score,
        "rows": len(rows),
        "data_sha256": data_hash(rows),
        "sources": sorted({c.source for c in candidates}),
        "errors": errors,
        "summary": summary,
    }
    (target / "summary.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return Selection(rows, summary, errors)


def format_summary(summary: list[dict[str, Any]]) -> str:
    head = f"{'model':<28} {'strategy':<12} {'prompts':>7} {'N':>5} {'first':>7} {'best':>7} {'gain':>7} {'kept':>5}"
    lines = [head, "-" * len(head)]
    for s in summary:
        lines.append(
            f"{s['model'][:28]:<28} {s['strategy']:<12} {s['prompts']:>7} {s['candidates_per_prompt']:>5.1f} "
            f"{s['first_mean']:>7.4f} {s['best_mean']:>7.4f} {s['gain']:>+7.4f} {s['kept']:>5}"
        )
    return "\n".join(lines)
