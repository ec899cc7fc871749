"""The BaZi rules a question can be decided by: 五行, 阴阳, 纳音, 十二长生, 十神, branch relations,
旬空, and the four pillars of a birth moment.

Every answer of the verified item set (``poetone.bazi.verified``) is computed here, so these
functions are the ground truth of that set; the tables they read are in ``poetone.bazi.tables``
and are cross-checked against lunar-python in the tests. Only the chart needs lunar-python, and
only for the astronomy (the moments of the solar terms); the 干支 arithmetic is ours.

Chart conventions (stated in every chart question):

- The birth time is clock time in China Standard Time (UTC+8, the time lunar-python gives the
  solar terms in), with no true-solar-time or daylight-saving correction.
- The year pillar changes at the moment of 立春, the month pillar at the moment of each 节
  (``tables.JIE_MONTH_BRANCH``); both to the second, as lunar-python's "exact" pillars.
- 子时 (``zi_hour``): ``"next_day"`` (default, lunar-python sect 1): 23:00 starts the next day,
  so from 23:00 the day pillar is the next day's. ``"same_day"`` (晚子时/夜子时, lunar-python
  sect 2): the day pillar stays until midnight. In both, the hour pillar from 23:00 is 子 with
  the stem of the next day's 子时 (五鼠遁 from the next day's stem).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache
from typing import Literal

from poetone.bazi.tables import (
    BRANCH_ELEMENT,
    BRANCHES,
    CHANGSHENG_BRANCH,
    ELEMENTS,
    JIE_MONTH_BRANCH,
    LIU_CHONG,
    LIU_HE,
    NAYIN,
    SAN_HE,
    STEM_ELEMENT,
    STEMS,
    TEN_GODS,
    TEN_GODS_BY_STEP,
    TWELVE_STAGES,
    XIANG_HAI,
    XIANG_XING,
    XUN,
    XUN_KONG,
    YIN_YANG,
)

ZiHour = Literal["next_day", "same_day"]
ZI_HOURS: tuple[str, ...] = ("next_day", "same_day")
LUNAR_PYTHON_HINT = (
    "BaZi chart construction needs lunar-python, a dependency of poetone: pip install 'lunar-python>=1.4.8'"
)
#: The Julian Day Number of 0001-01-01 minus its ordinal: JDN = date.toordinal() + this.
_JDN_OFFSET = 1721425


def stem_index(stem: str) -> int:
    if len(stem) != 1 or stem not in STEMS:
        raise ValueError(f"not a heavenly stem (天干): {stem!r}")
    return STEMS.index(stem)


def branch_index(branch: str) -> int:
    if len(branch) != 1 or branch not in BRANCHES:
        raise ValueError(f"not an earthly branch (地支): {branch!r}")
    return BRANCHES.index(branch)


def element(char: str) -> str:
    """五行 of a stem, or the 本气 element of a branch."""
    if char in STEM_ELEMENT:
        return STEM_ELEMENT[char]
    if char in BRANCH_ELEMENT:
        return BRANCH_ELEMENT[char]
    raise ValueError(f"not a stem or a branch: {char!r}")


def yin_yang(char: str) -> str:
    index = STEMS.index(char) if char in STEMS else branch_index(char)
    return YIN_YANG[index % 2]


# ---------------------------------------------------------------------------- the 60 甲子


def pillar_from(stem: int, branch: int) -> str:
    if stem % 2 != branch % 2:
        raise ValueError(f"{STEMS[stem % 10]}{BRANCHES[branch % 12]} is not a pillar: stem and branch differ in 阴阳")
    return STEMS[stem % 10] + BRANCHES[branch % 12]


#: The 60 pillars in cycle order, 甲子 … 癸亥.
JIAZI: tuple[str, ...] = tuple(STEMS[i % 10] + BRANCHES[i % 12] for i in range(60))


def cycle_index(pillar: str) -> int:
    """Position 0..59 of a pillar in the 60 甲子."""
    if len(pillar) != 2:
        raise ValueError(f"a pillar is a stem and a branch, got {pillar!r}")
    s, b = stem_index(pillar[0]), branch_index(pillar[1])
    if s % 2 != b % 2:
        raise ValueError(f"{pillar} is not a pillar: stem and branch differ in 阴阳")
    return (6 * s - 5 * b) % 60


def nayin(pillar: str) -> str:
    """纳音 of a pillar: one name for each consecutive pair of the cycle."""
    return NAYIN[cycle_index(pillar) // 2]


def nayin_pillars(name: str) -> tuple[str, str]:
    if name not in NAYIN:
        raise ValueError(f"not a 纳音 name: {name!r}")
    i = NAYIN.index(name)
    return JIAZI[2 * i], JIAZI[2 * i + 1]


# ---------------------------------------------------------------------------- 十二长生 and 十神


def twelve_stage(stem: str, branch: str) -> str:
    """The 十二长生 stage of a (day) stem at a branch: 阳干 forward from its 长生 branch, 阴干 backward."""
    start, b = branch_index(CHANGSHENG_BRANCH[STEMS[stem_index(stem)]]), branch_index(branch)
    steps = (b - start) % 12 if stem_index(stem) % 2 == 0 else (start - b) % 12
    return TWELVE_STAGES[steps]


def stage_branch(stem: str, stage: str) -> str:
    """The branch at which a stem is in the given stage (the inverse of ``twelve_stage``)."""
    if stage not in TWELVE_STAGES:
        raise ValueError(f"not one of the twelve stages: {stage!r}")
    start, steps = branch_index(CHANGSHENG_BRANCH[STEMS[stem_index(stem)]]), TWELVE_STAGES.index(stage)
    return BRANCHES[(start + steps) % 12 if stem_index(stem) % 2 == 0 else (start - steps) % 12]


def ten_god(day_stem: str, stem: str) -> str:
    """十神 of ``stem`` seen from the day stem (日主)."""
    d, s = stem_index(day_stem), stem_index(stem)
    step = (ELEMENTS.index(STEM_ELEMENT[STEMS[s]]) - ELEMENTS.index(STEM_ELEMENT[STEMS[d]])) % 5
    return TEN_GODS_BY_STEP[step][0 if d % 2 == s % 2 else 1]


def ten_god_stem(day_stem: str, god: str) -> str:
    """The stem that is ``god`` to the day stem (the inverse of ``ten_god``)."""
    if god not in TEN_GODS:
        raise ValueError(f"not one of the ten gods: {god!r}")
    return next(s for s in STEMS if ten_god(day_stem, s) == god)


# ---------------------------------------------------------------------------- branch relations


def branch_relations(a: str, b: str) -> set[str]:
    """Which of 六合, 六冲, 相刑 (including 自刑), 相害 hold between two branches."""
    branch_index(a), branch_index(b)
    pair = frozenset((a, b))
    found: set[str] = set()
    if pair in LIU_HE:
        found.add("六合")
    if pair in LIU_CHONG:
        found.add("六冲")
    if pair in XIANG_XING:
        found.add("相刑")
    if pair in XIANG_HAI:
        found.add("相害")
    return found


def partner(branch: str, relation: str) -> str:
    """The one branch in 六合, 六冲 or 相害 with ``branch`` (相刑 has no single partner)."""
    if relation not in ("六合", "六冲", "相害"):
        raise ValueError(f"no single partner for relation {relation!r}")
    return next(b for b in BRANCHES if b != branch and relation in branch_relations(branch, b))


def san_he(branches: Iterable[str]) -> str | None:
    """The element of the 三合局 the three branches form, or None."""
    return SAN_HE.get(frozenset(branches)) if len(set(branches := tuple(branches))) == 3 else None


def liu_he_element(a: str, b: str) -> str | None:
    return LIU_HE.get(frozenset((a, b)))


# ---------------------------------------------------------------------------- 旬空


def xun(pillar: str) -> str:
    """The 旬 (decade) head of a pillar: 甲子, 甲戌, 甲申, 甲午, 甲辰 or 甲寅."""
    return XUN[cycle_index(pillar) // 10]


def xun_kong(pillar: str) -> str:
    """旬空 (空亡) of a pillar: the two branches its decade of the cycle leaves out."""
    return XUN_KONG[cycle_index(pillar) // 10]


# ---------------------------------------------------------------------------- the four pillars


@dataclass(frozen=True, slots=True)
class Chart:
    year: str
    month: str
    day: str
    hour: str

    @property
    def pillars(self) -> tuple[str, str, str, str]:
        return (self.year, self.month, self.day, self.hour)

    def format(self) -> str:
        return f"{self.year}年 {self.month}月 {self.day}日 {self.hour}时"


def check_zi_hour(zi_hour: str) -> str:
    if zi_hour not in ZI_HOURS:
        raise ValueError(f"zi_hour must be one of {', '.join(ZI_HOURS)}, got {zi_hour!r}")
    return zi_hour


@cache
def jie_moments(year: int) -> tuple[tuple[datetime, str], ...]:
    """The twelve 节 of a Gregorian year (小寒 … 大雪), China Standard Time, from lunar-python."""
    try:
        from lunar_python import Solar
    except ImportError as exc:
        raise ImportError(LUNAR_PYTHON_HINT) from exc
    table = Solar.fromYmd(year, 6, 1).getLunar().getJieQiTable()
    out = []
    for name in JIE_MONTH_BRANCH:
        s = table[name]
        out.append((datetime(s.getYear(), s.getMonth(), s.getDay(), s.getHour(), s.getMinute(), s.getSecond()), name))
    return tuple(sorted(out))


def year_pillar(when: datetime) -> str:
    lichun = next(t for t, name in jie_moments(when.year) if name == "立春")
    year = when.year if when >= lichun else when.year - 1
    return JIAZI[(year - 4) % 60]


def month_jie(when: datetime) -> tuple[datetime, str]:
    """The 节 that began the BaZi month of ``when`` (the latest one at or before it)."""
    return max(m for m in jie_moments(when.year - 1) + jie_moments(when.year) if m[0] <= when)


def month_pillar(when: datetime) -> str:
    """月柱: the branch from the 节, the stem by 五虎遁 from the year stem."""
    branch = branch_index(JIE_MONTH_BRANCH[month_jie(when)[1]])
    first = (stem_index(year_pillar(when)[0]) % 5 * 2 + 2) % 10  # the stem of that year's 寅 month
    return pillar_from(first + (branch - 2) % 12, branch)


def day_pillar_of(day: date) -> str:
    """日柱 of a calendar day: the 60-day cycle counted from the Julian Day Number (JDN 11 = 甲子)."""
    return JIAZI[(day.toordinal() + _JDN_OFFSET - 11) % 60]


def day_pillar(when: datetime, zi_hour: ZiHour = "next_day") -> str:
    day = when.date()
    if check_zi_hour(zi_hour) == "next_day" and when.hour == 23:
        day += timedelta(days=1)
    return day_pillar_of(day)


def hour_pillar(when: datetime) -> str:
    """时柱: the branch of the two-hour period, the stem by 五鼠遁 from the stem of the day whose
    子时 it follows (the next day from 23:00, whatever the day-pillar convention)."""
    branch = (when.hour + 1) // 2 % 12
    day = when.date() + timedelta(days=1) if when.hour == 23 else when.date()
    first = stem_index(day_pillar_of(day)[0]) % 5 * 2  # the stem of that day's 子时
    return pillar_from(first + branch, branch)


def four_pillars(when: datetime, zi_hour: ZiHour = "next_day") -> Chart:
    """The four pillars of a birth moment (clock time, UTC+8); see the module doc for conventions."""
    if when.tzinfo is not None:
        raise ValueError(
            f"give the birth time as naive clock time in China Standard Time (UTC+8), got {when.isoformat()}"
        )
    return Chart(year_pillar(when), month_pillar(when), day_pillar(when, zi_hour), hour_pillar(when))
