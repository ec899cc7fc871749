"""Text that is not verse in the form: the degeneracy rule of the critic (profile switch ``reject_degenerate``).

The conformity formula checks lengths, tone classes and rhyme groups, so text that is no poem can
satisfy it: one character repeated in a tune's shape fits every line, a lacuna (□) fits every tone
and rhyme, the same clause repeated keeps every length right. Such text is invalid and scores 0,
with a reason naming the rule (``degenerate: …``).

Every threshold is a figure of the 全宋词, not a guess: ``benchmarks/derive_degeneracy.py`` reads
the 13,900 dev poems of ``../shared`` (all tunes), prints how far authentic poems go on each
measure, and checks these constants against them (docs/validation.md lists the poems flagged).
The furthest authentic poems are kept, by name, in tests: 李清照's 声声慢 (寻寻觅觅，冷冷清清，凄凄惨惨戚戚),
王齐愈's 回文 菩萨蛮 (every character twice), 贺铸's 相思引 (叠句), 钗头凤's 错、错、错, and the 福唐体
(蒋捷's 声声慢 rhymes 声 eight times, 陈著's 一剪梅 年 six times).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter

from poetone._chars import LACUNA

#: Fewest distinct characters a poem of any length can have (a text of one or two characters
#: repeated is never verse, whatever its shape).
MIN_DISTINCT = 3
#: Distinct characters over characters. Authentic minimum 0.43 (王齐愈's 回文 菩萨蛮, each character
#: twice); a short word filling the lines is far below (春风 over 浣溪沙: 2/42).
MIN_DISTINCT_SHARE = 0.40
#: Lacunae (□ and characters garbled in transmission) over characters: the lowest of 1/4, 1/3,
#: 2/5, 1/2 at which the whole rule flags at most 0.2% of the dev 全宋词 poems of the resource's
#: cipai (2/5: 0.17%; 1/3: 0.22%). Damaged editions keep poems with half their text lost; past
#: two fifths nothing can be said of the form, and a lost character must not buy tonal credit.
MAX_LACUNA_SHARE = 2 / 5
#: Lacunae over rhyme positions (with four or more): a lost character fits every rhyme group, so
#: more than half the rhymes lost would be rhyme credit for nothing. Authentic maximum 0.5.
MAX_LACUNA_RHYME_SHARE = 0.5
#: Lines (two or more) that are one and the same clause. Authentic maximum 0.5 (two-line
#: fragments; with three or more lines 0.375): 叠句 repeat a clause once, not through the poem.
MAX_SAME_LINE_SHARE = 0.5
#: Lines (four or more) that repeat another line of the poem. Authentic maximum 0.71 (贺铸's
#: 相思引, whose form repeats four clauses); a stanza written twice is 1.0.
MAX_REPEATED_LINE_SHARE = 0.75
#: Characters inside a three-character run that stands twice or more in the text (line breaks
#: ignored). Authentic maximum 0.61 (无名氏's 长相思 晴也行，雨也行), the 99.9th percentile 0.37: a
#: loop of a dozen characters, or a stanza written again with a word changed, is near 1.0 and
#: slips past the rules on lines and distinct characters.
MAX_REPEATED_TRIGRAM_SHARE = 0.7
#: Lines (four or more) ending in one character. Authentic maximum 0.75 (陈著's 福唐体 一剪梅,
#: 年 at every rhyme): a 福唐体 repeats its rhyme character at the rhymes, not at every line end.
MAX_SAME_END_SHARE = 0.8


@dataclass(frozen=True, slots=True)
class Measures:
    """What the rule looks at, for one text: the derivation script reads the same figures."""

    characters: int
    distinct: int
    lost: int  # lacunae (□)
    rhymes: int  # rhyme positions read (叠 lines left out)
    lost_rhymes: int
    lines: int
    same_line: int  # lines that are the most common clause
    same_clause: str
    repeated_lines: int  # lines that repeat another line
    same_end: int  # lines ending in the most common last character
    end: str
    repeated_trigram_chars: int = 0  # characters inside a three-character run that stands twice or more


def measure(lines: Sequence[str], rhyme_chars: Sequence[str] = ()) -> Measures:
    """The rule's figures for the poem's lines (verse characters only, as the critic read them)."""
    joined = "".join(lines)
    count = len(lines)
    same_clause, same_line, repeated = "", min(count, 1), 0
    if count >= 2 and len(set(lines)) < count:
        tally = Counter(lines)
        same_clause, same_line = tally.most_common(1)[0]
        repeated = sum(k for k in tally.values() if k > 1)
    end, same_end = "", 0
    if joined:
        end, same_end = Counter(line[-1] for line in lines if line).most_common(1)[0]
    return Measures(
        len(joined),
        len(set(joined)),
        joined.count(LACUNA),
        len(rhyme_chars),
        sum(ch == LACUNA for ch in rhyme_chars),
        count,
        same_line,
        same_clause,
        repeated,
        same_end,
        end,
        _repeated_trigram_chars(joined),
    )


def _repeated_trigram_chars(joined: str) -> int:
    """How many characters stand inside a three-character run that occurs twice or more."""
    runs = [joined[i : i + 3] for i in range(len(joined) - 2)]
    tally = Counter(runs)
    covered = bytearray(len(joined))
    for i, run in enumerate(runs):
        if tally[run] > 1:
            covered[i : i + 3] = b"\x01\x01\x01"
    return sum(covered)


def degenerate_reason(lines: Sequence[str], rhyme_chars: Sequence[str] = ()) -> str:
    """Why the poem's lines (verse characters only, as the critic read them) are not verse, or ``""``.

    ``rhyme_chars`` are the characters at the form's rhyme positions (叠 lines left out, since the
    form asks for their repetition).
    """
    if plainly_verse("".join(lines), lines, rhyme_chars=rhyme_chars):
        return ""
    return degenerate_reason_of(measure(lines, rhyme_chars))


_LAST = itemgetter(-1)
_EVERY_BYTE = bytes(range(256))


def plainly_verse(
    joined: str,
    lines: Sequence[str],
    line_ends: Callable[[str], Sequence[str]] | None = None,
    rhyme_chars: Sequence[str] | None = None,
) -> bool:
    """A cheap screen passing what no rule can flag (most poems), so the critic's speed holds:
    many distinct characters, few lacunae, no repeated line, many distinct line ends.

    ``line_ends`` gives the last character of every line from ``joined`` in one call (the
    critic's plans carry one); without it they are read from ``lines``. A text with a lacuna
    passes only when ``rhyme_chars`` are given and neither lacuna rule can fire."""
    n = len(joined)
    if LACUNA in joined:
        if rhyme_chars is None or joined.count(LACUNA) > MAX_LACUNA_SHARE * n:
            return False
        rhymes = len(rhyme_chars)
        if rhymes >= 4 and rhyme_chars.count(LACUNA) > MAX_LACUNA_RHYME_SHARE * rhymes:
            return False
    count = len(lines)
    if len(set(lines)) < count:
        return False
    # the most common end fills more than MAX_SAME_END_SHARE of the lines only if fewer than
    # (1 - share) * lines + 1 distinct ends remain
    if count >= 4 and (
        len(set(line_ends(joined) if line_ends else map(_LAST, lines))) < (1 - MAX_SAME_END_SHARE) * count + 1
    ):
        return False
    fewest = max(MIN_DISTINCT, MIN_DISTINCT_SHARE * n)
    # Each character inside a repeated run of three has its twin in the run's other occurrence,
    # so runs covering a share c of the text leave at most (1 - c/2)·n distinct characters: with
    # more, the trigram rule cannot fire (most poems), and the runs need not be counted.
    most_with_runs = (1 - MAX_REPEATED_TRIGRAM_SHARE / 2) * n
    # The characters' distinct low bytes are a floor on their number (it settles the rules above
    # for 99% of poems), counted in C without an object per character: deleting the bytes present
    # from all 256 leaves those absent.
    floor = 256 - len(_EVERY_BYTE.translate(None, joined.encode("utf-32-le")[::4]))
    if floor >= fewest and floor > most_with_runs:
        return True
    distinct = len(set(joined))
    if distinct < fewest:
        return False
    if distinct > most_with_runs:
        return True
    runs = n - 2
    return runs < 1 or len({joined[i : i + 3] for i in range(runs)}) == runs


def degenerate_reason_of(m: Measures, lacuna_share: float = MAX_LACUNA_SHARE) -> str:
    """The rule on measured figures (``lacuna_share`` may be varied to derive its threshold)."""
    n = m.characters
    if not n:
        return ""
    if m.distinct < MIN_DISTINCT:
        return f"degenerate: {m.distinct} distinct character{'s' if m.distinct > 1 else ''} fill{'' if m.distinct > 1 else 's'} the text"
    if m.lost / n > lacuna_share:
        return f"degenerate: {m.lost} of {n} characters are lost or garbled (□)"
    if m.rhymes >= 4 and m.lost_rhymes / m.rhymes > MAX_LACUNA_RHYME_SHARE:
        return f"degenerate: {m.lost_rhymes} of {m.rhymes} rhyme positions are lost or garbled (□)"
    if m.distinct / n < MIN_DISTINCT_SHARE:
        return f"degenerate: {m.distinct} distinct characters in {n} (a word or clause filling the lines)"
    if m.lines >= 2 and m.same_line / m.lines > MAX_SAME_LINE_SHARE:
        return f"degenerate: the clause {m.same_clause} fills {m.same_line} of {m.lines} lines"
    if m.lines >= 4 and m.repeated_lines / m.lines > MAX_REPEATED_LINE_SHARE:
        return f"degenerate: {m.repeated_lines} of {m.lines} lines repeat another line"
    if m.repeated_trigram_chars / n > MAX_REPEATED_TRIGRAM_SHARE:
        return f"degenerate: {m.repeated_trigram_chars} of {n} characters repeat a run of three (a loop or a copy)"
    if m.lines >= 4 and m.same_end / m.lines > MAX_SAME_END_SHARE:
        return f"degenerate: {m.same_end} of {m.lines} lines end in {m.end}"
    return ""
