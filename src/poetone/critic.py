"""The Formal Conformity Score (PoeTone paper, Eq. 1–5) and the corrections that make it right.

S = max over variants v of 0.4·structure + 0.3·tonal + 0.3·rhyme. Each correction of the
paper's formula is a switch of the profile (poetone.profiles) and is documented in
docs/critic.md. The hot path works on integers: every character's tone is a bit mask
(1 平, 2 仄, 3 either) and every rhyme reading a bit in a mask of rhyme groups, so a line is
checked with a few bit operations and the speed target (>= 20,000 poems/s) holds in Python.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from poetone import prosody
from poetone.compat import PoetoneVariant, score_poetone_code
from poetone.extraction import extract_poem
from poetone.metadata import CipaiRegistry, Variant, load_cipai
from poetone.profiles import Profile, get_profile

_PING, _ZE = prosody.TONE_PING, prosody.TONE_ZE
_SPLIT_ALL = re.compile(r"([，。？！；：、,.?!;:\s]+)")
_SPLIT_PAPER = re.compile(r"([，。？！；：,.?!;:\n]+)")
_NON_VERSE = re.compile(r"[^\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f□]")
_PAUSE_MARKS = frozenset("、")
LACUNA = "□"


@dataclass(frozen=True, slots=True)
class _CompiledLine:
    length: int
    need_ping: int  # bit j set: position j must be 平
    need_ze: int
    rhymed: bool
    segment: str
    rhyme_tone: int  # _PING or _ZE for rhymed lines
    pause_after: bool  # the template breaks here with a 读
    repeat: bool


@dataclass(frozen=True, slots=True)
class _CompiledVariant:
    variant: Variant
    lines: tuple[_CompiledLine, ...]
    lengths: tuple[int, ...]
    segments: tuple[tuple[str, tuple[int, ...]], ...]  # (label, line indices)


def _compile(variant: Variant) -> _CompiledVariant:
    lines = []
    for line in variant.lines:
        ping = sum(1 << j for j, t in enumerate(line.tones) if t == "平")
        ze = sum(1 << j for j, t in enumerate(line.tones) if t == "仄")
        rtone = _PING if line.rhyme_tone == "平" else _ZE if line.rhyme_tone == "仄" else 0
        lines.append(_CompiledLine(line.length, ping, ze, line.rhymed, line.segment, rtone, line.end == "读", line.repeat))
    segs: dict[str, list[int]] = {}
    for i, cl in enumerate(lines):
        if cl.rhymed:
            segs.setdefault(cl.segment, []).append(i)
    return _CompiledVariant(variant, tuple(lines), variant.lengths, tuple((k, tuple(v)) for k, v in segs.items()))


@dataclass(slots=True)
class CriticResult:
    """Scores in [0, 1] and what they were computed from; ``details()`` explains every fault."""

    cipai: str
    conformity: float
    structure: float
    tonal: float
    rhyme: float
    valid: bool
    variant: str | None
    poem: str = ""
    lines: tuple[str, ...] = ()
    reason: str = ""
    profile: str = "default"
    _critic: Any = field(default=None, repr=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "cipai": self.cipai,
            "conformity": self.conformity,
            "structure": self.structure,
            "tonal": self.tonal,
            "rhyme": self.rhyme,
            "valid": self.valid,
            "variant": self.variant,
        }

    def details(self) -> dict[str, Any]:
        """Per line and per character: expected and found tone, rhyme group, which rule failed."""
        if self._critic is None or not self.valid or self.variant is None:
            return {"valid": self.valid, "reason": self.reason, "lines": []}
        return self._critic._details(self)

    def render(self) -> str:
        from poetone.render import render_result

        return render_result(self)


class Critic:
    """Scores poems against the cipai resource.

    >>> c = Critic()
    >>> r = c.score("浣溪沙", "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？无可奈何花落去，似曾相识燕归来。小园香径独徘徊。")
    >>> r.valid, r.structure
    (True, 1.0)
    """

    def __init__(
        self,
        profile: str = "default",
        metadata: str | Path | None = None,
        metadata_format: str | None = None,
        *,
        tone_system: str | None = None,
        rhyme_system: str | None = None,
        weights: Sequence[float] = (0.4, 0.3, 0.3),
        extract: bool | None = None,
    ):
        base = get_profile(profile)
        self.profile: Profile = base.with_systems(tone_system, rhyme_system)
        if len(weights) != 3 or any(w < 0 for w in weights) or abs(sum(weights) - 1.0) > 1e-9:
            raise ValueError(f"weights must be three non-negative numbers summing to 1, got {tuple(weights)}")
        self.weights = tuple(float(w) for w in weights)
        self.extract = self.profile.extract if extract is None else extract
        self.registry: CipaiRegistry = load_cipai(metadata, metadata_format)
        self._tones = prosody.tone_table(self.profile.tone_system)
        self._rhymes = prosody.rhyme_table(self.profile.rhyme_system)
        self._compiled: dict[str, tuple[_CompiledVariant, ...]] = {}
        self._literal: dict[str, tuple[PoetoneVariant, ...]] = {}
        if self.profile.literal_poetone:
            self._load_literal(metadata, metadata_format)

    def _load_literal(self, metadata: str | Path | None, metadata_format: str | None) -> None:
        if metadata is not None and metadata_format == "poetone":
            import json

            entries = json.loads(Path(metadata).read_text(encoding="utf-8"))
            grouped: dict[str, list[PoetoneVariant]] = {}
            for e in entries:
                grouped.setdefault(e["Cipai"], []).append(PoetoneVariant.from_entry(e, len(grouped.get(e["Cipai"], []))))
            self._literal = {k: tuple(v) for k, v in grouped.items()}
        else:
            self._literal = {
                name: tuple(PoetoneVariant.from_variant(v) for v in c.variants) for name, c in self.registry.items()
            }

    # -- public API ---------------------------------------------------------------------------

    def resolve(self, cipai: str) -> str:
        """Canonical name; raises UnknownCipaiError naming the closest cipai."""
        return self.registry.resolve(cipai)

    def score(self, cipai: str, text: str) -> CriticResult:
        name = self.registry.resolve(cipai)
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        if self.profile.literal_poetone:
            return self._score_literal(name, text)
        if self.extract:
            ex = extract_poem(text, name)
            if not ex.valid:
                return CriticResult(name, 0.0, 0.0, 0.0, 0.0, False, None, "", (), ex.reason, self.profile.name, self)
            poem = ex.poem
        else:
            poem = text
        pieces = self._split(poem)
        if not pieces:
            return CriticResult(name, 0.0, 0.0, 0.0, 0.0, False, None, poem, (), "no verse characters", self.profile.name, self)
        return self._best(name, poem, pieces)

    def score_many(self, pairs: Iterable[tuple[str, str]]) -> list[CriticResult]:
        return [self.score(cipai, text) for cipai, text in pairs]

    def variants(self, cipai: str) -> tuple[Variant, ...]:
        return self.registry[cipai].variants

    # -- internals ----------------------------------------------------------------------------

    def _variants_of(self, name: str) -> tuple[_CompiledVariant, ...]:
        compiled = self._compiled.get(name)
        if compiled is None:
            compiled = self._compiled[name] = tuple(_compile(v) for v in self.registry[name].variants)
        return compiled

    def _split(self, poem: str) -> list[tuple[str, bool]]:
        """Clauses of verse characters, each with whether a 读 mark (、) follows it."""
        splitter = _SPLIT_ALL if self.profile.split_at_pause else _SPLIT_PAPER
        parts = splitter.split(poem)
        out = []
        for i in range(0, len(parts), 2):
            clause = _NON_VERSE.sub("", parts[i])
            if clause:
                sep = parts[i + 1] if i + 1 < len(parts) else ""
                out.append((clause, bool(sep) and set(sep.strip()) <= _PAUSE_MARKS and sep.strip() != ""))
        return out

    def _resegment(self, pieces: list[tuple[str, bool]], cv: _CompiledVariant, unpunctuated: bool) -> list[str]:
        """Align clauses to the template: split a clause holding an unprinted 读, join a 读 the template lacks."""
        lines, tpl = [], cv.lines
        i = j = 0
        n, m = len(pieces), len(tpl)
        while i < n:
            text = pieces[i][0]
            if j >= m:
                lines.append(text)
                i += 1
                continue
            want = tpl[j].length
            if len(text) > want:
                acc, k = want, j
                while acc < len(text) and k + 1 < m and (tpl[k].pause_after or unpunctuated):
                    k += 1
                    acc += tpl[k].length
                if acc == len(text) and k > j:
                    pos = 0
                    for q in range(j, k + 1):
                        lines.append(text[pos : pos + tpl[q].length])
                        pos += tpl[q].length
                    i += 1
                    j = k + 1
                    continue
            elif len(text) < want:
                acc, k = len(text), i
                while acc < want and k + 1 < n and pieces[k][1]:
                    k += 1
                    acc += len(pieces[k][0])
                if acc == want and k > i:
                    lines.append("".join(p[0] for p in pieces[i : k + 1]))
                    i = k + 1
                    j += 1
                    continue
            lines.append(text)
            i += 1
            j += 1
        return lines

    def _best(self, name: str, poem: str, pieces: list[tuple[str, bool]]) -> CriticResult:
        prof = self.profile
        tones = self._tones
        unpunctuated = prof.resegment and len(pieces) <= 2 * poem.count("\n") + 2 and all(not p[1] for p in pieces)
        candidates = []
        seg_cache: dict[tuple, list[str]] = {}
        plain = [p[0] for p in pieces]
        for idx, cv in enumerate(self._variants_of(name)):
            if prof.resegment:
                key = tuple((ln.length, ln.pause_after) for ln in cv.lines)
                lines = seg_cache.get(key)
                if lines is None:
                    lines = seg_cache[key] = self._resegment(pieces, cv, unpunctuated)
            else:
                lines = plain
            s = self._structure(lines, cv)
            candidates.append((s, idx, cv, lines))
        candidates.sort(key=lambda c: (-c[0], c[1]))
        w_s, w_t, w_r = self.weights
        best = None
        mask_cache: dict[str, tuple[int, int]] = {}
        for s, idx, cv, lines in candidates:
            if best is not None and w_s * s + w_t + w_r < best[0] - 1e-12:
                break
            t = self._tonal(lines, cv, tones, mask_cache)
            r = self._rhyme(lines, cv)
            total = w_s * s + w_t * t + w_r * r
            if best is None or total > best[0] + 1e-12 or (abs(total - best[0]) <= 1e-12 and idx < best[4]):
                best = (total, s, t, r, idx, cv, lines)
        total, s, t, r, idx, cv, lines = best
        return CriticResult(name, total, s, t, r, True, cv.variant.id, poem, tuple(lines), "", prof.name, self)

    def _structure(self, lines: Sequence[str], cv: _CompiledVariant) -> float:
        tpl = cv.lines
        n_common = min(len(lines), len(tpl))
        check = self.profile.check_repeats
        matched = 0
        for i in range(n_common):
            if len(lines[i]) == tpl[i].length:
                if check and tpl[i].repeat and i > 0 and lines[i] != lines[i - 1]:
                    continue
                matched += 1
        return matched / max(len(lines), len(tpl), 1)

    def _tonal(self, lines: Sequence[str], cv: _CompiledVariant, tones: dict[str, int], cache: dict[str, tuple[int, int]]) -> float:
        compared = faults = 0
        for line, tl in zip(lines, cv.lines):
            if len(line) != tl.length:
                continue
            masks = cache.get(line)
            if masks is None:
                can_ping = can_ze = 0
                for j, ch in enumerate(line):
                    m = tones.get(ch, 3 if ch == LACUNA else 0)
                    if m & _PING:
                        can_ping |= 1 << j
                    if m & _ZE:
                        can_ze |= 1 << j
                masks = cache[line] = (can_ping, can_ze)
            compared += tl.length
            faults += ((tl.need_ping & ~masks[0]) | (tl.need_ze & ~masks[1])).bit_count()
        return (compared - faults) / compared if compared else 0.0

    def _rhyme_masks(self, ch: str, tone: int) -> int:
        pair = self._rhymes.get(ch)
        if pair is None:
            return 0
        if not self.profile.rhyme_tone_class:
            return pair[0] | pair[1]
        return pair[0] if tone == _PING else pair[1]

    def _rhyme(self, lines: Sequence[str], cv: _CompiledVariant) -> float:
        n = len(lines)
        segments = cv.segments if self.profile.rhyme_by_segment else (("*", tuple(i for s in cv.segments for i in s[1])),)
        hits = total = 0
        for _, idxs in segments:
            masks = [self._rhyme_masks(lines[i][-1], cv.lines[i].rhyme_tone) for i in idxs if i < n and lines[i]]
            if not masks:
                continue
            total += len(masks)
            hits += _largest_group(masks)
        return hits / total if total else 0.0

    def _score_literal(self, name: str, text: str) -> CriticResult:
        variants = self._literal.get(name, ())
        idx, total, s, t, r = score_poetone_code(text, variants, self.weights)
        from poetone.compat import split_lines

        vid = variants[idx].id if idx >= 0 else None
        return CriticResult(name, total, s, t, r, idx >= 0, vid, text, tuple(split_lines(text)), "", self.profile.name, self)

    def _details(self, result: CriticResult) -> dict[str, Any]:
        from poetone.render import explain

        return explain(self, result)


def _largest_group(masks: Sequence[int]) -> int:
    """Eq. 5's numerator: how many of the characters share the most common rhyme group."""
    union = 0
    for m in masks:
        union |= m
    best = 0
    while union:
        bit = union & -union
        union ^= bit
        count = sum(1 for m in masks if m & bit)
        if count > best:
            best = count
    return best

