"""Validation benchmark of the critic (docs/validation.md): quality on authentic Song poems and
perturbed copies, and speed. Needs ../shared beside the project.

    python benchmarks/validate_critic.py [--profile default] [--official] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from poetone import Critic
from poetone.validation import (
    authentic_report,
    chance_level,
    corpus_poems,
    coverage_report,
    degenerate_report,
    degenerate_suite,
    gaming_report,
    load_cases,
    load_corpus,
    reference_report,
    truncations,
)

SHARED = Path(os.environ.get("POETONE_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
CORPUS = SHARED / "data/quan-song-ci/quan_song_ci.dev.json"
CASES = SHARED / "reference/poetone-official/reference_scores.dev.jsonl"
OFFICIAL_META = SHARED / "reference/poetone-official/cipai_metadata.json"


def speed(critic: Critic, pairs: list[tuple[str, str]], seconds: float = 5.0) -> float:
    for c, t in pairs[:200]:
        critic.score(c, t)  # warm the caches the way a long run would
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for c, t in pairs:
            critic.score(c, t)
        done += len(pairs)
    return done / (time.perf_counter() - start)


def unseen_shapes_speed(profile: str, n: int = 2000, seed: int = 0) -> float:
    """Poems per second when every poem has a shape the critic has not seen (a fresh critic,
    clauses of random lengths): the cost a model's outputs pay before the plan cache helps."""
    rng = random.Random(seed)
    chars = "春花秋月何时了往事知多少小楼昨夜又东风故国不堪回首明中大江去浪淘尽千古流人物"
    names = sorted(Critic().registry)
    texts = [
        "，".join("".join(rng.choice(chars) for _ in range(rng.randint(2, 9))) for _ in range(rng.randint(4, 24))) + "。"
        for _ in range(n)
    ]
    critic = Critic(profile=profile)
    start = time.perf_counter()
    for k, text in enumerate(texts):
        critic.score(names[k % len(names)], text)
    return n / (time.perf_counter() - start)


def cold_start() -> tuple[float, float]:
    """Seconds for import plus a first score in a fresh interpreter, and that process's peak RSS in MB.

    The peak is VmHWM of the new process: ru_maxrss would carry over this (large) benchmark
    process's high-water mark, which Linux keeps across the child's exec.
    """
    code = (
        "import time,resource;t=time.perf_counter();from poetone import Critic;"
        "Critic().score('菩萨蛮','平林漠漠烟如织，寒山一带伤心碧。');s=time.perf_counter()-t\n"
        "try:\n hwm=[int(x.split()[1])/1024 for x in open('/proc/self/status') if x.startswith('VmHWM')][0]\n"
        "except OSError:\n hwm=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024\n"
        "print(s, hwm)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, rss = out.stdout.split()
    return float(seconds), float(rss)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default="default")
    ap.add_argument("--official", action="store_true", help="also run the poetone-code profile with the official metadata")
    ap.add_argument("--json", help="write all figures as JSON here")
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    if not CORPUS.exists():
        sys.exit(f"needs {CORPUS} (../shared beside the project)")
    corpus = load_corpus(CORPUS)
    cases = load_cases(CASES)
    runs = {args.profile: Critic(profile=args.profile)}
    if args.official:
        runs["poetone-code (official metadata)"] = Critic(profile="poetone-code", metadata=OFFICIAL_META, metadata_format="poetone")
    figures = {}
    for label, critic in runs.items():
        poems = corpus_poems(runs[args.profile], corpus)
        auth = authentic_report(critic, poems)
        ref = reference_report(critic, cases)
        pairs = [(c, t) for c, t, _ in poems]
        figures[label] = {"authentic": auth, "reference": ref, "poems_per_second": speed(critic, pairs, args.seconds)}
        if label == args.profile:
            figures[label]["unseen_shapes_per_second"] = unseen_shapes_speed(args.profile)
        print(f"## {label}")
        print(f"authentic poems: n={auth['n']} mean={auth['mean']:.4f} share>=0.9={auth['share_at_threshold']:.3f}")
        print(
            f"reference: authentic mean={ref['authentic_mean']:.4f} wrong-cipai mean={ref['wrong_cipai_mean']:.4f} "
            f"AUC={ref['wrong_cipai_auc']:.4f} (without the {ref['n_fragments']} fragments: {ref['wrong_cipai_auc_complete']:.4f})"
        )
        print("lowered: " + ", ".join(f"{k} {v:.3f}" for k, v in ref["lowered"].items()))
        print("drift: " + ", ".join(f"{k} {v:.4f}" for k, v in ref["mean_abs_drift"].items()))
        print(f"speed: {figures[label]['poems_per_second']:.0f} poems/s", end="")
        if "unseen_shapes_per_second" in figures[label]:
            print(f"; poems of shapes never seen before: {figures[label]['unseen_shapes_per_second']:.0f} poems/s", end="")
        print()
        print("per cipai (authentic n, mean, share>=0.9):")
        for k, v in auth["per_cipai"].items():
            lw = ref["lowered_per_cipai"].get(k, {})
            print(f"  {k}\t{v['n']}\t{v['mean']:.4f}\t{v['share_at_threshold']:.3f}\t" + " ".join(f"{p}={lw.get(p, float('nan')):.2f}" for p in lw))
    coverage = coverage_report(runs[args.profile], corpus_poems(runs[args.profile], corpus))
    figures["coverage"] = coverage
    print(f"## structural coverage ({args.profile}): all poems / complete poems of the tune (n), set apart, uncovered")
    for k, c in coverage.items():
        apart = ", ".join(f"{kind} {len(v)}" for kind, v in c["apart"].items() if v) or "-"
        print(f"  {k}\t{c['coverage']:.3f}\t{c['coverage_complete']:.3f} ({c['n_complete']})\t{apart}\t{len(c['uncovered'])}")
    critic = runs[args.profile]
    poems = corpus_poems(critic, corpus)
    gaming = gaming_report(critic, degenerate_suite(critic), truncations(critic, poems))
    flagged = degenerate_report(critic, poems)
    flagged.pop("measures")
    chance = chance_level(critic)
    figures["gaming"], figures["degenerate_flagged"], figures["chance_level"] = gaming, flagged, chance
    print(f"## gaming the critic ({args.profile})")
    print(
        f"degenerate suite: n={gaming['degenerate_n']} kinds={gaming['degenerate_kinds']} "
        f"share above 0.3={gaming['degenerate_above_0.3']:.4f} max={gaming['degenerate_max']:.3f} "
        f"invalid={gaming['degenerate_invalid_share']:.4f}"
    )
    for kind in ("first_clause", "first_stanza", "half_lines"):
        g = gaming.get(kind)
        if g:
            print(
                f"{kind}: n={g['n']} mean={g['mean']:.3f} share<=0.3={g['share_at_most_0.3']:.4f} "
                f"share<=0.75={g['share_at_most_0.75']:.4f} share above the whole poem={g['share_above_whole']:.4f}"
            )
    print(f"authentic poems flagged degenerate: {len(flagged['flagged'])} of {flagged['n']} ({flagged['flagged_share']:.3%})")
    for item in flagged["flagged"]:
        print(f"  {item['label']}: {item['reason']}")
    print(f"chance level (random characters in each 正体's shape, n={chance['n']}): pooled {chance['pooled']:.3f}")
    print("  " + ", ".join(f"{k} {v:.3f}" for k, v in chance["per_cipai"].items()))
    cs, rss = cold_start()
    print(f"import + first score: {cs:.3f} s; resident memory after it: {rss:.0f} MB")
    if args.json:
        Path(args.json).write_text(json.dumps({"figures": figures, "cold_start_s": cs, "peak_rss_mb": rss}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
