"""The critic as a reward for RL trainers (TRL's GRPO, RLOO, …).

TRL calls a reward function as ``f(prompts=…, completions=…, **columns)`` with every dataset
column as a list, one entry per completion, and takes one float per completion back. The
conformity score is the reward: 0 for an answer with no poem (or, for completion, a copy of the
poet's own 下阕), up to 1 for a poem that keeps the form.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from poetone.critic import Critic
from poetone.songci import score_answer


@cache
def _critic(profile: str) -> Critic:
    return Critic(profile=profile)


def _text(completion: Any) -> str:
    """A completion as text: a string, or a conversational list of messages (the last assistant turn)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content") or "")
    if isinstance(completion, dict):
        return str(completion.get("content") or "")
    raise TypeError(f"a completion must be a string or a list of chat messages, got {type(completion).__name__}")


def _column(columns: dict[str, Any], name: str, n: int, default: Any = None) -> list[Any]:
    values = columns.get(name)
    if values is None:
        if default is None:
            raise ValueError(f"conformity_reward needs a {name!r} column in the dataset (one per completion)")
        return [default] * n
    values = list(values)
    if len(values) != n:
        raise ValueError(f"column {name!r} has {len(values)} entries for {n} completions")
    return values


def conformity_reward(
    prompts: list[Any] | None = None, completions: list[Any] | None = None, profile: str = "default", **columns: Any
) -> list[float]:
    """Formal Conformity Score of each completion against its row's ``cipai``.

    Columns read: ``cipai`` (required), ``strategy`` (default ``zero_shot``), and for completion
    rows ``upper`` and ``original_lower`` (a repeated 上阕 is stripped, a copied 下阕 scores 0).
    """
    if completions is None:
        raise ValueError("conformity_reward needs completions")
    n = len(completions)
    cipai = _column(columns, "cipai", n)
    strategy = _column(columns, "strategy", n, "zero_shot")
    upper = _column(columns, "upper", n, "")
    original_lower = _column(columns, "original_lower", n, "")
    critic = _critic(profile)
    out = []
    for i, completion in enumerate(completions):
        record = {"strategy": strategy[i], "cipai": cipai[i], "upper": upper[i] or "", "original_lower": original_lower[i] or ""}
        out.append(float(score_answer(record, _text(completion), critic, diagnostics=False)["conformity"]))
    return out
