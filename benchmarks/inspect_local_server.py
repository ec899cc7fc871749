"""All five Songci tasks (600 samples) through Inspect's ``openai-api`` provider against a local
OpenAI-compatible server on 127.0.0.1 that answers with the reference poems: wall time, errors
and the metrics.

    python benchmarks/inspect_local_server.py   (with poetone installed: Inspect resolves tasks by package)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from inspect_ai import eval as inspect_eval
from openai_stub import OpenAIStub

from poetone.reference import answer_for_message


def answer(messages: list[dict[str, Any]]) -> str:
    return answer_for_message(next(m["content"] for m in reversed(messages) if m["role"] == "user"))


def main() -> None:
    with OpenAIStub(answer) as stub, tempfile.TemporaryDirectory() as logs:
        os.environ["LOCALSTUB_BASE_URL"], os.environ["LOCALSTUB_API_KEY"] = stub.base_url, "local"
        start = time.perf_counter()
        log = inspect_eval("poetone/songci", model="openai-api/localstub/stub", log_dir=logs, display="none", max_connections=16)[0]
        elapsed = time.perf_counter() - start
        errors = sum(1 for s in log.samples if s.error)  # samples load lazily: read before the folder goes
        print(f"status {log.status}: {len(log.samples)} samples, {errors} errors, {len(stub.exchanges)} requests, {elapsed:.1f} s")
    for score in log.results.scores:
        print(f"  {score.name:<11}" + "  ".join(f"{k} {m.value:.4f}" for k, m in score.metrics.items()))


if __name__ == "__main__":
    main()
