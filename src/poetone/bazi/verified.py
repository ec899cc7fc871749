"""The rule-verified BaZi item set: four-option Chinese questions whose key is computed by the rules.

BaZi2500's key is model-generated and unverified; these items are correct by construction. For
each category a rule decides (纳音, 十二长生, 十神, 干支关系, 空亡, 排盘) there are a few question
templates. Every template has a *predicate*: given the item's parameters and one option, is the
option right? An item is kept only if the predicate holds for exactly one of its four distinct
options (``check_item``), and the key is that option's letter. Distractors are of the same kind
as the answer and chosen to be the usual mistakes (the polarity twin of a 十神, the stage counted
in the wrong direction, the partner of another relation, the year before 立春, the neighbouring
month or hour, the other 子时 convention).

Reproducible: each category has its own ``random.Random`` seeded from ``(seed, category)``, so
the first k items of a category do not depend on n or on the other categories.
Chart questions state every convention they depend on (``rules`` module doc) and keep birth times
at least ``JIE_MARGIN`` away from a 节, beyond the uncertainty of the solar-term ephemeris.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any

from poetone.bazi import rules
from poetone.bazi.data import item_hash, names
from poetone.bazi.parse import LETTERS
from poetone.bazi.tables import (
    BRANCHES,
    LIU_CHONG,
    LIU_HE,
    NAYIN,
    PAIR_RELATIONS,
    SAN_HE,
    STEMS,
    TEN_GODS,
    TWELVE_STAGES,
    VERIFIED_CATEGORIES,
    XIANG_HAI,
    XIANG_XING,
    XUN_KONG,
)

SOURCE = "poetone-verified"
VERSION = "1"
#: Birth times closer than this to a 节 are not asked: the ephemeris is good to about a minute.
JIE_MARGIN = timedelta(minutes=10)
YEARS = (1930, 2029)
PILLAR_NAMES = {"year": "年柱", "month": "月柱", "day": "日柱", "hour": "时柱"}
ZI_HOUR_TEXT = {
    "next_day": "子时以 23:00 为界：23:00 起即为次日，日柱换作次日",
    "same_day": "23:00–24:00 为晚子时：日柱仍按当日，时柱天干按次日起",
}

Predicate = Callable[[dict[str, Any], str], bool]


# ---------------------------------------------------------------------------- predicates


def _chart(params: dict[str, Any]) -> rules.Chart:
    return rules.four_pillars(datetime.fromisoformat(params["birth"]), params["zi_hour"])


PREDICATES: dict[str, Predicate] = {
    "nayin_of": lambda p, o: rules.nayin(p["pillar"]) == o,
    "pillar_of_nayin": lambda p, o: rules.nayin(o) == p["nayin"],
    "stage_of": lambda p, o: rules.twelve_stage(p["stem"], p["branch"]) == o,
    "branch_of_stage": lambda p, o: rules.twelve_stage(p["stem"], o) == p["stage"],
    "god_of": lambda p, o: rules.ten_god(p["day_stem"], p["stem"]) == o,
    "stem_of_god": lambda p, o: rules.ten_god(p["day_stem"], o) == p["god"],
    "partner": lambda p, o: o != p["branch"] and p["relation"] in rules.branch_relations(p["branch"], o),
    "pair_with_relation": lambda p, o: p["relation"] in rules.branch_relations(o[0], o[1]),
    "relation_of_pair": lambda p, o: o in rules.branch_relations(p["a"], p["b"]),
    "sanhe_element": lambda p, o: f"{rules.san_he(p['branches'])}局" == o,
    "sanhe_group": lambda p, o: rules.san_he(o) == p["element"],
    "kong_of": lambda p, o: rules.xun_kong(p["pillar"]) == o,
    "pillar_of_kong": lambda p, o: rules.xun_kong(o) == p["kong"],
    "branch_in_kong": lambda p, o: o in rules.xun_kong(p["pillar"]),
    "chart": lambda p, o: _chart(p).format() == o,
    "pillar": lambda p, o: getattr(_chart(p), p["which"]) == o,
}


def solve(item: dict[str, Any]) -> list[str]:
    """The letters whose option the item's rule accepts (one, for a sound item)."""
    predicate = PREDICATES[item["rule"]]
    return [letter for letter, option in zip(LETTERS, item["options"]) if predicate(item["params"], option)]


def check_item(item: dict[str, Any]) -> None:
    """Raise unless the item has four distinct options and exactly one, the key, is right."""
    options = item["options"]
    if len(options) != 4 or len(set(options)) != 4:
        raise ValueError(f"{item.get('id')}: the options must be four and distinct, got {options}")
    right = solve(item)
    if right != [item["answer"]]:
        raise ValueError(f"{item.get('id')}: the rule accepts {right or 'no option'}, the key is {item['answer']}")


# ---------------------------------------------------------------------------- helpers


def _rejects(rule: str, params: dict[str, Any]) -> Callable[[str], bool]:
    """The rule's verdict, negated: may this option be a distractor?"""
    return lambda option: not PREDICATES[rule](params, option)


def _pick(
    rng: random.Random, correct: str, candidates: Iterable[str], wrong: Callable[[str], bool], k: int = 3
) -> list[str]:
    """``k`` distinct distractors, preferring ``candidates`` (the plausible mistakes) in a random
    order, every one rejected by the rule (``wrong``)."""
    pool = list(dict.fromkeys(c for c in candidates if c != correct and wrong(c)))
    rng.shuffle(pool)
    return pool[:k]


def _fill(
    rng: random.Random, chosen: list[str], correct: str, universe: Iterable[str], wrong: Callable[[str], bool]
) -> list[str]:
    rest = [u for u in universe if u != correct and u not in chosen and wrong(u)]
    rng.shuffle(rest)
    return chosen + rest[: 3 - len(chosen)]


def _question(
    rng: random.Random, rule: str, params: dict[str, Any], text: str, correct: str, distractors: list[str]
) -> dict[str, Any]:
    if len(distractors) != 3:
        raise AssertionError(f"{rule}: {len(distractors)} distractors for {params}")
    options = [correct, *distractors]
    rng.shuffle(options)
    return {
        "rule": rule,
        "params": params,
        "question": text,
        "options": options,
        "answer": LETTERS[options.index(correct)],
    }


def _near_pillars(pillar: str) -> list[str]:
    """Pillars a reader confuses with this one: same stem or same branch, and cycle neighbours."""
    i = rules.cycle_index(pillar)
    same = [p for p in rules.JIAZI if p != pillar and (p[0] == pillar[0] or p[1] == pillar[1])]
    return [rules.JIAZI[(i + d) % 60] for d in (-2, -1, 1, 2)] + same


# ---------------------------------------------------------------------------- templates


def _nayin(rng: random.Random, zi_hour: str) -> dict[str, Any]:
    if rng.random() < 0.6:
        pillar = rng.choice(rules.JIAZI)
        correct = rules.nayin(pillar)
        params = {"pillar": pillar}
        likely = [rules.nayin(p) for p in _near_pillars(pillar)] + [n for n in NAYIN if n[-1] == correct[-1]]
        wrong = _rejects("nayin_of", params)
        picks = _fill(rng, _pick(rng, correct, likely, wrong), correct, NAYIN, wrong)
        return _question(rng, "nayin_of", params, f"六十甲子纳音中，「{pillar}」的纳音是？", correct, picks)
    name = rng.choice(NAYIN)
    correct = rng.choice(rules.nayin_pillars(name))
    params = {"nayin": name}
    wrong = _rejects("pillar_of_nayin", params)
    picks = _fill(rng, _pick(rng, correct, _near_pillars(correct), wrong), correct, rules.JIAZI, wrong)
    return _question(rng, "pillar_of_nayin", params, f"下列干支中，纳音为「{name}」的是？", correct, picks)


def _wrong_direction(stem: str, branch: str) -> str:
    """The stage a reader gets by counting the wrong way (阴干 forward, 阳干 backward)."""
    start = rules.branch_index(rules.stage_branch(stem, "长生"))
    b = rules.branch_index(branch)
    steps = (start - b) % 12 if rules.stem_index(stem) % 2 == 0 else (b - start) % 12
    return TWELVE_STAGES[steps]


def _twelve_stages(rng: random.Random, zi_hour: str) -> dict[str, Any]:
    stem = rng.choice(STEMS)
    if rng.random() < 0.6:
        branch = rng.choice(BRANCHES)
        correct = rules.twelve_stage(stem, branch)
        params = {"stem": stem, "branch": branch}
        i = TWELVE_STAGES.index(correct)
        likely = [_wrong_direction(stem, branch)] + [TWELVE_STAGES[(i + d) % 12] for d in (-1, 1, -2, 2)]
        wrong = _rejects("stage_of", params)
        picks = _fill(rng, _pick(rng, correct, likely, wrong), correct, TWELVE_STAGES, wrong)
        text = f"按十二长生（阳干顺行、阴干逆行），日干「{stem}」在地支「{branch}」处于哪一位？"
        return _question(rng, "stage_of", params, text, correct, picks)
    stage = rng.choice(TWELVE_STAGES)
    correct = rules.stage_branch(stem, stage)
    params = {"stem": stem, "stage": stage}
    b = rules.branch_index(correct)
    mirrored = next(x for x in BRANCHES if _wrong_direction(stem, x) == stage)
    likely = [mirrored] + [BRANCHES[(b + d) % 12] for d in (-1, 1, 6)]
    wrong = _rejects("branch_of_stage", params)
    picks = _fill(rng, _pick(rng, correct, likely, wrong), correct, BRANCHES, wrong)
    text = f"按十二长生（阳干顺行、阴干逆行），日干「{stem}」的「{stage}」在哪个地支？"
    return _question(rng, "branch_of_stage", params, text, correct, picks)


def _twin_god(god: str) -> str:
    i = TEN_GODS.index(god)
    return TEN_GODS[i + 1 if i % 2 == 0 else i - 1]


def _ten_gods(rng: random.Random, zi_hour: str) -> dict[str, Any]:
    day = rng.choice(STEMS)
    if rng.random() < 0.6:
        stem = rng.choice(STEMS)
        correct = rules.ten_god(day, stem)
        params = {"day_stem": day, "stem": stem}
        wrong = _rejects("god_of", params)
        picks = _fill(rng, _pick(rng, correct, [_twin_god(correct)], wrong, k=1), correct, TEN_GODS, wrong)
        text = f"以「{day}」为日主（日干），天干「{stem}」是其什么十神？"
        return _question(rng, "god_of", params, text, correct, picks)
    god = rng.choice(TEN_GODS)
    correct = rules.ten_god_stem(day, god)
    params = {"day_stem": day, "god": god}
    twin = rules.ten_god_stem(day, _twin_god(god))
    wrong = _rejects("stem_of_god", params)
    picks = _fill(rng, _pick(rng, correct, [twin], wrong, k=1), correct, STEMS, wrong)
    text = f"以「{day}」为日主（日干），下列天干中哪一个是其「{god}」？"
    return _question(rng, "stem_of_god", params, text, correct, picks)


_ASK = {"六合": "六合", "六冲": "相冲（六冲）", "相害": "相害（六害）"}
_PAIRS = {
    "六合": [sorted(p) for p in LIU_HE],
    "六冲": [sorted(p) for p in LIU_CHONG],
    "相刑": [sorted(p) * (2 if len(p) == 1 else 1) for p in XIANG_XING],
    "相害": [sorted(p) for p in XIANG_HAI],
}


def _pair(p: Iterable[str]) -> str:
    a, b = sorted(p, key=BRANCHES.index)
    return a + b


def _stems_branches(rng: random.Random, zi_hour: str) -> dict[str, Any]:
    kind = rng.choice(("partner", "pair_with_relation", "relation_of_pair", "sanhe_element", "sanhe_group"))
    if kind == "partner":
        branch, relation = rng.choice(BRANCHES), rng.choice(tuple(_ASK))
        correct = rules.partner(branch, relation)
        params = {"branch": branch, "relation": relation}
        others = [rules.partner(branch, r) for r in _ASK if r != relation]
        others += [b for b in BRANCHES if "相刑" in rules.branch_relations(branch, b) and b != branch]
        wrong = _rejects("partner", params)
        picks = _fill(rng, _pick(rng, correct, others, wrong), correct, [b for b in BRANCHES if b != branch], wrong)
        return _question(rng, "partner", params, f"地支「{branch}」与下列哪个地支{_ASK[relation]}？", correct, picks)
    if kind == "pair_with_relation":
        relation = rng.choice(PAIR_RELATIONS)
        correct = _pair(rng.choice(_PAIRS[relation]))
        params = {"relation": relation}
        others = [
            _pair(p) for r, ps in _PAIRS.items() if r != relation for p in ps if relation == "相刑" or p[0] != p[1]
        ]
        every = [_pair((a, b)) for i, a in enumerate(BRANCHES) for b in BRANCHES[i + 1 :]]
        wrong = _rejects("pair_with_relation", params)
        picks = _fill(rng, _pick(rng, correct, others, wrong), correct, every, wrong)
        return _question(rng, kind, params, f"下列哪一组地支构成{relation}？", correct, picks)
    if kind == "relation_of_pair":
        pairs = [(a, b) for a in BRANCHES for b in BRANCHES if a != b and len(rules.branch_relations(a, b)) == 1]
        a, b = rng.choice(pairs)
        (correct,) = rules.branch_relations(a, b)
        params = {"a": a, "b": b}
        picks = [r for r in PAIR_RELATIONS if r != correct]
        return _question(rng, kind, params, f"地支「{a}」与「{b}」之间是什么关系？", correct, picks)
    group = rng.choice(list(SAN_HE))
    members = sorted(group, key=BRANCHES.index)
    if kind == "sanhe_element":
        rng.shuffle(members)
        correct = f"{SAN_HE[group]}局"
        params = {"branches": "".join(members)}
        picks = [f"{e}局" for e in SAN_HE.values() if f"{e}局" != correct]
        text = f"地支「{members[0]}」「{members[1]}」「{members[2]}」三合成什么局？"
        return _question(rng, kind, params, text, correct, picks)
    element = SAN_HE[group]
    correct = "".join(members)
    params = {"element": element}
    likely = ["".join(g) for g in (sorted(x, key=BRANCHES.index) for x in SAN_HE)]  # the other 局
    for i in range(3):  # one member swapped for another branch: a half combination plus a stray
        for b in BRANCHES:
            if b not in members:
                likely.append("".join(sorted([*members[:i], b, *members[i + 1 :]], key=BRANCHES.index)))
    wrong = _rejects("sanhe_group", params)
    picks = _pick(rng, correct, likely, wrong)
    return _question(rng, kind, params, f"下列哪一组地支三合成{element}局？", correct, picks)


def _kongwang(rng: random.Random, zi_hour: str) -> dict[str, Any]:
    kind = rng.choice(("kong_of", "pillar_of_kong", "branch_in_kong"))
    pillar = rng.choice(rules.JIAZI)
    kong = rules.xun_kong(pillar)
    if kind == "kong_of":
        params = {"pillar": pillar}
        i = XUN_KONG.index(kong)
        likely = [XUN_KONG[(i + d) % 6] for d in (-1, 1)]
        wrong = _rejects("kong_of", params)
        picks = _fill(rng, _pick(rng, kong, likely, wrong, k=2), kong, XUN_KONG, wrong)
        return _question(rng, kind, params, f"「{pillar}」所在旬的旬空（空亡）是哪两个地支？", kong, picks)
    if kind == "pillar_of_kong":
        params = {"kong": kong}
        wrong = _rejects("pillar_of_kong", params)
        picks = _fill(rng, _pick(rng, pillar, _near_pillars(pillar), wrong), pillar, rules.JIAZI, wrong)
        return _question(rng, kind, params, f"下列干支中，旬空（空亡）为「{kong}」的是？", pillar, picks)
    params = {"pillar": pillar}
    correct = rng.choice(kong)
    near = [BRANCHES[(BRANCHES.index(kong[0]) + d) % 12] for d in (-2, -1, 2, 3)]
    wrong = _rejects("branch_in_kong", params)
    picks = _fill(rng, _pick(rng, correct, near, wrong), correct, BRANCHES, wrong)
    return _question(rng, kind, params, f"日柱为「{pillar}」，下列地支中落入空亡的是？", correct, picks)


def _birth(rng: random.Random) -> datetime:
    """A birth minute: near a 节 (40%), in the 23:00 hour (20%) or anywhere (40%), never within
    ``JIE_MARGIN`` of a 节."""
    while True:
        year = rng.randint(*YEARS)
        mode = rng.random()
        if mode < 0.4:
            moment, _ = rng.choice(rules.jie_moments(year))
            offset = rng.choice((-1, 1)) * rng.randint(int(JIE_MARGIN.total_seconds() // 60), 48 * 60)
            when = (moment + timedelta(minutes=offset)).replace(second=0)
        else:
            start = datetime(year, 1, 1)
            when = start + timedelta(minutes=rng.randrange(365 * 24 * 60))
            if mode < 0.6:
                when = when.replace(hour=23)
        if not YEARS[0] <= when.year <= YEARS[1]:
            continue
        nearest = min(abs(when - m) for y in (when.year - 1, when.year, when.year + 1) for m, _ in rules.jie_moments(y))
        if nearest >= JIE_MARGIN:
            return when


def _shift_stem(pillar: str, by: int) -> str:
    return rules.pillar_from(rules.stem_index(pillar[0]) + by, rules.branch_index(pillar[1]))


def _cycle(pillar: str, by: int) -> str:
    return rules.JIAZI[(rules.cycle_index(pillar) + by) % 60]


def _pillar_mistakes(when: datetime, zi_hour: str, chart: rules.Chart) -> dict[str, list[str]]:
    """For each pillar, the values a careless reader gives: the year of the calendar (not of 立春),
    the neighbouring month, day or hour (months and hours run on through the 60-cycle), the other
    子时 convention, and a stem off by two (五虎遁 or 五鼠遁 from the wrong stem)."""
    other = "same_day" if zi_hour == "next_day" else "next_day"
    return {
        "year": [
            rules.JIAZI[(when.year - 4) % 60],
            _cycle(chart.year, -1),
            _cycle(chart.year, 1),
            _shift_stem(chart.year, 2),
        ],
        "month": [
            _cycle(chart.month, -1),
            _cycle(chart.month, 1),
            _shift_stem(chart.month, 2),
            _shift_stem(chart.month, -2),
        ],
        "day": [rules.day_pillar(when, other), _cycle(chart.day, -1), _cycle(chart.day, 1)],
        "hour": [
            _cycle(chart.hour, -1),
            _cycle(chart.hour, 1),
            _shift_stem(chart.hour, 2),
            _shift_stem(chart.hour, -2),
        ],
    }


def _chart_question(rng: random.Random, zi_hour: str) -> dict[str, Any]:
    when = _birth(rng)
    chart = rules.four_pillars(when, zi_hour)  # type: ignore[arg-type]
    params = {"birth": when.isoformat(timespec="minutes"), "zi_hour": zi_hour}
    intro = (
        f"某人生于公历 {when.year} 年 {when.month} 月 {when.day} 日 {when:%H:%M}（北京时间，不作真太阳时校正；"
        f"年柱以立春交节时刻为界，月柱以各节交节时刻为界；{ZI_HOUR_TEXT[zi_hour]}）。"
    )
    mistakes = _pillar_mistakes(when, zi_hour, chart)
    if rng.random() < 0.5:
        correct = chart.format()
        wrong = _rejects("chart", params)
        variants = {
            which: [rules.Chart(**{**dict(zip(PILLAR_NAMES, chart.pillars)), which: v}).format() for v in values]
            for which, values in mistakes.items()
        }
        picks: list[str] = []
        for which in rng.sample(list(PILLAR_NAMES), 3):  # three different pillars wrong, one in each option
            picks += _pick(rng, correct, [v for v in variants[which] if v not in picks], wrong, k=1)
        picks = _fill(rng, picks, correct, [v for vs in variants.values() for v in vs], wrong)
        return _question(rng, "chart", params, intro + "其四柱八字是？", correct, picks)
    which = rng.choice(list(PILLAR_NAMES))
    params["which"] = which
    correct = getattr(chart, which)
    wrong = _rejects("pillar", params)
    picks = _fill(rng, _pick(rng, correct, mistakes[which], wrong), correct, _near_pillars(correct), wrong)
    return _question(rng, "pillar", params, intro + f"其{PILLAR_NAMES[which]}是？", correct, picks)


GENERATORS: dict[str, Callable[[random.Random, str], dict[str, Any]]] = {
    "Nayin": _nayin,
    "Twelve Stages": _twelve_stages,
    "Ten Gods": _ten_gods,
    "Stems and Branches": _stems_branches,
    "Kongwang": _kongwang,
    "Chart Construction": _chart_question,
}


def categories(wanted: Iterable[str] | None = None) -> list[str]:
    """Category names (English, or the Chinese label) resolved to the English ones, in order."""
    if not wanted:
        return list(GENERATORS)
    lookup = {k.casefold(): k for k in GENERATORS} | {v["zh"]: k for k, v in VERIFIED_CATEGORIES.items()}
    lookup |= {v["slug"]: k for k, v in VERIFIED_CATEGORIES.items()}
    out = []
    for name in wanted:
        key = lookup.get(name.strip().casefold()) or lookup.get(name.strip())
        if key is None:
            raise ValueError(f"unknown verified category {name!r}; expected some of {', '.join(GENERATORS)}")
        out.append(key)
    return list(dict.fromkeys(out))


def generate_items(
    n: int = 50, seed: int = 0, category: Iterable[str] | str | None = None, zi_hour: str = "next_day"
) -> list[dict[str, Any]]:
    """``n`` distinct items per category, every one checked by its rule; same seed, same items."""
    if int(n) < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    rules.check_zi_hour(zi_hour)
    wanted = categories(names(category))
    items: list[dict[str, Any]] = []
    for name in wanted:
        info = VERIFIED_CATEGORIES[name]
        rng = random.Random(f"poetone-bazi-verified:{seed}:{name}")
        seen: set[tuple[str, frozenset[str]]] = set()
        attempts = 0
        while len(seen) < int(n):
            attempts += 1
            if attempts > 200 * int(n) + 1000:
                raise ValueError(f"{name}: only {len(seen)} distinct items exist for these settings, asked for {n}")
            q = GENERATORS[name](rng, zi_hour)
            key = (q["question"], frozenset(q["options"]))
            if key in seen:
                continue
            seen.add(key)
            item = {
                "id": f"verified-{info['slug']}-{len(seen):04d}",
                "task": info["task"],
                "category": name,
                "category_zh": info["zh"],
                "question": q["question"],
                "context": "",
                "options": q["options"],
                "answer": q["answer"],
                "rule": q["rule"],
                "params": q["params"],
                "source": f"{SOURCE}-{VERSION}:seed={seed}",
            }
            check_item(item)
            item["hash"] = item_hash(item)
            items.append(item)
    return items
