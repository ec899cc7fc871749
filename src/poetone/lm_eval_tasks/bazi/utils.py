"""lm-evaluation-harness glue for the BaZi tasks: items in, one answer letter out, scored.

Everything of substance lives in ``poetone.bazi``. Options come through ``--metadata``:

- ``bazi_theory``, ``bazi_case``, group ``bazi``: ``path`` (required: the BaZi2500 item file, a
  folder, or a hub dataset id), ``category`` (filter, comma-separated), ``hub_split``.
- ``bazi_verified``: ``n`` (items per category, default 50), ``seed`` (0), ``category``,
  ``zi_hour`` (``next_day`` or ``same_day``).

Each logged doc gets ``bazi``: the reply, the parsed letter, correct and invalid; with the doc's
``task`` and ``category`` that is what ``poetone bazi report`` reads for per-category accuracy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import datasets

from poetone.bazi.data import load_items, missing_source
from poetone.bazi.parse import score_reply
from poetone.bazi.prompt import format_prompt
from poetone.bazi.tables import VERIFIED_CATEGORIES

_NAN = float("nan")


def _rows(items: list[dict[str, Any]]) -> datasets.DatasetDict:
    """Flat rows (nested parts as JSON strings) so that Arrow accepts items of any shape."""
    rows = [
        {
            "id": i["id"],
            "task": i["task"],
            "category": i["category"],
            "category_zh": i.get("category_zh", ""),
            "question": i["question"],
            "context": i.get("context", ""),
            "options": list(i["options"]),
            "answer": i["answer"],
            "hash": i["hash"],
            "source": i.get("source", ""),
            "rule": i.get("rule", ""),
            "params": json.dumps(i.get("params", {}), ensure_ascii=False),
            "extra": json.dumps(i.get("extra", {}), ensure_ascii=False),
        }
        for i in items
    ]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def load_bazi(
    family: str, path: str | None = None, category: Any = None, hub_split: str | None = None, **_: Any
) -> datasets.DatasetDict:
    """The released items of one family (``theory`` or ``case``) as a ``test`` split."""
    if path in (None, ""):
        raise ValueError(missing_source(f"bazi_{family}", """--metadata '{"path": "items.jsonl"}'"""))
    return _rows(load_items(path, split=family, category=category, hub_split=hub_split))


def load_bazi_verified(
    n: int = 50, seed: int = 0, category: Any = None, zi_hour: str = "next_day", **_: Any
) -> datasets.DatasetDict:
    """The rule-verified items, generated (no data file)."""
    from poetone.bazi.verified import generate_items

    return _rows(generate_items(n=int(n), seed=int(seed), category=category, zi_hour=zi_hour))


def doc_to_text(doc: dict[str, Any]) -> str:
    return format_prompt(doc)


def _score(doc: dict[str, Any], results: list[str]) -> dict[str, Any]:
    reply = results[0] if results else ""
    scored = score_reply(reply, doc["answer"])
    doc["bazi"] = {"reply": reply, **scored}
    return scored


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """acc (invalid = wrong), invalid, acc_valid (NaN for an invalid reply: left out of its mean)."""
    s = _score(doc, results)
    return {
        "acc": float(s["correct"]),
        "invalid": float(s["invalid"]),
        "acc_valid": _NAN if s["invalid"] else float(s["correct"]),
    }


def process_results_verified(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """As ``process_results``, plus ``acc_<category>`` (NaN outside the doc's own category)."""
    metrics = process_results(doc, results)
    for name, info in VERIFIED_CATEGORIES.items():
        metrics[f"acc_{info['slug']}"] = metrics["acc"] if doc["category"] == name else _NAN
    return metrics


def mean_valid(values: Sequence[float]) -> float:
    """Mean over the values that are not NaN (the samples a metric applies to)."""
    kept = [v for v in values if not math.isnan(v)]
    return sum(kept) / len(kept) if kept else _NAN
