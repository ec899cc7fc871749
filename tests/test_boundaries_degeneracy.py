"""The degeneracy rule at each threshold, on both sides, and its figures counted by hand.

Each case builds the measured figures directly (``Measures``), so a threshold is tested exactly
where it bites: one step below passes, the threshold itself follows the comparison the module
documents (``>`` or ``<``), one step past flags. Expected reasons are written out as the module
promises them, not computed by it.
"""

from __future__ import annotations

import pytest

from poetone.degeneracy import (
    Measures,
    degenerate_reason,
    degenerate_reason_of,
    measure,
    plainly_verse,
)


def figures(**changes: object) -> Measures:
    """A plainly healthy 10-line, 50-character poem; ``changes`` move one figure."""
    base = dict(
        characters=50,
        distinct=40,
        lost=0,
        rhymes=4,
        lost_rhymes=0,
        lines=10,
        same_line=1,
        same_clause="",
        repeated_lines=0,
        same_end=2,
        end="天",
    )
    base.update(changes)
    return Measures(**base)  # type: ignore[arg-type]


def test_the_healthy_figures_pass() -> None:
    assert degenerate_reason_of(figures()) == ""


def test_nothing_read_is_not_degenerate() -> None:
    assert degenerate_reason_of(figures(characters=0, distinct=0, lines=0, same_line=0, same_end=0)) == ""


@pytest.mark.parametrize(
    ("distinct", "reason"),
    [
        (1, "degenerate: 1 distinct character fills the text"),
        (2, "degenerate: 2 distinct characters fill the text"),
    ],
)
def test_fewer_than_three_distinct_characters_name_the_count(distinct: int, reason: str) -> None:
    # 2 characters in 4: a share of 0.5, above MIN_DISTINCT_SHARE, so only MIN_DISTINCT flags it
    assert degenerate_reason_of(figures(characters=4, distinct=distinct, lines=1, same_end=1)) == reason


def test_three_distinct_characters_pass_the_count() -> None:
    assert degenerate_reason_of(figures(characters=6, distinct=3, lines=1, same_end=1)) == ""


def test_lacuna_share_two_fifths_passes_and_one_more_flags() -> None:
    # 20 of 50 = 0.4 = MAX_LACUNA_SHARE is allowed (">"); 21 of 50 is not
    assert degenerate_reason_of(figures(lost=20)) == ""
    assert degenerate_reason_of(figures(lost=21)) == "degenerate: 21 of 50 characters are lost or garbled (□)"


def test_lacuna_share_argument_replaces_the_constant() -> None:
    assert degenerate_reason_of(figures(lost=20), lacuna_share=0.3) != ""
    assert degenerate_reason_of(figures(lost=21), lacuna_share=0.5) == ""


def test_lost_rhymes_half_passes_more_flags_and_three_rhymes_never_count() -> None:
    assert degenerate_reason_of(figures(rhymes=4, lost_rhymes=2, lost=2)) == ""
    assert (
        degenerate_reason_of(figures(rhymes=4, lost_rhymes=3, lost=3))
        == "degenerate: 3 of 4 rhyme positions are lost or garbled (□)"
    )
    # fewer than four rhyme positions: even all of them lost is not judged by this rule
    assert degenerate_reason_of(figures(rhymes=3, lost_rhymes=3, lost=3)) == ""


def test_distinct_share_at_the_threshold_passes_and_below_flags() -> None:
    # 20 of 50 = 0.40 = MIN_DISTINCT_SHARE passes ("<"); 19 of 50 = 0.38 flags
    assert degenerate_reason_of(figures(distinct=20)) == ""
    assert (
        degenerate_reason_of(figures(distinct=19))
        == "degenerate: 19 distinct characters in 50 (a word or clause filling the lines)"
    )


def test_same_line_half_passes_more_flags_even_with_two_lines() -> None:
    assert degenerate_reason_of(figures(lines=4, same_line=2, same_clause="春风", same_end=1)) == ""
    assert (
        degenerate_reason_of(figures(lines=4, same_line=3, same_clause="春风", same_end=1))
        == "degenerate: the clause 春风 fills 3 of 4 lines"
    )
    # two lines that are one clause: 2/2 > 0.5, and two lines are enough to judge
    assert (
        degenerate_reason_of(figures(lines=2, same_line=2, same_clause="春风", same_end=1))
        == "degenerate: the clause 春风 fills 2 of 2 lines"
    )
    # one line is never "the same clause"
    assert degenerate_reason_of(figures(lines=1, same_line=1, same_clause="春风", same_end=1)) == ""


def test_repeated_lines_three_quarters_passes_more_flags_from_four_lines() -> None:
    assert degenerate_reason_of(figures(lines=8, repeated_lines=6, same_line=2)) == ""
    assert (
        degenerate_reason_of(figures(lines=8, repeated_lines=7, same_line=2))
        == "degenerate: 7 of 8 lines repeat another line"
    )
    # exactly four lines, all repeating (two clauses twice): judged, and flagged
    assert (
        degenerate_reason_of(figures(lines=4, repeated_lines=4, same_line=2, same_end=1))
        == "degenerate: 4 of 4 lines repeat another line"
    )
    # three lines are too few for this measure
    assert degenerate_reason_of(figures(lines=3, repeated_lines=3, same_line=1, same_end=1)) == ""


def test_same_end_four_fifths_passes_more_flags_from_four_lines() -> None:
    assert degenerate_reason_of(figures(lines=10, same_end=8)) == ""
    assert degenerate_reason_of(figures(lines=10, same_end=9)) == "degenerate: 9 of 10 lines end in 天"
    assert degenerate_reason_of(figures(lines=4, same_end=4)) == "degenerate: 4 of 4 lines end in 天"
    assert degenerate_reason_of(figures(lines=3, same_end=3)) == ""


def test_measure_counts_by_hand() -> None:
    lines = ["春风又绿", "江南岸", "春风又绿", "明月何时", "照我还"]
    got = measure(lines, rhyme_chars=["岸", "□", "还"])
    # 4+3+4+4+3 = 18 characters; distinct: 春风又绿江南岸明月何时照我还 = 14
    assert got == Measures(
        characters=18,
        distinct=14,
        lost=0,
        rhymes=3,
        lost_rhymes=1,
        lines=5,
        same_line=2,
        same_clause="春风又绿",
        repeated_lines=2,
        same_end=2,
        end="绿",
        repeated_trigram_chars=8,  # 春风又 and 风又绿 stand twice: the two 春风又绿, 4 + 4 characters
    )


def test_measure_of_distinct_lines_and_of_one_line() -> None:
    assert measure(["明月几时有", "把酒问青天"]) == Measures(
        10, 10, 0, 0, 0, 2, 1, "", 0, 1, "有"
    )  # a tie of ends: the first
    assert measure(["春风"]) == Measures(2, 2, 0, 0, 0, 1, 1, "", 0, 1, "风")
    assert measure([]) == Measures(0, 0, 0, 0, 0, 0, 0, "", 0, 0, "")


def test_measure_counts_lacunae_in_text_and_at_rhymes() -> None:
    got = measure(["□□明月", "照□还"], rhyme_chars=["月", "□"])
    assert (got.lost, got.lost_rhymes, got.characters) == (3, 1, 7)


def test_plainly_verse_screen_at_each_of_its_edges() -> None:
    five = ["明月几时有", "把酒问青天", "不知天上宫", "阙今夕是何", "年我欲乘风"]
    assert plainly_verse("".join(five), five)
    assert not plainly_verse("".join(five[:2] * 2), five[:2] * 2)  # a repeated line
    assert not plainly_verse("明月□时有", ["明月□时有"])  # a lacuna
    assert not plainly_verse("春风", ["春风"])  # two distinct characters
    # 3 distinct in 8 = 0.375 < 0.40 fails the screen; 4 in 8 = 0.5 passes it
    assert not plainly_verse("春风春风春风又又", ["春风春风", "春风又又"])
    assert plainly_verse("春风又绿春风又绿"[:4] + "江南岸春", ["春风又绿", "江南岸春"])
    # four lines, all ending in 天: distinct ends 1 < (1 - 0.8)·4 + 1 = 1.8, fails
    same_end = ["明月几时天", "把酒问青天", "不知宫阙天", "今夕是何天"]
    assert not plainly_verse("".join(same_end), same_end)
    # three lines ending alike are below the four-line floor of the end measure
    assert plainly_verse("".join(same_end[:3]), same_end[:3])


def test_degenerate_reason_reads_the_lines_joined() -> None:
    # the screen must see the text as it is: 3 distinct characters over 9 fails it, and the rule names them
    assert degenerate_reason(["春风又", "春风又", "春风又"]).startswith("degenerate:")
    assert degenerate_reason(["明月几时有", "把酒问青天"]) == ""


def test_two_identical_lines_are_already_one_repeated_clause() -> None:
    # the tally starts at two lines (count >= 2): both lines are the clause 春风又绿
    got = measure(["春风又绿", "春风又绿"])
    assert (got.same_line, got.same_clause, got.repeated_lines) == (2, "春风又绿", 2)
