"""Time the conformity scorer adds per Inspect sample (judge off): the registered scorer, awaited
on 600 task states of the full eval set, each holding its reference answer wrapped in a title
and a note (completion: the 下阕 of another poem), best of five rounds.

    PYTHONPATH=src python benchmarks/inspect_scorer_time.py
"""

from __future__ import annotations

import asyncio
import time

from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import Scorer, Target
from inspect_ai.solver import TaskState

from poetone.inspect_tasks.scorers import conformity
from poetone.inspect_tasks.tasks import songci_dataset
from poetone.prompts import STRATEGIES
from poetone.reference import answer_for_message


def states() -> list[TaskState]:
    out = []
    for sample in songci_dataset(list(STRATEGIES)):
        answer = answer_for_message(sample.input[-1].text)
        if sample.metadata["strategy"] != "completion":
            answer = f"《{sample.metadata['cipai']}》\n\n{answer}\n\n注：仿作。"
        out.append(
            TaskState(
                model=ModelName("poetone/reference"), sample_id=sample.id, epoch=1, input=sample.input,
                messages=list(sample.input), target=Target(sample.target), metadata=sample.metadata,
                output=ModelOutput.from_content("poetone/reference", answer),
            )
        )  # fmt: skip
    return out


async def run(score: Scorer, batch: list[TaskState]) -> float:
    start = time.perf_counter()
    for state in batch:
        await score(state, state.target)
    return time.perf_counter() - start


def main() -> None:
    batch = states()
    score = conformity()
    best = min(asyncio.run(run(score, batch)) for _ in range(5))
    print(f"{len(batch)} samples scored in {best:.3f} s: {best / len(batch) * 1e3:.3f} ms per sample (best of 5)")


if __name__ == "__main__":
    main()
