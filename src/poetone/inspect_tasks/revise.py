"""``critic_revise``: generate, let the critic name the faults, ask for a revision, keep the best.

Beyond the paper: the critic used at inference time. Each draft and its score go to the sample's
store (``drafts``), so the log shows how the poem changed; the sample's output is the best draft
(the earliest of equal scores), which the conformity scorer then scores as usual.
"""

from __future__ import annotations

from collections.abc import Mapping

from inspect_ai.model import ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from poetone.critic import Critic
from poetone.feedback import revision_request
from poetone.inspect_tasks.generation import strategy_max_tokens
from poetone.songci import score_answer


@solver
def critic_revise(rounds: int = 2, profile: str = "default", max_tokens: Mapping[str, int] | None = None) -> Solver:
    """Up to ``rounds`` revisions after the first draft; stops early once a draft scores 1.

    ``max_tokens`` (strategy -> tokens) gives each draft its strategy's budget, as
    ``generate_per_strategy`` does."""
    if rounds < 0:
        raise ValueError(f"rounds must be >= 0, got {rounds}")
    critic = Critic(profile)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        budget = strategy_max_tokens(state, max_tokens)
        state = await generate(state, **budget)
        drafts = []
        best_output, best_score = state.output, -1.0
        request = ""
        for round_ in range(rounds + 1):
            if round_:
                state.messages.append(ChatMessageUser(content=request))
                state = await generate(state, **budget)
            answer = state.output.completion if state.output else ""
            scored = score_answer(meta, answer, critic)
            drafts.append(
                {
                    "round": round_,
                    "answer": answer,
                    "conformity": scored["conformity"],
                    "valid": scored["valid"],
                    "variant": scored["variant"],
                    "scored_cipai": scored["scored_cipai"],
                }
            )
            if scored["conformity"] > best_score:
                best_output, best_score = state.output, scored["conformity"]
            if scored["conformity"] >= 1.0 or round_ == rounds:
                break
            request = revision_request(
                scored.get("details"),
                scored["reason"],
                bool(scored.get("copied")),
                completion=meta["strategy"] == "completion",
            )
            drafts[-1]["feedback"] = request
        state.output = best_output
        state.store.set("drafts", drafts)
        state.store.set("best_round", next(d["round"] for d in drafts if d["conformity"] == best_score))
        return state

    return solve
