"""Times the tests used to assert (they are benchmarks, not tests: a loaded machine fails them).

    PYTHONPATH=src python benchmarks/load_and_reference_time.py

Prints: the first ``tone_table('classical')`` in a fresh interpreter (was asserted < 0.3 s in
tests/test_prosody.py), ``build_tables()`` of scripts/build_prosody_tables.py (was < 120 s), and
the `poetone-code` profile over every reference score of ../shared (was < 10 s in
tests/test_compat.py; skipped without ../shared).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("POETONE_SHARED") or ROOT.parent / "shared")


def first_table_load() -> float:
    code = (
        "import time\nimport poetone.prosody as P\n"
        "t = time.perf_counter(); P.tone_table('classical'); print(time.perf_counter() - t)\n"
    )
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": ""}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return float(out.stdout)


def build_tables() -> float:
    spec = importlib.util.spec_from_file_location("build_prosody_tables", ROOT / "scripts" / "build_prosody_tables.py")
    assert spec and spec.loader
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    start = time.perf_counter()
    build.build_tables()
    return time.perf_counter() - start


def reference_scores() -> tuple[int, float] | None:
    folder = SHARED / "reference" / "poetone-official"
    if not folder.is_dir():
        return None
    from poetone import Critic

    lines = (folder / "reference_scores.dev.jsonl").read_text(encoding="utf-8").splitlines()
    cases = [json.loads(line) for line in lines if line.strip()]
    start = time.perf_counter()
    critic = Critic(profile="poetone-code", metadata=folder / "cipai_metadata.json", metadata_format="poetone")
    for case in cases:
        critic.score(case["cipai"], case["text"])
    return len(cases), time.perf_counter() - start


def main() -> None:
    print(f"first tone_table('classical') in a fresh interpreter: {first_table_load():.3f} s")
    print(f"build_tables(): {build_tables():.1f} s")
    ref = reference_scores()
    print(f"poetone-code over {ref[0]} reference scores: {ref[1]:.1f} s" if ref else "../shared absent: skipped")


if __name__ == "__main__":
    main()
