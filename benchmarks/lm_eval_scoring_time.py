"""Time the scoring an lm-eval run of the `songci` group adds: the tasks' own ``process_results``
over all 600 docs, each answered with its corpus poem wrapped in a title and a note (the 下阕 for
completion).

    PYTHONPATH=src python benchmarks/lm_eval_scoring_time.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src" / "poetone" / "lm_eval_tasks" / "songci"))

import utils

from poetone.corpus import load_records
from poetone.prompts import STRATEGIES


def main() -> None:
    docs = [doc for strategy in STRATEGIES for doc in utils.load_songci(strategy)["test"]]
    poems = {r["id"]: r["text"] for r in load_records()}
    answers = []
    for doc in docs:
        text = poems[doc["id"].split("-", 1)[1]]
        answers.append(text.split("\n", 1)[-1] if doc["strategy"] == "completion" else f"《{doc['cipai']}》\n\n{text}\n\n注：仿作。")
    utils._critic("default")  # built once per run, as in lm-eval
    start = time.perf_counter()
    for doc, answer in zip(docs, answers, strict=True):
        utils.process_results(dict(doc), [answer])
    print(f"{len(docs)} samples scored in {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
