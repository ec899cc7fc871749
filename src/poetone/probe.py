"""``poetone probe``: the paper's classification probes on canonical and generated poems.

Three questions a simple classifier can answer from the text alone: which cipai (20 classes),
which theme (6), and who wrote it (human vs model). If a unigram model tells a cipai's poems
apart, its vocabulary is distinctive; if it tells human from model poems, the model's diction
is. Labels are balanced by downsampling (seeded), so chance is 1/k; cipai and theme use
stratified k-fold cross-validation and source attribution an 80/20 stratified split, as in the
paper. Accuracy comes with a 95% Wilson interval over the predictions made.

Pipelines: unigram (character) TF-IDF with multinomial naive Bayes; and, with ``--encoder PATH``,
mean-pooled embeddings from a local Chinese BERT with a linear SVM.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from poetone import corpus
from poetone.logs import read_candidates
from poetone.stats import wilson

PROBES = ("cipai", "theme", "source")


@dataclass(frozen=True, slots=True)
class Poem:
    text: str
    cipai: str
    theme: str
    source: str  # "human" or the model's name


@dataclass(frozen=True, slots=True)
class ProbeResult:
    probe: str
    data: str
    pipeline: str
    method: str
    n: int
    classes: int
    accuracy: float
    low: float
    high: float
    chance: float


def canonical_poems() -> list[Poem]:
    return [Poem(r["text"], r["cipai"], r["theme"], "human") for r in corpus.load_records()]


def generated_poems(paths: Sequence[str | Path]) -> tuple[list[Poem], list[str]]:
    """Valid, uncopied poems from the logs (a completion's 下阕 joined to its given 上阕); the
    theme is the prompt's."""
    candidates, errors = read_candidates(paths)
    poems = []
    for c in candidates:
        if not c.eligible or not c.poem.strip():
            continue
        poems.append(Poem(c.full_poem, c.cipai, c.theme, c.model))
    return poems, errors


def balance(poems: list[Poem], label: Callable[[Poem], str], seed: int) -> list[Poem]:
    """Downsample every label to the rarest one's count (seeded), so that chance is 1/k."""
    groups: dict[str, list[Poem]] = defaultdict(list)
    for p in poems:
        groups[label(p)].append(p)
    smallest = min(len(g) for g in groups.values())
    rng = random.Random(seed)
    out: list[Poem] = []
    for key in sorted(groups):
        out.extend(rng.sample(groups[key], smallest))
    return out


# ---------------------------------------------------------------------------- pipelines


def tfidf_nb() -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    return make_pipeline(TfidfVectorizer(analyzer="char", ngram_range=(1, 1)), MultinomialNB())


class BertEmbedder:
    """Mean-pooled last hidden states of a local BERT-style encoder (no download: a path only)."""

    def __init__(self, path: str | Path, max_length: int = 256, batch_size: int = 16):
        folder = Path(path)
        if not (folder / "config.json").is_file():
            raise ValueError(f"--encoder {path}: no model there (expected a folder with config.json and weights, e.g. a saved bert-base-chinese)")
        try:
            import torch
            from transformers import AutoModel, AutoTokenizer
        except ImportError as exc:
            raise ValueError(f'--encoder needs torch and transformers: pip install "poetone[train]" ({exc})') from None
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(str(folder))
            self.model = AutoModel.from_pretrained(str(folder)).eval()
        except (OSError, ValueError) as exc:
            raise ValueError(f"--encoder {path}: cannot load a model and tokenizer from it ({exc})") from None
        self.torch, self.max_length, self.batch_size = torch, max_length, batch_size

    def __call__(self, texts: Sequence[str]) -> Any:
        import numpy as np

        out = []
        with self.torch.no_grad():
            for i in range(0, len(texts), self.batch_size):
                batch = self.tokenizer(list(texts[i : i + self.batch_size]), padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
                hidden = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                out.append(((hidden * mask).sum(1) / mask.sum(1).clamp(min=1)).numpy())
        return np.concatenate(out)


def bert_svm(embedder: BertEmbedder) -> Any:
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer, StandardScaler
    from sklearn.svm import LinearSVC

    return make_pipeline(FunctionTransformer(embedder), StandardScaler(), LinearSVC(C=1.0, max_iter=5000, random_state=0))


# ---------------------------------------------------------------------------- probes


def _evaluate(make: Callable[[], Any], texts: list[str], labels: list[str], method: str, folds: int, seed: int) -> tuple[int, int]:
    """(correct, predicted) by stratified k-fold CV (every item predicted once) or an 80/20 split."""
    from sklearn.model_selection import StratifiedKFold, train_test_split

    if method == "split":
        x_tr, x_te, y_tr, y_te = train_test_split(texts, labels, test_size=0.2, stratify=labels, random_state=seed)
        predicted = make().fit(x_tr, y_tr).predict(x_te)
        return int(sum(p == y for p, y in zip(predicted, y_te))), len(y_te)
    correct = total = 0
    for train, test in StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(texts, labels):
        model = make().fit([texts[i] for i in train], [labels[i] for i in train])
        predicted = model.predict([texts[i] for i in test])
        correct += int(sum(p == labels[i] for p, i in zip(predicted, test)))
        total += len(test)
    return correct, total


def run_probe(probe: str, poems: list[Poem], data: str, pipeline: str, make: Callable[[], Any], folds: int = 5, seed: int = 0) -> ProbeResult:
    if probe not in PROBES:
        raise ValueError(f"unknown probe {probe!r}; expected one of {PROBES}")
    label: Callable[[Poem], str] = {
        "cipai": lambda p: p.cipai,
        "theme": lambda p: p.theme,
        "source": lambda p: "human" if p.source == "human" else "model",
    }[probe]
    # the same text twice under one label (a model repeating itself, five strategies answered by
    # one reference poem) would sit on both sides of a split and inflate accuracy: keep one
    unique = list({(label(p), p.text): p for p in poems}.values())
    balanced = balance(unique, label, seed)
    labels = [label(p) for p in balanced]
    classes = len(set(labels))
    per_class = len(balanced) // classes if classes else 0
    if classes < 2:
        raise ValueError(f"probe {probe} on {data}: needs at least two classes, found {classes}")
    method = "split" if probe == "source" else "cv"
    k = min(folds, per_class)
    if (method == "cv" and k < 2) or (method == "split" and per_class < 5):
        raise ValueError(f"probe {probe} on {data}: too few poems per class after balancing ({per_class})")
    correct, n = _evaluate(make, [p.text for p in balanced], labels, method, k, seed)
    iv = wilson(correct, n)
    return ProbeResult(probe, data, pipeline, "80/20 split" if method == "split" else f"{k}-fold CV", n, classes, iv.estimate, iv.low, iv.high, 1 / classes)


def run_probes(paths: Sequence[str | Path] = (), encoder: str | Path | None = None, folds: int = 5, seed: int = 0) -> tuple[list[ProbeResult], list[str]]:
    """Cipai and theme probes on canonical poems and on each log's poems; source attribution
    (human vs model) when there are generated poems."""
    canonical = canonical_poems()
    generated, errors = generated_poems(paths) if paths else ([], [])
    pipelines: list[tuple[str, Callable[[], Any]]] = [("tfidf-nb", tfidf_nb)]
    if encoder is not None:
        embedder = BertEmbedder(encoder)
        pipelines.append(("bert-svm", lambda: bert_svm(embedder)))
    datasets: list[tuple[str, list[Poem]]] = [("canonical", canonical)]
    if generated:
        datasets.append(("generated", generated))
    results = []
    for name, make in pipelines:
        for data, poems in datasets:
            for probe in ("cipai", "theme"):
                try:
                    results.append(run_probe(probe, poems, data, name, make, folds, seed))
                except ValueError as exc:
                    errors.append(str(exc))
        if generated:
            results.append(run_probe("source", canonical + generated, "canonical+generated", name, make, folds, seed))
    return results, errors


def to_markdown(results: list[ProbeResult]) -> str:
    lines = ["| probe | data | pipeline | method | n | classes | accuracy [95% CI] | chance |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r.probe} | {r.data} | {r.pipeline} | {r.method} | {r.n} | {r.classes} | {r.accuracy:.3f} [{r.low:.3f}, {r.high:.3f}] | {r.chance:.3f} |")
    return "\n".join(lines)


def write(results: list[ProbeResult], errors: list[str], out: str | Path) -> Path:
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    (target / "probes.json").write_text(json.dumps({"results": [asdict(r) for r in results], "errors": errors}, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    (target / "probes.md").write_text("# Classification probes\n\n" + to_markdown(results) + "\n", encoding="utf-8")
    return target
