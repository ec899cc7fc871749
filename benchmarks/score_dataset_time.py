"""Time ``poetone.batch.score_dataset`` on 20,000 rows (half corpus poems, half tone-kept damaged
copies), with one process and with ``num_proc=2``; the cache is a temporary folder and unused.

    PYTHONPATH=src python benchmarks/score_dataset_time.py
"""

from __future__ import annotations

import os
import random
import tempfile
import time

ROWS = 20_000


def main() -> None:
    with tempfile.TemporaryDirectory() as cache:
        os.environ["HF_DATASETS_CACHE"] = cache
        import datasets

        from poetone import corpus
        from poetone.batch import score_dataset
        from poetone.degrade import degrade

        rng = random.Random(0)
        records = corpus.load_records()
        rows = []
        for i in range(ROWS):
            r = rng.choice(records)
            rows.append(
                {"cipai": r["cipai"], "text": r["text"] if i % 2 else degrade(r["text"], "replace_chars", seed=i)}
            )
        dataset = datasets.Dataset.from_list(rows)
        for num_proc in (None, 2):
            start = time.perf_counter()
            scored = score_dataset(dataset, num_proc=num_proc, load_from_cache_file=False)
            print(f"num_proc={num_proc}: {scored.num_rows} rows in {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
