"""Prosody engine: tone class (平/仄) and rhyme groups of single characters.

Data lives in generated tables (``data/*.tsv``, built by
``scripts/build_prosody_tables.py`` from tshet-uinh, pypinyin and OpenCC); this
module only reads them, lazily and once, so importing it is free and lookups
are dict hits.  Simplified and traditional forms always give identical
answers.  See docs/prosody.md for the systems and their sources.
"""

from __future__ import annotations

from functools import lru_cache

from poetone.prosody import _tables

__all__ = [
    "RHYME_SYSTEMS",
    "TONE_EITHER",
    "TONE_PING",
    "TONE_SYSTEMS",
    "TONE_ZE",
    "rhyme_group_names",
    "rhyme_groups",
    "rhyme_table",
    "tone_class",
    "tone_mask",
    "tone_table",
]

TONE_PING = 1
TONE_ZE = 2
TONE_EITHER = TONE_PING | TONE_ZE
TONE_SYSTEMS: tuple[str, ...] = ("classical", "modern")
RHYME_SYSTEMS: tuple[str, ...] = ("cilin", "pinyin-final", "xinyun")

_CLASS_NAMES = {0: "", TONE_PING: "平", TONE_ZE: "仄", TONE_EITHER: "中"}


def _check(system: str, valid: tuple[str, ...], kind: str) -> str:
    """Fail loudly on a misspelt system rather than silently answer 'unknown'."""
    if system not in valid:
        raise ValueError(f"unknown {kind} system {system!r}; expected one of {', '.join(valid)}")
    return system


def tone_table(system: str) -> dict[str, int]:
    """char -> tone mask (chars with mask 0 are absent).

    The dict is shared and cached: treat it as read-only.  Meant for hot loops.
    """
    return _tables.tones()[_check(system, TONE_SYSTEMS, "tone")]


def tone_mask(char: str, system: str = "classical") -> int:
    """TONE_PING, TONE_ZE, TONE_EITHER, or 0 for non-Han/unknown characters."""
    return tone_table(system).get(char, 0)


def tone_class(char: str, system: str = "classical") -> str:
    """Tone class as text: 平, 仄, 中 (either reading fits) or "" (unknown)."""
    return _CLASS_NAMES[tone_mask(char, system)]


def rhyme_group_names(system: str) -> tuple[str, ...]:
    """Group names of a rhyme system; index i corresponds to bit i of the masks."""
    return _tables.rhymes(_check(system, RHYME_SYSTEMS, "rhyme"))[0]


def rhyme_table(system: str) -> dict[str, tuple[int, int]]:
    """char -> (mask of groups it rhymes in as 平, mask as 仄); shared, read-only."""
    return _tables.rhymes(_check(system, RHYME_SYSTEMS, "rhyme"))[1]


@lru_cache(maxsize=8192)
def rhyme_groups(char: str, system: str = "cilin") -> frozenset[tuple[str, str]]:
    """{(group name, "平" | "仄")} over all readings; empty if unknown."""
    names = rhyme_group_names(system)
    ping, ze = rhyme_table(system).get(char, (0, 0))
    return frozenset(
        (names[i], tone) for mask, tone in ((ping, "平"), (ze, "仄")) for i in range(mask.bit_length()) if mask >> i & 1
    )


#: Neighbouring rhyme groups that Song poets rhymed together (邻部通押). 词林正韵 keeps them
#: apart, yet the masters mixed them constantly: 晏殊's 浣溪沙 rhymes 杯(灰, 第三部) with 台 来
#: (咍, 第五部); -n/-ng/-m endings (第六、十一、十三部) and 寒/覃 (第七、十四部) meet in many
#: poems; the 入声 部 with -t, -k and -p (第十七、十八、十九部) merge, as do 屋 and 觉药 (第十五、十六部).
#: Measured on the 全宋词: these pairs are about half of all rhyme faults a strict 19-部 reading finds.
RHYME_NEIGHBOURS: dict[str, tuple[frozenset[str], ...]] = {
    "cilin": (
        frozenset({"第三部", "第五部"}),
        frozenset({"第六部", "第十一部", "第十三部"}),
        frozenset({"第七部", "第十四部"}),
        frozenset({"第十五部", "第十六部"}),
        frozenset({"第十七部", "第十八部", "第十九部"}),
    ),
}


def neighbour_masks(system: str) -> dict[int, int]:
    """bit -> mask of the bits it may rhyme with under RHYME_NEIGHBOURS (itself included)."""
    names = rhyme_group_names(system)
    out = {1 << i: 1 << i for i in range(len(names))}
    for cls in RHYME_NEIGHBOURS.get(system, ()):
        mask = 0
        for i, n in enumerate(names):
            if n in cls:
                mask |= 1 << i
        for i in range(len(names)):
            if mask >> i & 1:
                out[1 << i] = mask
    return out


def widen(mask: int, neighbours: dict[int, int]) -> int:
    """A group mask with every neighbour of its groups added."""
    out = mask
    while mask:
        bit = mask & -mask
        mask ^= bit
        out |= neighbours.get(bit, bit)
    return out
