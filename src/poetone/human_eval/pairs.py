"""The pairs of the poetic Turing test and the order each annotator sees them in.

A pair is one generated poem and the canonical corpus poem of the same cipai and theme (the slot
of the prompt). Only poems a reader could mistake for a human's are worth a pair, so the default
takes each model's best poems by conformity (the best epoch per prompt, then the top K prompts);
``top=None`` takes every usable candidate. Invalid answers, answers flagged as copies, and poems
that copy the canonical poem itself (a model reciting 苏轼 would make two identical poems) never
make a pair: they are counted, by reason, in ``PairSelection.skipped``.

Order and side are drawn per annotator from a seed made of the study seed and the annotator's
name, so the same name always gets the same sequence (resumable, reproducible) while different
annotators see different orders (no order effect shared by all). Sides are balanced: half the
pairs show the human poem on the left.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from poetone import corpus
from poetone.human_eval import DEFAULT_TOP
from poetone.logs import Candidate, read_candidates
from poetone.songci import COPY_THRESHOLD, copy_overlap, split_stanzas

SIDES = ("left", "right")
_SPACE = re.compile(r"[ \t\u3000\r]+")


@dataclass(frozen=True, slots=True)
class Pair:
    """One generated poem against its canonical poem; texts are already laid out for display."""

    id: str
    model: str
    source: str
    prompt_id: str
    strategy: str
    cipai: str
    theme: str
    theme_label: str
    epoch: int
    conformity: float
    generated: str
    canonical_id: str
    canonical: str
    poet: str
    title: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class PairSelection:
    """The pairs chosen, and how many candidates were left out and why."""

    pairs: list[Pair]
    skipped: Counter[str] = field(default_factory=Counter)
    candidates: int = 0
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        models = Counter(p.model for p in self.pairs)
        lines = [f"{len(self.pairs)} pairs from {self.candidates} candidates"]
        lines += [f"  {model}: {n} pairs" for model, n in sorted(models.items())]
        lines += [f"  skipped ({reason}): {n}" for reason, n in sorted(self.skipped.items())]
        lines += [f"  error: {e}" for e in self.errors]
        return "\n".join(lines)


@cache
def _critic() -> Any:
    from poetone.critic import Critic

    return Critic()


def display_text(text: str, cipai: str) -> str:
    """The poem as two stanza lines, laid out the same way for the human and the model poem so
    that layout never gives the author away."""
    lines = [_SPACE.sub("", ln) for ln in text.strip().split("\n")]
    lines = [ln for ln in lines if ln]
    if len(lines) <= 2:
        return "\n".join(lines)
    try:  # one clause per line, or any other layout: back to the cipai's two stanzas
        upper, lower = split_stanzas("".join(lines), _critic(), cipai)
    except (ValueError, KeyError):
        return "\n".join(lines)
    return f"{upper}\n{lower}" if lower else upper


def slot_of(prompt_id: str) -> str:
    """``{strategy}-{slug}-{theme}`` -> ``{slug}-{theme}``, the corpus slot of a prompt."""
    if "-" not in prompt_id:
        raise ValueError(f"prompt id {prompt_id!r} is not of the form strategy-slug-theme")
    return prompt_id.split("-", 1)[1]


def pair_id(model: str, prompt_id: str, epoch: int, generated: str) -> str:
    """Stable across runs, so a restarted server finds the same pairs in its database."""
    digest = hashlib.sha256(f"{model}\0{prompt_id}\0{epoch}\0{generated}".encode()).hexdigest()
    return digest[:16]


def _skip_reason(c: Candidate, records: dict[str, dict[str, Any]]) -> str | None:
    if not c.valid:
        return "invalid answer"
    if c.copied:
        return "copies the withheld 下阕"
    try:
        slot = slot_of(c.prompt_id)
    except ValueError:
        return "prompt id without a corpus slot"
    if slot not in records:
        return "prompt id without a corpus slot"
    if c.strategy != "completion" and copy_overlap(c.poem, records[slot]["text"]) >= COPY_THRESHOLD:
        return "copies the canonical poem"
    return None


def build_pairs(
    candidates: Iterable[Candidate], records: Sequence[dict[str, Any]] | None = None, top: int | None = DEFAULT_TOP
) -> PairSelection:
    """Pairs of the usable candidates: per model the best ``top`` prompts (each by its best epoch),
    or every usable candidate when ``top`` is None. Deterministic: ties go to the prompt id."""
    if top is not None and top < 1:
        raise ValueError(f"top must be at least 1, got {top}")
    by_id = {r["id"]: r for r in (records if records is not None else corpus.load_records())}
    selection = PairSelection(pairs=[])
    usable: list[Candidate] = []
    for c in candidates:
        selection.candidates += 1
        reason = _skip_reason(c, by_id)
        if reason:
            selection.skipped[reason] += 1
        else:
            usable.append(c)
    chosen: list[Candidate] = []
    for model in sorted({c.model for c in usable}):
        mine = sorted((c for c in usable if c.model == model), key=lambda c: (-c.conformity, c.prompt_id, c.epoch))
        if top is None:
            chosen.extend(mine)
            continue
        best: dict[str, Candidate] = {}
        for c in mine:  # sorted best first: the first seen of a prompt is its best epoch
            best.setdefault(c.prompt_id, c)
        ranked = list(best.values())
        chosen.extend(ranked[:top])
        selection.skipped[f"below the top {top} of its model"] += len(mine) - min(top, len(ranked))
    seen: set[str] = set()
    for c in chosen:
        record = by_id[slot_of(c.prompt_id)]
        generated = display_text(c.full_poem, c.cipai)
        pid = pair_id(c.model, c.prompt_id, c.epoch, generated)
        if pid in seen:  # the same log read twice
            selection.skipped["duplicate"] += 1
            continue
        seen.add(pid)
        selection.pairs.append(
            Pair(
                id=pid,
                model=c.model,
                source=c.source,
                prompt_id=c.prompt_id,
                strategy=c.strategy,
                cipai=c.cipai,
                theme=c.theme,
                theme_label=corpus.THEMES.get(c.theme, record.get("theme_label", c.theme)),
                epoch=c.epoch,
                conformity=float(c.conformity),
                generated=generated,
                canonical_id=record["id"],
                canonical=display_text(record["text"], record["cipai"]),
                poet=record.get("poet", ""),
                title=record.get("title", ""),
            )
        )
    selection.skipped = Counter({k: v for k, v in selection.skipped.items() if v})
    return selection


def pairs_from_logs(paths: Iterable[str | Path], top: int | None = DEFAULT_TOP) -> PairSelection:
    """Read Inspect logs and lm-eval sample files (files or folders) and build the pairs."""
    candidates, errors = read_candidates(paths)
    selection = build_pairs(candidates, top=top)
    selection.errors.extend(errors)
    return selection


def annotator_rng(annotator: str, seed: int) -> random.Random:
    """A generator of its own for each (study seed, annotator): hashing keeps it independent of
    Python's string-hash randomisation."""
    digest = hashlib.sha256(f"{seed}\0{annotator}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def assign(pair_ids: Iterable[str], annotator: str, seed: int = 0) -> list[tuple[str, str]]:
    """The annotator's sequence: ``(pair id, side of the human poem)`` in the order to show them.
    Half the pairs (rounded up: left) show the human poem on each side."""
    ids = sorted(set(pair_ids))
    rng = annotator_rng(annotator, seed)
    rng.shuffle(ids)
    sides = [SIDES[i % 2] for i in range(len(ids))]
    rng.shuffle(sides)
    return list(zip(ids, sides))
