"""Both sides of every boundary of poetone.bazi.rules, and its input checks (issue 17).

The boundaries: the hour branch changes at the odd hours (子时 23:00–00:59, 丑时 01:00–02:59, …
亥时 21:00–22:59); the 子时 day change at 23:00 (``zi_hour="next_day"``, the default); the year at
立春 (2024: 02-04 16:27 Beijing time, 中国天文年历); the cycle wrapping at 60 (癸亥 then 甲子) and the
stem and branch counts wrapping at 10 and 12. Expected pillars are counted by hand along the cycle
from the almanac's 2000-01-01 戊午 (so 2000-01-06 癸亥, 2000-01-07 甲子).
"""

from __future__ import annotations

import re
from datetime import date, datetime

import pytest

from poetone.bazi import rules

# ---------------------------------------------------------------------------- hours and days


@pytest.mark.parametrize(
    ("hour", "minute", "branch"),
    [
        (22, 59, "亥"),
        (23, 0, "子"),
        (0, 59, "子"),
        (1, 0, "丑"),
        (2, 59, "丑"),
        (3, 0, "寅"),
        (12, 59, "午"),
        (13, 0, "未"),
    ],
)
def test_the_hour_branch_changes_at_the_odd_hours(hour: int, minute: int, branch: str) -> None:
    assert rules.hour_pillar(datetime(2000, 1, 7, hour, minute))[1] == branch


def test_the_day_changes_at_23_00_by_default() -> None:
    # 2000-01-06 is 癸亥, 2000-01-07 甲子; the default convention is next_day
    assert rules.day_pillar(datetime(2000, 1, 6, 22, 59)) == "癸亥"
    assert rules.day_pillar(datetime(2000, 1, 6, 23, 0)) == "甲子"
    assert rules.day_pillar(datetime(2000, 1, 7, 0, 0)) == "甲子"
    assert rules.day_pillar(datetime(2000, 1, 6, 23, 59), "same_day") == "癸亥"
    assert rules.day_pillar(datetime(2000, 1, 7, 0, 0), "same_day") == "甲子"
    # four_pillars' default is next_day too
    assert rules.four_pillars(datetime(2000, 1, 6, 23, 0)).day == "甲子"


def test_the_hour_stem_at_23_00_is_the_next_days() -> None:
    # 22:59 of 癸亥日 is 癸亥时 (壬子 … 癸亥); 23:00 is 子时 of 甲子日: 甲子
    assert rules.hour_pillar(datetime(2000, 1, 6, 22, 59)) == "癸亥"
    assert rules.hour_pillar(datetime(2000, 1, 6, 23, 0)) == "甲子"


def test_the_year_changes_at_lichun() -> None:
    # 立春 2024 is 02-04 16:27 (almanac, to the minute): before it 癸卯年 丑月 (乙丑), after it 甲辰年 丙寅月
    assert rules.year_pillar(datetime(2024, 2, 4, 16, 26)) == "癸卯"
    assert rules.month_pillar(datetime(2024, 2, 4, 16, 26)) == "乙丑"
    assert rules.year_pillar(datetime(2024, 2, 4, 16, 28)) == "甲辰"
    assert rules.month_pillar(datetime(2024, 2, 4, 16, 28)) == "丙寅"
    # 2024-01-01 (before 立春) is still 癸卯, 2024-12-31 (after it) 甲辰
    assert rules.year_pillar(datetime(2024, 1, 1)) == "癸卯" and rules.year_pillar(datetime(2024, 12, 31)) == "甲辰"


def test_the_cycle_wraps_at_sixty() -> None:
    assert rules.day_pillar_of(date(2000, 1, 6)) == "癸亥" and rules.day_pillar_of(date(2000, 1, 7)) == "甲子"
    # sixty days on, the same pillar: 2000-01-07 + 60 days = 2000-03-07
    assert rules.day_pillar_of(date(2000, 3, 7)) == "甲子" and rules.day_pillar_of(date(2000, 3, 6)) == "癸亥"
    assert rules.cycle_index("癸亥") == 59 and rules.cycle_index("甲子") == 0


def test_pillar_from_counts_stems_by_ten_and_branches_by_twelve() -> None:
    assert rules.pillar_from(0, 0) == "甲子" and rules.pillar_from(9, 11) == "癸亥"
    assert rules.pillar_from(10, 12) == "甲子"  # one past 癸 and 亥: 甲 and 子 again
    assert rules.pillar_from(12, 14) == "丙寅"
    assert rules.pillar_from(21, 13) == "乙丑"


@pytest.mark.parametrize(
    ("stem", "branch", "shown"), [(1, 0, "乙子"), (11, 0, "乙子"), (0, 13, "甲丑"), (10, 1, "甲丑")]
)
def test_pillar_from_rejects_a_stem_and_branch_of_different_polarity(stem: int, branch: int, shown: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"{shown} is not a pillar: stem and branch differ in 阴阳")):
        rules.pillar_from(stem, branch)


# ---------------------------------------------------------------------------- three branches


def test_san_he_needs_three_distinct_branches() -> None:
    assert rules.san_he("申子辰") == "水" and rules.san_he(["辰", "申", "子"]) == "水"
    assert rules.san_he(iter("卯未亥")) == "木"  # any iterable, read once
    assert rules.san_he("申子") is None  # two of the three
    assert rules.san_he("申子子") is None  # three branches, two distinct
    assert rules.san_he("申子辰午") is None  # four
    assert rules.san_he("申子午") is None  # three distinct, not a 局


# ---------------------------------------------------------------------------- input checks


@pytest.mark.parametrize("stem", ["", "甲乙", "子", "A"])
def test_stem_index_rejects_what_is_not_one_stem(stem: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"not a heavenly stem (天干): {stem!r}")):
        rules.stem_index(stem)


@pytest.mark.parametrize("branch", ["", "子丑", "甲", "A"])
def test_branch_index_rejects_what_is_not_one_branch(branch: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"not an earthly branch (地支): {branch!r}")):
        rules.branch_index(branch)


def test_the_first_and_last_stem_and_branch() -> None:
    assert rules.stem_index("甲") == 0 and rules.stem_index("癸") == 9
    assert rules.branch_index("子") == 0 and rules.branch_index("亥") == 11


def test_element_rejects_what_is_neither() -> None:
    with pytest.raises(ValueError, match=re.escape("not a stem or a branch: '金'")):
        rules.element("金")


def test_cycle_index_rejects_what_is_not_two_characters() -> None:
    for text in ("甲", "甲子丑"):
        with pytest.raises(ValueError, match=re.escape(f"a pillar is a stem and a branch, got {text!r}")):
            rules.cycle_index(text)
    with pytest.raises(ValueError, match=re.escape("乙子 is not a pillar: stem and branch differ in 阴阳")):
        rules.cycle_index("乙子")


def test_the_inverse_lookups_reject_unknown_names() -> None:
    with pytest.raises(ValueError, match=re.escape("not a 纳音 name: '砂中金'")):
        rules.nayin_pillars("砂中金")
    with pytest.raises(ValueError, match=re.escape("not one of the twelve stages: '建禄'")):
        rules.stage_branch("甲", "建禄")
    with pytest.raises(ValueError, match=re.escape("not one of the ten gods: '偏官'")):
        rules.ten_god_stem("甲", "偏官")
    with pytest.raises(ValueError, match=re.escape("no single partner for relation '相刑'")):
        rules.partner("子", "相刑")


def test_zi_hour_must_be_one_of_the_two_conventions() -> None:
    assert rules.check_zi_hour("next_day") == "next_day" and rules.check_zi_hour("same_day") == "same_day"
    with pytest.raises(ValueError, match=re.escape("zi_hour must be one of next_day, same_day, got 'midnight'")):
        rules.check_zi_hour("midnight")
    with pytest.raises(ValueError, match=re.escape("zi_hour must be one of next_day, same_day, got 'NEXT_DAY'")):
        rules.day_pillar(datetime(2000, 1, 6, 12, 0), "NEXT_DAY")  # type: ignore[arg-type]
