"""``poetone/judge_calibration``: does the judge prefer a Song master's poem to a damaged copy?

Each sample is one corpus poem and one degraded copy of it (``poetone.degrade``: clauses
shuffled, or characters replaced with the form kept). The model under evaluation is the judge
(or the ``grader`` role, when bound); it rates both poems separately with the songci rubric.
Per dimension the score is 1 when the authentic poem is rated strictly higher, 0 otherwise, NaN
when either judgment is invalid. A dimension is ``trusted`` only when the Wilson 95% lower bound
of that rate is above one half; otherwise the judge cannot tell the poems apart there.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, ci_wilson, mean, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from poetone import corpus, judge
from poetone.degrade import DEGRADATIONS, degrade
from poetone.inspect_tasks.judge import GRADER_ROLE, rate
from poetone.inspect_tasks.scorers import total
from poetone.options import parse_names
from poetone.stats import wilson

_NAN = float("nan")


def calibration_dataset(degradations: list[str], seed: int = 0, limit_cipai: list[str] | None = None) -> MemoryDataset:
    samples = []
    for n, record in enumerate(corpus.load_records()):
        if limit_cipai and record["cipai"] not in limit_cipai:
            continue
        for kind in degradations:
            samples.append(
                Sample(
                    id=f"{record['id']}-{kind}",
                    input=f"《{record['cipai']}》 {record['poet']}",
                    target=record["text"],
                    metadata={
                        "cipai": record["cipai"],
                        "theme_label": record["theme_label"],
                        "degradation": kind,
                        "authentic": record["text"],
                        "degraded": degrade(record["text"], kind, seed * 100_003 + n),
                    },
                )
            )
    return MemoryDataset(samples, name="judge_calibration", location="poetone")


@solver
def rate_pair(max_tokens: int = 512) -> Solver:
    """Rate the authentic and the degraded poem, each on its own (the judge never sees both)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model(role=GRADER_ROLE)  # the evaluated model unless a grader role is bound
        m = state.metadata
        for side in ("authentic", "degraded"):
            state.store.set(side, await rate(model, m["cipai"], m["theme_label"], m[side], max_tokens))
        return state

    return solve


@metric
def trusted() -> Metric:
    """1 when the Wilson 95% lower bound of the preference rate exceeds 0.5, else 0."""

    def compute(scores: list[SampleScore]) -> float:
        if not scores:
            return 0.0
        return 1.0 if wilson(round(sum(s.score.as_float() for s in scores)), len(scores)).low > 0.5 else 0.0

    return compute


@scorer(
    metrics={**{key: [mean(), ci_wilson(), trusted()] for key, _ in judge.DIMENSIONS}, "invalid_judgments": [total()]}
)
def prefers_authentic() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        a, d = state.store.get("authentic"), state.store.get("degraded")
        value: dict[str, float] = {}
        for key, _ in judge.DIMENSIONS:
            value[key] = float(a["scores"][key] > d["scores"][key]) if a["valid"] and d["valid"] else _NAN
        value["invalid_judgments"] = float((not a["valid"]) + (not d["valid"]))
        explanation = "\n".join(
            f"{side}: "
            + (
                ", ".join(f"{name} {r['scores'][key]:g}" for key, name in judge.DIMENSIONS)
                if r["valid"]
                else f"invalid ({r['error']})"
            )
            for side, r in (("authentic", a), ("degraded", d))
        )
        return Score(
            value=value,
            answer=state.metadata["degraded"],
            explanation=explanation,
            metadata={
                "authentic": a,
                "degraded": d,
                "rubric_version": judge.RUBRIC_VERSION,
                "rubric_hash": judge.rubric_hash(),
            },
        )

    return score


@task
def judge_calibration(
    degradation: str | list[str] | None = None, seed: int = 0, cipai: str | list[str] | None = None
) -> Task:
    """Authentic corpus poems against degraded copies, rated by the judge (120 per degradation)."""
    kinds = parse_names(degradation, "degradation") or list(DEGRADATIONS)
    for k in kinds:
        if k not in DEGRADATIONS:
            raise ValueError(f"unknown degradation {k!r}; expected some of {', '.join(DEGRADATIONS)}")
    names = [corpus.resolve_cipai(c) for c in parse_names(cipai) or []] or None
    return Task(
        dataset=calibration_dataset(kinds, seed, names),
        solver=rate_pair(),
        scorer=prefers_authentic(),
        metadata={"rubric_version": judge.RUBRIC_VERSION, "rubric_hash": judge.rubric_hash(), "seed": seed},
        version=judge.RUBRIC_VERSION,
    )
