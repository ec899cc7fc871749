"""Validate a critic on authentic poems and on perturbed copies of them.

A critic is right when the poems the Song masters wrote score as conforming, a poem scored
against the wrong cipai scores low, and each kind of damage lowers the score. These functions
compute those figures for any critic and any corpus in the chinese-poetry layout
(``{"author", "paragraphs", "rhythmic"}``) or the reference-case layout
(``{"id", "cipai", "text", "kind"}``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
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
    return len(lenient(critic).score(cipai, text).lines) < shortest / 2


_LENIENT: dict[int, Critic] = {}


def lenient(critic: Critic) -> Critic:
    """The critic without the degeneracy rule: the structure figures (fragments, coverage) read a
    heavily damaged poem's lines instead of seeing no poem."""
    if not critic.profile.reject_degenerate:
        return critic
    other = _LENIENT.get(id(critic))
    if other is None:
        from dataclasses import replace

        other = Critic(profile=critic.profile.name)
        other.profile = replace(critic.profile, reject_degenerate=False)
        other.registry = critic.registry
        _LENIENT[id(critic)] = other
    return other


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
    free = lenient(critic)
    return {v.id for v in critic.registry[cipai].variants if free.score(cipai, text, variant=v.id).structure == 1.0}


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
    from poetone import degeneracy
    from poetone.extraction import extract_poem

    free = lenient(critic)
    measures: list[tuple[str, degeneracy.Measures]] = []
    flagged: list[dict[str, Any]] = []
    for item in poems:
        if isinstance(item, tuple):
            name, text, rec = item
        else:
            name, text, rec = str(item.get("rhythmic", "")), "\n".join(item.get("paragraphs", [])), item
        label = f"{rec.get('author')} {name.split('・')[0]} {_NOT_VERSE_RE.sub('', text)[:10]}"
        if isinstance(item, tuple):
            r = free.score(name, text)
            if not r.valid:
                continue
            lines, rhymes = list(r.lines), _rhyme_chars(free, r)
            reason = critic.score(name, text).reason
        else:
            ex = extract_poem(text)
            shape = critic._split(ex.poem, ex.clean) if ex.valid else None
            if shape is None:
                continue
            lines, rhymes = shape[2], []
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


# -- gaming the critic: degenerate texts, truncations, the chance level ------------------------------

#: Kinds of text that are not verse, each written into a cipai's exact shape (degenerate_suite).
DEGENERATE_KINDS = (
    "one_character",  # one character in every position (the characters with the most rhyme readings)
    "two_alternating",  # two characters in turn
    "short_word",  # a word of two to four characters repeated
    "repeated_clause",  # one clause of a real poem in every line (cut to each line's length)
    "repeated_stanza",  # a real poem's first stanza written again (cipai whose stanzas share a shape)
    "per_line_character",  # each line one character repeated, a new one per line
    "numerals",  # 一二三四五六七八九十 over and over
    "lacunae",  # □ throughout
    "kana",  # katakana (garbled text: a lost character each)
    "replacement_character",  # U+FFFD throughout
    "box_drawing",  # ─ throughout
    "half_lost",  # random characters, every other one □
    "lost_rhymes",  # random characters with □ at every rhyme position
    "same_line_end",  # random characters, every line ending in one character
)


def _shape_text(variant: Any, fill: Any) -> str:
    """Text in the variant's exact shape: ``fill(line index, position, line)`` gives each character."""
    out, k = [], 0
    for si, stanza in enumerate(variant.stanzas):
        for line in stanza:
            out.append("".join(fill(k, p, line) for p in range(line.length)) + ("。" if line.rhymed else "，"))
            k += 1
        if si + 1 < len(variant.stanzas):
            out.append("\n")
    return "".join(out)


def _common_characters() -> list[str]:
    """The corpus's characters, most frequent first: the pool random text draws from."""
    from collections import Counter

    from poetone import corpus

    counts = Counter(ch for r in corpus.load_records() for ch in _VERSE_RE.findall(r["text"]))
    return [ch for ch, _ in counts.most_common()]


_VERSE_RE = re.compile(f"[{VERSE}]")


def degenerate_suite(critic: Critic, per_kind: int = 5, seed: int = 0) -> list[dict[str, Any]]:
    """Texts that are no poem, in the exact shape of every cipai's 正体, ``per_kind`` of each kind.

    Deterministic given ``seed``. The single characters are those with the most rhyme readings
    (the hardest case for a rhyme check); clauses and stanzas come from the corpus's poems.
    """
    import random

    from poetone import corpus

    rng = random.Random(seed)
    options = critic._rhyme_options
    rich = sorted((ch for ch in options if len(ch) == 1 and ch != "□"), key=lambda ch: (-options[ch][2].bit_count(), ch))[:300]
    common = _common_characters()[:1500]
    records = corpus.load_records()
    out: list[dict[str, Any]] = []
    for name in sorted(critic.registry):
        variant = critic.registry[name].variants[0]
        own = [r["text"] for r in records if r["cipai"] == name] or [r["text"] for r in records]
        for i in range(per_kind):
            a, b = rng.sample(rich, 2)
            word = "".join(rng.sample(common[:300], rng.randint(2, 4)))
            clause = max(re.split(r"[，。？！；、\s]+", rng.choice(own)), key=len)
            per_line = rng.sample(common[:500], len(variant.lines))
            end = rng.choice(rich)
            rhymed = {k for k, line in enumerate(variant.lines) if line.rhymed}
            first = variant.stanzas[0]
            stanza_text = _VERSE_RE.findall(rng.choice(own))[: sum(line.length for line in first)]

            starts = list(itertools.accumulate((0, *(line.length for line in variant.lines))))
            fills = {
                "one_character": lambda k, p, line, a=a: a,
                "two_alternating": lambda k, p, line, a=a, b=b: (a, b)[p % 2],
                "short_word": lambda k, p, line, word=word: word[p % len(word)],
                "repeated_clause": lambda k, p, line, clause=clause: clause[p % len(clause)],
                "repeated_stanza": lambda k, p, line, t=stanza_text, at=starts: t[(at[k] + p) % len(t)],
                "per_line_character": lambda k, p, line, per_line=per_line: per_line[k],
                "numerals": lambda k, p, line: "一二三四五六七八九十"[(k + p) % 10],
                "lacunae": lambda k, p, line: "□",
                "kana": lambda k, p, line: chr(0x30A2 + rng.randrange(80)),
                "replacement_character": lambda k, p, line: "\ufffd",
                "box_drawing": lambda k, p, line: "─",
                "half_lost": lambda k, p, line: "□" if (k + p) % 2 else rng.choice(common),
                "lost_rhymes": lambda k, p, line, rhymed=rhymed: "□" if k in rhymed and p == line.length - 1 else rng.choice(common),
                "same_line_end": lambda k, p, line, end=end: end if p == line.length - 1 else rng.choice(common),
            }
            same_shapes = len({tuple(line.length for line in st) for st in variant.stanzas}) == 1
            for kind in DEGENERATE_KINDS:
                if kind == "repeated_stanza" and not (same_shapes and len(variant.stanzas) > 1):
                    continue  # a stanza written again fills the next one only where both have one shape
                out.append({"kind": kind, "cipai": name, "text": _shape_text(variant, fills[kind]), "i": i})
    return out


def random_in_shape(critic: Critic, name: str, n: int = 200, seed: int = 0) -> list[str]:
    """``n`` texts of random characters (drawn by their frequency in the corpus) in the 正体's shape."""
    import random

    from poetone import corpus

    rng = random.Random(f"{seed}-{name}")
    pool = [ch for r in corpus.load_records() for ch in _VERSE_RE.findall(r["text"])]
    variant = critic.registry[name].variants[0]
    return [_shape_text(variant, lambda k, p, line: rng.choice(pool)) for _ in range(n)]


def chance_level(critic: Critic, n: int = 200, seed: int = 0) -> dict[str, Any]:
    """The score of random characters in each cipai's shape: what a number must beat to mean anything.

    Per cipai and pooled; the characters are drawn by their frequency in the corpus, so the tone
    and rhyme classes come in the proportions of real verse.
    """
    per = {name: chance_level_of(critic, name, n, seed) for name in sorted(critic.registry)}
    return {"pooled": statistics.fmean(per.values()) if per else float("nan"), "per_cipai": per, "n": n, "seed": seed}


def chance_level_of(critic: Critic, name: str, n: int = 200, seed: int = 0) -> float:
    """The mean score of ``n`` random texts in the shape of ``name``'s 正体 (see chance_level)."""
    return statistics.fmean(critic.score(name, t).conformity for t in random_in_shape(critic, name, n, seed))


def truncations(critic: Critic, poems: Sequence[tuple[str, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The first clause, the first stanza (as many clauses as the fitting variant's 上阕 has lines;
    the 全宋词's paragraphs are sentences, not stanzas) and the first half of the lines of each
    complete authentic poem, with the whole poem's score."""
    out: list[dict[str, Any]] = []
    for name, text, _rec in poems:
        whole = critic.score(name, text)
        if not whole.valid or is_fragment(critic, name, text):
            continue
        clauses = re.findall(r"[^，。？！；：、,.?!;:\s]+[，。？！；：、,.?!;:]*", text)
        if not clauses:
            continue
        cuts = {"first_clause": clauses[0], "half_lines": "".join(clauses[: max(1, len(clauses) // 2)])}
        variant = critic.registry[name].variant(whole.variant)
        if len(variant.stanzas) >= 2:  # the 上阕 as the variant the whole poem fits counts it
            from poetone.songci import split_stanzas

            with contextlib.suppress(ValueError):  # fewer clause marks than the first stanza has lines
                cuts["first_stanza"] = split_stanzas(text, critic, name, whole.variant)[0]
        for kind, cut in cuts.items():
            out.append({"kind": kind, "cipai": name, "text": cut, "score": critic.score(name, cut).conformity, "whole": whole.conformity})
    return out


def gaming_report(critic: Critic, suite: Sequence[dict[str, Any]], cut: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """Figures of issue 13: degenerate texts above 0.3, and how truncated poems score."""
    by_kind: dict[str, list[float]] = defaultdict(list)
    invalid = 0
    for item in suite:
        r = critic.score(item["cipai"], item["text"])
        by_kind[item["kind"]].append(r.conformity)
        invalid += not r.valid
    every = [s for v in by_kind.values() for s in v]
    out: dict[str, Any] = {
        "degenerate_n": len(every),
        "degenerate_kinds": len(by_kind),
        "degenerate_invalid_share": invalid / len(every) if every else float("nan"),
        "degenerate_above_0.3": sum(s > 0.3 for s in every) / len(every) if every else float("nan"),
        "degenerate_max": max(every, default=float("nan")),
        "per_kind_max": {k: max(v) for k, v in by_kind.items()},
    }
    by_cut: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in cut:
        by_cut[item["kind"]].append(item)
    for kind, items in by_cut.items():
        scores = [i["score"] for i in items]
        out[kind] = {
            "n": len(items),
            "mean": statistics.fmean(scores),
            "share_at_most_0.3": sum(s <= 0.3 for s in scores) / len(scores),
            "share_at_most_0.75": sum(s <= 0.75 for s in scores) / len(scores),
            "share_above_whole": sum(i["score"] > i["whole"] + 1e-12 for i in items) / len(items),
        }
    return out


def tune_title(rec: dict[str, Any]) -> str:
    """The tune a chinese-poetry record is printed under: its ``rhythmic`` before the ・ of the title."""
    return str(rec.get("rhythmic", "")).split("・")[0].split("·")[0].strip()


def titled_poems(critic: Critic, corpus: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], str, str]]:
    """(record, its tune title, its text) for each poem whose title (失调名 aside) names a known cipai."""
    for rec in corpus:
        title = tune_title(rec)
        if not title or title.startswith("失调名"):
            continue
        try:
            critic.registry.resolve(title)
        except UnknownCipaiError:
            continue
        yield rec, title, "\n".join(rec.get("paragraphs", []))


def title_resolution(critic: Critic, corpus: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """How many poems with a tune title (失调名 aside) resolve to a known cipai, and the titles that do not."""
    n = resolved = curated = 0
    missing: dict[str, int] = defaultdict(int)
    for rec in corpus:
        title = tune_title(rec)
        if not title or title.startswith("失调名"):
            continue
        n += 1
        try:
            name = critic.registry.resolve(title)
        except UnknownCipaiError:
            missing[title] += 1
            continue
        resolved += 1
        curated += critic.registry.is_curated(name)
    return {
        "n": n,
        "resolved": resolved,
        "share": resolved / n if n else float("nan"),
        "share_curated": curated / n if n else float("nan"),
        "unresolved": dict(sorted(missing.items(), key=lambda kv: (-kv[1], kv[0]))),
    }


def all_cipai_report(critic: Critic, corpus: Sequence[dict[str, Any]], seed: int = 0) -> dict[str, Any]:
    """Figures over every known cipai (curated and generated) on a chinese-poetry corpus.

    Each poem whose title resolves is scored under its title: a 同名异调 title is scored against
    every tune it names and counts for the tune it follows. *Complete* poems leave out fragments
    and texts the edition notes as damaged (``is_fragment``, ``is_damaged``). Per cipai: complete
    poems, mean conformity, structural coverage (the share some variant reads line for line), and
    a wrong-cipai score (the poem against another known cipai drawn at random, seeded), pooled
    into the AUC. ``degenerate`` counts the poems of every title the degeneracy rule flags.
    """
    import random

    rng = random.Random(seed)
    names = critic.registry.all_names()
    per: dict[str, dict[str, Any]] = defaultdict(lambda: {"scores": [], "covered": 0, "wrong": []})
    positives: list[float] = []
    negatives: list[float] = []
    n_poems = flagged = 0
    flagged_poems: list[str] = []
    for rec, title, text in titled_poems(critic, corpus):
        n_poems += 1
        result = critic.score(title, text)
        if not result.valid and result.reason.startswith("degenerate"):
            flagged += 1
            flagged_poems.append(f"{rec.get('author')} {title} {_NOT_VERSE_RE.sub('', text)[:10]}: {result.reason}")
        tune = result.cipai
        if is_damaged(text) or is_fragment(critic, tune, text):
            continue
        entry = per[tune]
        entry["scores"].append(result.conformity)
        entry["covered"] += fits_exactly(critic, tune, text)
        titled = set(critic.registry.tunes_titled(title))
        other = rng.choice(names)
        while other in titled or other == tune:
            other = rng.choice(names)
        wrong = critic.score(other, text).conformity
        entry["wrong"].append(wrong)
        positives.append(result.conformity)
        negatives.append(wrong)
    rows = {}
    for tune, e in sorted(per.items(), key=lambda kv: (-len(kv[1]["scores"]), kv[0])):
        s = e["scores"]
        rows[tune] = {
            "n_complete": len(s),
            "mean": statistics.fmean(s),
            "share_at_0.9": sum(x >= 0.9 for x in s) / len(s),
            "coverage": e["covered"] / len(s),
            "wrong_mean": statistics.fmean(e["wrong"]),
            "curated": critic.registry.is_curated(tune),
        }
    return {
        "n_poems": n_poems,
        "n_complete": len(positives),
        "n_cipai": len(rows),
        "mean": statistics.fmean(positives) if positives else float("nan"),
        "mean_generated": statistics.fmean([x for t, e in per.items() if not rows[t]["curated"] for x in e["scores"]]),
        "wrong_cipai_auc": auc(positives, negatives),
        "degenerate": flagged,
        "degenerate_share": flagged / n_poems if n_poems else float("nan"),
        "degenerate_poems": flagged_poems,
        "per_cipai": rows,
    }
