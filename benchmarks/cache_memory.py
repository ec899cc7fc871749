"""Peak memory of the critic on a stream of long texts of fresh shapes (issue 14: the caches are
bounded by size). Each text is 200-600 clauses of one character, so every one is a new shape.

    python benchmarks/cache_memory.py [N]      # default 1,500 texts; prints the process's peak RSS
"""

from __future__ import annotations

import random
import sys
import time

from poetone import Critic


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    rng = random.Random(0)
    critic = Critic()
    names = sorted(critic.registry)
    start = time.perf_counter()
    for k in range(count):
        text = "，".join("啊" * rng.randint(1, 12) for _ in range(rng.randint(200, 600)))
        critic.score(names[k % len(names)], text)
    with open("/proc/self/status", encoding="ascii") as f:
        peak = next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM"))
    print(f"{count} texts in {time.perf_counter() - start:.1f} s; peak resident memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
