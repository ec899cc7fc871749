"""poetone.bazi.rules against the textbook tables and dated charts, written out as literals (issue 17).

Sources of the expected values (none is read from poetone's tables or from lunar-python):

- 六十甲子纳音歌 (the mnemonic in 三命通会 卷二): 甲子乙丑海中金, 丙寅丁卯炉中火, … 壬戌癸亥大海水.
- 十二长生 of 甲 and 乙 (渊海子平 「论十干生死」): 甲长生在亥, 阳顺; 乙长生在午, 阴逆.
- 十神 of the day master 甲 and 乙 (渊海子平): 同我比劫, 我生食伤, 我克财, 克我官杀, 生我印.
- 旬空 (六甲旬空歌): 甲子旬中戌亥空, 甲戌旬中申酉空, 甲申旬中午未空, 甲午旬中辰巳空,
  甲辰旬中寅卯空, 甲寅旬中子丑空.
- 五虎遁 (the month stem from the year stem): 甲己之年丙作首, 乙庚之岁戊为头, 丙辛必定寻庚起,
  丁壬壬位顺行流, 戊癸何方发, 甲寅之上好追求.
- 五鼠遁 (the hour stem from the day stem): 甲己还加甲, 乙庚丙作初, 丙辛从戊起, 丁壬庚子居,
  戊癸何方发, 壬子是真途.
- Dated days from the almanac (万年历): 1949-10-01 is 己丑年 癸酉月 甲子日 (the founding ceremony at
  15:00, 申时: 壬申时 by 五鼠遁); 2000-01-01 is 戊午日; the days after it counted by hand along the
  cycle (戊午 己未 庚申 辛酉 壬戌 癸亥 甲子: 2000-01-07 is 甲子).
- The 节 of the almanac (中国天文年历, Beijing time): 大雪 2023-12-07 17:33, 小寒 2024-01-06 04:49,
  立春 2024-02-04 16:27.
"""

from __future__ import annotations

from datetime import date, datetime

import pytest

from poetone.bazi import rules

# 六十甲子纳音歌, pair by pair: (first pillar, second pillar, name)
NAYIN_SONG = [
    ("甲子", "乙丑", "海中金"), ("丙寅", "丁卯", "炉中火"), ("戊辰", "己巳", "大林木"),
    ("庚午", "辛未", "路旁土"), ("壬申", "癸酉", "剑锋金"), ("甲戌", "乙亥", "山头火"),
    ("丙子", "丁丑", "涧下水"), ("戊寅", "己卯", "城头土"), ("庚辰", "辛巳", "白蜡金"),
    ("壬午", "癸未", "杨柳木"), ("甲申", "乙酉", "泉中水"), ("丙戌", "丁亥", "屋上土"),
    ("戊子", "己丑", "霹雳火"), ("庚寅", "辛卯", "松柏木"), ("壬辰", "癸巳", "长流水"),
    ("甲午", "乙未", "沙中金"), ("丙申", "丁酉", "山下火"), ("戊戌", "己亥", "平地木"),
    ("庚子", "辛丑", "壁上土"), ("壬寅", "癸卯", "金箔金"), ("甲辰", "乙巳", "覆灯火"),
    ("丙午", "丁未", "天河水"), ("戊申", "己酉", "大驿土"), ("庚戌", "辛亥", "钗钏金"),
    ("壬子", "癸丑", "桑柘木"), ("甲寅", "乙卯", "大溪水"), ("丙辰", "丁巳", "沙中土"),
    ("戊午", "己未", "天上火"), ("庚申", "辛酉", "石榴木"), ("壬戌", "癸亥", "大海水"),
]  # fmt: skip


def _both_ways(forward, backward, tables: dict[str, dict[str, str]]) -> None:
    """Per day stem: each key maps to its value, and the value back to the key."""
    for day, table in tables.items():
        for key, value in table.items():
            assert forward(day, key) == value, (day, key)
            assert backward(day, value) == key, (day, value)


def test_the_nayin_song_pair_by_pair() -> None:
    for number, (first, second, name) in enumerate(NAYIN_SONG):
        assert rules.nayin(first) == name and rules.nayin(second) == name, (first, second)
        assert rules.nayin_pillars(name) == (first, second)
        # the cycle positions: the n-th pair holds the pillars 2n and 2n + 1 of 甲子 … 癸亥
        assert (rules.cycle_index(first), rules.cycle_index(second)) == (2 * number, 2 * number + 1)


def test_cycle_positions_of_named_pillars() -> None:
    # 甲子 is first, 乙丑 second, 癸酉 the tenth, 甲戌 the eleventh, 癸亥 the sixtieth
    assert [rules.cycle_index(p) for p in ("甲子", "乙丑", "癸酉", "甲戌", "甲午", "癸亥")] == [0, 1, 9, 10, 30, 59]
    assert rules.JIAZI[0] == "甲子" and rules.JIAZI[10] == "甲戌" and rules.JIAZI[59] == "癸亥"


def test_five_elements_and_polarity() -> None:
    # 甲乙木 丙丁火 戊己土 庚辛金 壬癸水; 子水 丑土 寅木 卯木 辰土 巳火 午火 未土 申金 酉金 戌土 亥水
    assert "".join(rules.element(s) for s in "甲乙丙丁戊己庚辛壬癸") == "木木火火土土金金水水"
    assert "".join(rules.element(b) for b in "子丑寅卯辰巳午未申酉戌亥") == "水土木木土火火土金金土水"
    # 阳干 甲丙戊庚壬, 阴干 乙丁己辛癸; 阳支 子寅辰午申戌, 阴支 丑卯巳未酉亥
    assert "".join(rules.yin_yang(s) for s in "甲乙丙丁戊己庚辛壬癸") == "阳阴" * 5
    assert "".join(rules.yin_yang(b) for b in "子丑寅卯辰巳午未申酉戌亥") == "阳阴" * 6


def test_twelve_stages_of_jia_and_yi() -> None:
    # 甲: 亥长生 子沐浴 丑冠带 寅临官 卯帝旺 辰衰 巳病 午死 未墓 申绝 酉胎 戌养 (阳顺)
    jia = dict(
        zip(
            "亥子丑寅卯辰巳午未申酉戌",
            ["长生", "沐浴", "冠带", "临官", "帝旺", "衰", "病", "死", "墓", "绝", "胎", "养"],
        )
    )
    # 乙: 午长生 巳沐浴 辰冠带 卯临官 寅帝旺 丑衰 子病 亥死 戌墓 酉绝 申胎 未养 (阴逆)
    yi = dict(
        zip(
            "午巳辰卯寅丑子亥戌酉申未",
            ["长生", "沐浴", "冠带", "临官", "帝旺", "衰", "病", "死", "墓", "绝", "胎", "养"],
        )
    )
    _both_ways(rules.twelve_stage, rules.stage_branch, {"甲": jia, "乙": yi})
    # 庚长生在巳, 帝旺在酉; 辛长生在子, 帝旺在申
    assert rules.twelve_stage("庚", "巳") == "长生" and rules.twelve_stage("庚", "酉") == "帝旺"
    assert rules.twelve_stage("辛", "子") == "长生" and rules.twelve_stage("辛", "申") == "帝旺"


def test_ten_gods_of_jia_and_yi() -> None:
    jia = dict(
        zip("甲乙丙丁戊己庚辛壬癸", ["比肩", "劫财", "食神", "伤官", "偏财", "正财", "七杀", "正官", "偏印", "正印"])
    )
    yi = dict(
        zip("乙甲丁丙己戊辛庚癸壬", ["比肩", "劫财", "食神", "伤官", "偏财", "正财", "七杀", "正官", "偏印", "正印"])
    )
    _both_ways(rules.ten_god, rules.ten_god_stem, {"甲": jia, "乙": yi})
    # 戊 day master: 甲 克我 阳见阳 七杀, 乙 克我 阳见阴 正官; 壬 我克 同性 偏财, 癸 正财
    assert [rules.ten_god("戊", s) for s in "甲乙壬癸"] == ["七杀", "正官", "偏财", "正财"]


def test_xun_and_xun_kong_by_the_song() -> None:
    heads = [("甲子", "戌亥"), ("甲戌", "申酉"), ("甲申", "午未"), ("甲午", "辰巳"), ("甲辰", "寅卯"), ("甲寅", "子丑")]
    for head, kong in heads:
        start = rules.cycle_index(head)
        for pillar in rules.JIAZI[start : start + 10]:  # the ten pillars of that 旬
            assert rules.xun(pillar) == head and rules.xun_kong(pillar) == kong, pillar
    assert rules.xun_kong("癸酉") == "戌亥" and rules.xun_kong("乙亥") == "申酉"  # the last and second of a 旬


def test_branch_relations_by_the_tables_of_the_texts() -> None:
    for a, b, element in [("子", "丑", "土"), ("寅", "亥", "木"), ("卯", "戌", "火"), ("辰", "酉", "金"), ("巳", "申", "水"), ("午", "未", "火")]:  # fmt: skip
        assert "六合" in rules.branch_relations(a, b) and rules.liu_he_element(b, a) == element
        assert rules.partner(a, "六合") == b and rules.partner(b, "六合") == a
    for a, b in ["子午", "丑未", "寅申", "卯酉", "辰戌", "巳亥"]:
        assert rules.partner(a, "六冲") == b and rules.partner(b, "六冲") == a
    for a, b in ["子未", "丑午", "寅巳", "卯辰", "申亥", "酉戌"]:
        assert rules.partner(a, "相害") == b and rules.partner(b, "相害") == a
    assert rules.branch_relations("丑", "戌") == {"相刑"} and rules.branch_relations("辰", "辰") == {"相刑"}
    assert rules.branch_relations("子", "寅") == set() and rules.liu_he_element("子", "寅") is None
    assert [rules.san_he(g) for g in ("申子辰", "亥卯未", "寅午戌", "巳酉丑")] == ["水", "木", "火", "金"]


# ---------------------------------------------------------------------------- dated charts


def test_the_chart_of_1949_10_01_at_15_00() -> None:
    # the almanac: 己丑年 癸酉月 甲子日; 15:00 is 申时, 甲日 by 五鼠遁 甲子 … 壬申
    chart = rules.four_pillars(datetime(1949, 10, 1, 15, 0))
    assert chart.pillars == ("己丑", "癸酉", "甲子", "壬申")
    assert chart.format() == "己丑年 癸酉月 甲子日 壬申时"
    assert (chart.year, chart.month, chart.day, chart.hour) == ("己丑", "癸酉", "甲子", "壬申")


def test_day_pillars_counted_along_the_cycle() -> None:
    assert rules.day_pillar_of(date(1949, 10, 1)) == "甲子"
    assert rules.day_pillar_of(date(2000, 1, 1)) == "戊午"
    assert [rules.day_pillar_of(date(2000, 1, d)) for d in range(1, 8)] == ["戊午", "己未", "庚申", "辛酉", "壬戌", "癸亥", "甲子"]  # fmt: skip


def test_hour_pillars_by_the_five_rats() -> None:
    # 2000-01-07 is 甲子日: 甲己还加甲, so 子时 甲子, 丑时 乙丑, … 亥时 乙亥
    hours = [rules.hour_pillar(datetime(2000, 1, 7, h, 30)) for h in (0, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21)]
    assert hours == ["甲子", "乙丑", "丙寅", "丁卯", "戊辰", "己巳", "庚午", "辛未", "壬申", "癸酉", "甲戌", "乙亥"]
    # 2000-01-06 is 癸亥日: 戊癸何方发，壬子是真途, so 子时 壬子 … 亥时 癸亥
    assert rules.hour_pillar(datetime(2000, 1, 6, 0, 30)) == "壬子"
    assert rules.hour_pillar(datetime(2000, 1, 6, 22, 30)) == "癸亥"
    # 2000-01-02 is 己未日 (甲己还加甲: 甲子); 2000-01-03 庚申 (乙庚丙作初: 丙子); 01-04 辛酉 (丙辛从戊起: 戊子);
    # 01-05 壬戌 (丁壬庚子居: 庚子)
    assert [rules.hour_pillar(datetime(2000, 1, d, 0, 10)) for d in (2, 3, 4, 5)] == ["甲子", "丙子", "戊子", "庚子"]


def test_month_pillars_by_the_five_tigers() -> None:
    # 2024 is 甲辰年: 甲己之年丙作首 — 寅月 丙寅 (from 立春 2024-02-04), 卯月 丁卯 (from 惊蛰, about 03-05)
    assert rules.month_pillar(datetime(2024, 2, 20)) == "丙寅"
    assert rules.month_pillar(datetime(2024, 3, 20)) == "丁卯"
    # early January 2024 is still 癸卯年: 戊癸何方发，甲寅之上好追求 — 寅 甲寅 … 子月 甲子, 丑月 乙丑
    assert rules.month_pillar(datetime(2024, 1, 3)) == "甲子"  # after 大雪 2023-12-07, before 小寒 01-06
    assert rules.month_pillar(datetime(2024, 1, 20)) == "乙丑"  # after 小寒 2024-01-06
    # 1949 己丑年 (甲己之年丙作首): 酉月 癸酉, 戌月 甲戌 (after 寒露, about 10-09)
    assert rules.month_pillar(datetime(1949, 10, 20)) == "甲戌"
    # 1990 庚午年 (乙庚之岁戊为头): 寅月 戊寅; 1991 辛未年 (丙辛必定寻庚起): 寅月 庚寅; 1992 壬申年 (丁壬壬位顺行流): 壬寅
    assert [rules.month_pillar(datetime(y, 2, 20)) for y in (1990, 1991, 1992)] == ["戊寅", "庚寅", "壬寅"]


def test_the_jie_before_early_january_is_the_previous_years_daxue() -> None:
    moment, name = rules.month_jie(datetime(2024, 1, 3))
    assert name == "大雪" and moment.date() == date(2023, 12, 7) and moment.hour == 17
    moment, name = rules.month_jie(datetime(2024, 1, 20))
    assert name == "小寒" and moment.date() == date(2024, 1, 6) and moment.hour == 4


def test_year_pillars() -> None:
    # 1984 甲子年, 2024 甲辰年, 1949 己丑年 (from 立春 of each)
    assert [rules.year_pillar(datetime(y, 6, 1)) for y in (1984, 2024, 1949)] == ["甲子", "甲辰", "己丑"]


@pytest.mark.parametrize(("zi_hour", "day"), [("next_day", "甲子"), ("same_day", "癸亥")])
def test_late_zi_hour_of_a_guihai_day(zi_hour: str, day: str) -> None:
    # 2000-01-06 (癸亥日) at 23:30: 子时. next_day: the day is already 2000-01-07 (甲子); same_day: still 癸亥.
    # The hour is 子 with the next day's 子时 stem in both (甲日, 甲己还加甲: 甲子)
    when = datetime(2000, 1, 6, 23, 30)
    assert rules.day_pillar(when, zi_hour) == day  # type: ignore[arg-type]
    assert rules.hour_pillar(when) == "甲子"
