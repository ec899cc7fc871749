"""Critic profiles: which tone and rhyme systems, and which corrections of the paper, apply.

``default`` is the one validated on authentic Song poems. ``paper`` is Eq. 1–5 as the paper's text
describes them. ``poetone-code`` is what the official implementation computes, kept only so its
published numbers can be reproduced.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from poetone.prosody import RHYME_SYSTEMS, TONE_SYSTEMS


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    tone_system: str
    rhyme_system: str
    extract: bool = True
    #: split clauses at 、 and whitespace too (a 读 is a clause of the template)
    split_at_pause: bool = True
    #: re-split an unpunctuated 读 and re-join a 读 the template does not have
    resegment: bool = True
    #: Eq. 2 over an order-preserving alignment of the poem's lines to the form's, not index by index
    align_lines: bool = True
    #: Eq. 5 within each rhyme segment (a correct 换韵 is no fault) rather than over the whole poem
    rhyme_by_segment: bool = True
    #: a rhyme character must have the tone class of its position
    rhyme_tone_class: bool = True
    #: neighbouring 部 that Song poets rhymed together count as one group (prosody.RHYME_NEIGHBOURS)
    rhyme_neighbours: bool = True
    #: a 叠 line must repeat the line before it to count as well-formed
    check_repeats: bool = True
    #: the form's lines no line of the poem is read as count in Eq. 4 (unmatched characters) and
    #: Eq. 5 (missed rhyme positions): a truncated answer gets no credit for what it did not write
    count_missing: bool = True
    #: text that is not verse in the form (one character filling the lines, one clause repeated,
    #: lacunae beyond a damaged edition's) is invalid and scores 0 (poetone.degeneracy)
    reject_degenerate: bool = True
    #: a lacuna (□, or a character garbled in transmission) fits every tone and rhyme; off, it is
    #: unverified and counts as a fault, so lost characters cannot buy credit
    lacuna_fits: bool = False
    #: literal re-implementation of the official code (its own splitting, pypinyin calls, rounding)
    literal_poetone: bool = False

    def with_systems(self, tone_system: str | None = None, rhyme_system: str | None = None) -> Profile:
        tone = tone_system or self.tone_system
        rhyme = rhyme_system or self.rhyme_system
        if tone not in TONE_SYSTEMS:
            raise ValueError(f"unknown tone_system {tone!r}; expected one of {TONE_SYSTEMS}")
        if rhyme not in RHYME_SYSTEMS:
            raise ValueError(f"unknown rhyme_system {rhyme!r}; expected one of {RHYME_SYSTEMS}")
        if self.literal_poetone and (tone_system or rhyme_system):
            raise ValueError("profile 'poetone-code' reproduces the official code; its systems cannot be changed")
        return replace(self, tone_system=tone, rhyme_system=rhyme)


PROFILES: dict[str, Profile] = {
    "default": Profile("default", "classical", "cilin"),
    "paper": Profile(
        "paper",
        "modern",
        "cilin",
        split_at_pause=False,
        resegment=False,
        align_lines=False,
        rhyme_by_segment=False,
        rhyme_tone_class=False,
        rhyme_neighbours=False,
        check_repeats=False,
        count_missing=False,
        reject_degenerate=False,
        lacuna_fits=True,
    ),
    "poetone-code": Profile(
        "poetone-code",
        "modern",
        "pinyin-final",
        extract=False,
        split_at_pause=False,
        resegment=False,
        align_lines=False,
        rhyme_by_segment=False,
        rhyme_tone_class=False,
        rhyme_neighbours=False,
        check_repeats=False,
        count_missing=False,
        reject_degenerate=False,
        literal_poetone=True,
    ),
}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; expected one of {tuple(PROFILES)}") from None
