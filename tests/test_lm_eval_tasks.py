"""The Songci tasks through the real ``lm_eval`` command against a local OpenAI-compatible server.

The server answers with corpus poems, and with invalid answers (empty, prose) for some prompts;
the metrics lm-eval reports must equal the critic's scores of exactly what the server sent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest
from openai_stub import OpenAIStub

from poetone import Critic
from poetone.corpus import THEMES, load_records
from poetone.songci import build_eval_set, score_answer

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "src" / "poetone" / "lm_eval_tasks"
METRICS = ("conformity", "structure", "tonal", "rhyme", "invalid")


def _responder(messages: list[dict[str, Any]]) -> str:
    """Deterministic answers: the corpus poem of the prompt's cell, or an invalid answer."""
    user = next((m["content"] for m in messages if m["role"] == "user"), "")
    records = load_records()
    for r in records:
        slot = r["id"].rsplit("-", 1)[1]
        if f"《{r['cipai']}》" in user and f"「{THEMES[slot]}」" in user:
            if slot == "sorrow_grief":
                return ""  # an empty answer: invalid
            if slot == "philosophical_reflection":
                return "I am sorry, I cannot write classical Chinese poetry."  # prose: invalid
            if "上阕" in user and "续写" in user:
                return r["text"].split("\n", 1)[-1]  # completion: the poet's own 下阕 (a copy)
            return f"《{r['cipai']}》\n\n{r['text']}\n\n注：仿作。"
    return "无"


def _run_lm_eval(stub: OpenAIStub, tasks: str, out: Path, extra: list[str]) -> dict[str, Any]:
    cmd = [
        sys.executable, "-m", "lm_eval", "run",
        "--model", "local-chat-completions",
        "--model_args", f"model=stub,base_url={stub.base_url}/chat/completions,num_concurrent=4,max_retries=1,tokenized_requests=False",
        "--apply_chat_template",
        "--tasks", tasks,
        "--output_path", str(out),
        "--log_samples",
        *extra,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = sorted(out.rglob("results_*.json"))
    assert results, f"no results file under {out}: {proc.stdout[-2000:]}"
    return json.loads(results[-1].read_text(encoding="utf-8"))


@pytest.mark.slow
def test_lm_eval_group_metrics_equal_the_critic(tmp_path: Path) -> None:
    with OpenAIStub(_responder) as stub:
        report = _run_lm_eval(
            stub, "songci", tmp_path, ["--include_path", str(TASKS), "--metadata", '{"cipai": "菩萨蛮,浣溪沙,钗头凤"}']
        )
        exchanges = list(stub.exchanges)
    critic = Critic()
    prompts = {p.user: p for p in build_eval_set(cipai=["菩萨蛮", "浣溪沙", "钗头凤"], critic=critic)}
    assert len(exchanges) == len(prompts) == 5 * 3 * 6
    expected: dict[str, list[dict[str, Any]]] = {}
    for messages, answer in exchanges:
        user = next(m["content"] for m in messages if m["role"] == "user")
        system = next(m["content"] for m in messages if m["role"] == "system")
        p = prompts[user]
        assert system == p.system
        expected.setdefault(p.strategy, []).append(score_answer(p, answer, critic))
    names = {"zero_shot": "songci_zeroshot", "one_shot": "songci_oneshot", "completion": "songci_completion",
             "instruction": "songci_instruction", "cot": "songci_cot"}  # fmt: skip
    for strategy, scored in expected.items():
        generation = report["configs"][names[strategy]]["generation_kwargs"]  # as the run used them
        assert generation["max_gen_toks"] == (2048 if strategy == "cot" else 1024), strategy
        got = report["results"][names[strategy]]
        for metric in METRICS:
            assert got[f"{metric},none"] == pytest.approx(fmean(s[metric] for s in scored), abs=1e-9), (
                strategy,
                metric,
            )
        assert got["invalid,none"] == pytest.approx(2 / 6)  # the empty and the prose answers
        if strategy == "completion":
            assert got["copy_rate,none"] == pytest.approx(fmean(s["copied"] for s in scored))
            assert got["copy_rate,none"] > 0  # the stub copies the poet's own 下阕
    group = report["results"]["songci"]
    all_scores = [s["conformity"] for scored in expected.values() for s in scored]
    assert group["conformity,none"] == pytest.approx(fmean(all_scores), abs=1e-9)
    samples = sorted(tmp_path.rglob("samples_songci_zeroshot_*.jsonl"))
    first = json.loads(samples[-1].read_text(encoding="utf-8").splitlines()[0])
    assert "poetone" in first["doc"] and "variant" in first["doc"]["poetone"]


def test_each_strategy_is_generated_alike_in_both_frameworks() -> None:
    """lm-eval's generation_kwargs and Inspect's GenerateConfig both come from prompts.GENERATION."""
    from lm_eval.tasks import TaskManager

    from poetone import prompts
    from poetone.inspect_tasks import tasks as inspect_tasks

    names = {"zero_shot": "songci_zeroshot", "one_shot": "songci_oneshot", "completion": "songci_completion",
             "instruction": "songci_instruction", "cot": "songci_cot"}  # fmt: skip
    loaded = TaskManager(include_path=str(TASKS)).load(list(names.values()))["tasks"]
    for strategy, name in names.items():
        want = prompts.GENERATION[strategy]
        kwargs = loaded[name].config.generation_kwargs
        assert (kwargs["temperature"], kwargs["top_p"], kwargs["max_gen_toks"]) == (
            want.temperature,
            want.top_p,
            want.max_tokens,
        )
        assert kwargs["do_sample"] is True and kwargs["until"] == []
        config = getattr(inspect_tasks, strategy)().config
        assert (config.temperature, config.top_p, config.max_tokens) == (want.temperature, want.top_p, want.max_tokens)
    assert prompts.GENERATION["cot"].max_tokens == 2048 and prompts.GENERATION["zero_shot"].max_tokens == 1024


def test_the_task_folder_has_a_readme_in_lm_evals_form() -> None:
    """lm-eval's task READMEs: paper, citation, groups and tasks, the new-benchmark checklist."""
    import yaml

    readme = (TASKS / "songci" / "README.md").read_text(encoding="utf-8")
    for heading in (
        "### Paper",
        "### Citation",
        "### Groups, Tags, and Tasks",
        "#### Groups",
        "#### Tasks",
        "### Checklist",
    ):
        assert f"\n{heading}\n" in readme, heading
    assert "https://arxiv.org/abs/2508.02515" in readme and "@misc{" in readme
    assert "* [x] Is the task an existing benchmark in the literature?" in readme
    for path in sorted((TASKS / "songci").glob("songci*.yaml")):
        text = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines() if "!function" not in line)
        config = yaml.safe_load(text)
        name = config.get("group") or config["task"]
        assert f"* `{name}`" in readme, name


def test_process_results_gives_figures_worked_out_by_hand() -> None:
    """The task's per-sample metrics against figures that do not come from ``score_answer``:
    晏殊's 浣溪沙, the form's own example, scores 1.0 on each score; an empty answer is invalid
    and 0 on each. Over six prompts of each tune every mean (lm-eval's aggregation) is 6/12."""
    import importlib.util

    # by its path and under a name of its own: another task folder's utils may be imported already
    spec = importlib.util.spec_from_file_location("songci_task_utils", TASKS / "songci" / "utils.py")
    assert spec is not None and spec.loader is not None
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    poem = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
    docs = list(utils.load_songci("zero_shot", cipai="浣溪沙,菩萨蛮")["test"])
    assert len(docs) == 12
    rows = [utils.process_results(doc, [poem if doc["cipai"] == "浣溪沙" else ""]) for doc in docs]
    by_tune = {doc["cipai"]: row for doc, row in zip(docs, rows)}
    assert by_tune["浣溪沙"] == {"conformity": 1.0, "structure": 1.0, "tonal": 1.0, "rhyme": 1.0, "invalid": 0.0}
    assert by_tune["菩萨蛮"] == {"conformity": 0.0, "structure": 0.0, "tonal": 0.0, "rhyme": 0.0, "invalid": 1.0}
    for metric in METRICS:
        assert fmean(row[metric] for row in rows) == 0.5, metric
    with pytest.raises(ValueError, match="profile 'poetone-code' scores whole poems only"):
        utils.load_songci("completion", profile="poetone-code")  # before anything is generated
    assert len(utils.load_songci("cot", profile="poetone-code", cipai="浣溪沙")["test"]) == 6
    with pytest.raises(ValueError, match="cipai=' ' names no cipai"):
        utils.load_songci("zero_shot", cipai=" ")  # not a silent empty task
