"""The Formal Conformity Score (PoeTone paper, Eq. 1–5) and the corrections that make it right.

S = max over variants v of 0.4·structure + 0.3·tonal + 0.3·rhyme. Each correction of the
paper's formula is a switch of the profile (poetone.profiles) and is documented in
docs/critic.md. The hot path works on integers: every character's tone is a bit mask
(1 平, 2 仄, 3 either) and every rhyme reading a bit in a mask of rhyme groups, so a line is
checked with a few bit operations and the speed target (>= 20,000 poems/s) holds in Python.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, reduce
from itertools import accumulate
from operator import and_, attrgetter, eq, itemgetter
from pathlib import Path
from typing import Any

from poetone import prosody
from poetone._chars import GARBLED_RE, LACUNA, VERSE
from poetone.compat import PoetoneVariant, score_poetone_code
from poetone.degeneracy import degenerate_reason_of, measure, plainly_verse
from poetone.extraction import Extraction, extract_poem
from poetone.metadata import CipaiRegistry, Variant, load_cipai
from poetone.profiles import Profile, get_profile

_VERSE = VERSE
_MARKS_ALL = "，。？！；：、,.?!;:\\s"
_MARKS_PAPER = "，。？！；：,.?!;:\\n"
# Drop what is neither verse nor a clause mark (quotes, brackets, stray symbols), then cut clauses.
_NOT_VERSE_OR_MARK_ALL = re.compile(f"[^{_VERSE}{_MARKS_ALL}]+")
_NOT_VERSE_OR_MARK_PAPER = re.compile(f"[^{_VERSE}{_MARKS_PAPER}]+")
_CLAUSES = re.compile(f"[{_VERSE}]+")
# Characters garbled in transmission (kana, box drawing, U+FFFD, private use) stand for a lost
# character: they keep its place as a lacuna instead of shortening the line.


def _clean_clauses(poem: str, not_verse: re.Pattern[str]) -> str:
    return not_verse.sub("", GARBLED_RE.sub(LACUNA, poem))
_NO_RHYME = (0, 0, 0)
#: The plan cache's budget in clause slots (clauses of a cached shape × the variants read for it).
#: A slot holds its line bounds, alignment and plans in about 200 bytes (and its LCS row, 36
#: bytes, until the reading is walked, if ever); 400,000 keep the
#: cache under 100 MB, some 5,000 shapes of ordinary poems (the 4,617 全宋词 poems of the 20 cipai
#: take 253 shapes, 48,537 slots), while a stream of long texts of
#: fresh shapes clears it instead of growing without bound.
PLAN_CACHE_SLOTS = 400_000


@dataclass(slots=True)  # not frozen: built for every line of a tune on its first use
class _CompiledLine:
    """What the 叠 check and the degeneracy rule ask of a line; the hot path reads the variant's tuples."""

    length: int
    rhymed: bool
    repeat: bool


@dataclass(frozen=True, slots=True)
class _CompiledVariant:
    variant: Variant
    lines: tuple[_CompiledLine, ...]
    lengths: tuple[int, ...]
    has_repeats: bool
    #: per line length: the bit set of the lines of that length (the LCS's match masks, built once)
    length_masks: dict[int, int] = field(default_factory=dict, compare=False)
    chars: int = 0  # characters of all its lines
    rhymed: int = 0  # its rhymed lines
    needs: tuple[int, ...] = ()  # per line: bit 2j set where position j must be 平, bit 2j+1 where 仄
    rhyme_options: tuple[int, ...] = ()  # per line: which rhyme option its rhyme takes (0 平, 1 仄)
    #: per rhyme segment, and for all rhymes as one segment: its lines and the option all of them take (None: mixed)
    segment_reads: tuple[tuple[tuple[int, ...], int | None], ...] = ()
    merged_reads: tuple[tuple[tuple[int, ...], int | None], ...] = ()


@dataclass(slots=True)  # not frozen: a frozen dataclass sets each field through object.__setattr__, and plans are built per new shape
class _Plan:
    """How one variant reads a poem of a given shape: everything that does not depend on the characters."""

    structure: float  # Eq. 2-3 on lengths alone (an upper bound where 叠 lines must repeat)
    index: int
    variant: _CompiledVariant
    bounds: tuple[tuple[int, int], ...]  # each line as a slice of the joined clause text
    line_of: tuple[int, ...]  # per line of the poem: the template line it is read as, or -1 (not in the form)
    need: int  # bit 2p (2p+1) set: character p of the joined text must be 平 (仄); right-length lines only
    compared: int  # characters in lines of the right length (Eq. 4's denominator)
    #: per segment: its rhyme characters (a function of the joined text), which of a character's
    #: rhyme options applies (one for all, or one per position) and how many positions it has
    rhymes: tuple[tuple[Callable[[str], tuple[str, ...]], int | tuple[int, ...], int], ...]
    missing_chars: int = 0  # characters of the form's lines no poem line is read as, and of lines not in the form
    missing_rhymes: int = 0  # rhyme positions of those lines: misses in Eq. 5 (count_missing)
    as_written: bool = False  # the lines are the poem's clauses as written (not resegmented)
    line_ends: Callable[[str], tuple[str, ...]] | None = None  # the last character of every line
    rhyme_bound: float = 1.0  # the best rhyme score any characters could give (positions read over all)


def _chars_at(positions: Sequence[int]) -> Callable[[str], tuple[str, ...]]:
    """The characters of a text at ``positions``, as a tuple, in one call."""
    if len(positions) == 1:
        only = positions[0]
        return lambda text: (text[only],)
    return itemgetter(*positions)


def _make_plan(
    idx: int,
    cv: _CompiledVariant,
    bounds: tuple[tuple[int, int], ...],
    line_of: tuple[int, ...],
    by_segment: bool,
    tone_class: bool,
    count_missing: bool = False,
    as_written: bool = False,
    ends: Callable[[str], tuple[str, ...]] | None = None,  # the line ends, shared by a reading's plans
) -> _Plan:
    need = compared = matched = unplaced_chars = 0
    lengths, needs = cv.lengths, cv.needs
    end_of = {}  # template line -> the last character of the poem line read as it (one at most: every reading is one-to-one)
    for (a, b), j in zip(bounds, line_of):
        if j < 0:
            unplaced_chars += b - a
        else:
            end_of[j] = b - 1
            if b - a == lengths[j]:
                need |= needs[j] << (a + a)
                compared += b - a
                matched += 1
    every = len(end_of) == len(lengths)  # every line of the form is read (most plans): nothing to filter
    # per segment (or all rhymes as one): its positions read, and which element of a character's
    # rhyme options applies: 0 平, 1 仄, 2 either (no tone check), one for all where they agree
    rhymes = []
    read_rhymes = 0  # the rhymed lines placed
    for idxs, option in cv.segment_reads if by_segment else cv.merged_reads:
        placed = idxs if every else [j for j in idxs if j in end_of]
        if not placed:
            continue
        which: int | tuple[int, ...] = 2 if not tone_class else option
        if which is None:
            whiches = tuple(cv.rhyme_options[j] for j in placed)
            which = whiches[0] if len(set(whiches)) == 1 else whiches
        rhymes.append((_chars_at(list(map(end_of.__getitem__, placed))), which, len(placed)))
        read_rhymes += len(placed)
    structure = matched / max(len(bounds), len(lengths), 1)
    missing_chars = missing_rhymes = 0
    if count_missing:
        # the form's lines no poem line is read as; and a line of the poem that is not in the
        # form is unmatched too: padding a poem with junk lines must not keep its tonal credit whole
        missing_chars = unplaced_chars if every else cv.chars - sum(map(lengths.__getitem__, end_of)) + unplaced_chars
        missing_rhymes = cv.rhymed - read_rhymes
    rhyme_bound = read_rhymes / (read_rhymes + missing_rhymes) if read_rhymes else 0.0
    return _Plan(
        structure, idx, cv, bounds, line_of, need, compared, tuple(rhymes), missing_chars, missing_rhymes, as_written,
        ends, rhyme_bound,
    )


def _identity_bounds(lengths: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Each line as a slice of the joined text, the lines one after another."""
    ends = list(accumulate(lengths))
    return tuple(zip([0, *ends[:-1]], ends))


def _positional(n: int, m: int) -> tuple[int, ...]:
    """Eq. 2 as printed: line i of the poem is line i of the form."""
    return tuple(i if i < m else -1 for i in range(n))


def _length_masks(want: Sequence[int]) -> dict[int, int]:
    """Per length: the bit set of the positions of ``want`` with that length."""
    masks: dict[int, int] = {}
    for j, w in enumerate(want):
        masks[w] = masks.get(w, 0) | (1 << j)
    return masks


def _lcs_rows(lengths: Sequence[int], want: Sequence[int], masks: dict[int, int] | None = None) -> list[int]:
    """Bit-parallel LCS (Hyyrö 2004) of two length sequences: after each poem line, a bit vector
    whose zero bits among the first j count the LCS of the lines so far with ``want[:j]``."""
    masks = _length_masks(want) if masks is None else masks
    full = (1 << len(want)) - 1
    v, rows = full, [full]
    get = masks.get
    for x in lengths:
        u = v & get(x, 0)
        v = ((v + u) | (v - u)) & full
        rows.append(v)
    return rows


@dataclass(slots=True)
class _Reading:
    """One variant's reading of a poem shape. Its alignments are worked out only when the
    variant's structure could still win, so a poem of an unseen shape costs little."""

    structure: float  # Eq. 2-3 under the best alignment (an upper bound where 叠 lines must repeat)
    index: int
    variant: _CompiledVariant
    bounds: tuple[tuple[int, int], ...]
    rows: list[int] | None  # the LCS bit vectors, where an alignment reads more lines right than line by line
    as_written: bool = False  # bounds are the poem's clauses as written
    plans: list[_Plan] | None = None
    read: tuple[int, ...] = ()  # the lengths of the lines as bounded


def _alignments(
    lengths: Sequence[int], want: Sequence[int], rows: list[int] | None = None, masks: dict[int, int] | None = None
) -> list[tuple[int, ...]]:
    """The readings of the poem's lines as the form's, in order, with the most right-length lines.

    Eq. 2 compares line i with template line i, so one lost or extra clause makes every later
    line wrong. These are the order-preserving alignments with the most right-length lines (a
    longest common subsequence of the two length sequences); the lines between two such anchors
    are paired in order, so that their rhyme positions are still read. Where the line-by-line
    reading is already as good it is the only one. Otherwise there are two: each right-length
    line placed as late as it can be, and as early; the characters decide between them, so a
    fragment that survives from the start or from the end of a poem is read where it stood.
    """
    n, m = len(lengths), len(want)
    matched = sum(map(eq, lengths, want))
    if matched == min(n, m):
        return [_positional(n, m)]
    rows = rows or _lcs_rows(lengths, want, masks)
    here = m - rows[n].bit_count()  # lcs(n, m)
    if here <= matched:
        return [_positional(n, m)]
    # lcs(i, j) of lengths[:i] and want[:j] is the count of zero bits of rows[i] among its first
    # j, so lcs(i, j - 1) == lcs(i, j) exactly where bit j - 1 of rows[i] is set. Each walk goes
    # back from the last elements (i, j here index them, so lcs(i + 1, j + 1) is carried as
    # ``left``: the hot loop of a poem of a new shape, and while it is positive neither index has
    # run out): equal last elements extend the LCS by one, and where no anchor is taken and
    # lcs(i + 1, j) is smaller, lcs(i, j + 1) is the same.
    #
    # The latest: an anchor wherever the last elements are equal (always part of some LCS). It
    # also finds whether every anchor was forced (neither line could be skipped without losing a
    # match): then the earliest walk takes the same steps, and there is one reading.
    anchors: list[tuple[int, int]] = []
    i, j, left = n - 1, m - 1, here
    forced = True
    while left:
        if lengths[i] == want[j]:
            if forced and (rows[i + 1] >> j & 1 or j + 1 - (rows[i] & ((2 << j) - 1)).bit_count() == left):
                forced = False
            anchors.append((i, j))
            i, j, left = i - 1, j - 1, left - 1
        elif rows[i + 1] >> j & 1:  # lcs(i + 1, j) == lcs(i + 1, j + 1)
            j -= 1
        else:
            i -= 1
    anchors.reverse()
    late = _pair_between(anchors, n, m)
    if forced:
        return [late]
    # The earliest: an anchor only where neither line can be skipped without losing a match.
    anchors = []
    i, j, left = n - 1, m - 1, here
    while left:
        if rows[i + 1] >> j & 1:  # the form's line j can go
            j -= 1
        elif lengths[i] == want[j] and j + 1 - (rows[i] & ((2 << j) - 1)).bit_count() < left:
            anchors.append((i, j))  # and lcs(i, j + 1) is smaller too
            i, j, left = i - 1, j - 1, left - 1
        else:
            i -= 1
    anchors.reverse()
    early = _pair_between(anchors, n, m)
    return [late] if late == early else [late, early]


def _pair_between(anchors: Sequence[tuple[int, int]], n: int, m: int) -> tuple[int, ...]:
    """The reading with these (poem line, form line) anchors; lines between them paired in order."""
    out = [-1] * n
    prev_i = prev_j = -1
    for i, j in (*anchors, (n, m)):
        gap = min(i - prev_i, j - prev_j) - 1
        if gap > 0:
            out[prev_i + 1 : prev_i + 1 + gap] = range(prev_j + 1, prev_j + 1 + gap)
        if i < n:
            out[i] = j
        prev_i, prev_j = i, j
    return tuple(out)


def _resegment(lengths: Sequence[int], want: Sequence[int]) -> tuple[int, ...] | None:
    """Align clauses to the template where punctuation is missing or doubled: the lengths of the
    lines so read, or None where the clauses are read as written (most poems).

    A clause as long as the next k template lines together is split into them (an unprinted
    读 or 句 mark); k clauses as long as the next template line together are joined (a 读 the
    edition printed, or a doubled mark). Both need the lengths to add up exactly, so a poem of
    the wrong shape gains nothing.
    """
    read: list[int] | None = None  # copied from the clauses once the first split or join is made
    i = j = 0
    n, m = len(lengths), len(want)
    while i < n:
        size = lengths[i]
        if j < m and size != want[j]:
            goal = want[j]
            if size > goal:
                acc, k = goal, j
                while acc < size and k + 1 < m:
                    k += 1
                    acc += want[k]
                if acc == size and k > j:
                    if read is None:
                        read = list(lengths[:i])
                    read.extend(want[j : k + 1])
                    i, j = i + 1, k + 1
                    continue
            else:
                acc, k = size, i
                while acc < goal and k + 1 < n:
                    k += 1
                    acc += lengths[k]
                if acc == goal and k > i:
                    if read is None:
                        read = list(lengths[:i])
                    read.append(goal)
                    i, j = k + 1, j + 1
                    continue
        if read is not None:
            read.append(size)
        i, j = i + 1, j + 1
    return None if read is None else tuple(read)


def _structure_with_repeats(lines: Sequence[str], line_of: Sequence[int], cv: _CompiledVariant) -> float:
    """Eq. 2-3 where a 叠 line must also repeat the line before it."""
    text_of = {j: line for line, j in zip(lines, line_of) if j >= 0}
    matched = 0
    for line, j in zip(lines, line_of):
        if j < 0 or len(line) != cv.lines[j].length:
            continue
        if cv.lines[j].repeat and j > 0 and text_of.get(j - 1) != line:
            continue
        matched += 1
    return matched / max(len(lines), len(cv.lines), 1)


_NEED: dict[str, int] = {}  # tone pattern -> its requirement bits: the 词谱's lines share a few hundred patterns


def _need(tones: str) -> int:
    need = _NEED.get(tones)
    if need is None:
        need = sum(1 << (2 * j) for j, t in enumerate(tones) if t == "平")
        need |= sum(1 << (2 * j + 1) for j, t in enumerate(tones) if t == "仄")
        if len(_NEED) < 65_536:
            _NEED[tones] = need
    return need


def _compile(variant: Variant) -> _CompiledVariant:
    lines, needs, options, segs = [], [], [], {}
    for i, line in enumerate(variant.lines):  # Variant.lines and Line's properties are computed per access: read once
        tones, rhymed = line.tones, line.rhymed
        lines.append(_CompiledLine(len(tones), rhymed, line.repeat))
        needs.append(_need(tones))
        options.append(0 if rhymed and tones[-1] == "平" else 1)  # the rhyme option: 0 平, 1 仄
        if rhymed:
            segs.setdefault(line.segment, []).append(i)
    lengths = tuple(cl.length for cl in lines)

    def read(idxs: Sequence[int]) -> tuple[tuple[int, ...], int | None]:
        agreed = {options[j] for j in idxs}
        return tuple(idxs), agreed.pop() if len(agreed) == 1 else None

    rhymed_lines = [j for idxs in segs.values() for j in idxs]
    return _CompiledVariant(
        variant,
        tuple(lines),
        lengths,
        any(cl.repeat for cl in lines),
        _length_masks(lengths),
        sum(lengths),
        len(rhymed_lines),
        tuple(needs),
        tuple(options),
        tuple(read(idxs) for idxs in segs.values()),
        (read(rhymed_lines),) if rhymed_lines else (),
    )


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
    reason: str = ""
    profile: str = "default"
    _critic: Any = field(default=None, repr=False, compare=False)
    _joined: str = field(default="", repr=False, compare=False)
    _bounds: tuple[tuple[int, int], ...] = field(default=(), repr=False, compare=False)
    #: scored as this stanza alone (0-based; 1 is the 下阕), or None for the whole poem
    stanza: int | None = None
    #: per line of ``lines``: the index of the variant's line it was read as, or -1 (not in the form)
    line_of: tuple[int, ...] = ()

    @property
    def lines(self) -> tuple[str, ...]:
        """The poem's lines as the critic aligned them to the chosen variant."""
        return tuple(self._joined[a:b] for a, b in self._bounds)

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
        if len(weights) != 3 or not all(math.isfinite(w) and w >= 0 for w in weights) or abs(sum(weights) - 1.0) > 1e-9:
            raise ValueError(f"weights must be three non-negative numbers summing to 1, got {tuple(weights)}")
        self.weights = tuple(float(w) for w in weights)
        self.extract = self.profile.extract if extract is None else extract
        self.registry: CipaiRegistry = load_cipai(metadata, metadata_format)
        self._tone_digits = _tone_digit_table(self.profile.tone_system, self.profile.lacuna_fits)
        rhyme_systems = (self.profile.rhyme_system, self.profile.rhyme_neighbours, self.profile.lacuna_fits)
        # per character: the groups it rhymes in as 平, as 仄, and in either tone (Eq. 5 as printed)
        self._rhyme_options = _rhyme_option_table(*rhyme_systems)
        #: per option (0 平, 1 仄, 2 either): a character's rhyme mask, 0 for one that rhymes nowhere
        self._rhyme_masks = _rhyme_mask_lookups(*rhyme_systems)
        self._compiled: dict[tuple[str, int | None], tuple[_CompiledVariant, ...]] = {}
        self._plan_cache: dict[tuple[str, int | None], dict[tuple, list[_Reading]]] = {}
        self._plan_cost = 0  # clause slots held by the plan cache (see PLAN_CACHE_SLOTS)
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

    def score(self, cipai: str, text: str, variant: str | None = None, stanza: int | None = None) -> CriticResult:
        """Score ``text`` as a poem of ``cipai``: the best fit over its variants, or ``variant`` only.

        ``stanza=1`` scores the text as the second stanza (下阕) alone, against the second stanza
        of each variant: what the completion task asks a model to write.
        """
        name = self._checked(cipai, variant, stanza)
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        if self.profile.literal_poetone:
            return self._score_literal(name, text)
        extraction = extract_poem(text, name) if self.extract else Extraction(text, True)
        return self._score_extraction(name, extraction, variant, stanza, self._also_titled(cipai, variant))

    def _also_titled(self, cipai: str, variant: str | None) -> tuple[str, ...]:
        """The other tunes a 同名异调 title names (浪淘沙: 浪淘沙令, 浪淘沙慢): a poem so titled is
        scored against each and keeps the tune it follows. None where a variant is asked for."""
        return () if variant is not None else self.registry.tunes_titled(cipai)[1:]

    def _checked(self, cipai: str, variant: str | None, stanza: int | None) -> str:
        """The canonical name, once the variant and stanza asked for are known to exist."""
        name = self.registry.resolve(cipai)
        if stanza is not None:
            if self.profile.literal_poetone:
                raise ValueError("profile 'poetone-code' scores whole poems only")
            # of every tune the title names (浪淘沙's 下阕 is 浪淘沙令's: 浪淘沙 itself has one stanza)
            tunes = (name,) if variant is not None else self.registry.tunes_titled(cipai)
            most = max(self._stanzas(tune) for tune in tunes)
            if type(stanza) is not int:  # not a bool either: stanza=True is no index
                raise ValueError(f"stanza must be an int (0 the first stanza, 1 the 下阕 …), got {stanza!r}")
            if stanza < 0 or stanza >= most:
                raise ValueError(f"stanza must be an index below {most} for {name!r}, got {stanza!r}")
        if variant is not None:
            if self.profile.literal_poetone:
                raise ValueError("profile 'poetone-code' always takes the best variant")
            ids = [v.id for v in self.registry[name].variants]
            if variant not in ids:
                raise ValueError(f"cipai {name!r} has no variant {variant!r}; it has {ids}")
        return name

    def score_extraction(
        self, cipai: str, extraction: Extraction, variant: str | None = None, stanza: int | None = None
    ) -> CriticResult:
        """Score a poem already found in an answer (``poetone.extraction.extract_poem``), so an
        answer is read once: the adapters extract, then this decides validity and scores."""
        name = self._checked(cipai, variant, stanza)
        if self.profile.literal_poetone:
            if not extraction.valid:
                return self._invalid(name, "", extraction.reason)
            return self._score_literal(name, extraction.poem)
        return self._score_extraction(name, extraction, variant, stanza, self._also_titled(cipai, variant))

    def _score_extraction(
        self, name: str, extraction: Extraction, variant: str | None, stanza: int | None, also: tuple[str, ...] = ()
    ) -> CriticResult:
        """The one place that decides validity: a poem found, verse in it, and not degenerate."""
        if not extraction.valid:
            return self._invalid(name, "", extraction.reason, stanza)
        poem = extraction.poem
        shape = self._split(poem, extraction.clean)
        if shape is None:
            return self._invalid(name, poem, "no verse characters", stanza)
        result = None
        for tune in (name, *also):
            if stanza is not None and stanza >= self._stanzas(tune):
                continue  # a tune of the title without that stanza (_checked made sure one has it)
            found = self._best(tune, poem, *shape, only=variant, stanza=stanza)
            if result is None or (found.valid and (not result.valid or found.conformity > result.conformity + 1e-12)):
                result = found
        if result is None:  # unreachable through score(): _checked found a tune of the title with the stanza
            return self._invalid(name, poem, f"no tune titled {name!r} has stanza {stanza}", stanza)
        return result

    def _stanzas(self, name: str) -> int:
        """The most stanzas a variant of the tune has."""
        return max(len(v.stanzas) for v in self.registry[name].variants)

    def score_many(self, pairs: Iterable[tuple[str, str]]) -> list[CriticResult]:
        return [self.score(cipai, text) for cipai, text in pairs]

    def variants(self, cipai: str) -> tuple[Variant, ...]:
        return self.registry[cipai].variants

    # -- internals ----------------------------------------------------------------------------

    def _variants_of(self, name: str, stanza: int | None = None) -> tuple[_CompiledVariant, ...]:
        compiled = self._compiled.get((name, stanza))
        if compiled is None:
            variants = self.registry[name].variants
            if stanza is not None:  # the stanza alone, of the variants that have it
                variants = tuple(replace(v, stanzas=(v.stanzas[stanza],)) for v in variants if len(v.stanzas) > stanza)
            compiled = self._compiled[(name, stanza)] = tuple(_compile(v) for v in variants)
        return compiled

    def _split(self, poem: str, clean: bool = False) -> tuple[str, tuple[int, ...], list[str]] | None:
        """The poem's verse characters joined, its clause lengths and its clauses; None without verse."""
        if self.profile.split_at_pause:
            texts = _CLAUSES.findall(poem if clean else _clean_clauses(poem, _NOT_VERSE_OR_MARK_ALL))
        else:
            texts = _CLAUSES.findall(_clean_clauses(poem, _NOT_VERSE_OR_MARK_PAPER))
        if not texts:
            return None
        return "".join(texts), tuple(map(len, texts)), texts

    def _plans(self, name: str, lengths: tuple[int, ...], stanza: int | None = None) -> list[_Reading]:
        """Per variant: how it reads a poem of these clause lengths and its structure score, best first.

        Both depend only on the clause lengths, never on the characters, so they are cached:
        most poems of a cipai share a handful of shapes.
        """
        cache = self._plan_cache.get((name, stanza))
        readings = None if cache is None else cache.get(lengths)
        if readings is None:
            if cache is None:
                cache = self._plan_cache.setdefault((name, stanza), {})
            cost = len(lengths) * len(self._variants_of(name, stanza))
            if self._plan_cost + cost > PLAN_CACHE_SLOTS:
                # bounded by size, not by entries: a stream of long texts of fresh shapes would
                # otherwise hold every shape's readings (issue 14: 1,500 such texts took 1.96 GB)
                self._plan_cache.clear()
                cache = self._plan_cache.setdefault((name, stanza), {})
                self._plan_cost = 0
            self._plan_cost += cost
            readings = []
            resegment, align = self.profile.resegment, self.profile.align_lines
            written = _identity_bounds(lengths)
            for idx, cv in enumerate(self._variants_of(name, stanza)):
                want = cv.lengths
                bounds, read = written, lengths
                if resegment and lengths != want and (split := _resegment(lengths, want)) is not None:
                    bounds, read = _identity_bounds(split), split
                matched = sum(map(eq, read, want))
                n, m = len(read), len(want)
                rows = None
                if align and matched < (n if n < m else m):
                    lcs = _lcs_rows(read, want, cv.length_masks)
                    aligned = m - lcs[n].bit_count()
                    if aligned > matched:  # an alignment beats line by line: its bit vectors are kept for the walks
                        matched, rows = aligned, lcs
                structure = matched / (n if n > m else m or 1)
                readings.append(_Reading(structure, idx, cv, bounds, rows, read is lengths, None, read))
            readings.sort(key=attrgetter("structure"), reverse=True)  # stable: variants of equal structure in order
            cache[lengths] = readings
        return readings

    def _readings(self, reading: _Reading) -> list[_Plan]:
        """The plans of one variant's reading: line by line, or every best alignment."""
        if reading.plans is None:
            prof, cv, bounds, read = self.profile, reading.variant, reading.bounds, reading.read
            if reading.rows is None:
                line_ofs = [_positional(len(read), len(cv.lengths))]
            else:
                line_ofs = _alignments(read, cv.lengths, reading.rows, cv.length_masks)
                reading.rows = []  # walked: the plans below are what is kept (see PLAN_CACHE_SLOTS)
            ends = _chars_at([b - 1 for _, b in bounds]) if bounds else None  # the plans of a reading share its lines
            reading.plans = [
                _make_plan(
                    reading.index, cv, bounds, line_of, prof.rhyme_by_segment, prof.rhyme_tone_class, prof.count_missing,
                    reading.as_written, ends,
                )
                for line_of in line_ofs
            ]
        return reading.plans

    def _best(
        self,
        name: str,
        poem: str,
        joined: str,
        lengths: tuple[int, ...],
        clauses: Sequence[str] = (),
        only: str | None = None,
        stanza: int | None = None,
    ) -> CriticResult:
        prof = self.profile
        # The whole poem's tone classes as one integer, two bits a character: bit 2p set when
        # character p can be 平, bit 2p+1 when it can be 仄 (a base-4 digit per character).
        can = int(joined[::-1].translate(self._tone_digits), 4)
        w_s, w_t, w_r = self.weights
        best = None
        for reading in self._plans(name, lengths, stanza):
            if only is not None and reading.variant.variant.id != only:
                continue
            if best is not None and w_s * reading.structure + w_t + w_r < best[0] - 1e-12:
                break  # sorted by structure: no later variant can win
            for plan in reading.plans if reading.plans is not None else self._readings(reading):
                s = plan.structure
                if plan.variant.has_repeats and prof.check_repeats:
                    s = _structure_with_repeats([joined[a:b] for a, b in plan.bounds], plan.line_of, plan.variant)
                if plan.compared:
                    faults = (plan.need & ~can).bit_count()
                    t = (plan.compared - faults) / (plan.compared + plan.missing_chars)
                else:
                    t = 0.0
                if best is not None and w_s * s + w_t * t + w_r * plan.rhyme_bound < best[0] - 1e-12:
                    continue  # even a perfect rhyme could not win: skip reading the rhymes
                r = self._rhyme(joined, plan)
                total = w_s * s + w_t * t + w_r * r
                if best is None or total > best[0] + 1e-12 or (abs(total - best[0]) <= 1e-12 and plan.index < best[4].index):
                    best = (total, s, t, r, plan)
        if best is None:  # ``only`` names a variant without this stanza
            return self._invalid(name, poem, f"variant {only!r} has no stanza {stanza}", stanza)
        total, s, t, r, plan = best
        if prof.reject_degenerate and (reason := self._degenerate(joined, plan, clauses)):
            return self._invalid(name, poem, reason, stanza)
        return CriticResult(
            name, total, s, t, r, True, plan.variant.variant.id, poem, "", prof.name, self, joined, plan.bounds, stanza, plan.line_of
        )

    def _invalid(self, name: str, poem: str, reason: str, stanza: int | None = None) -> CriticResult:
        """No poem in the form: every score 0, and why."""
        return CriticResult(name, 0.0, 0.0, 0.0, 0.0, False, None, poem, reason, self.profile.name, self, stanza=stanza)

    @staticmethod
    def _degenerate(joined: str, plan: _Plan, clauses: Sequence[str] = ()) -> str:
        """The degeneracy rule (poetone.degeneracy) on the lines as the chosen variant reads them:
        the clauses as written (most poems), or the slices of a resegmented reading."""
        lines = clauses if plan.as_written and clauses else [joined[a:b] for a, b in plan.bounds]
        rhyme_chars: list[str] = []
        if LACUNA in joined:  # only the lacuna rule reads the rhyme positions
            cv = plan.variant
            rhyme_chars = [
                joined[b - 1]
                for (a, b), j in zip(plan.bounds, plan.line_of)
                if j >= 0 and cv.lines[j].rhymed and not cv.lines[j].repeat and b > a
            ]
        if plainly_verse(joined, lines, plan.line_ends, rhyme_chars):  # most poems: a few set operations
            return ""
        return degenerate_reason_of(measure(lines, rhyme_chars))  # screened above: measure once

    def _rhyme(self, joined: str, plan: _Plan) -> float:
        """Eq. 5 per segment, weighted by its positions (one segment in profiles without 换韵);
        the rhyme positions of lines the poem lacks count as misses (``plan.missing_rhymes``)."""
        hits, total = 0, plan.missing_rhymes
        for chars_at, which, count in plan.rhymes:
            if type(which) is int:  # one tone class for the whole segment (the usual case)
                masks = list(map(self._rhyme_masks[which], chars_at(joined)))
            else:
                masks = [self._rhyme_masks[w](ch) for ch, w in zip(chars_at(joined), which)]
            total += count
            hits += count if reduce(and_, masks) else largest_group(masks)[1]  # usually all rhyme in one group
        return hits / total if total else 0.0

    def _score_literal(self, name: str, text: str) -> CriticResult:
        variants = self._literal.get(name)
        if variants is None:  # a generated tune, first used
            variants = self._literal[name] = tuple(PoetoneVariant.from_variant(v) for v in self.registry[name].variants)
        idx, total, s, t, r = score_poetone_code(text, variants, self.weights)
        from poetone.compat import split_lines

        vid = variants[idx].id if idx >= 0 else None
        lines = split_lines(text)
        joined = "".join(lines)
        bounds = _identity_bounds([len(x) for x in lines])
        valid = idx >= 0 and bool(lines)
        reason = "" if valid else "no lines"
        vid = vid if valid else None
        line_of = _positional(len(bounds), len(variants[idx].chars_per_line)) if idx >= 0 else ()
        return CriticResult(name, total, s, t, r, valid, vid, text, reason, self.profile.name, self, joined, bounds, None, line_of)

    def _details(self, result: CriticResult) -> dict[str, Any]:
        from poetone.render import explain

        return explain(self, result)


@cache
def _rhyme_option_table(rhyme_system: str, neighbours: bool, lacuna_fits: bool) -> dict[str, tuple[int, int, int]]:
    """Per character: the groups it rhymes in as 平, as 仄, and in either tone; built once per
    system and shared by every critic of it (read only: 20,000 characters take 0.1 s to build).

    With ``neighbours`` each mask is widened by the neighbouring 部 Song poets mixed; a lacuna
    (□) fits every group where ``lacuna_fits``, and none otherwise.
    """
    table = prosody.rhyme_table(rhyme_system)
    if neighbours:
        nb = prosody.neighbour_masks(rhyme_system)
        options = {ch: (prosody.widen(p, nb), prosody.widen(z, nb), prosody.widen(p | z, nb)) for ch, (p, z) in table.items()}
    else:
        options = {ch: (p, z, p | z) for ch, (p, z) in table.items()}
    every = (1 << len(prosody.rhyme_group_names(rhyme_system))) - 1
    options[LACUNA] = (every, every, every) if lacuna_fits else _NO_RHYME
    return options


class _MaskOrZero(dict[str, int]):
    """A character's rhyme mask; 0 for a character the table lacks (and nothing stored for it)."""

    def __missing__(self, key: str) -> int:
        return 0


@cache
def _rhyme_mask_lookups(rhyme_system: str, neighbours: bool, lacuna_fits: bool) -> tuple[Callable[[str], int], ...]:
    """Per option (0 平, 1 仄, 2 either) of ``_rhyme_option_table``: the C-level lookup of a
    character's mask, so that a segment's masks are one ``map``."""
    options = _rhyme_option_table(rhyme_system, neighbours, lacuna_fits)
    return tuple(_MaskOrZero({ch: opts[w] for ch, opts in options.items()}).__getitem__ for w in range(3))


@cache
def _tone_digit_table(tone_system: str, lacuna_fits: bool) -> tuple[str, ...]:
    """str.translate table indexed by code point: every character's tone mask as a base-4 digit
    ("0"-"3"). A lacuna (□) fits either class where ``lacuna_fits``; an unknown character neither.

    A sequence over all of Unicode rather than a dict: str.translate indexes it in C about twice
    as fast as a dict subclass that fills itself on a miss, and no text can grow it. It takes
    9 MB, built in milliseconds and shared by every critic of the same systems.
    """
    table = ["0"] * (sys.maxunicode + 1)
    for ch, mask in prosody.tone_table(tone_system).items():
        table[ord(ch)] = "0123"[mask]
    table[ord(LACUNA)] = "3" if lacuna_fits else "0"
    return tuple(table)


def tone_digit_mask(table: Sequence[str], ch: str) -> int:
    """The tone mask the score uses for ``ch`` (1 平, 2 仄, 3 either, 0 none)."""
    return int(table[ord(ch)])


def largest_group(masks: Sequence[int]) -> tuple[int, int]:
    """The group bit most masks share (lowest bit on ties) and how many share it.

    Each mask's bits are counted once (most characters rhyme in one or two groups), rather than
    every mask tested against every bit of the union."""
    counts: dict[int, int] = {}
    for m in masks:
        while m:
            bit = m & -m
            counts[bit] = counts.get(bit, 0) + 1
            m ^= bit
    best, best_count = 0, 0
    for bit, count in counts.items():
        if count > best_count or (count == best_count and bit < best):
            best, best_count = bit, count
    return best, best_count

