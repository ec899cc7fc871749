"""Validate a critic on authentic poems and on perturbed copies of them.

A critic is right when the poems the Song masters wrote score as conforming, a poem scored
against the wrong cipai scores low, and each kind of damage lowers the score. These functions
compute those figures for any critic and any corpus in the chinese-poetry layout
(``{"author", "paragraphs", "rhythmic"}``) or the reference-case layout
(``{"id", "cipai", "text", "kind"}``).
"""

from __future__ import annotations

import itertools
import json
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from poetone._chars import VERSE
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


#: Notes with which an edition says text is lost to an unknown extent: （下缺）, （缺词文）, （上缺）.
#: A □ stands for one lost character and is scored as one (a lacuna), so it does not count here.
LOST_TEXT_RE = re.compile(r"[（(][^）)]*缺")
_NOT_VERSE_RE = re.compile(f"[^{VERSE}]")


def is_damaged(text: str) -> bool:
    """The edition notes that text is lost, without saying how many characters."""
    return bool(LOST_TEXT_RE.search(text))


def homonym_of(critic: Critic, cipai: str, text: str, author: str | None) -> str | None:
    """The other tune this poem is, if the cipai file names it among its homonyms (同名异调)."""
    head = _NOT_VERSE_RE.sub("", text)
    for h in critic.registry[cipai].homonyms:
        for p in h.poems:
            if p["poet"] == author and head.startswith(_NOT_VERSE_RE.sub("", p["first_line"])):
                return h.name
    return None


def fitting_variants(critic: Critic, cipai: str, text: str) -> set[str]:
    """The variants of the cipai that read every line of the text at the right length (structure 1.0)."""
    return {v.id for v in critic.registry[cipai].variants if critic.score(cipai, text, variant=v.id).structure == 1.0}


def fits_exactly(critic: Critic, cipai: str, text: str) -> bool:
    return bool(fitting_variants(critic, cipai, text))


def other_tune(critic: Critic, cipai: str, text: str, author: str | None = None) -> str | None:
    """The tune a poem printed under ``cipai`` really follows, when it is not ``cipai``.

    Either the cipai file names it as a homonym, or no variant of ``cipai`` fits it and a variant
    of another cipai of the resource does (范仲淹's 定风波 「罗绮满城」 is a 渔家傲).
    """
    named = homonym_of(critic, cipai, text, author)
    if named or fits_exactly(critic, cipai, text):
        return named
    return next((name for name in critic.registry if name != cipai and fits_exactly(critic, name, text)), None)


def coverage_report(critic: Critic, poems: Sequence[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    """Structural coverage of the resource, per cipai: the share of its poems some variant fits.

    ``coverage`` counts every poem printed under the cipai's name or an alias. ``complete`` counts
    the poems that can say whether a form is missing: it leaves out fragments, texts in which
    the edition notes a loss of unknown extent, and other tunes printed under the title, and
    lists each.
    """
    by: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for name, text, rec in poems:
        by[name].append((text, rec))
    out: dict[str, Any] = {}
    for name, items in sorted(by.items(), key=lambda kv: -len(kv[1])):
        variant_ids = [v.id for v in critic.registry[name].variants]
        used: set[str] = set()
        covered = complete = complete_covered = 0
        apart: dict[str, list[str]] = {"fragment": [], "damaged": [], "other_tune": []}
        uncovered: list[str] = []
        for text, rec in items:
            fitting = fitting_variants(critic, name, text)
            used |= fitting
            covered += bool(fitting)
            label = f"{rec.get('author')} {text[:12]}"
            if is_fragment(critic, name, text):
                apart["fragment"].append(label)
            elif is_damaged(text):
                apart["damaged"].append(label)
            elif not fitting and (tune := other_tune(critic, name, text, rec.get("author"))):
                apart["other_tune"].append(f"{label} ({tune})")
            else:
                complete += 1
                complete_covered += bool(fitting)
                if not fitting:
                    uncovered.append(label)
        out[name] = {
            "n": len(items),
            "coverage": covered / len(items),
            "n_complete": complete,
            "coverage_complete": complete_covered / complete if complete else float("nan"),
            "apart": apart,
            "uncovered": uncovered,
            "unused_variants": [vid for vid in variant_ids if vid not in used],
        }
    return out


def _rhyme_chars(critic: Critic, result: Any) -> list[str]:
    """The characters at the chosen variant's rhyme positions (叠 lines left out), as the rule reads them."""
    tpl = critic.registry[result.cipai].variant(result.variant).lines
    return [ln[-1] for ln, j in zip(result.lines, result.line_of) if j >= 0 and tpl[j].rhymed and not tpl[j].repeat and ln]


def degenerate_report(critic: Critic, poems: Iterable[Any]) -> dict[str, Any]:
    """Which authentic poems the degeneracy rule flags, and each poem's measures (poetone.degeneracy).

    ``poems`` are (cipai, text, record) triples of the resource's cipai (read as the critic reads
    them, with their rhyme positions) or chinese-poetry records of any tune (their clauses only,
    since the resource may not know the form).
    """
    from dataclasses import replace

    from poetone import degeneracy
    from poetone.extraction import extract_poem

    lenient = Critic(profile=critic.profile.name)
    lenient.profile = replace(critic.profile, reject_degenerate=False)
    measures: list[tuple[str, degeneracy.Measures]] = []
    flagged: list[dict[str, Any]] = []
    for item in poems:
        if isinstance(item, tuple):
            name, text, rec = item
        else:
            name, text, rec = str(item.get("rhythmic", "")), "\n".join(item.get("paragraphs", [])), item
        label = f"{rec.get('author')} {name.split('・')[0]} {_NOT_VERSE_RE.sub('', text)[:10]}"
        if isinstance(item, tuple):
            r = lenient.score(name, text)
            if not r.valid:
                continue
            lines, rhymes = list(r.lines), _rhyme_chars(lenient, r)
            reason = critic.score(name, text).reason
        else:
            ex = extract_poem(text)
            shape = critic._split(ex.poem, ex.clean) if ex.valid else None
            if shape is None:
                continue
            joined, lengths = shape
            bounds = list(zip(itertools.accumulate((0, *lengths[:-1])), itertools.accumulate(lengths)))
            lines, rhymes = [joined[a:b] for a, b in bounds], []
            reason = degeneracy.degenerate_reason(lines)
        measures.append((label, degeneracy.measure(lines, rhymes)))
        if reason.startswith("degenerate"):
            flagged.append({"label": label, "reason": reason})
    return {
        "n": len(measures),
        "flagged": flagged,
        "flagged_share": len(flagged) / len(measures) if measures else float("nan"),
        "measures": measures,
    }


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
