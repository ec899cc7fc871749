"""Validate a critic on authentic poems and on perturbed copies of them.

A critic is right when the poems the Song masters wrote score as conforming, a poem scored
against the wrong cipai scores low, and each kind of damage lowers the score. These functions
compute those figures for any critic and any corpus in the chinese-poetry layout
(``{"author", "paragraphs", "rhythmic"}``) or the reference-case layout
(``{"id", "cipai", "text", "kind"}``).
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from poetone.critic import Critic
from poetone.metadata import UnknownCipaiError

PERTURBATIONS = ("tone_flip", "rhyme_break", "char_drop", "line_drop")
INVARIANCES = ("noisy", "traditional")


def load_corpus(path: str | Path) -> list[dict[str, Any]]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def load_cases(path: str | Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def corpus_poems(critic: Critic, corpus: Iterable[dict[str, Any]]) -> list[tuple[str, str, dict[str, Any]]]:
    """(canonical cipai, text, record) for every poem whose title names a cipai of the critic."""
    # the title must be a name or an alias exactly (resolve() also tolerates 词牌·题 and misspellings)
    owner = {key: c.name for c in critic.registry.values() for key in (c.name, *c.aliases)}
    out = []
    for rec in corpus:
        title = str(rec.get("rhythmic", "")).split("・")[0].split("·")[0].strip()
        if title in owner:
            out.append((owner[title], "\n".join(rec.get("paragraphs", [])), rec))
    return out


def is_fragment(critic: Critic, cipai: str, text: str) -> bool:
    """A text with fewer clauses than half the lines of the shortest form of its cipai.

    The 全宋词 keeps fragments (a single surviving line, 下缺); they are authentic but not poems
    of the form, and no formula can score them as conforming.
    """
    shortest = min(len(v.lengths) for v in critic.registry[cipai].variants)
    return len(critic.score(cipai, text).lines) < shortest / 2


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """Probability that a random positive scores above a random negative (ties count half)."""
    if not positives or not negatives:
        return float("nan")
    ranked = sorted([(s, 1) for s in positives] + [(s, 0) for s in negatives])
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        avg_rank = (i + j + 1) / 2
        rank_sum += avg_rank * sum(1 for k in range(i, j) if ranked[k][1])
        i = j
    n_pos, n_neg = len(positives), len(negatives)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def authentic_report(critic: Critic, poems: Sequence[tuple[str, str, dict[str, Any]]], threshold: float = 0.9) -> dict[str, Any]:
    by_cipai: dict[str, list[float]] = defaultdict(list)
    low: list[dict[str, Any]] = []
    for name, text, rec in poems:
        r = critic.score(name, text)
        by_cipai[name].append(r.conformity)
        if r.conformity < threshold:
            low.append({"cipai": name, "author": rec.get("author"), "conformity": r.conformity, "first": text[:16]})
    scores = [s for v in by_cipai.values() for s in v]
    return {
        "n": len(scores),
        "mean": statistics.fmean(scores) if scores else float("nan"),
        "share_at_threshold": sum(s >= threshold for s in scores) / len(scores) if scores else float("nan"),
        "per_cipai": {
            k: {"n": len(v), "mean": statistics.fmean(v), "share_at_threshold": sum(s >= threshold for s in v) / len(v)}
            for k, v in sorted(by_cipai.items(), key=lambda kv: -len(kv[1]))
        },
        "below_threshold": low,
    }


def reference_report(critic: Critic, cases: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Perturbation, wrong-cipai and invariance figures on the reference cases (ids ``P-K``)."""
    by_poem: dict[str, dict[str, list[tuple[dict[str, Any], float]]]] = defaultdict(lambda: defaultdict(list))
    skipped = 0
    for case in cases:
        poem = str(case["id"]).rsplit("-", 1)[0]
        try:
            r = critic.score(case["cipai"], case["text"])
        except UnknownCipaiError:
            skipped += 1  # a metadata subset: the case's cipai is not loaded
            continue
        by_poem[poem][case["kind"]].append((case, r.conformity))
    authentic, wrong, complete = [], [], []
    lowered: dict[str, list[bool]] = {k: [] for k in PERTURBATIONS}
    per_cipai_lowered: dict[str, dict[str, list[bool]]] = defaultdict(lambda: {k: [] for k in PERTURBATIONS})
    drift: dict[str, list[float]] = {k: [] for k in INVARIANCES}
    for kinds in by_poem.values():
        if "authentic" not in kinds:
            continue
        case, original = kinds["authentic"][0]
        authentic.append(original)
        if not is_fragment(critic, case["cipai"], case["text"]):
            complete.append(original)
        wrong.extend(s for _, s in kinds.get("wrong_cipai", []))
        for k in PERTURBATIONS:
            for _, s in kinds.get(k, []):
                lowered[k].append(s < original - 1e-12)
                per_cipai_lowered[case["cipai"]][k].append(s < original - 1e-12)
        for k in INVARIANCES:
            drift[k].extend(abs(s - original) for _, s in kinds.get(k, []))
    return {
        "n_poems": len(authentic),
        "skipped_unknown_cipai": skipped,
        "authentic_mean": statistics.fmean(authentic) if authentic else float("nan"),
        "wrong_cipai_mean": statistics.fmean(wrong) if wrong else float("nan"),
        "wrong_cipai_auc": auc(authentic, wrong),
        "n_fragments": len(authentic) - len(complete),
        "wrong_cipai_auc_complete": auc(complete, wrong),
        "lowered": {k: (sum(v) / len(v) if v else float("nan")) for k, v in lowered.items()},
        "lowered_per_cipai": {
            c: {k: (sum(v) / len(v) if v else float("nan")) for k, v in d.items()} for c, d in sorted(per_cipai_lowered.items())
        },
        "mean_abs_drift": {k: (statistics.fmean(v) if v else float("nan")) for k, v in drift.items()},
    }
