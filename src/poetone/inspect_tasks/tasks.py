"""The Songci tasks: ``poetone/zero_shot`` … ``poetone/cot``, and ``poetone/songci`` for several.

Same eval set and prompts as the lm-eval tasks (``poetone.songci.build_eval_set``): 20 cipai × 6
themes = 120 samples per strategy. ``--epochs N`` gives N candidates per prompt (best-of-N).

    inspect eval poetone/zero_shot --model openai/gpt-4o
    inspect eval poetone/songci --model poetone/reference -T strategy=one_shot,completion
    inspect eval poetone/cot -T cipai=念奴娇 -T judge=true --model-role grader=openai/gpt-4o
"""

from __future__ import annotations

import inspect
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Scorer
from inspect_ai.solver import generate

from poetone import corpus, prompts
from poetone.critic import Critic
from poetone.inspect_tasks.judge import require_graders, songci_judge
from poetone.inspect_tasks.revise import critic_revise
from poetone.inspect_tasks.scorers import conformity
from poetone.songci import build_eval_set

#: The paper's generation settings (as the lm-eval tasks); CoT gets room for its analysis.
TEMPERATURE, TOP_P, MAX_TOKENS, MAX_TOKENS_COT = 0.7, 0.9, 1024, 2048


def record_to_sample(record: dict[str, Any]) -> Sample:
    """One eval-set record (``SongciPrompt.as_record()``) as an Inspect sample.

    The target is the poet's own text (the withheld 下阕 for completion): shown beside the answer
    in the log, never used for scoring, which is against the form alone.
    """
    slot = record["id"].split("-", 1)[1]
    target = record["original_lower"] if record["strategy"] == "completion" else corpus.records_by_id()[slot]["text"]
    return Sample(
        id=record["id"],
        input=[ChatMessageSystem(content=record["system"]), ChatMessageUser(content=record["user"])],
        target=target,
        metadata={k: v for k, v in record.items() if k not in ("system", "user", "plain")},
    )


def parse_names(value: str | list[str] | tuple[str, ...] | None) -> list[str] | None:
    """``-T cipai=念奴娇,水调歌头`` arrives as one string; a YAML list arrives as a list."""
    if value is None or value == "":
        return None
    items = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    return [v.strip() for v in items if v.strip()]


def songci_dataset(
    strategies: list[str], cipai: str | list[str] | None = None, theme: str | list[str] | None = None
) -> MemoryDataset:
    prompts_ = build_eval_set(strategies, cipai=parse_names(cipai), theme=parse_names(theme), critic=Critic())
    if not prompts_:
        raise ValueError(f"no prompts for strategy={strategies} cipai={cipai} theme={theme}")
    name = "songci" if len(strategies) > 1 else f"songci_{strategies[0]}"
    return MemoryDataset([record_to_sample(p.as_record()) for p in prompts_], name=name, location="poetone")


def _version() -> str:
    from poetone import __version__

    return __version__


@task
def songci(
    strategy: str | list[str] | None = None,
    cipai: str | list[str] | None = None,
    theme: str | list[str] | None = None,
    profile: str = "default",
    judge: bool = False,
    graders: str | list[str] | None = None,
    temperature: float = TEMPERATURE,
    top_p: float = TOP_P,
    max_tokens: int | None = None,
    revise: int = 0,
) -> Task:
    """Songci generation under the given strategies (all five when omitted)."""
    strategies = parse_names(strategy) or list(prompts.STRATEGIES)
    for s in strategies:
        if s not in prompts.STRATEGIES:
            raise ValueError(f"unknown strategy {s!r}; expected some of {', '.join(prompts.STRATEGIES)}")
    scorers: list[Scorer] = [conformity(profile=profile)]
    if judge:
        scorers.append(songci_judge(graders=graders))
    if max_tokens is None:
        max_tokens = MAX_TOKENS_COT if "cot" in strategies else MAX_TOKENS
    return Task(
        dataset=songci_dataset(strategies, cipai, theme),
        setup=require_graders(graders) if judge else None,
        solver=critic_revise(rounds=revise, profile=profile) if revise else generate(),
        scorer=scorers,
        config=GenerateConfig(temperature=temperature, top_p=top_p, max_tokens=max_tokens),
        metadata={
            "poetone_version": _version(),
            "prompt_version": prompts.PROMPT_VERSION,
            "prompt_hash": prompts.prompt_hash(),
            "profile": profile,
            "strategies": strategies,
            "revise": revise,
        },
        version=prompts.PROMPT_VERSION,
    )


def _strategy_task(strategy: str, summary: str) -> Any:
    """One registered task per strategy: ``songci`` with the strategy fixed. Its signature is
    songci's without ``strategy``, so Inspect lists and checks the same ``-T`` parameters."""

    def factory(**params: Any) -> Task:
        return songci(strategy=strategy, **params)

    signature = inspect.signature(songci)
    factory.__signature__ = signature.replace(parameters=[p for n, p in signature.parameters.items() if n != "strategy"])  # type: ignore[attr-defined]
    factory.__name__ = factory.__qualname__ = strategy
    factory.__doc__ = summary
    return task(name=strategy)(factory)


zero_shot = _strategy_task("zero_shot", "Write a ci to a cipai and theme, with no example.")
one_shot = _strategy_task("one_shot", "Write a ci after one authentic example of the same cipai (another theme).")
completion = _strategy_task("completion", "Write the 下阕 after a given 上阕; a copy of the poet's own 下阕 scores 0.")
instruction = _strategy_task("instruction", "Write a ci with the form's rules (line lengths, tones, rhymes) spelt out.")
cot = _strategy_task("cot", "Analyse the form first (kept in the log, not scored), then write the ci.")
