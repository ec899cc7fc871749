"""What naming a cipai costs: a bare name against a 词牌·题 title, fresh or repeated, simplified
or traditional; per call of ``CipaiRegistry.resolve`` and per poem scored; and how much the
registry keeps after a stream of distinct titles.

Model answers and corpora name the tune with its title (``浣溪沙·春恨``); every distinct title
used to build an OpenCC converter (milliseconds) and be remembered forever. Best of 5 rounds,
each round on names never seen before where it says "new".

    PYTHONPATH=src python benchmarks/cipai_resolve.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from poetone.critic import Critic
from poetone.metadata import load_cipai

N = 5_000
POEM = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？\n无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"


def best_per_call(make: Callable[[int, int], str], call: Callable[[str], object], n: int = N, rounds: int = 5) -> float:
    """Best microseconds per call over ``rounds`` passes; ``make(round, i)`` gives the i-th name."""
    best = float("inf")
    for r in range(rounds):
        names = [make(r, i) for i in range(n)]
        start = time.perf_counter()
        for name in names:
            call(name)
        best = min(best, time.perf_counter() - start)
    return best / n * 1e6


def kept(registry: object) -> int:
    """Entries in the registry's tables (names, aliases and whatever it remembers)."""
    return sum(len(v) for v in vars(registry).values() if isinstance(v, dict))


def main() -> None:
    registry = load_cipai()
    registry.resolve("點絳脣·暖身")  # whatever is built once is built here, outside the timing
    print(f"python {sys.version.split()[0]}; best of 5 rounds of {N:,} calls")
    rows = {
        "bare name": lambda r, i: "浣溪沙",
        "titled, repeated": lambda r, i: "浣溪沙·春恨",
        "titled, each one new": lambda r, i: f"浣溪沙·春恨{r}-{i}",
        "traditional titled, new": lambda r, i: f"點絳脣·春恨{r}-{i}",
    }
    bare = 0.0
    for label, make in rows.items():
        us = best_per_call(make, registry.resolve)
        bare = bare or us
        print(f"resolve  {label:<26}{us:9.2f} µs/call  ({us / bare:5.1f}× bare)")
    critic = Critic()
    critic.score("浣溪沙", POEM)
    bare = 0.0
    for label, make in rows.items():
        us = best_per_call(make, lambda name: critic.score(name, POEM), n=N // 5)
        bare = bare or us
        print(f"score    {label:<26}{us:9.2f} µs/poem  ({us / bare:5.2f}× bare)")
    stream = load_cipai()
    before = kept(stream)
    for i in range(20_000):
        stream.resolve(f"浣溪沙·春恨{i}")
        stream.resolve(f"點絳脣·春恨{i}")
    print(f"kept after 20,000 distinct titles in each script: {kept(stream) - before:,} entries")


if __name__ == "__main__":
    main()
