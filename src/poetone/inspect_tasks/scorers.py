"""The conformity scorer: the critic's Formal Conformity Score of each answer, for Inspect."""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, grouped, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState

from poetone.critic import Critic
from poetone.songci import score_answer

#: Score value keys, besides ``invalid`` and ``copied``.
COMPONENTS: tuple[str, ...] = ("conformity", "structure", "tonal", "rhyme")
_NAN = float("nan")


@metric
def total() -> Metric:
    """The sum of the values: how many samples carry a flag (e.g. invalid judgments)."""

    def compute(scores: list[SampleScore]) -> float:
        return float(sum(s.score.as_float() for s in scores))

    return compute


def conformity_metrics() -> dict[str, list[Metric]]:
    metrics: dict[str, list[Metric]] = {k: [mean(), stderr()] for k in COMPONENTS}
    metrics["conformity"].append(grouped(mean(), "strategy", all=False, name_template="{group_name}"))
    metrics["invalid"] = [mean(), total()]
    metrics["copied"] = [mean(), total()]
    return metrics


@scorer(metrics=conformity_metrics())
def conformity(profile: str = "default", copied: bool = True) -> Scorer:
    """S = 0.4·structure + 0.3·tonal + 0.3·rhyme of the extracted poem (0 when there is none).

    ``invalid`` (no poem could be extracted or scored) and, for completion, ``copied`` (the 下阕
    reuses at least half of the poet's own) are rates; the answer is the poem the critic read, the
    explanation its marked-up rendering, the metadata every diagnostic.

    ``copied=False`` (a task without completion samples) leaves ``copied`` out of the values, so
    Inspect shows no metric for it; with it, samples of other strategies hold NaN there, which
    Inspect counts as unscored, so the rate is over the completion samples alone.
    """
    critic = Critic(profile)

    async def score(state: TaskState, target: Target) -> Score:
        return score_state(state, critic, copied)

    return score


def longtail_metrics() -> dict[str, list[Metric]]:
    metrics: dict[str, list[Metric]] = {k: [mean(), stderr()] for k in COMPONENTS}
    metrics["conformity"].append(grouped(mean(), "band", all=False, name_template="band_{group_name}"))
    metrics["invalid"] = [mean(), total()]
    return metrics


@scorer(metrics=longtail_metrics())
def longtail_conformity(profile: str = "default") -> Scorer:
    """The conformity score of the long-tail track, with its mean per frequency band
    (``band_1-20`` … ``band_201-400``): where a model's knowledge of the forms ends."""
    critic = Critic(profile)

    async def score(state: TaskState, target: Target) -> Score:
        return score_state(state, critic, copied=False)

    return score


def score_state(state: TaskState, critic: Critic, copied: bool = True) -> Score:
    """Synchronous core of the scorer, so its cost can be measured without an event loop."""
    meta = state.metadata
    result = score_answer(meta, state.output.completion if state.output else "", critic)
    return to_score(result, meta["strategy"], copied)


def to_score(result: dict[str, Any], strategy: str, copied: bool = True) -> Score:
    value: dict[str, float] = {k: float(result[k]) for k in COMPONENTS}
    value["invalid"] = float(result["invalid"])
    if copied:
        value["copied"] = float(result["copied"]) if strategy == "completion" else _NAN
    if result["valid"]:
        # a fenced block: inspect view renders explanations as Markdown, which would merge the lines
        explanation = (
            f"{result['scored_cipai']} · {result['variant']} · S={result['conformity']:.3f}"
            f"\n\n```text\n{result.get('rendering', '')}\n```"
        )
        if result.get("copied"):
            explanation = (
                f"copied: {result['copy_overlap']:.0%} of the poet's own 下阕 reused → scored 0\n\n" + explanation
            )
    else:
        explanation = f"invalid output, scored 0: {result['reason']}"
    metadata = {k: v for k, v in result.items() if k not in COMPONENTS and k != "rendering"}
    return Score(value=value, answer=result["poem"], explanation=explanation, metadata=metadata)
