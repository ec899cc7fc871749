"""The BaZi tasks in Inspect: ``poetone/bazi`` (the released BaZi2500 items) and
``poetone/bazi_verified`` (the rule-verified set). Same items, prompt and parsing as the lm-eval
tasks (``poetone.bazi``), so a number from either framework means the same thing.

    inspect eval poetone/bazi -T path=bazi2500.jsonl -T split=theory --model openai/gpt-4o
    inspect eval poetone/bazi -T path=bazi2500.jsonl -T category="Ten Gods,Nayin" --model …
    inspect eval poetone/bazi_verified -T n=100 -T seed=1 --model …
"""

from __future__ import annotations

import json
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Metric, Score, Scorer, Target, accuracy, grouped, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState, generate

from poetone.bazi.data import load_items, missing_source
from poetone.bazi.parse import score_reply
from poetone.bazi.prompt import PROMPT_VERSION, format_prompt, prompt_hash

#: One letter needs a few tokens; the rest is room for models that cannot help prefacing it.
MAX_TOKENS = 256
_NAN = float("nan")


def record_to_sample(item: dict[str, Any]) -> Sample:
    """One canonical item as an Inspect sample; the metadata is what the report and the grouped
    metrics read (family, category, key, content hash)."""
    return Sample(
        id=item["id"],
        input=[ChatMessageUser(content=format_prompt(item))],
        target=item["answer"],
        metadata={
            "task": item["task"],
            "category": item["category"],
            "category_zh": item.get("category_zh", ""),
            "answer": item["answer"],
            "options": list(item["options"]),
            "hash": item["hash"],
            "source": item.get("source", ""),
            "rule": item.get("rule", ""),
            "params": json.dumps(item.get("params", {}), ensure_ascii=False),
        },
    )


@metric
def count() -> Metric:
    """How many samples carry the flag (e.g. invalid replies)."""

    def compute(scores: list[Any]) -> float:
        return float(sum(s.score.as_float() for s in scores))

    return compute


@metric
def family() -> Metric:
    """Accuracy per family (``family_theory``, ``family_case``)."""
    return grouped(accuracy(), "task", all=False)


@metric
def category() -> Metric:
    """Accuracy per category (``category_Nayin`` …)."""
    return grouped(accuracy(), "category", all=False)


@scorer(
    metrics={
        "accuracy": [accuracy(), stderr(), family(), category()],
        "invalid": [mean(), count()],
        "accuracy_valid": [accuracy(), stderr()],
    }
)
def bazi_choice() -> Scorer:
    """One letter A–D against the key; invalid replies (no letter, several, empty) are wrong.

    ``accuracy_valid`` is NaN for an invalid reply, so Inspect leaves it out: accuracy over the
    valid replies, the paper's sensitivity view.
    """

    async def score(state: TaskState, target: Target) -> Score:
        reply = state.output.completion if state.output else ""
        s = score_reply(reply, target.text)
        value = {
            "accuracy": float(s["correct"]),
            "invalid": float(s["invalid"]),
            "accuracy_valid": _NAN if s["invalid"] else float(s["correct"]),
        }
        explanation = (
            f"invalid reply (no single letter A–D): {reply[:200]!r}"
            if s["invalid"]
            else f"answered {s['parsed']}, key {target.text}"
        )
        return Score(value=value, answer=s["parsed"] or "", explanation=explanation, metadata=s)

    return score


def _task(items: list[dict[str, Any]], name: str, temperature: float, max_tokens: int, meta: dict[str, Any]) -> Task:
    from poetone import __version__

    return Task(
        dataset=MemoryDataset([record_to_sample(i) for i in items], name=name, location="poetone"),
        solver=generate(),
        scorer=bazi_choice(),
        config=GenerateConfig(temperature=temperature, max_tokens=max_tokens),
        metadata={
            "poetone_version": __version__,
            "prompt_version": PROMPT_VERSION,
            "prompt_hash": prompt_hash(),
            **meta,
        },
        version=PROMPT_VERSION,
    )


@task
def bazi(
    path: str | None = None,
    split: str | None = None,
    category: str | list[str] | None = None,
    hub_split: str | None = None,
    temperature: float = 0.0,
    max_tokens: int = MAX_TOKENS,
) -> Task:
    """BaZi2500 multiple choice, zero-shot: ``split`` theory or case (both when omitted)."""
    if not path:
        raise ValueError(missing_source("poetone/bazi", "-T path=items.jsonl"))
    items = load_items(path, split=split, category=category, hub_split=hub_split)
    meta = {"path": str(path), "split": split or "all", "category": category}
    return _task(items, "bazi" if not split else f"bazi_{split}", temperature, max_tokens, meta)


@task
def bazi_verified(
    n: int = 50,
    seed: int = 0,
    category: str | list[str] | None = None,
    zi_hour: str = "next_day",
    temperature: float = 0.0,
    max_tokens: int = MAX_TOKENS,
) -> Task:
    """The rule-verified items: ``n`` per category, generated from ``seed``."""
    from poetone.bazi.verified import generate_items

    items = generate_items(n=int(n), seed=int(seed), category=category, zi_hour=zi_hour)
    meta = {"n": int(n), "seed": int(seed), "category": category, "zi_hour": zi_hour}
    return _task(items, "bazi_verified", temperature, max_tokens, meta)
