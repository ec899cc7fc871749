"""The model-graded judge of fluency (流畅), coherence (连贯) and 意境, for Inspect.

Graders come from the ``grader`` model role (``--model-role grader=openai/gpt-4o,google/gemini-2.0-flash``
binds two, as the paper averaged two) or from the scorer's ``graders`` argument. Each rates at
temperature 0 with the versioned rubric of ``poetone.judge``; an unparseable reply is retried
once, then recorded as an invalid judgment: counted, and left out of the means (NaN), never
scored as 1 or 5.
"""

from __future__ import annotations

import asyncio
from typing import Any

from inspect_ai.model import ChatMessageUser, GenerateConfig, Model, get_model, model_roles
from inspect_ai.scorer import Metric, Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from poetone import judge
from poetone.inspect_tasks.scorers import total
from poetone.songci import read_answer

GRADER_ROLE = "grader"
_NAN = float("nan")


class NoGraderError(ValueError):
    pass


def resolve_graders(graders: str | list[str] | None) -> list[Model]:
    """The scorer's own graders if given, else every model bound to the ``grader`` role."""
    if graders:
        names = [g.strip() for g in graders.split(",")] if isinstance(graders, str) else list(graders)
        return [get_model(name) for name in names if name]
    bound = model_roles().get(GRADER_ROLE)
    if bound is None:
        raise NoGraderError(
            "the judge needs a grader model: pass --model-role grader=PROVIDER/MODEL (several, comma-separated, "
            "are averaged) or -T graders=PROVIDER/MODEL; a model does not grade its own poems"
        )
    return list(bound) if isinstance(bound, list) else [bound]


@solver
def require_graders(graders: str | list[str] | None = None) -> Solver:
    """The task's setup step when the judge is on: a run with no grader stops here, before any
    sample generates, rather than at the first score after every answer has been paid for.

    Inspect binds model roles only once the eval runs (``model_roles()`` is for solvers and
    scorers, not for task construction), so this is the earliest point that can see them.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        resolve_graders(graders)
        return state

    return solve


async def rate(model: Model, cipai: str, theme_label: str, poem: str, max_tokens: int = 512) -> dict[str, Any]:
    """One grader's judgment of one poem, retried once if the reply cannot be parsed."""
    config = GenerateConfig(temperature=0.0, max_tokens=max_tokens)
    messages: list[Any] = [ChatMessageUser(content=judge.judge_prompt(cipai, theme_label, poem))]
    replies = []
    judgment = judge.Judgment(error="not asked")
    for attempt in range(2):
        output = await model.generate(messages, config=config)
        replies.append(output.completion)
        judgment = judge.parse_judgment(output.completion)
        if judgment.valid or attempt == 1:
            break
        messages = [*messages, output.message, ChatMessageUser(content=judge.RETRY_MESSAGE)]
    return {
        "grader": str(model),
        "valid": judgment.valid,
        "scores": judgment.scores,
        "reason": judgment.reason,
        "error": judgment.error,
        "replies": replies,
    }


def judge_metrics() -> dict[str, list[Metric]]:
    metrics: dict[str, list[Metric]] = {key: [mean(), stderr()] for key, _ in judge.DIMENSIONS}
    metrics["invalid_judgments"] = [total()]
    return metrics


def poem_to_judge(state: TaskState) -> str:
    """The poem as a reader sees it: for completion, the given 上阕 and the model's 下阕."""
    meta = state.metadata
    extraction, _ = read_answer(meta, state.output.completion if state.output else "")
    if not extraction.valid:
        return ""
    if meta["strategy"] == "completion":
        return f"{meta['upper']}\n{extraction.poem}"
    return extraction.poem


@scorer(metrics=judge_metrics())
def songci_judge(graders: str | list[str] | None = None, max_tokens: int = 512) -> Scorer:
    """Fluency, coherence and 意境 (1–5), averaged over the graders that gave a valid judgment."""

    async def score(state: TaskState, target: Target) -> Score:
        models = resolve_graders(graders)
        poem = poem_to_judge(state)
        meta = {"rubric_version": judge.RUBRIC_VERSION, "rubric_hash": judge.rubric_hash()}
        if not poem:
            value = {key: _NAN for key, _ in judge.DIMENSIONS} | {"invalid_judgments": 0.0}
            return Score(value=value, explanation="no poem to judge (the output was invalid)", metadata=meta)
        cipai, label = state.metadata["cipai"], state.metadata["theme_label"]
        results = await asyncio.gather(*(rate(m, cipai, label, poem, max_tokens) for m in models))
        means = judge.average([judge.Judgment(scores=r["scores"], error=r["error"]) for r in results])
        value = {key: (_NAN if v is None else v) for key, v in means.items()}
        value["invalid_judgments"] = float(sum(not r["valid"] for r in results))
        lines = [
            f"{r['grader']}: "
            + (
                "，".join(f"{name}{r['scores'][key]:g}" for key, name in judge.DIMENSIONS) + f"。{r['reason']}"
                if r["valid"]
                else f"invalid judgment ({r['error']})"
            )
            for r in results
        ]
        return Score(value=value, answer=poem, explanation="\n".join(lines), metadata=meta | {"judgments": results})

    return score
