"""Build the generated cipai resource (src/poetone/cipai_generated/) from couyun's 钦定词谱 transcription.

    python scripts/build_cipu.py [--source ../shared/reference/couyun-cipu/cipu_all.json] [--out DIR]

Input: couyun's ``cipu_all.json`` (MIT, 817 tunes; ../shared/README.md describes it). Output: one JSON
file per tune in the project's schema (docs/cipai-schema.md), ``_index.json`` (every name and alias →
its file, read by the registry without parsing any tune), ``NOTICE`` (couyun's licence) and
``BUILD_REPORT.md`` (what was dropped and why). Same input, same bytes: keys sorted, tunes and
forms in the source's order, no timestamps.

The conversion, and why (docs/cipai-schema.md, "Generated cipai"):
- clauses and endings come from ``ge_lyu_sep``: 句, 读 (a pause that splits a clause), 韵, 叶, 换…韵,
  叠 (the clause repeats the previous one), 重 (the rhyme word repeats); the rhymed clauses are those
  whose last character is in ``rhyme_pos``. 和声 words printed inside the marks (竹枝, 举棹) are not
  part of the poem and are dropped.
- rhyme segments come from ``yun_classify`` (one class per segment, a negative offset is 叶). The
  钦定词谱 transcription often gives one class per tone for tunes that change rhyme at every turn
  (减字木兰花: 仄仄平平 仄仄平平 as two classes): where two classes alternate, each run of a class
  is its own segment, so 减字木兰花 has four. A class interrupted only by classes that do not come
  back (定风波's 平 rhyme around its 仄 pairs) stays one segment.
- a rhyme position whose tone is 中 takes the tone of the example poem's character; where that has
  both readings, the tone most positions of its segment have (at a 叶 position, the other tone).
- stanzas: the data marks none. A form is split into the tune's 段 count (a 单调 tune's form twice its
  length into two) only where the split has evidence (``stanza_splits``): each stanza ends on a rhyme
  and holds at least 60% of an even share, a two-stanza form's halves are within 0.7 of each other
  in size, and either the stanzas end alike (at least two clauses of equal length and rhyme tone read
  back from their ends, covering a third of the shorter stanza's clauses) or a new rhyme segment
  begins with the stanzas about equal (清平乐); only where no split has that, stanzas that mirror each
  other (80% of their characters in lines of equal length, a 读 read inside its line) with their last
  lines alike, unless the split takes the 换头 into the 上阕 (茶瓶儿 28/28; 花心动 refused); and only
  where neither has a split, halves within 0.9 of each other in size that end alike in two clauses
  and mirror 60% of their characters (雨中花慢 49/49). Where no split has evidence the form is one
  stanza, labelled
  单段 (分段未能推定); a label names the form's own 段 count (双调 for a 单调 tune written twice over).
- a tune's ``source`` cites 龙榆生《唐宋词格律》 only where one of its forms comes from it.
- forms Song poets used that the 词谱 lacks come from the hand-curated ``scripts/cipu_song_forms.json``
  (chosen with benchmarks/form_candidates.py; each attested by two or more poets, else the build
  refuses it) and are appended after the 词谱's forms. The build never reads the 全宋词.
- the 20 hand-curated cipai (src/poetone/cipai/) win: a tune whose name or alias is a curated name or
  alias is not generated, and a generated alias that another tune already has is dropped; both are
  listed in BUILD_REPORT.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = ROOT.parent / "shared" / "reference" / "couyun-cipu" / "cipu_all.json"
DEFAULT_OUT = ROOT / "src" / "poetone" / "cipai_generated"
CURATED = ROOT / "src" / "poetone" / "cipai"
TITLES = Path(__file__).resolve().parent / "cipu_titles.tsv"
SONG_FORMS = Path(__file__).resolve().parent / "cipu_song_forms.json"
STANZA_BREAKS = Path(__file__).resolve().parent / "cipu_stanza_breaks.tsv"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_CLAUSE_MARKS = re.compile(r"[，。、？！；：,.?!;:]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003ffff]")
STANZA_COUNTS = {"单调": 1, "双调": 2, "三段": 3, "四段": 4}
SHAPES = {n: kind for kind, n in STANZA_COUNTS.items()}
UNSPLIT = "单段 (分段未能推定)"


class FormError(ValueError):
    """A 词谱 form whose marks, tones and example do not agree: it is left out and reported."""


@dataclass
class Clause:
    tones: str
    mark: str  # the raw mark: 句 读 韵 叶 换韵 叠 重 …
    start: int  # offset of the first character in the form
    rhymed: bool = False
    xie: bool = False
    segment: str = ""
    repeat: bool = False

    @property
    def end(self) -> int:
        return self.start + len(self.tones)


@dataclass
class Report:
    skipped_tunes: list[str] = field(default_factory=list)
    dropped_aliases: list[str] = field(default_factory=list)
    bad_forms: list[str] = field(default_factory=list)
    merged_forms: int = 0
    one_stanza: list[str] = field(default_factory=list)
    song_forms: list[str] = field(default_factory=list)


def parse_sep(sep: Sequence[str], tone_str: str, where: str, want: Sequence[int] = ()) -> list[Clause]:
    """The clauses of ``ge_lyu_sep``, with their raw marks and offsets.

    A tone character before 韵/叶 may be the rhyme's tone written into the mark (``中平中仄仄韵`` is
    four tones and a 仄 rhyme) or a tone of the clause: the readings whose tones spell
    ``ge_lyu_str`` are tried, and the one whose clause lengths are the example's (``want``) wins.
    """
    text = re.sub(r"[^平仄中句读韵叶换叠重]", "", "".join(sep))  # 和声 words (竹枝, 举棹) and spaces
    readings: list[list[tuple[str, str]]] = []

    def walk(i: int, pos: int, tones: str, mark: str, done: list[tuple[str, str]]) -> None:
        if len(readings) >= 64:
            return
        if i == len(text):
            if not mark and not tones and pos == len(tone_str):
                readings.append(done)
            elif mark and pos == len(tone_str):
                readings.append([*done, (tones, mark)])
            return
        ch = text[i]
        if ch in "平仄中":
            if mark:  # a new clause begins
                walk(i, pos, "", "", [*done, (tones, mark)])
                if ch != "中" and mark.startswith("换") and len(mark) == 1:
                    walk(i + 1, pos, tones, mark + ch, done)
                return
            if pos < len(tone_str) and tone_str[pos] == ch:
                walk(i + 1, pos + 1, tones + ch, "", done)
            if ch != "中" and tones and i + 1 < len(text) and text[i + 1] in "韵叶":
                walk(i + 1, pos, tones, ch, done)  # the rhyme's tone, part of the mark
            return
        if not tones:
            return
        walk(i + 1, pos, tones, mark + ch, done)

    walk(0, 0, "", "", [])
    if not readings:
        raise FormError(f"{where}: the marks {''.join(sep)!r} do not spell ge_lyu_str {tone_str!r}")
    chosen = next((r for r in readings if [len(t) for t, _ in r] == list(want)), readings[0])
    clauses, pos = [], 0
    for tones, mark in chosen:
        clauses.append(Clause(tones=tones, mark=re.sub("[平仄]", "", mark), start=pos))
        pos += len(tones)
    return clauses


def rhyme_classes(yun: dict[str, list[int]]) -> tuple[dict[int, str], set[int]]:
    """Offset → class key, and the offsets the 词谱 marks 叶 (negative in ``yun_classify``)."""
    of: dict[int, str] = {}
    xie: set[int] = set()
    for key in sorted(yun, key=int):
        for off in yun[key]:
            at = abs(off)
            if off < 0:
                xie.add(at)
            of[at] = key
    return of, xie


def segments(order: Sequence[str]) -> list[int]:
    """Segment number per rhyme position, from each position's class (see the module docstring)."""
    runs: dict[str, list[tuple[int, int]]] = {}
    i = 0
    for key, group in itertools.groupby(order):
        n = len(list(group))
        runs.setdefault(key, []).append((i, i + n))
        i += n
    split = set()
    for key, spans in runs.items():
        if len(spans) < 2:
            continue
        between = {order[p] for (_, b), (a, _) in itertools.pairwise(spans) for p in range(b, a)}
        if any(len(runs[k]) >= 2 for k in between):
            split.add(key)
    seg_of: dict[tuple[str, int], int] = {}
    out = []
    run_index: Counter[str] = Counter()
    for key, group in itertools.groupby(order):
        idx = run_index[key] if key in split else 0
        run_index[key] += 1
        label = (key, idx)
        if label not in seg_of:
            seg_of[label] = len(seg_of)
        out.extend([seg_of[label]] * len(list(group)))
    return out


#: The shorter half of a two-stanza form holds at least this share of the longer (the curated files: ≥ 0.83).
MIN_RATIO = 0.7
#: Two stanzas mirror each other when this share of their characters is in lines of equal length, in order.
MIRROR = 0.8
#: Halves within EVEN of each other in size that end alike and mirror HALF_MIRROR of their characters.
EVEN, HALF_MIRROR = 0.9, 0.6


def lines_of(clauses: Sequence[Clause], merge_du: bool = True) -> list[tuple[int, str]]:
    """(length, rhyme tone or "") per line of a stanza; with ``merge_du`` a 读 joins the clause after it.

    海棠下、曾歌金缕 is one 7-character line, as 空物是人非春暮 is in the other half of 茶瓶儿.
    """
    out, pending = [], 0
    for c in clauses:
        if merge_du and c.mark == "读" and not c.rhymed:
            pending += len(c.tones)
            continue
        out.append((pending + len(c.tones), c.tones[-1] if c.rhymed else ""))
        pending = 0
    if pending:
        out.append((pending, ""))
    return out


def tail_match(a: Sequence[tuple[int, str]], b: Sequence[tuple[int, str]]) -> int:
    """How many clauses two stanzas share read back from their ends (length and rhyme)."""
    n = 0
    for x, y in zip(reversed(a), reversed(b)):
        if x != y:
            break
        n += 1
    return n


def mirrored(a: Sequence[tuple[int, str]], b: Sequence[tuple[int, str]]) -> int:
    """Characters of the lines two stanzas have in common, in order, by length (a weighted LCS).

    Rhymes do not count: the 下阕 often rhymes a line the 上阕 does not (茶瓶儿 翠罗衫上 句, 乱英飞絮 韵),
    and the 换头 (the 下阕's first lines) differs, which the alignment skips.
    """
    prev = [0] * (len(b) + 1)
    for x, _ in a:
        row = [0]
        for j, (y, _) in enumerate(b):
            row.append(max(prev[j + 1], row[j], prev[j] + x if x == y else 0))
        prev = row
    return prev[-1]


def stanza_splits(clauses: Sequence[Clause], stanzas: int) -> list[int] | None:
    """Clause indices where stanzas 2… begin, or None where the form gives no evidence of them.

    A stanza ends on a rhyme and holds at least 60% of an even share; the two stanzas of a 双调
    form are within ``MIN_RATIO`` of each other in size. The evidence for a break, in three tiers:

    1. the stanzas before and after it end alike (at least two clauses of equal length and rhyme
       tone read back from their ends, and at least a third of the shorter stanza's clauses), or a
       new rhyme segment begins right after it with the stanzas of about equal size (清平乐: 仄
       rhymes, then 平). The best-evidenced split wins, then the most even.
    2. only where no split has that: the stanzas mirror each other, ``MIRROR`` of their characters in
       lines of equal length in order (with a 读 read as a pause inside its line, or as printed),
       and their last lines alike. 茶瓶儿: 28/28, the halves differ only where the 下阕 rhymes a
       line. The most mirrored split (then the most even) must have its last lines alike, and is
       refused where it takes the 换头 into the 上阕 (see the end).
    3. only where neither tier has a split: the two halves of a 双调 form, within ``EVEN`` of each
       other in size, end alike in at least two clauses (length and rhyme tone) and mirror
       ``HALF_MIRROR`` of their characters. 雨中花慢: 49/49, 天香染袂，为我留连 and 十分春态，付与明年.
    """
    if stanzas <= 1:
        return []
    ends = [i + 1 for i, c in enumerate(clauses[:-1]) if c.rhymed]  # a stanza ends on a rhyme
    first_of = {}
    for i, c in enumerate(clauses):
        if c.rhymed:
            first_of.setdefault(c.segment, i)
    total = sum(len(c.tones) for c in clauses)
    best_ends: tuple[list[int], tuple[int, float]] | None = None
    best_mirror: tuple[list[int] | None, tuple[float, float]] | None = None
    best_even: tuple[list[int], tuple[float, float]] | None = None
    for cut in itertools.combinations(ends, stanzas - 1):
        bounds = [0, *cut, len(clauses)]
        raw = [lines_of(clauses[a:b], merge_du=False) for a, b in itertools.pairwise(bounds)]
        merged = [lines_of(clauses[a:b]) for a, b in itertools.pairwise(bounds)]
        sizes = [sum(n for n, _ in p) for p in raw]
        if min(sizes) < total * 0.6 / stanzas:  # no stanza of a few characters
            continue
        if stanzas == 2 and min(sizes) < MIN_RATIO * max(sizes):
            continue
        evidence, mirror, alike, even_ends = 0, 0.0, True, stanzas == 2 and min(sizes) >= EVEN * max(sizes)
        for k in range(stanzas - 1):
            p, q = raw[k], raw[k + 1]
            nxt = next((i for i in range(bounds[k + 1], bounds[k + 2]) if clauses[i].rhymed), None)
            new_segment = nxt is not None and first_of[clauses[nxt].segment] == nxt
            even = 0.4 <= sizes[k] / (sizes[k] + sizes[k + 1]) <= 0.6
            m = tail_match(p, q)
            if evidence >= 0:
                if m >= 2 and m * 3 >= min(len(p), len(q)):
                    evidence += m + (2 if new_segment else 0)
                elif new_segment and even:
                    evidence += 1
                else:
                    evidence = -1
            pm, qm = merged[k], merged[k + 1]
            share = 2 * max(mirrored(p, q), mirrored(pm, qm)) / (sizes[k] + sizes[k + 1])
            mirror += share
            alike = alike and share >= MIRROR and (p[-1] == q[-1] or pm[-1] == qm[-1])
            even_ends = even_ends and m >= 2 and share >= HALF_MIRROR
        spread = -max(abs(s - total / stanzas) for s in sizes)
        if evidence > 0 and (best_ends is None or (evidence, spread) > best_ends[1]):
            best_ends = (list(cut), (evidence, spread))
        if even_ends and (best_even is None or (round(mirror, 9), spread) > best_even[1]):
            best_even = (list(cut), (round(mirror, 9), spread))
        if best_mirror is None or (round(mirror, 9), spread) > best_mirror[1]:
            best_mirror = (list(cut) if alike else None, (round(mirror, 9), spread))
    if best_ends is not None:
        return best_ends[0]
    if best_mirror is None or best_mirror[0] is None:  # tier 3
        return best_even[0] if best_even is not None else None
    # the 换头 taken into the 上阕 (花心动's 浪翻红绉。一夜情浓似酒‖): the 上阕 ends on two rhymed lines,
    # and the split before the last of them (itself of a stanza's size) mirrors as much but for that
    # line, which the 下阕's last line now matches; the break is in doubt
    cut = best_mirror[0]
    if stanzas == 2:
        last = lines_of(clauses[: cut[0]])
        earlier = [e for e in ends if e < cut[0]]
        if len(last) > 1 and last[-2][1] and earlier:
            upper = sum(len(c.tones) for c in clauses[: earlier[-1]])
            moved = sum(len(c.tones) for c in clauses[earlier[-1] : cut[0]])
            sized = min(upper, total - upper) >= max(total * 0.3, MIN_RATIO * max(upper, total - upper))
            if sized and mirror_chars(clauses, earlier[-1]) + moved >= mirror_chars(clauses, cut[0]):
                return None
    return cut


def mirror_chars(clauses: Sequence[Clause], cut: int) -> int:
    """Characters the two halves of a form split at ``cut`` share in lines of equal length, in order."""
    a, b = clauses[:cut], clauses[cut:]
    return max(mirrored(lines_of(a, merge_du=False), lines_of(b, merge_du=False)), mirrored(lines_of(a), lines_of(b)))


def tone_of(char: str) -> str:
    from poetone import prosody

    return {1: "平", 2: "仄"}.get(prosody.tone_mask(char), "")


def stanzas_of(kind: str, chars: int, form: dict) -> int:
    """Stanzas a form has: the tune's 段 count, or two for a form twice the 单调's length (江城子)."""
    n = STANZA_COUNTS.get(kind, 1)
    if n == 1 and len(form["ge_lyu_str"]) >= 1.8 * chars:
        return 2
    return n


def shape_of(stanzas: int, wanted: int) -> str:
    """A form's own 段 label: 双调 for its two stanzas (a 单调 tune written twice over, as 江城子, too),
    or 单段 (分段未能推定) where a tune of several stanzas has a form the build could not split."""
    if stanzas == wanted or (wanted == 1 and stanzas == 2):
        return SHAPES[stanzas]
    return UNSPLIT


def convert_form(
    form: dict, stanzas: int, where: str, opens: Sequence[str] = (), used: set[str] | None = None
) -> tuple[list[list[str]], bool]:
    """One 词谱 form as stanzas of line specs; the flag says whether the stanzas were inferred.
    ``opens``: where the tune's 下阕 opens in its examples (scripts/cipu_stanza_breaks.tsv), the
    openings found added to ``used``."""
    tone_str = form["ge_lyu_str"]
    want = [len(_HAN.findall(p)) for p in _CLAUSE_MARKS.split(form["origin"]) if _HAN.search(p)]
    clauses = parse_sep(form["ge_lyu_sep"], tone_str, where, want)
    example = [ch for ch in form["origin"] if _HAN.match(ch)]
    if len(example) != len(tone_str):
        raise FormError(f"{where}: the example has {len(example)} characters, the tones {len(tone_str)}")
    of, xie = rhyme_classes(form["yun_classify"])
    rhyme_pos = set(form["rhyme_pos"]) | set(of)
    last_of = {c.end - 1: i for i, c in enumerate(clauses)}
    for off in sorted(rhyme_pos):
        if off not in last_of:
            raise FormError(f"{where}: rhyme offset {off} does not end a clause")
    for i, c in enumerate(clauses):
        c.rhymed = (c.end - 1) in rhyme_pos
        c.xie = (c.end - 1) in xie or c.mark.endswith("叶")
        # 叠: the clause repeats the previous one (如梦令 如梦。如梦。) where the example does so; else
        # only the rhyme word repeats (长相思 汴水流。泗水流。), an ordinary rhyme position
        prev = clauses[i - 1] if i else None
        c.repeat = "叠" in c.mark and prev is not None and example[c.start : c.end] == example[prev.start : prev.end]
    rhymed = [c for c in clauses if c.rhymed]
    if not rhymed:
        raise FormError(f"{where}: no rhyme position")
    seg_nos = segments([of.get(c.end - 1, "0") for c in rhymed])
    if max(seg_nos) >= len(LETTERS):
        raise FormError(f"{where}: more than {len(LETTERS)} rhyme segments")
    for c, s in zip(rhymed, seg_nos):
        c.segment = LETTERS[s]
    # a 中 rhyme position: the tone of the example's character; where that has both readings, the
    # tone of its segment, or for a 叶 position the other tone (叶 joins a segment in the other
    # tone, as 西江月's 仄 rhymes its 平 segment)
    seg_tones: dict[str, Counter[str]] = {}
    for c in rhymed:
        if c.tones[-1] != "中" and not c.xie:
            seg_tones.setdefault(c.segment, Counter())[c.tones[-1]] += 1
    for c in rhymed:
        if c.tones[-1] == "中":
            t = tone_of(example[c.end - 1])
            if not t:
                t = (seg_tones.get(c.segment) or Counter({"仄": 1})).most_common(1)[0][0]
                t = {"平": "仄", "仄": "平"}[t] if c.xie else t
            c.tones = c.tones[:-1] + t
    specs, seen = [], set()
    for c in clauses:
        if c.rhymed:
            end = "换" if seen and c.segment not in seen else "叶" if c.xie and c.segment in seen else "韵"
            seen.add(c.segment)
            spec = f"{c.tones} {end}{c.segment}"
        else:
            spec = f"{c.tones} {'读' if c.mark == '读' else '句'}"
        specs.append(spec + (" 叠" if c.repeat else ""))
    cut = stanza_splits(clauses, stanzas)
    text = "".join(example)
    read = [i for i, c in enumerate(clauses) if i and clauses[i - 1].rhymed and any(text.startswith(o, c.start) for o in opens)]
    if stanzas == 2 and len(read) == 1:  # read from the poem: the rule's break is wrong for this tune
        cut = read
        if used is not None:
            used.update(o for o in opens if text.startswith(o, clauses[read[0]].start))
    if cut is None:
        return [specs], stanzas == 1
    bounds = [0, *cut, len(specs)]
    return [specs[a:b] for a, b in itertools.pairwise(bounds)], True


def first_clause(origin: str) -> str:
    return next((p for p in _CLAUSE_MARKS.split(origin) if p), origin)


def curated_names() -> dict[str, str]:
    """Every name and alias of the hand-curated cipai → its cipai."""
    out = {}
    for f in sorted(CURATED.glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        for key in (data["name"], *data.get("aliases", [])):
            out[key] = data["name"]
    return out


def read_table(path: Path, key: int, value: int) -> dict[str, list[str]]:
    """A hand-curated table of three tab-separated columns (the last says why): column ``key`` →
    the values of column ``value``, in order; ``#`` lines are comments."""
    out: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            row = line.split("\t")
            if len(row) != 3:
                raise FormError(f"{path.name}: {line!r} is not three tab-separated columns")
            out.setdefault(row[key], []).append(row[value])
    return out


def read_stanza_breaks(path: Path = STANZA_BREAKS) -> dict[str, list[str]]:
    """Per tune, where its 下阕 opens in its examples (scripts/cipu_stanza_breaks.tsv)."""
    return read_table(path, 0, 1)


def build_tune(name: str, entry: dict, report: Report, opens: Sequence[str] = ()) -> dict | None:
    kind, chars, rtones = entry["type"]
    variants, by_lines = [], {}
    used: set[str] = set()
    sources = [("qinding", "钦定词谱"), ("longyusheng", "龙榆生《唐宋词格律》")]
    forms = [(src, label, i, f) for src, label in sources for i, f in enumerate(entry.get(src, []))]
    for src, label, i, form in forms:
        where = f"{name} {src}[{i}]"
        try:
            stanzas = stanzas_of(kind, chars, form)
            lines, inferred = convert_form(form, stanzas, where, opens, used)
        except FormError as exc:
            report.bad_forms.append(str(exc))
            continue
        if not inferred:
            report.one_stanza.append(where)
        source = (
            f"{label} {name} 第{i + 1}体" if src == "qinding" else f"{label} {name}" + (f" 第{i + 1}体" if i else "")
        )
        key = json.dumps(lines, ensure_ascii=False)
        if key in by_lines:  # the same form in both 词谱: one variant, both sources
            by_lines[key]["source"] += f"; {source}"
            report.merged_forms += 1
            continue
        n = sum(len(re.sub("[^平仄中]", "", s.split(" ")[0])) for st in lines for s in st)
        variant = {
            "id": "正体" if not variants else f"又一体{len(variants)}",
            "label": f"{shape_of(len(lines), stanzas)}{n}字",
            "source": source,
            "example": {"first_line": first_clause(form["origin"])},
            "stanzas": lines,
        }
        by_lines[key] = variant
        variants.append(variant)
    stale = [o for o in opens if o not in used]
    if stale:
        raise FormError(f"{STANZA_BREAKS.name}: no form of {name} has a 下阕 opening {'、'.join(stale)}")
    if not variants:
        return None
    source = f"钦定词谱 (couyun transcription, tune {entry['index']})"
    if any("龙榆生" in v["source"] for v in variants):  # cite 龙榆生 only where a form comes from it
        source += "; 龙榆生《唐宋词格律》"
    return {
        "name": name,
        "aliases": [],
        "source": source,
        "note": f"generated by scripts/build_cipu.py from couyun cipu_all.json: {kind}, {chars}字, 韵 {''.join(rtones)}",
        "variants": variants,
    }


def read_song_forms(path: Path = SONG_FORMS) -> dict[str, list[dict]]:
    """The hand-curated forms of scripts/cipu_song_forms.json, per tune, checked.

    A form must name its tune, give its stanzas as line specs, and be attested by poems of at least
    two distinct poets, each with the first clause quoted; anything less is refused (FormError).
    """
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, list[dict]] = {}
    for i, form in enumerate(data.get("forms", [])):
        where = f"{path.name} forms[{i}] ({form.get('tune', '?')})"
        missing = [k for k in ("tune", "stanzas", "poems", "why") if not form.get(k)]
        if missing:
            raise FormError(f"{where}: no {', '.join(missing)}")
        poems = form["poems"]
        if any(not p.get("poet") or not p.get("first_line") for p in poems):
            raise FormError(f"{where}: every attesting poem needs its poet and first clause")
        poets = list(dict.fromkeys(p["poet"] for p in poems))
        if len(poets) < 2:
            raise FormError(
                f"{where}: attested by {len(poets)} poet(s); a form needs two or more poets (one poem's shape is no form)"
            )
        out.setdefault(form["tune"], []).append(form)
    return out


def add_song_forms(tune: dict, kind: str, forms: Sequence[dict], report: Report) -> None:
    """Append the 全宋词 forms of one tune after the 词谱's, ids continuing the numbering."""
    stanzas_wanted = STANZA_COUNTS.get(kind, 1)
    known = {json.dumps(v["stanzas"], ensure_ascii=False) for v in tune["variants"]}
    for form in forms:
        lines = form["stanzas"]
        key = json.dumps(lines, ensure_ascii=False)
        if key in known:
            raise FormError(f"{tune['name']}: a 全宋词 form repeats a form the 词谱 already has")
        known.add(key)
        n = sum(len(re.sub("[^平仄中]", "", s.split(" ")[0])) for st in lines for s in st)
        poems = "、".join(f"{p['poet']}「{p['first_line']}」" for p in form["poems"])
        vid = f"又一体{len(tune['variants'])}"
        shape = shape_of(len(lines), stanzas_wanted)  # a 单调 tune written twice over (双叠) is 双调
        tune["variants"].append(
            {
                "id": vid,
                "label": f"{shape}{n}字 (全宋词)",
                "source": f"全宋词 {poems}: {form['why']}",
                "example": {"poet": form["poems"][0]["poet"], "first_line": form["poems"][0]["first_line"]},
                "stanzas": lines,
            }
        )
        report.song_forms.append(f"{tune['name']} {vid} ({n}字): {poems}")


def read_titles(path: Path = TITLES) -> dict[str, list[str]]:
    """The 全宋词 titles of scripts/cipu_titles.tsv (title, tune, why), per tune."""
    return read_table(path, 1, 0)


#: A tune's 令/慢/近/引 sibling: the 全宋词 often prints it under the bare name (柳永's 浪淘沙慢 as 浪淘沙).
SIBLING_SUFFIXES = ("近拍", "令", "慢", "近", "引")


def assign_aliases(
    tunes: dict[str, dict], source: dict, curated: dict[str, str], report: Report
) -> dict[str, list[str]]:
    """又名, traditional spellings and 全宋词 titles, first come first served; curated names are never taken.

    Returns the 同名异调 titles: title → the tunes printed under it, the one it resolves to first.
    A title two tunes claim (乌夜啼: a tune of its own and 相见欢's 又名) and a bare name whose
    令/慢/近/引 siblings, or a sibling the 词谱 tells apart by a note, exist (浪淘沙: 浪淘沙, 浪淘沙令,
    浪淘沙慢; 三台: 三台, 三台（大曲）) are such titles: the critic scores
    a poem so titled against each and keeps the tune it follows.
    """
    from opencc import OpenCC

    to_trad = OpenCC("s2t").convert
    titles = read_titles()
    missing = sorted(set(titles) - set(tunes))
    report.dropped_aliases += [f"{', '.join(titles[t])}: tune {t} is not generated" for t in missing]
    owner = {n: n for n in tunes} | {k: f"curated {v}" for k, v in curated.items()}
    for name in tunes:  # a tune's own name in the traditional script is the tune, before any other's alias
        owner.setdefault(to_trad(name), name)
    homonyms: dict[str, list[str]] = {}

    def claim(title: str, name: str) -> bool:
        have = owner.setdefault(title, name)
        if have == name:
            return True
        if have.startswith("curated "):
            report.dropped_aliases.append(f"{title} (of {name}): already {have}")
        else:
            group = homonyms.setdefault(title, [have])
            if name not in group:
                group.append(name)
        return False

    for name in tunes:
        entry = source[name]
        simplified = [*entry.get("aliases", []), *titles.get(name, [])]
        traditional = [*entry.get("aliases_trad", []), to_trad(name), *(to_trad(a) for a in titles.get(name, []))]
        wanted = [a for a in (*simplified, *traditional) if a != name]
        tunes[name]["aliases"] = [alias for alias in dict.fromkeys(wanted) if claim(alias, name)]
    for name in tunes:
        annotated = re.fullmatch(r"(.+?)（[^（）]+）", name)  # 三台（大曲）: the 词谱's note telling it from 三台
        base = (
            annotated.group(1)
            if annotated
            else next((name[: -len(x)] for x in SIBLING_SUFFIXES if name.endswith(x) and len(name) > len(x) + 1), None)
        )
        if base is None or owner.get(base, "").startswith("curated "):
            continue
        for title in dict.fromkeys((base, to_trad(base))):
            if title not in owner:  # the bare name is no tune: it resolves to the first sibling
                owner[title] = name
                tunes[name]["aliases"].append(title)
            elif owner[title] != name:
                claim(title, name)
    return {t: g for t, g in homonyms.items() if len(g) > 1}


def build(source_path: Path, out: Path, only: Iterable[str] | None = None, song_forms: Path = SONG_FORMS) -> Report:
    source = json.loads(source_path.read_text(encoding="utf-8"))
    curated = curated_names()
    report = Report()
    extra = read_song_forms(song_forms)
    breaks = read_stanza_breaks()
    for name in breaks:
        if name not in source:
            raise FormError(f"{STANZA_BREAKS.name}: {name} is no tune of the 词谱")
    for name in extra:
        if name in curated:
            raise FormError(f"{song_forms.name}: {name} is a hand-curated cipai; add its forms to its own file")
        if name not in source:
            raise FormError(f"{song_forms.name}: {name} is no tune of the 词谱")
    wanted = set(only) if only is not None else None
    tunes: dict[str, dict] = {}
    for name in sorted(source, key=lambda n: (source[n]["index"], n)):
        if wanted is not None and name not in wanted:
            continue
        entry = source[name]
        taken = [k for k in (name, *entry.get("aliases", [])) if k in curated]
        if taken:
            report.skipped_tunes.append(f"{name}: {taken[0]} is curated {curated[taken[0]]}")
            continue
        tune = build_tune(name, entry, report, breaks.get(name, ()))
        if tune is None:
            report.skipped_tunes.append(f"{name}: no form could be read")
            continue
        if name in extra:
            add_song_forms(tune, entry["type"][0], extra[name], report)
        tunes[name] = tune
    homonyms = assign_aliases(tunes, source, curated, report)
    write(out, tunes, source_path, report, homonyms)
    return report


def _dump(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def write(out: Path, tunes: dict[str, dict], source_path: Path, report: Report, homonyms: dict[str, list[str]]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    index, summary = {}, {}
    for name, tune in tunes.items():
        (out / f"{name}.json").write_text(_dump(tune), encoding="utf-8")
        for key in (name, *tune["aliases"]):
            index[key] = name
        summary[name] = {"variants": len(tune["variants"]), "source": tune["source"]}
    (out / "_index.json").write_text(
        _dump({"homonyms": homonyms, "names": index, "order": list(tunes), "tunes": summary}), encoding="utf-8"
    )
    licence = (source_path.parent / "LICENSE.couyun").read_text(encoding="utf-8")
    (out / "NOTICE").write_text(
        "The files in this folder are derived by scripts/build_cipu.py from the couyun project's\n"
        "transcription of the 钦定词谱 and 龙榆生《唐宋词格律》 (cipu_all.json), used under its MIT licence:\n\n"
        + licence,
        encoding="utf-8",
    )
    lines = [
        "# Build report (scripts/build_cipu.py)",
        "",
        f"{len(tunes)} tunes written; {report.merged_forms} 龙榆生 forms identical to a 钦定词谱 form were merged.",
        "",
    ]
    for title, items in (
        ("Tunes not generated", report.skipped_tunes),
        ("Aliases dropped", report.dropped_aliases),
        ("同名异调 titles (scored against each tune)", [f"{t}: {', '.join(g)}" for t, g in sorted(homonyms.items())]),
        ("Forms the 词谱 lacks, added from scripts/cipu_song_forms.json (Song poets' forms)", report.song_forms),
        ("Forms left out (marks, tones and example disagree)", report.bad_forms),
        ("Forms kept as one stanza (no evidence for the stanza breaks)", report.one_stanza),
    ):
        lines += [f"## {title} ({len(items)})", ""] + [f"- {x}" for x in items] + [""]
    (out / "BUILD_REPORT.md").write_text("\n".join(lines), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--only", nargs="*", help="build these tunes only (for tests)")
    ap.add_argument("--song-forms", type=Path, default=SONG_FORMS, help="the hand-curated 全宋词 forms")
    args = ap.parse_args(argv)
    if not args.source.exists():
        print(
            f"error: source {args.source} does not exist (../shared/reference/couyun-cipu/cipu_all.json)",
            file=sys.stderr,
        )
        return 2
    try:
        report = build(args.source, args.out, args.only, args.song_forms)
    except FormError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(
        f"wrote {args.out}: {len(report.skipped_tunes)} tunes skipped, {len(report.dropped_aliases)} aliases dropped, "
        f"{len(report.bad_forms)} forms left out, {len(report.one_stanza)} forms as one stanza, "
        f"{len(report.song_forms)} 全宋词 forms added"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
