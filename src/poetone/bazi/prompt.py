"""The zero-shot prompt of a BaZi item: one Chinese instruction, the question, four options.

One function for both frameworks, so lm-eval and Inspect ask the very same thing; the version is
recorded with each run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from poetone._hash import short_sha256
from poetone.bazi.parse import LETTERS

PROMPT_VERSION = "bazi-1"
INSTRUCTION = "以下是一道关于八字命理的单项选择题。请只回答正确选项的字母（A、B、C 或 D），不要解释。"


def format_prompt(item: Mapping[str, Any]) -> str:
    parts = [INSTRUCTION, ""]
    if item.get("context"):
        parts += [str(item["context"]).strip(), ""]
    parts.append(str(item["question"]).strip())
    parts += [f"{letter}. {option}" for letter, option in zip(LETTERS, item["options"])]
    parts.append("答案：")
    return "\n".join(parts)


def prompt_hash() -> str:
    """Changes whenever the wording does: a number is comparable only across equal hashes."""
    probe = {"question": "Q", "context": "C", "options": ["a", "b", "c", "d"]}
    return short_sha256(format_prompt(probe))
