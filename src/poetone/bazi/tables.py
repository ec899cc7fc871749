"""The BaZi tables, as data: stems, branches, elements, 纳音, 十二长生, 十神, branch relations, solar terms.

Kept apart from the rules that read them (``poetone.bazi.rules``), in the pypinyin manner, so a
table can be checked against a source by eye. Sources: the 三命通会 and 渊海子平 conventions as
used by every modern almanac; each table is cross-checked against lunar-python in
``tests/test_bazi.py`` wherever lunar-python has the same table.
"""

from __future__ import annotations

#: 十天干, in cycle order; even index = 阳, odd = 阴.
STEMS: str = "甲乙丙丁戊己庚辛壬癸"
#: 十二地支, in cycle order; even index = 阳, odd = 阴.
BRANCHES: str = "子丑寅卯辰巳午未申酉戌亥"

#: 五行 in generating (相生) order: 木→火→土→金→水→木. The controlling (相克) order skips one.
ELEMENTS: str = "木火土金水"

#: 天干五行: 甲乙木 丙丁火 戊己土 庚辛金 壬癸水.
STEM_ELEMENT: dict[str, str] = dict(zip(STEMS, "木木火火土土金金水水"))
#: 地支五行 (本气): 寅卯木 巳午火 申酉金 亥子水 辰戌丑未土.
BRANCH_ELEMENT: dict[str, str] = dict(zip(BRANCHES, "水土木木土火火土金金土水"))

YIN_YANG: tuple[str, str] = ("阳", "阴")

#: 纳音: one name for each consecutive pair of the 60 甲子, in cycle order (甲子乙丑 海中金 …).
#: Spelling as lunar-python (沙中金, not 砂中金).
NAYIN: tuple[str, ...] = (
    "海中金", "炉中火", "大林木", "路旁土", "剑锋金", "山头火",
    "涧下水", "城头土", "白蜡金", "杨柳木", "泉中水", "屋上土",
    "霹雳火", "松柏木", "长流水", "沙中金", "山下火", "平地木",
    "壁上土", "金箔金", "覆灯火", "天河水", "大驿土", "钗钏金",
    "桑柘木", "大溪水", "沙中土", "天上火", "石榴木", "大海水",
)  # fmt: skip

#: 十二长生 (also 十二运, 地势), in order. 临官 is also called 建禄.
TWELVE_STAGES: tuple[str, ...] = ("长生", "沐浴", "冠带", "临官", "帝旺", "衰", "病", "死", "墓", "绝", "胎", "养")

#: The branch where each stem is at 长生. 阳干 run forward through the branches from there, 阴干
#: backward (阳顺阴逆). 戊 follows 丙 and 己 follows 丁 (火土同宫), the 子平 convention.
CHANGSHENG_BRANCH: dict[str, str] = {
    "甲": "亥", "丙": "寅", "戊": "寅", "庚": "巳", "壬": "申",
    "乙": "午", "丁": "酉", "己": "酉", "辛": "子", "癸": "卯",
}  # fmt: skip

#: 十神 by the relation of the other stem's element to the day stem's element (index 0..4 = steps
#: along the generating order from the day stem: same, I generate, I control, controls me,
#: generates me), and by whether the polarity is the same (first) or different (second).
TEN_GODS_BY_STEP: tuple[tuple[str, str], ...] = (
    ("比肩", "劫财"),  # 同我
    ("食神", "伤官"),  # 我生
    ("偏财", "正财"),  # 我克
    ("七杀", "正官"),  # 克我 (七杀 = 偏官)
    ("偏印", "正印"),  # 生我 (偏印 = 枭神)
)
TEN_GODS: tuple[str, ...] = tuple(name for pair in TEN_GODS_BY_STEP for name in pair)

#: 地支六合 (with the element each pair transforms to, 合化).
LIU_HE: dict[frozenset[str], str] = {
    frozenset("子丑"): "土", frozenset("寅亥"): "木", frozenset("卯戌"): "火",
    frozenset("辰酉"): "金", frozenset("巳申"): "水", frozenset("午未"): "火",
}  # fmt: skip
#: 地支三合局: 长生、帝旺、墓 of one element.
SAN_HE: dict[frozenset[str], str] = {
    frozenset("申子辰"): "水",
    frozenset("亥卯未"): "木",
    frozenset("寅午戌"): "火",
    frozenset("巳酉丑"): "金",
}
#: 地支六冲: branches six apart.
LIU_CHONG: tuple[frozenset[str], ...] = tuple(frozenset(p) for p in ("子午", "丑未", "寅申", "卯酉", "辰戌", "巳亥"))
#: 地支相刑, as the pairs that punish each other: 寅巳申 (无恩之刑), 丑戌未 (恃势之刑), 子卯 (无礼之刑),
#: and the 自刑 of 辰 午 酉 亥 (a branch with itself; a one-element set).
XIANG_XING: tuple[frozenset[str], ...] = tuple(
    frozenset(p) for p in ("寅巳", "巳申", "申寅", "丑戌", "戌未", "未丑", "子卯", "辰", "午", "酉", "亥")
)
#: 地支六害 (相害, 六穿).
XIANG_HAI: tuple[frozenset[str], ...] = tuple(frozenset(p) for p in ("子未", "丑午", "寅巳", "卯辰", "申亥", "酉戌"))

#: The pairwise relations a question may name, in the order they are listed.
PAIR_RELATIONS: tuple[str, ...] = ("六合", "六冲", "相刑", "相害")

#: 旬 heads (甲子旬 …) in cycle order, and their 旬空 (空亡) pairs.
XUN: tuple[str, ...] = ("甲子", "甲戌", "甲申", "甲午", "甲辰", "甲寅")
XUN_KONG: tuple[str, ...] = ("戌亥", "申酉", "午未", "辰巳", "寅卯", "子丑")

#: The twelve 节 (the solar terms that begin a BaZi month) and the month branch each begins.
JIE_MONTH_BRANCH: dict[str, str] = {
    "立春": "寅", "惊蛰": "卯", "清明": "辰", "立夏": "巳", "芒种": "午", "小暑": "未",
    "立秋": "申", "白露": "酉", "寒露": "戌", "立冬": "亥", "大雪": "子", "小寒": "丑",
}  # fmt: skip

#: The paper's category names (arXiv 2610.05682, BaZi2500) for the verified set, with the Chinese
#: label used in the questions, the family, and a slug for metric names.
VERIFIED_CATEGORIES: dict[str, dict[str, str]] = {
    "Nayin": {"zh": "纳音", "task": "theory", "slug": "nayin"},
    "Twelve Stages": {"zh": "十二长生", "task": "theory", "slug": "twelve_stages"},
    "Ten Gods": {"zh": "十神", "task": "theory", "slug": "ten_gods"},
    "Stems and Branches": {"zh": "干支关系", "task": "theory", "slug": "stems_branches"},
    "Kongwang": {"zh": "空亡", "task": "theory", "slug": "kongwang"},
    "Chart Construction": {"zh": "排盘", "task": "case", "slug": "chart_construction"},
}
