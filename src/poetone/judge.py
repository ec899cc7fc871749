"""The LLM judge's rubric and the parsing of its replies: framework-free.

The paper rates fluency (流畅), coherence (连贯) and poetic quality (意境) from 1 to 5 with LLM
graders. A rubric that names every level makes two graders (and two runs) comparable, and a
versioned rubric lets a report say which one produced a number. The Inspect scorer that sends
these prompts lives in ``poetone.inspect_tasks.judge``.
"""

from __future__ import annotations

import json
import re
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


_FULLWIDTH = str.maketrans("０１２３４５６７８９：，｛｝＂", '0123456789:,{}"')
_CN_NUMERALS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5}
_ALIASES: dict[str, tuple[str, ...]] = {
    "fluency": ("流畅", "流暢", "fluency", "通顺"),
    "coherence": ("连贯", "連貫", "coherence"),
    "yijing": ("意境", "yijing", "poetic_quality", "poetic quality", "poetry", "诗意"),
}
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
_OBJECT = re.compile(r"\{.*?\}", re.S)


def _as_level(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip().translate(_FULLWIDTH)
        m = re.match(r"^(\d+(?:\.\d+)?)\s*(?:分|/\s*5)?$", text)
        if m:
            number = float(m.group(1))
        elif text.rstrip("分") in _CN_NUMERALS:
            number = float(_CN_NUMERALS[text.rstrip("分")])
        else:
            return None
    else:
        return None
    return number if 1.0 <= number <= 5.0 else None


def _from_mapping(obj: dict[str, Any]) -> dict[str, float] | None:
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    scores = {}
    for key, names in _ALIASES.items():
        for name in names:
            if name in lowered:
                level = _as_level(lowered[name])
                if level is None:
                    return None
                scores[key] = level
                break
    return scores if len(scores) == len(DIMENSIONS) else None


def _reason_of(obj: dict[str, Any]) -> str:
    for k in ("理由", "reason", "explanation", "评语"):
        if isinstance(obj.get(k), str):
            return obj[k]
    return ""


def parse_judgment(reply: str) -> Judgment:
    """Ratings from a grader's reply: JSON first (fenced or bare), then ``流畅：4`` style text.

    Anything outside 1–5, or a missing dimension, is an invalid judgment, never a guess.
    """
    text = (reply or "").translate(_FULLWIDTH)
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [m.group(0) for m in _OBJECT.finditer(text)]
    for chunk in candidates:
        try:
            obj = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(obj, dict) and (scores := _from_mapping(obj)):
            return Judgment(scores=scores, reason=_reason_of(obj))
    scores = {}
    for key, names in _ALIASES.items():
        pattern = "|".join(re.escape(n) for n in names)
        m = re.search(
            rf"(?:{pattern})\W{{0,4}}?[\"'“”]?\s*[:：=]?\s*[\"'“”]?\s*(\d(?:\.\d+)?|[一二两三四五])\s*分?", text, re.I
        )
        level = _as_level(m.group(1)) if m else None
        if level is None:
            return Judgment(error=f"no 1–5 rating for {names[0]} in the reply: {reply[:80]!r}")
        scores[key] = level
    return Judgment(scores=scores)


def average(judgments: list[Judgment]) -> dict[str, float | None]:
    """Per dimension the mean over valid judgments; None where no grader gave a valid one."""
    valid = [j for j in judgments if j.valid]
    return {key: (sum(j.scores[key] for j in valid) / len(valid) if valid else None) for key, _ in DIMENSIONS}
