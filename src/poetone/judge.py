"""The LLM judge's rubric and the parsing of its replies: framework-free.

The paper rates fluency (流畅), coherence (连贯) and poetic quality (意境) from 1 to 5 with LLM
graders. A rubric that names every level makes two graders (and two runs) comparable, and a
versioned rubric lets a report say which one produced a number. The Inspect scorer that sends
these prompts lives in ``poetone.inspect_tasks.judge``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from poetone._hash import short_sha256

RUBRIC_VERSION = "1.0"

#: (key in results, Chinese name in the rubric and the JSON reply)
DIMENSIONS: tuple[tuple[str, str], ...] = (("fluency", "流畅"), ("coherence", "连贯"), ("yijing", "意境"))

_LEVELS: dict[str, tuple[str, str, str, str, str]] = {
    "fluency": (
        "语句不通，字词堆砌或生造，读来难以成句。",
        "多处拗口或搭配不当，需要费力才能读懂。",
        "大体通顺，个别词句生硬或凑字凑韵。",
        "通顺自然，用语妥帖，偶有小疵。",
        "语言精炼自然，字字妥帖，如出宋人之手。",
    ),
    "coherence": (
        "句与句之间毫无关联，看不出主题。",
        "意思时断时续，主题游离，上下阕脱节。",
        "主题可辨，但层次或过渡有明显跳跃。",
        "围绕主题展开，脉络清楚，上下阕呼应。",
        "结构严谨，起承转合浑然一体，每句都服务于主题。",
    ),
    "yijing": (
        "没有意象或情感，只是字面拼凑。",
        "意象陈旧或互相冲突，情感空泛。",
        "有意象和情感，但平淡，缺少余味。",
        "意象鲜明，情景交融，有一定感染力。",
        "意境深远，情景交融，含蓄蕴藉，耐人回味。",
    ),
}

_DEFINITIONS = {
    "fluency": "语言是否通顺自然、合乎古汉语诗词的表达习惯",
    "coherence": "全词是否围绕主题、层次分明、前后连贯",
    "yijing": "意象是否鲜明、情景是否交融、是否有言外之意",
}


def rubric() -> str:
    """The rubric in Chinese, every level of every dimension defined."""
    out = []
    for key, name in DIMENSIONS:
        out.append(f"【{name}】{_DEFINITIONS[key]}")
        out.extend(f"  {level}分：{text}" for level, text in enumerate(_LEVELS[key], start=1))
    return "\n".join(out)


_INSTRUCTIONS = (
    "你是一位研究宋词的学者，请评价下面这首《{cipai}》（主题：{theme_label}）。"
    "格律（平仄、押韵、字数）另有程序检查，这里不必考虑，只评价语言与内容。\n\n"
    "评分标准（每项1至5分，只能给整数）：\n{rubric}\n\n"
    "【待评作品】\n{poem}\n\n"
    '请只输出一个JSON对象，不要其他文字，格式如下：\n{{"流畅": 整数, "连贯": 整数, "意境": 整数, "理由": "一两句话"}}'
)

RETRY_MESSAGE = '你的回答无法解析。请只输出一个JSON对象，例如：{"流畅": 3, "连贯": 4, "意境": 3, "理由": "……"}'


def rubric_hash() -> str:
    """SHA-256 (12 hex digits) of the version, instructions and rubric: recorded with every judgment."""
    return short_sha256(RUBRIC_VERSION, _INSTRUCTIONS, rubric(), RETRY_MESSAGE)


def judge_prompt(cipai: str, theme_label: str, poem: str) -> str:
    return _INSTRUCTIONS.format(cipai=cipai, theme_label=theme_label, rubric=rubric(), poem=poem.strip())


@dataclass(frozen=True, slots=True)
class Judgment:
    """One grader's ratings; ``scores`` is empty when the reply could not be parsed."""

    scores: dict[str, float] = field(default_factory=dict)
    reason: str = ""
    error: str = ""

    @property
    def valid(self) -> bool:
        return not self.error


_FULLWIDTH = str.maketrans("０１２３４５６７８９：，｛｝＂－．／", '0123456789:,{}"-./')
_CN_NUMERALS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5}
_ALIASES: dict[str, tuple[str, ...]] = {
    "fluency": ("流畅", "流暢", "fluency", "通顺"),
    "coherence": ("连贯", "連貫", "coherence"),
    "yijing": ("意境", "yijing", "poetic_quality", "poetic quality", "poetry", "诗意"),
}
#: A rating as a string: "4", "4分", "4/5", "4.0" (a whole number; the sign and decimals are kept
#: so that "-3" or "4.5" are read as what they are, not as 3 or 4).
_RATING_TEXT = re.compile(r"^(?P<n>[-+−]?\d+(?:\.\d+)?)\s*(?:/\s*5(?![\d.])\s*)?分?$")
#: In running text: a dimension's name, a few separators (no sign, no word, no clause break: in
#: "上下阕连贯，2处跳跃" the 2 is no rating), then a number.
_NUMBER = r"[-+−]?\d+(?:\.\d+)?|[一二两三四五]"
_MENTION = {
    key: re.compile(
        rf"(?:{'|'.join(re.escape(n) for n in names)})[^\w+\-−,，、。；;！!？?]{{0,8}}?(?P<n>{_NUMBER})", re.I
    )
    for key, names in _ALIASES.items()
}
#: What may follow a number for it to be a rating: "/5" and "分".
_SUFFIX = re.compile(r"\s*(?:/\s*5(?![\d.]))?\s*(?P<fen>分)?")
#: What must not follow it: another number joined by a range or an alternative ("3-4分", "3至4",
#: "3或4", "4/10"), or a digit ("10" read from its first digit).
_RANGE = re.compile(r"\s*(?:[-−–—~～至到或/、,]\s*)?(?:\d|[一二两三四五六七八九十百])")
#: A level label of a scale ("1分：…"). Three dimensions give at most three distinct labels, so four
#: or more mean the reply lays out the scale itself.
_LEVEL_LABEL = re.compile(r"(?<![\d.])([1-5])\s*分\s*[:：]")


def _as_level(value: Any) -> float | None:
    """The integer 1–5 a value states, or None: 10, -3, 5.5, "4/10", "3-4分" and True are no rating."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip().translate(_FULLWIDTH)
        if m := _RATING_TEXT.match(text):
            number = float(m.group("n").replace("−", "-"))
        elif text.removesuffix("分") in _CN_NUMERALS:
            number = float(_CN_NUMERALS[text.removesuffix("分")])
        else:
            return None
    else:
        return None
    return number if number in (1.0, 2.0, 3.0, 4.0, 5.0) else None


def _from_mapping(obj: dict[str, Any]) -> tuple[dict[str, float], str]:
    """(the ratings, "") of a JSON object naming every dimension, or ({}, what is wrong)."""
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    scores = {}
    for key, names in _ALIASES.items():
        name = next((n for n in names if n in lowered), None)
        if name is None:
            return {}, f"no {names[0]} in the JSON rating"
        level = _as_level(lowered[name])
        if level is None:
            return {}, f"{names[0]} is {lowered[name]!r}, not an integer from 1 to 5"
        scores[key] = level
    return scores, ""


def _reason_of(obj: dict[str, Any]) -> str:
    for k in ("理由", "reason", "explanation", "评语"):
        if isinstance(obj.get(k), str):
            return obj[k]
    return ""


def _json_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object in the text (fenced or bare, nested ones too), in order."""
    decoder = json.JSONDecoder()
    found = []
    for start in (i for i, ch in enumerate(text) if ch == "{"):
        try:
            obj, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(obj, dict):
            found.append(obj)
    return found


def _names_a_dimension(obj: dict[str, Any]) -> bool:
    keys = {str(k).strip().lower() for k in obj}
    return any(n in keys for names in _ALIASES.values() for n in names)


def _quotes_the_rubric(reply: str) -> bool:
    """The reply repeats the rubric (a level's definition, or the labels of four levels or more): its
    numbers are the scale's, not ratings. ``rubric()`` echoed back once read as 1 for every dimension."""
    if any(level in reply for levels in _LEVELS.values() for level in levels):
        return True
    return len({m.group(1) for m in _LEVEL_LABEL.finditer(reply.translate(_FULLWIDTH))}) >= 4


def _text_level(text: str, match: re.Match[str]) -> float | None:
    """The rating a mention states, or None when the number is no rating ("10", "-3", "3-4分", "一般")."""
    number = match.group("n")
    suffix = _SUFFIX.match(text, match.end())
    assert suffix is not None  # every part is optional
    if _RANGE.match(text, suffix.end()):
        return None
    if number in _CN_NUMERALS:
        after = text[match.end() : match.end() + 1]
        if not suffix.group("fen") and after and unicodedata.category(after) == "Lo":  # 一般, 三思: words
            return None
        return float(_CN_NUMERALS[number])
    return _as_level(number)


def _from_text(text: str, reply: str) -> Judgment:
    scores = {}
    for key, names in _ALIASES.items():
        levels = [_text_level(text, m) for m in _MENTION[key].finditer(text)]
        if not levels:
            return Judgment(error=f"no 1–5 rating for {names[0]} in the reply: {reply[:80]!r}")
        if None in levels or len(set(levels)) > 1:
            shown = ", ".join(text[m.start() : m.end() + 3].strip() for m in _MENTION[key].finditer(text))
            return Judgment(error=f"no single integer 1–5 for {names[0]} in the reply ({shown}): {reply[:80]!r}")
        scores[key] = levels[0]
    return Judgment(scores=scores)


def parse_judgment(reply: str) -> Judgment:
    """Ratings from a grader's reply: JSON first (fenced or bare), then ``流畅：4分`` style text.

    A rating is one of the integers 1–5. Anything else (10, -3, 5.5, "4/10", "3-4分", a missing
    dimension, two objects that disagree, a reply that only quotes the rubric) is an invalid
    judgment, never a guess. When the reply holds a JSON object naming a dimension, that object is
    the answer: its out-of-range value is not read again from the text.
    """
    text = (reply or "").translate(_FULLWIDTH)
    rated = [obj for obj in _json_objects(text) if _names_a_dimension(obj)]
    if rated:
        readings = [_from_mapping(obj) for obj in rated]
        if errors := [error for _, error in readings if error]:
            return Judgment(error=f"{errors[0]}: {reply[:80]!r}")
        if any(scores != readings[0][0] for scores, _ in readings):
            return Judgment(error=f"{len(rated)} JSON ratings that disagree: {reply[:80]!r}")
        return Judgment(scores=readings[0][0], reason=_reason_of(rated[0]))
    if _quotes_the_rubric(reply or ""):
        return Judgment(error=f"the reply quotes the rubric and gives no JSON rating: {reply[:80]!r}")
    return _from_text(text, reply or "")


def average(judgments: list[Judgment]) -> dict[str, float | None]:
    """Per dimension the mean over valid judgments; None where no grader gave a valid one."""
    valid = [j for j in judgments if j.valid]
    return {key: (sum(j.scores[key] for j in valid) / len(valid) if valid else None) for key, _ in DIMENSIONS}
