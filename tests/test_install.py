"""A built wheel, installed in a fresh virtual environment, makes the Songci tasks visible to the
real ``lm_eval`` command from any folder without ``--include_path``; uninstalling leaves lm-eval clean.

The venv sees the machine's site-packages (lm-eval, inspect-ai, …: nothing is downloaded), but
its own site-packages come first, so ``poetone`` there is the wheel under test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from openai_stub import OpenAIStub

ROOT = Path(__file__).resolve().parents[1]


def _run(cmd: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "POETONE_LM_EVAL_TASKS")}
    env.update(HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_fresh_venv_install_lm_eval_tasks_and_clean_uninstall(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), str(ROOT)], tmp_path)
    assert built.returncode == 0, built.stderr[-3000:]
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], tmp_path).returncode == 0
    py = str(venv / "bin" / "python")
    wheel = next(wheels.glob("poetone-*.whl"))
    inst = _run([py, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], tmp_path)
    assert inst.returncode == 0, inst.stderr[-3000:]
    site = Path(_run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path).stdout.strip())
    assert (site / "poetone-lm-eval.pth").exists()
    where = _run([py, "-c", "import poetone; print(poetone.__file__)"], tmp_path).stdout
    assert str(site) in where, where

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    listed = _run([py, "-m", "lm_eval", "ls", "tasks"], elsewhere)
    assert listed.returncode == 0, listed.stderr[-3000:]
    for name in ("songci", "songci_zeroshot", "songci_oneshot", "songci_completion", "songci_instruction", "songci_cot"):
        assert f"|{name} " in listed.stdout, name

    with OpenAIStub(lambda messages: "平林漠漠烟如织，寒山一带伤心碧。暝色入高楼，有人楼上愁。\n玉阶空伫立，宿鸟归飞急。何处是归程？长亭连短亭。") as stub:
        run = _run(
            [
                py, "-m", "lm_eval", "run", "--model", "local-chat-completions",
                "--model_args", f"model=stub,base_url={stub.base_url}/chat/completions,num_concurrent=2,max_retries=1,tokenized_requests=False",
                "--apply_chat_template", "--tasks", "songci_oneshot", "--metadata", '{"cipai": "菩萨蛮"}',
                "--output_path", str(elsewhere / "out"),
            ],
            elsewhere,
        )
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(next((elsewhere / "out").rglob("results_*.json")).read_text(encoding="utf-8"))
    assert results["results"]["songci_oneshot"]["conformity,none"] == pytest.approx(1.0)

    # Inspect finds the tasks and the reference model through the inspect_ai entry point
    inspected = _run(
        [py, "-m", "inspect_ai", "eval", "poetone/completion", "--model", "poetone/reference", "--limit", "3",
         "--log-dir", str(elsewhere / "logs"), "--display", "none"],
        elsewhere,
    )  # fmt: skip
    assert inspected.returncode == 0, inspected.stderr[-3000:]
    shown = _run([py, "-m", "inspect_ai", "log", "dump", str(next((elsewhere / "logs").glob("*.eval")))], elsewhere)
    log = json.loads(shown.stdout)
    assert log["status"] == "success" and log["eval"]["task"] == "poetone/completion"
    assert log["results"]["completed_samples"] == 3
    assert log["results"]["scores"][0]["metrics"]["mean"]["value"] > 0.9

    removed = _run([py, "-m", "pip", "uninstall", "-y", "poetone"], tmp_path)
    assert removed.returncode == 0, removed.stderr[-3000:]
    assert not (site / "poetone-lm-eval.pth").exists()
    assert not (site / "_poetone_lm_eval_hook.py").exists()
    after = _run([py, "-m", "lm_eval", "ls", "tasks"], elsewhere)
    assert after.returncode == 0, after.stderr[-3000:]
    assert "songci" not in after.stdout
