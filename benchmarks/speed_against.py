"""The critic's speed against another version of the code, measured in pairs on a noisy machine.

    python benchmarks/speed_against.py 5de7640 --pairs 40
    python benchmarks/speed_against.py 5de7640 --fresh     # the reference cases, a fresh critic each pass

Two worker processes, one with this tree's ``src`` and one with ``REV``'s (``git archive`` into a
temporary directory), each score the 4,617 dev 全宋词 poems of the 20 cipai once, warm, in turn:
A B A B ... The ratio is taken pass by pass, so a change of the machine's speed during the run
(on a shared machine it changes by 2× within seconds) moves both sides of a pair alike. It prints
each side's median poems/s and the median ratio with its quartiles. With ``--fresh`` each pass
scores the 11,988 reference cases once with a new critic instead: new model output, shapes the
critic has not seen (issue 16). Needs ../shared and git.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("POETONE_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "data/quan-song-ci/quan_song_ci.dev.json"
CASES = SHARED / "reference/poetone-official/reference_scores.dev.jsonl"

WORKER = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from poetone import Critic
from poetone.validation import corpus_poems, load_corpus
fresh = sys.argv[3] == "fresh"
critic = Critic()
if fresh:
    pairs = [(r["cipai"], r["text"]) for r in map(json.loads, open(sys.argv[2], encoding="utf-8"))]
else:
    pairs = [(c, t) for c, t, _ in corpus_poems(critic, load_corpus(sys.argv[2]))]
for c, t in pairs:
    critic.score(c, t)
print("ready", flush=True)
for _ in sys.stdin:
    if fresh:
        critic = Critic()
    start = time.perf_counter()
    for c, t in pairs:
        critic.score(c, t)
    print(len(pairs) / (time.perf_counter() - start), flush=True)
"""


def _start(src: Path, fresh: bool) -> subprocess.Popen[str]:
    data, mode = (CASES, "fresh") if fresh else (CORPUS, "warm")
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(src), str(data), mode], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdin is not None and proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        sys.exit(f"the worker for {src} did not start")
    return proc


def _pass(proc: subprocess.Popen[str]) -> float:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("go\n")
    proc.stdin.flush()
    return float(proc.stdout.readline())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rev", help="the git revision to compare against (B)")
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--fresh", action="store_true", help="the reference cases, each pass with a fresh critic")
    args = ap.parse_args()
    if not CORPUS.exists() or not CASES.exists():
        sys.exit(f"needs {CORPUS} and {CASES} (../shared beside the project)")
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "rev.tar"
        subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), args.rev, "src"], check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(Path(tmp) / "rev", filter="data")
        a, b = _start(ROOT / "src", args.fresh), _start(Path(tmp) / "rev" / "src", args.fresh)
        try:
            rates = [(_pass(a), _pass(b)) for _ in range(args.pairs)]
        finally:
            for proc in (a, b):
                proc.kill()
    ratios = [x / y for x, y in rates]
    q1, _, q3 = statistics.quantiles(ratios)
    unit = "scores/s, a fresh critic each pass" if args.fresh else "poems/s"
    print(f"this tree: median {statistics.median(x for x, _ in rates):,.0f} {unit}")
    print(f"{args.rev}: median {statistics.median(y for _, y in rates):,.0f} {unit}")
    print(f"ratio this/{args.rev}: median {statistics.median(ratios):.3f} (quartiles {q1:.3f}-{q3:.3f}, {args.pairs} pairs)")


if __name__ == "__main__":
    main()
