"""Speed and memory of the critic with every cipai of the 钦定词谱 (issue 16, item 4). Needs ../shared.

    python benchmarks/all_cipai_speed.py [--repeat 5]

- cold start: a fresh interpreter's import + first score of a generated cipai (沁园春) and of a
  curated one, wall time and peak resident memory;
- reference cases: the 11,988 cases of ../shared/reference/poetone-official/reference_scores.dev.jsonl,
  each scored once by a fresh critic in a fresh interpreter (new model output: shapes the critic has not seen);
- all tunes: the dev 全宋词 poems of every title that resolves, each scored once the same way; `--repeat N` runs N interpreters (median, best).
Figures only: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SHARED = Path(os.environ.get("POETONE_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
CASES = SHARED / "reference/poetone-official/reference_scores.dev.jsonl"
CORPUS = SHARED / "data/quan-song-ci/quan_song_ci.dev.json"
QINYUANCHUN = "北国风光，千里冰封，万里雪飘。望长城内外，惟余莽莽；大河上下，顿失滔滔。山舞银蛇，原驰蜡象，欲与天公试比高。须晴日，看红装素裹，分外妖娆。江山如此多娇，引无数英雄竞折腰。惜秦皇汉武，略输文采；唐宗宋祖，稍逊风骚。一代天骄，成吉思汗，只识弯弓射大雕。俱往矣，数风流人物，还看今朝。"

_COLD = """
import resource, sys, time
t = time.perf_counter()
from poetone import Critic
r = Critic().score(sys.argv[1], sys.argv[2])
took = time.perf_counter() - t
print(took, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, r.conformity)
"""


def cold_start(cipai: str, text: str, runs: int = 5) -> tuple[float, float]:
    """Best of ``runs`` fresh interpreters: seconds for import + first score, and peak RSS in MB."""
    best, rss = float("inf"), 0.0
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", _COLD, cipai, text], capture_output=True, text=True, check=True)
        took, mb, _ = map(float, out.stdout.split())
        best, rss = min(best, took), max(rss, mb)
    return best, rss


_ONCE_EACH = """
import json, sys, time
from poetone import Critic
pairs = json.load(open(sys.argv[1], encoding="utf-8"))
critic = Critic()
wall, cpu = time.perf_counter(), time.process_time()
for cipai, text in pairs:
    critic.score(cipai, text)
print(len(pairs) / (time.perf_counter() - wall), len(pairs) / (time.process_time() - cpu))
"""


def once_each(pairs: list[tuple[str, str]], repeat: int = 1) -> str:
    """Scores per second, each pair scored once by a fresh critic in a fresh interpreter (nothing
    parsed, compiled or cached before; its registry's files read as it goes): per second of wall
    time, and per second of the process's CPU time, the figure a shared machine's load moves least
    (one core, one process). With ``repeat``, the median and the best of that many interpreters."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "pairs.json"
        data.write_text(json.dumps(pairs, ensure_ascii=False), encoding="utf-8")
        runs = [
            tuple(
                map(
                    float,
                    subprocess.run(
                        [sys.executable, "-c", _ONCE_EACH, str(data)], capture_output=True, text=True, check=True
                    ).stdout.split(),
                )
            )
            for _ in range(repeat)
        ]
    walls, cpus = [w for w, _ in runs], [c for _, c in runs]
    if repeat == 1:
        return f"{walls[0]:,.0f} scores/s ({cpus[0]:,.0f} per CPU second)"
    return (
        f"median {statistics.median(walls):,.0f} scores/s, best {max(walls):,.0f} "
        f"(per CPU second: median {statistics.median(cpus):,.0f}, best {max(cpus):,.0f}; {repeat} interpreters)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=1, help="runs of each speed figure (a fresh critic each)")
    args = ap.parse_args()
    if not CASES.exists():
        sys.exit(f"needs {CASES} (../shared beside the project)")
    from poetone import Critic
    from poetone.validation import tune_title

    for cipai, text in (
        ("沁园春", QINYUANCHUN),
        (
            "菩萨蛮",
            "平林漠漠烟如织，寒山一带伤心碧。暝色入高楼，有人楼上愁。玉阶空伫立，宿鸟归飞急。何处是归程？长亭连短亭。",
        ),
    ):
        took, mb = cold_start(cipai, text)
        print(f"cold start, import + first score of {cipai}: {took:.3f} s, peak RSS {mb:.0f} MB (best of 5)")
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    pairs = [(c["cipai"], c["text"]) for c in cases]
    print(f"reference cases ({len(pairs):,}), each once, fresh critic: {once_each(pairs, args.repeat)}")
    registry = Critic().registry
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    poems = []
    for rec in corpus:
        title = tune_title(rec)
        if title and title in registry:
            poems.append((title, "\n".join(rec.get("paragraphs", []))))
    tunes = {registry.resolve(t) for t, _ in poems}
    print(
        f"dev poems of all tunes ({len(poems):,} poems, {len(tunes)} tunes), each once, fresh critic: {once_each(poems, args.repeat)}"
    )


if __name__ == "__main__":
    main()
