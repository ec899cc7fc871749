"""The five prompting strategies of the PoeTone paper, in Chinese, in one place.

Every result records ``PROMPT_VERSION`` and ``prompt_hash()``, so a score can always be traced to
the exact wording that produced it. Change a template → bump the version.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from poetone._hash import short_sha256

PROMPT_VERSION = "1.0"

STRATEGIES: tuple[str, ...] = ("zero_shot", "one_shot", "completion", "instruction", "cot")

SYSTEM = "你是一位精通宋词格律的词人。填词时严格遵守词牌的格律：句数、每句字数、平仄与韵脚。"

_ANSWER_ONLY = "只输出词的正文，不要标题、作者、注释或任何解释。"

TEMPLATES: Mapping[str, str] = {
    "zero_shot": "请以「{theme_label}」为主题，按照词牌《{cipai}》的格律创作一首宋词。" + _ANSWER_ONLY,
    "one_shot": (
        "下面是一首《{cipai}》的范例（{example_poet}）：\n\n{example_text}\n\n"
        "请以「{theme_label}」为主题，依照同一词牌的格律另作一首新词，不要模仿范例的词句。" + _ANSWER_ONLY
    ),
    "completion": (
        "下面是一首《{cipai}》的上阕：\n\n{upper}\n\n"
        "请以「{theme_label}」为主题续写一个新的下阕，字数、平仄、韵脚须合《{cipai}》的格律。"
        "只输出下阕的正文，不要重复上阕，不要任何解释。"
    ),
    "instruction": (
        "请以「{theme_label}」为主题，按照词牌《{cipai}》的格律创作一首宋词。格律要求如下：\n\n{rules}\n\n"
        "说明：平＝平声，仄＝仄声（上、去、入声），中＝可平可仄；韵脚标同一字母者须押同一韵部，"
        "「换韵」处改押新韵。" + _ANSWER_ONLY
    ),
    "cot": (
        "请以「{theme_label}」为主题，按照词牌《{cipai}》的格律创作一首宋词。"
        "请先简要分析这个词牌的格律（分几段、每段几句、每句几字、平仄、韵脚的位置和韵类），再写出作品。"
        "请按以下格式回答：\n【分析】（你的分析）\n【作品】（词的正文，不要标题和注释）"
    ),
}


@dataclass(frozen=True, slots=True)
class Generation:
    """How to sample an answer to one strategy's prompts: the paper's settings.

    The one definition both adapters read (Inspect's ``GenerateConfig``, lm-eval's
    ``generation_kwargs``), so a strategy is run the same way in either framework.
    """

    temperature: float
    top_p: float
    max_tokens: int  # new tokens; CoT needs room for its analysis before the poem


TEMPERATURE, TOP_P = 0.7, 0.9

GENERATION: Mapping[str, Generation] = MappingProxyType(
    {s: Generation(TEMPERATURE, TOP_P, 2048 if s == "cot" else 1024) for s in (*STRATEGIES, "longtail")}
)  # the long-tail track (poetone.longtail) asks zero-shot prompts, with zero-shot's settings

#: A plain prompt for base (completion-style) models: the instruction, then a cue to begin.
BASE_SUFFIX = "\n\n词：\n"


def prompt_hash() -> str:
    """SHA-256 of the version, system message and every template (first 12 hex digits)."""
    parts = [x for name in STRATEGIES for x in (name, TEMPLATES[name])]
    return short_sha256(PROMPT_VERSION, SYSTEM, *parts, BASE_SUFFIX)


def user_message(strategy: str, **fields: str) -> str:
    if strategy not in TEMPLATES:
        raise ValueError(f"unknown strategy {strategy!r}; expected one of {STRATEGIES}")
    return TEMPLATES[strategy].format(**fields)


def plain_prompt(system: str, user: str) -> str:
    """The prompt for a model without a chat template."""
    return f"{system}\n\n{user}{BASE_SUFFIX}"
