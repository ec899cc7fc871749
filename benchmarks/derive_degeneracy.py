"""Derive the degeneracy rule's thresholds (poetone.degeneracy) from the 全宋词, and check them.

For every measure the rule reads, prints how far the dev 全宋词's poems go (all 13,900 poems of
every tune, read as the critic reads clauses; rhyme positions for the poems of the cipai the
resource knows) with the furthest poems named, and then lists every poem the rule flags. The
constants in poetone.degeneracy sit just beyond the furthest poem that is not lost to more
than a third of its text; at most 0.2% of the dev poems may be flagged (docs/validation.md).

    python benchmarks/derive_degeneracy.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from poetone import Critic, degeneracy
from poetone.validation import corpus_poems, degenerate_report, load_corpus

SHARED = Path(os.environ.get("POETONE_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
CORPUS = SHARED / "data/quan-song-ci/quan_song_ci.dev.json"

#: (measure, how it is read off degeneracy.Measures, the threshold, True where larger is worse)
MEASURES = (
    ("distinct share", lambda m: m.distinct / m.characters, degeneracy.MIN_DISTINCT_SHARE, False),
    ("lacuna share", lambda m: m.lost / m.characters, degeneracy.MAX_LACUNA_SHARE, True),
    ("lost rhyme share", lambda m: m.lost_rhymes / m.rhymes if m.rhymes >= 4 else 0.0, degeneracy.MAX_LACUNA_RHYME_SHARE, True),
    ("same line share", lambda m: m.same_line / m.lines if m.lines >= 2 else 0.0, degeneracy.MAX_SAME_LINE_SHARE, True),
    ("repeated line share", lambda m: m.repeated_lines / m.lines if m.lines >= 4 else 0.0, degeneracy.MAX_REPEATED_LINE_SHARE, True),
    (
        "repeated trigram share",
        lambda m: m.repeated_trigram_chars / m.characters,
        degeneracy.MAX_REPEATED_TRIGRAM_SHARE,
        True,
    ),
    ("same end share", lambda m: m.same_end / m.lines if m.lines >= 4 else 0.0, degeneracy.MAX_SAME_END_SHARE, True),
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--most", type=int, default=5, help="furthest poems to name per measure")
    args = ap.parse_args()
    if not CORPUS.exists():
        sys.exit(f"needs {CORPUS} (../shared beside the project)")
    corpus = load_corpus(CORPUS)
    critic = Critic()
    known = corpus_poems(critic, corpus)
    everything = degenerate_report(critic, corpus)
    ours = degenerate_report(critic, known)
    out = {"all": {k: v for k, v in everything.items() if k != "measures"}, "cipai": {k: v for k, v in ours.items() if k != "measures"}}
    for label, report in (("all tunes", everything), ("the resource's cipai", ours)):
        rows = report.pop("measures")
        print(f"## {label}: {report['n']} poems, {len(report['flagged'])} flagged ({report['flagged_share']:.3%})")
        for name, read, threshold, larger_worse in MEASURES:
            ranked = sorted(rows, key=lambda r: read(r[1]), reverse=larger_worse)
            clean = [r for r in ranked if r[1].lost / r[1].characters <= degeneracy.MAX_LACUNA_SHARE]
            extreme = read(clean[0][1]) if clean else float("nan")
            side = ">" if larger_worse else "<"
            print(f"  {name}: flagged {side} {threshold:.3f}; furthest poem not lost to a third: {extreme:.3f}")
            for label_, m in ranked[: args.most]:
                print(f"      {read(m):.3f}  {label_}")
        lost = [m.lost / m.characters for _, m in rows]
        others = {lab for lab, m in rows if degeneracy.degenerate_reason_of(m, lacuna_share=1.0)}
        for candidate in (1 / 4, 1 / 3, 2 / 5, 1 / 2):
            extra = sum(1 for (lab, _), share in zip(rows, lost) if share > candidate and lab not in others)
            print(f"  lacuna threshold {candidate:.3f}: the rule would flag {(extra + len(others)) / len(rows):.3%}")
        for item in report["flagged"]:
            print(f"  flagged: {item['label']}: {item['reason']}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
