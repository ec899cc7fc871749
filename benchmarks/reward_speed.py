"""Completions per second through ``conformity_reward`` in the shape TRL calls it: one call with a
batch of 6,000 completions (the 600 prompts × 10), answers wrapped in a title and a note, best of 3.

    PYTHONPATH=src python benchmarks/reward_speed.py
"""

from __future__ import annotations

import time

from poetone.reference import reference_answer
from poetone.reward import conformity_reward
from poetone.songci import build_eval_set


def main() -> None:
    prompts = build_eval_set() * 10
    completions = [
        reference_answer(p) if p.strategy == "completion" else f"《{p.cipai}》\n\n{reference_answer(p)}\n\n注：仿作。" for p in prompts
    ]
    columns = {
        "cipai": [p.cipai for p in prompts],
        "strategy": [p.strategy for p in prompts],
        "upper": [p.upper for p in prompts],
        "original_lower": [p.original_lower for p in prompts],
    }
    conformity_reward(completions=completions[:50], **{k: v[:50] for k, v in columns.items()})  # warm the caches
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        rewards = conformity_reward(prompts=[p.user for p in prompts], completions=completions, **columns)
        best = min(best, time.perf_counter() - start)
    print(f"{len(rewards)} completions in {best:.3f} s: {len(rewards) / best:,.0f} completions/s (mean reward {sum(rewards) / len(rewards):.4f})")


if __name__ == "__main__":
    main()
