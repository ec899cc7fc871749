"""The ``poetone-code`` profile: what the official PoeTone evaluation script computes.

Reproduced literally so its published numbers can be checked, faults included: it splits lines
only at newline and ``。！？；，,.`` (not at 、), reads each character's modern Mandarin tone with
pypinyin (a neutral tone, or a non-Chinese character, counts as 中 and so matches only a 中
position), takes pypinyin finals as rhyme groups over the whole poem, measures a line's tone
pattern against the template string with 句 and 韵 removed (a 读 left in it makes the line
unscorable), and rounds each component to 0.01 percent. It does no extraction.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from poetone.metadata import Variant

_SPLIT = re.compile(r"[\n。！？；，,\.]")
_WEIGHTS = (0.4, 0.3, 0.3)


@dataclass(frozen=True, slots=True)
class PoetoneVariant:
    """The three fields of an official metadata entry the official scorer reads."""

    id: str
    chars_per_line: tuple[int, ...]
    patterns: tuple[str, ...]
    rhyme_positions: tuple[int, ...]

    @classmethod
    def from_entry(cls, entry: dict[str, Any], index: int) -> PoetoneVariant:
        total = entry.get("total", {}) or {}
        s1 = (entry.get("stanza1", {}) or {}).get("lines", [])
        s2 = (entry.get("stanza2", {}) or {}).get("lines", [])
        return cls(
            id=str(entry.get("variant", index)),
            chars_per_line=tuple(total.get("chars_per_line", [])),
            patterns=tuple(p.replace("句", "").replace("韵", "") for p in (s1 + s2 if s1 else [])),
            rhyme_positions=tuple(total.get("rhyme_positions", [])),
        )

    @classmethod
    def from_variant(cls, variant: Variant) -> PoetoneVariant:
        lines = variant.lines
        return cls(
            id=variant.id,
            chars_per_line=variant.lengths,
            patterns=tuple(line.tones for line in lines),
            rhyme_positions=tuple(i + 1 for i, line in enumerate(lines) if line.rhymed),
        )


@functools.lru_cache(maxsize=65536)
def _tone(char: str) -> str:
    from pypinyin import Style, pinyin

    reading = pinyin(char, style=Style.TONE3, heteronym=False)[0][0]
    last = reading[-1] if reading else ""
    return "平" if last in "12" else "仄" if last in "34" else "中"


@functools.lru_cache(maxsize=65536)
def _final(char: str) -> str:
    from pypinyin import Style, pinyin

    return pinyin(char, style=Style.FINALS, heteronym=False)[0][0] or "none"


def split_lines(text: str) -> list[str]:
    return [s.strip() for s in _SPLIT.split(text) if s.strip()]


def score_variant(lines: Sequence[str], v: PoetoneVariant) -> tuple[float, float, float]:
    """Structure, tonal, rhyme in [0, 1] of ``lines`` against one official variant."""
    if not v.chars_per_line:
        return 0.0, 0.0, 0.0
    n_common = min(len(v.chars_per_line), len(lines))
    matched = sum(1 for i in range(n_common) if len(lines[i]) == v.chars_per_line[i])
    structure = matched / max(len(v.chars_per_line), len(lines), 1)
    tonal = 0.0
    compared = agreeing = 0
    for i in range(min(n_common, len(v.patterns))):
        pattern, line = v.patterns[i], lines[i]
        if len(line) != len(pattern):
            continue
        compared += len(line)
        agreeing += sum(1 for ch, want in zip(line, pattern) if want == "中" or _tone(ch) == want)
    if compared:
        tonal = agreeing / compared
    rhyme = 0.0
    finals = [_final(lines[p - 1][-1]) for p in v.rhyme_positions if p - 1 < len(lines) and lines[p - 1]]
    known = [f for f in finals if f != "none"]
    if known:
        rhyme = Counter(known).most_common(1)[0][1] / len(finals)
    return structure, tonal, rhyme


def score_poetone_code(text: str, variants: Sequence[PoetoneVariant], weights: Sequence[float] = _WEIGHTS) -> tuple[int, float, float, float, float]:
    """Best variant index and (total, structure, tonal, rhyme) as fractions, rounded like the original."""
    lines = split_lines(text)
    best_index, best_total, best = -1, -1.0, (0.0, 0.0, 0.0)
    for i, v in enumerate(variants):
        s, t, r = score_variant(lines, v)
        total = weights[0] * s + weights[1] * t + weights[2] * r
        if total > best_total:
            best_index, best_total, best = i, total, (s, t, r)
    if best_index < 0:
        return -1, 0.0, 0.0, 0.0, 0.0
    s, t, r = best
    return best_index, *(round(x * 100, 2) / 100 for x in (best_total, s, t, r))
