"""Each sample generated with its strategy's settings (``poetone.prompts.GENERATION``).

Inspect sets one ``GenerateConfig`` per task, but ``poetone/songci`` mixes strategies whose token
budgets differ (CoT needs room for its analysis). So the budget is passed per call, as lm-eval
gives it per task, unless the run sets its own: ``-T max_tokens=N`` (then the task's config holds
it and no table is given) or ``--max-tokens N`` (then the model's config holds it).
"""

from __future__ import annotations

from collections.abc import Mapping

from inspect_ai.model import get_model
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver


def strategy_max_tokens(state: TaskState, max_tokens: Mapping[str, int] | None) -> dict[str, int]:
    """``generate()`` keyword arguments for this sample: its strategy's budget, or nothing when
    there is no table or the run gave ``--max-tokens`` itself."""
    if not max_tokens or _run_max_tokens() is not None:
        return {}
    return {"max_tokens": max_tokens[state.metadata["strategy"]]}


def _run_max_tokens() -> int | None:
    """The run's own ``max_tokens`` (``--max-tokens``, ``eval(max_tokens=...)``), if any.

    Inspect puts it in the model's config when it builds the model from its name (the command
    line); a ``Model`` passed in as an object keeps its own config, and then only the sample's
    active config (task config merged with the run's) holds it. That one has no public accessor:
    read it where it is, and fall back to the model's alone if Inspect moves it."""
    given = get_model().config.max_tokens
    if given is not None:
        return given
    try:
        from inspect_ai.model._generate_config import active_generate_config
    except ImportError:  # pragma: no cover - a later Inspect
        return None
    return active_generate_config().max_tokens


@solver
def generate_per_strategy(max_tokens: dict[str, int] | None = None) -> Solver:
    """``generate()`` with each sample's strategy's ``max_tokens`` (strategy -> tokens)."""
    if not max_tokens:
        return generate()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await generate(state, **strategy_max_tokens(state, max_tokens))

    return solve
