"""The Songci tasks: ``poetone/zero_shot`` … ``poetone/cot``, and ``poetone/songci`` for several.

Same eval set and prompts as the lm-eval tasks (``poetone.songci.build_eval_set``): 20 cipai × 6
themes = 120 samples per strategy. ``--epochs N`` gives N candidates per prompt (best-of-N).

    inspect eval poetone/zero_shot --model openai/gpt-4o
    inspect eval poetone/songci --model poetone/reference -T strategy=one_shot,completion
    inspect eval poetone/cot -T cipai=念奴娇 -T judge=true --model-role grader=openai/gpt-4o
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Scorer

from poetone import corpus, prompts
from poetone import longtail as longtail_track
from poetone.critic import Critic
from poetone.inspect_tasks.generation import generate_per_strategy
from poetone.inspect_tasks.judge import require_graders, songci_judge
from poetone.inspect_tasks.revise import critic_revise
from poetone.inspect_tasks.scorers import conformity, longtail_conformity
from poetone.options import parse_names
from poetone.songci import build_eval_set, require_scorable


def record_to_sample(record: dict[str, Any]) -> Sample:
    """One eval-set record (``SongciPrompt.as_record()``) as an Inspect sample.

    The target is the poet's own text (the withheld 下阕 for completion): shown beside the answer
    in the log, never used for scoring, which is against the form alone.
    """
    if record["strategy"] == "completion":
        target = record["original_lower"]
    elif record.get("reference_id"):
        target = corpus.records_by_id()[record["id"].split("-", 1)[1]]["text"]
    else:
        target = ""  # a tune the corpus has no poem of
    return Sample(
        id=record["id"],
        input=[ChatMessageSystem(content=record["system"]), ChatMessageUser(content=record["user"])],
        target=target,
        metadata={k: v for k, v in record.items() if k not in ("system", "user", "plain")},
    )


def songci_dataset(
    strategies: list[str], cipai: str | list[str] | None = None, theme: str | list[str] | None = None
) -> MemoryDataset:
    prompts_ = build_eval_set(
        strategies, cipai=parse_names(cipai), theme=parse_names(theme, "theme"), critic=Critic()
    )
    if not prompts_:
        raise ValueError(f"no prompts for strategy={strategies} cipai={cipai} theme={theme}")
    name = "songci" if len(strategies) > 1 else f"songci_{strategies[0]}"
    return MemoryDataset([record_to_sample(p.as_record()) for p in prompts_], name=name, location="poetone")


def _version() -> str:
    from poetone import __version__

    return __version__


def songci_task(
    strategies: list[str],
    cipai: str | list[str] | None,
    theme: str | list[str] | None,
    profile: str,
    judge: bool,
    graders: str | list[str] | None,
    temperature: float,
    top_p: float,
    max_tokens: int | None,
    revise: int,
    dataset: MemoryDataset | None = None,
) -> Task:
    """The Songci task over ``strategies``: what every ``@task`` below builds (``dataset``: the
    long-tail track's, whose strategy is ``longtail``).

    Generation follows ``prompts.GENERATION`` per strategy, as the lm-eval tasks do: a mixed run
    gives each sample its own strategy's budget (``generate_per_strategy``) unless ``max_tokens``
    is set, which then applies to all.
    """
    for s in strategies:
        if s not in prompts.STRATEGIES and not (dataset is not None and s == longtail_track.STRATEGY):
            raise ValueError(f"unknown strategy {s!r}; expected some of {', '.join(prompts.STRATEGIES)}")
    require_scorable(strategies, profile)
    budgets = {s: prompts.GENERATION[s].max_tokens for s in strategies}
    if max_tokens is None and len(set(budgets.values())) == 1:
        max_tokens = budgets[strategies[0]]
    per_sample = budgets if max_tokens is None else None
    scorers: list[Scorer] = [
        longtail_conformity(profile=profile)
        if strategies == [longtail_track.STRATEGY]
        else conformity(profile=profile, copied="completion" in strategies)
    ]
    if judge:
        scorers.append(songci_judge(graders=graders))
    return Task(
        dataset=dataset if dataset is not None else songci_dataset(strategies, cipai, theme),
        setup=require_graders(graders) if judge else None,
        solver=(
            critic_revise(rounds=revise, profile=profile, max_tokens=per_sample)
            if revise
            else generate_per_strategy(max_tokens=per_sample)
        ),
        scorer=scorers,
        config=GenerateConfig(temperature=temperature, top_p=top_p, max_tokens=max_tokens),
        metadata={
            "poetone_version": _version(),
            "prompt_version": prompts.PROMPT_VERSION,
            "prompt_hash": prompts.prompt_hash(),
            "profile": profile,
            "strategies": strategies,
            "max_tokens": {s: max_tokens or budgets[s] for s in strategies},
            "revise": revise,
        },
        version=prompts.PROMPT_VERSION,
    )


# The tasks are plain ``@task`` functions, one per strategy, so that tools reading the source
# (``inspect list tasks``, inspect_evals' listing) see all six; each passes its arguments on.


@task
def songci(
    strategy: str | list[str] | None = None,
    cipai: str | list[str] | None = None,
    theme: str | list[str] | None = None,
    profile: str = "default",
    judge: bool = False,
    graders: str | list[str] | None = None,
    temperature: float = prompts.TEMPERATURE,
    top_p: float = prompts.TOP_P,
    max_tokens: int | None = None,
    revise: int = 0,
) -> Task:
    """Songci generation under the given strategies (all five when omitted)."""
    strategies = parse_names(strategy, "strategy") or list(prompts.STRATEGIES)
    return songci_task(strategies, cipai, theme, profile, judge, graders, temperature, top_p, max_tokens, revise)


@task
def zero_shot(
    cipai: str | list[str] | None = None,
    theme: str | list[str] | None = None,
    profile: str = "default",
    judge: bool = False,
    graders: str | list[str] | None = None,
    temperature: float = prompts.TEMPERATURE,
    top_p: float = prompts.TOP_P,
    max_tokens: int | None = None,
    revise: int = 0,
) -> Task:
    """Write a ci to a cipai and theme, with no example."""
    return songci_task(["zero_shot"], cipai, theme, profile, judge, graders, temperature, top_p, max_tokens, revise)


@task
def one_shot(
    cipai: str | list[str] | None = None,
    theme: str | list[str] | None = None,
    profile: str = "default",
    judge: bool = False,
    graders: str | list[str] | None = None,
    temperature: float = prompts.TEMPERATURE,
    top_p: float = prompts.TOP_P,
    max_tokens: int | None = None,
    revise: int = 0,
) -> Task:
    """Write a ci after one authentic example of the same cipai (another theme)."""
    return songci_task(["one_shot"], cipai, theme, profile, judge, graders, temperature, top_p, max_tokens, revise)


@task
def completion(
    cipai: str | list[str] | None = None,
    theme: str | list[str] | None = None,
    profile: str = "default",
    judge: bool = False,
    graders: str | list[str] | None = None,
    temperature: float = prompts.TEMPERATURE,
    top_p: float = prompts.TOP_P,
    max_tokens: int | None = None,
    revise: int = 0,
) -> Task:
    """Write the 下阕 after a given 上阕; a copy of the poet's own 下阕 scores 0."""
    return songci_task(["completion"], cipai, theme, profile, judge, graders, temperature, top_p, max_tokens, revise)


@task
def instruction(
    cipai: str | list[str] | None = None,
    theme: str | list[str] | None = None,
    profile: str = "default",
    judge: bool = False,
    graders: str | list[str] | None = None,
    temperature: float = prompts.TEMPERATURE,
    top_p: float = prompts.TOP_P,
    max_tokens: int | None = None,
    revise: int = 0,
) -> Task:
    """Write a ci with the form's rules (line lengths, tones, rhymes) spelt out."""
    return songci_task(["instruction"], cipai, theme, profile, judge, graders, temperature, top_p, max_tokens, revise)


@task
def cot(
    cipai: str | list[str] | None = None,
    theme: str | list[str] | None = None,
    profile: str = "default",
    judge: bool = False,
    graders: str | list[str] | None = None,
    temperature: float = prompts.TEMPERATURE,
    top_p: float = prompts.TOP_P,
    max_tokens: int | None = None,
    revise: int = 0,
) -> Task:
    """Analyse the form first (kept in the log, not scored), then write the ci."""
    return songci_task(["cot"], cipai, theme, profile, judge, graders, temperature, top_p, max_tokens, revise)


@task
def longtail(
    band: str | list[str] | None = None,
    profile: str = "default",
    judge: bool = False,
    graders: str | list[str] | None = None,
    temperature: float = prompts.TEMPERATURE,
    top_p: float = prompts.TOP_P,
    max_tokens: int | None = None,
    revise: int = 0,
) -> Task:
    """The long-tail track: a zero-shot ci for each of 380 tunes beyond the benchmark's 20, ranked
    1–400 in the 全宋词, with the mean per frequency band (``-T band=201-400`` narrows it)."""
    records = [p.as_record() for p in longtail_track.build_longtail_set(parse_names(band, "band"), Critic())]
    dataset = MemoryDataset([record_to_sample(r) for r in records], name="songci_longtail", location="poetone")
    return songci_task(
        [longtail_track.STRATEGY], None, None, profile, judge, graders, temperature, top_p, max_tokens, revise, dataset
    )
