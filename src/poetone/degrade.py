"""Degraded copies of authentic poems, for calibrating a judge.

A judge of fluency, coherence and 意境 is only worth its numbers if it prefers a Song master's
poem to a damaged copy of it. Two damages, both seeded:

- ``shuffle_lines``: the clauses in another order (every word is the poet's, the sense is gone);
- ``replace_chars``: a share of the characters swapped for others of the same tone class, line
  ends kept, so the form (structure, tones, rhymes) scores exactly as before and only the
  language is broken. A judge that cannot see this damage is reading the form, not the poem.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache

from poetone._chars import VERSE
from poetone.prosody import tone_table

_PIECES = re.compile(f"([{VERSE}]+)")
DEGRADATIONS: tuple[str, ...] = ("shuffle_lines", "replace_chars")


def _clauses(text: str) -> list[str]:
    """Text split into alternating [non-verse, clause, non-verse, clause, …, non-verse]."""
    return _PIECES.split(text)


def shuffle_lines(text: str, rng: random.Random) -> str:
    """The clauses permuted (never left in order), punctuation and line breaks where they were."""
    parts = _clauses(text)
    clauses = parts[1::2]
    if len(set(clauses)) < 2:
        raise ValueError(f"cannot shuffle a poem with fewer than two different clauses: {text[:20]!r}")
    order = clauses[:]
    while order == clauses:
        rng.shuffle(order)
    parts[1::2] = order
    return "".join(parts)


@lru_cache(maxsize=1)
def _pool() -> dict[int, tuple[str, ...]]:
    """Characters of the corpus by classical tone mask: a classical vocabulary to draw from."""
    from poetone import corpus

    tones = tone_table("classical")
    chars = sorted({ch for r in corpus.load_records() for ch in r["text"] if tones.get(ch)})
    out: dict[int, list[str]] = {}
    for ch in chars:
        out.setdefault(tones[ch], []).append(ch)
    return {mask: tuple(v) for mask, v in out.items()}


def replace_chars(text: str, rng: random.Random, share: float = 0.5) -> str:
    """About ``share`` of the non-final characters of each clause replaced, each by a different
    character of the same tone mask; clause-final characters (the rhymes) and repeated characters are kept."""
    if not 0.0 < share <= 1.0:
        raise ValueError(f"share must be in (0, 1], got {share}")
    tones, pool = tone_table("classical"), _pool()
    parts = _clauses(text)
    for i in range(1, len(parts), 2):
        clause = list(parts[i])
        inner = [  # repeated characters (错错错, 叠字) stay: replacing one would break the 叠
            j
            for j in range(len(clause) - 1)
            if tones.get(clause[j]) in pool and clause[j] != clause[j + 1] and (j == 0 or clause[j] != clause[j - 1])
        ]
        for j in rng.sample(inner, k=max(1, round(share * len(inner)))) if inner else ():
            options = pool[tones[clause[j]]]
            new = clause[j]
            while new == clause[j]:
                new = rng.choice(options)
            clause[j] = new
        parts[i] = "".join(clause)
    return "".join(parts)


def degrade(text: str, kind: str, seed: int) -> str:
    if kind == "shuffle_lines":
        return shuffle_lines(text, random.Random(seed))
    if kind == "replace_chars":
        return replace_chars(text, random.Random(seed))
    raise ValueError(f"unknown degradation {kind!r}; expected one of {DEGRADATIONS}")
