"""Forms the 词谱 lacks that Song poets used: candidates for scripts/cipu_song_forms.json (issue 16).

    PYTHONPATH=src python benchmarks/form_candidates.py [--min-poets 2] [--tune 沁园春 ...] [--out FILE]

Reads the dev 全宋词 (``../shared``) and the registry; never part of the build. For each generated
tune (the 20 hand-curated cipai are left alone), the complete poems (no fragment, no noted loss) that
no variant reads line for line are grouped by their clause-length shape (the clauses as the critic
reads them, 、 splitting a 读). A shape written by at least ``--min-poets`` distinct poets is a
candidate. For each candidate the script prints:

- the poems: poet, first clause, title, and whether it is marked as an answer (和, 次韵, 用韵, 韵 in
  the title) or shares rhyme words with another poem of the shape (not independent);
- the nearest variant (the one the critic chose) and where the shape differs from it (``align``: the lines'
  lengths and rhymes, a line counting as rhymed where most poems rhyme there);
- a proposed line spec: lines the variant has at the same place keep the 词谱's spec; a new line gets
  the tones the poems share at each position (中 where they differ or a character has both readings)
  and is a rhyme where every poem's line-end character rhymes in the poem's main rhyme group
  (poetone.prosody, 词林正韵 with its neighbouring groups), else 句.

Deterministic: poems in corpus order, shapes and tunes sorted. A candidate is no form until a person
has read the poems: the accepted ones are written by hand into scripts/cipu_song_forms.json.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from poetone import Critic, prosody
from poetone.validation import fits_exactly, is_damaged, is_fragment, lenient, load_corpus, titled_poems

SHARED = Path(os.environ.get("POETONE_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
CORPUS = SHARED / "data/quan-song-ci/quan_song_ci.dev.json"
ANSWER_RE = re.compile(r"和|次韵|用韵|韵")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def groups(char: str) -> set[str]:
    """The rhyme groups of a character (any reading), neighbouring groups merged (邻部通押)."""
    names = {g for g, _ in prosody.rhyme_groups(char)}
    for merged in prosody.RHYME_NEIGHBOURS["cilin"]:
        if names & merged:
            names |= merged
    return names


def main_group(ends: list[str]) -> set[str]:
    """The group most line ends of a poem rhyme in (with its neighbours)."""
    count: Counter[str] = Counter(g for ch in ends for g in {g for g, _ in prosody.rhyme_groups(ch)})
    if not count:
        return set()
    top = min(count, key=lambda g: (-count[g], g))
    return groups_of_name(top)


def groups_of_name(name: str) -> set[str]:
    out = {name}
    for merged in prosody.RHYME_NEIGHBOURS["cilin"]:
        if name in merged:
            out |= merged
    return out


def shared_tones(texts: list[str]) -> str:
    out = []
    for chars in zip(*texts):
        tones = {prosody.tone_class(ch) for ch in chars}
        out.append(tones.pop() if len(tones) == 1 and tones <= {"平", "仄"} else "中")
    return "".join(out)


def align(a: list[tuple[int, bool]], b: list[tuple[int, bool]]) -> list[tuple[str, int, int, int, int]]:
    """Opcodes (as difflib's) of the cheapest alignment of two forms' lines, each (length, rhymed).

    A line kept costs 0, or 0.5 where only the rhyme differs; a line replaced, added or dropped costs 1.
    Lengths alone mislead (贺新郎 五、六 read 六、五 would keep the wrong lines); rhymes alone are
    noisy, as two poems may rhyme by chance where the form does not.
    """
    n, m = len(a), len(b)
    cost = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 or j == 0:
                cost[i][j] = float(i + j)
                continue
            keep = 0.0 if a[i - 1] == b[j - 1] else 0.5 if a[i - 1][0] == b[j - 1][0] else 1.0
            cost[i][j] = min(cost[i - 1][j - 1] + keep, cost[i - 1][j] + 1, cost[i][j - 1] + 1)
    steps, i, j = [], n, m
    while i or j:
        if i and j:
            keep = 0.0 if a[i - 1] == b[j - 1] else 0.5 if a[i - 1][0] == b[j - 1][0] else 1.0
            if cost[i][j] == cost[i - 1][j - 1] + keep:
                steps.append(("equal" if a[i - 1][0] == b[j - 1][0] else "replace", i - 1, j - 1))
                i, j = i - 1, j - 1
                continue
        if i and cost[i][j] == cost[i - 1][j] + 1:
            steps.append(("delete", i - 1, j))
            i -= 1
        else:
            steps.append(("insert", i, j - 1))
            j -= 1
    ops: list[tuple[str, int, int, int, int]] = []
    for tag, x, y in reversed(steps):
        da, db = (0, 1) if tag == "insert" else (1, 0) if tag == "delete" else (1, 1)
        if (
            ops
            and (ops[-1][0] == tag or (tag != "equal" and ops[-1][0] != "equal"))
            and ops[-1][2] == x
            and ops[-1][4] == y
        ):
            t = ops[-1][0] if ops[-1][0] == tag else "replace"
            ops[-1] = (t, ops[-1][1], x + da, ops[-1][3], y + db)
        else:
            ops.append((tag, x, x + da, y, y + db))
    return ops


def candidates(critic: Critic, corpus: list[dict], min_poets: int = 2, only: set[str] | None = None) -> list[dict]:
    free = lenient(critic)
    by_shape: dict[tuple[str, tuple[int, ...]], list[dict]] = defaultdict(list)
    for rec, title, text in titled_poems(critic, corpus):
        result = critic.score(title, text)
        tune = result.cipai
        if critic.registry.is_curated(tune) or (only and tune not in only):
            continue
        if is_damaged(text) or is_fragment(critic, tune, text) or fits_exactly(critic, tune, text):
            continue
        lines = [ln for ln in free.score(tune, text).lines if ln]
        if not all(_HAN.fullmatch(ch) for ln in lines for ch in ln):
            continue  # a □ or another mark: the shape is not readable
        shape = tuple(len(ln) for ln in lines)
        by_shape[(tune, shape)].append(
            {
                "poet": rec.get("author", ""),
                "first_line": lines[0],
                "title": str(rec.get("rhythmic", "")),
                "lines": lines,
                "variant": result.variant,
                "conformity": round(result.conformity, 4),
            }
        )
    out = []
    for (tune, shape), poems in sorted(by_shape.items()):
        if len({p["poet"] for p in poems}) < min_poets:
            continue
        for p in poems:  # another tune of the resource that reads the poem line for line (鹧鸪天 as 思越人)
            text = "，".join(p["lines"]) + "。"
            p["fits_other_tune"] = next(
                (n for n in critic.registry.all_names() if n != tune and fits_exactly(critic, n, text)), None
            )
        ends_all = [[ln[-1] for ln in p["lines"]] for p in poems]
        for p, ends in zip(poems, ends_all):
            p["answer"] = bool(ANSWER_RE.search(p["title"]))
            mine = set(ends)
            p["shares_rhyme_words_with"] = [
                q["poet"]
                for q, other in zip(poems, ends_all)
                if q is not p and len(mine & set(other)) >= max(3, len(mine) // 3)
            ]
        independent = {
            p["poet"]
            for p in poems
            if not p["answer"] and not p["shares_rhyme_words_with"] and not p["fits_other_tune"]
        }
        rhymes, most = [], []
        for i in range(len(shape)):
            hits = sum(bool(groups(ends[i]) & main_group(ends)) for ends in ends_all)
            rhymes.append(hits == len(ends_all))  # a new line rhymes where every poem rhymes
            most.append(hits * 2 > len(ends_all))  # lines are aligned on what most poems do
        nearest_id = Counter(p["variant"] for p in poems).most_common(1)[0][0]
        nearest = critic.registry[tune].variant(nearest_id)
        specs = [ln.spec() for ln in nearest.lines]
        ops = align([(ln.length, ln.rhymed) for ln in nearest.lines], list(zip(shape, most)))
        proposed, diff, new_at = [], [], []
        starts = set(itertools.accumulate(len(s) for s in nearest.stanzas[:-1]))
        cuts = []  # where the nearest variant's stanzas 2… begin, in the new shape
        for tag, a0, a1, b0, b1 in ops:
            cuts += [b0 + (k - a0 if tag == "equal" else 0) for k in sorted(starts) if a0 <= k < a1 or (k == a0 == a1)]
            if tag == "equal":
                proposed += specs[a0:a1]
                continue
            diff.append(f"{tag} variant lines {a0 + 1}-{a1} {list(nearest.lengths[a0:a1])} -> {list(shape[b0:b1])}")
            for j in range(b0, b1):
                tones = shared_tones([p["lines"][j] for p in poems])
                segment = next(
                    (ln.segment for ln in reversed(nearest.lines[:a0]) if ln.rhymed),
                    next((ln.segment for ln in nearest.lines if ln.rhymed), "A"),
                )
                proposed.append(f"{tones} {'韵' + segment if rhymes[j] else '句'}")
                new_at.append(j + 1)
        bounds = [0, *sorted(set(cuts)), len(proposed)]
        stanzas = [proposed[a:b] for a, b in itertools.pairwise(bounds) if b > a]
        out.append(
            {
                "tune": tune,
                "shape": list(shape),
                "chars": sum(shape),
                "poets": sorted({p["poet"] for p in poems}),
                "independent_poets": sorted(independent),
                "nearest": nearest_id,
                "diff": diff,
                "proposed": stanzas,
                "new_lines": new_at,
                "rhyme_positions": [i + 1 for i, r in enumerate(rhymes) if r],
                "rhyme_positions_most": [i + 1 for i, r in enumerate(most) if r],
                "poems": [{k: v for k, v in p.items() if k != "lines"} for p in poems],
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-poets", type=int, default=2)
    ap.add_argument("--tune", nargs="*")
    ap.add_argument("--out", type=Path, help="write the candidates as JSON here")
    args = ap.parse_args()
    if not CORPUS.exists():
        sys.exit(f"needs {CORPUS} (../shared beside the project)")
    found = candidates(Critic(), load_corpus(CORPUS), args.min_poets, set(args.tune) if args.tune else None)
    for c in found:
        print(
            f"## {c['tune']} {c['chars']}字 shape {c['shape']}: poets {', '.join(c['poets'])}"
            f" (independent: {', '.join(c['independent_poets']) or '-'}); nearest {c['nearest']}"
        )
        for d in c["diff"]:
            print(f"   {d}")
        for p in c["poems"]:
            flags = (
                (" 和" if p["answer"] else "")
                + (f" fits {p['fits_other_tune']}" if p["fits_other_tune"] else "")
                + (
                    f" same rhyme words as {','.join(p['shares_rhyme_words_with'])}"
                    if p["shares_rhyme_words_with"]
                    else ""
                )
            )
            print(f"   - {p['poet']}「{p['first_line']}」 {p['title']} score {p['conformity']}{flags}")
        print(f"   proposed: {json.dumps(c['proposed'], ensure_ascii=False)}")
    print(
        f"{len(found)} candidate shapes; {sum(len(c['independent_poets']) >= 2 for c in found)} with two independent poets"
    )
    if args.out:
        args.out.write_text(json.dumps(found, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
