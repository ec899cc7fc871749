"""Generate-Critic: best-of-N datasets from real Inspect and lm-eval runs, the reward, and revision."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from openai_stub import OpenAIStub

from poetone import Critic
from poetone.bon import build, select
from poetone.cli import main as cli_main
from poetone.logs import Candidate, read_candidates
from poetone.reference import answer_for_message, reference_answer
from poetone.reward import conformity_reward
from poetone.songci import build_eval_set, score_answer

CRITIC = Critic()
PROMPTS = {p.id: p for p in build_eval_set()}
ROOT = Path(__file__).resolve().parents[1]


def _output(text: str) -> ModelOutput:
    out = ModelOutput.from_content("mockllm", text)
    out.usage = ModelUsage(input_tokens=1, output_tokens=len(text), total_tokens=1 + len(text))
    return out


def _damaged(poem: str, k: int) -> str:
    """The poem with its last k characters cut: a lower score, still a poem."""
    return poem[: len(poem) - k]


class Cycler:
    """Per prompt, the n-th call gets the n-th answer of a cycle: damaged, invalid, authentic, …"""

    def __init__(self) -> None:
        self.calls: dict[str, int] = defaultdict(int)

    def __call__(self, input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        user = next(m.text for m in input if m.role == "user")
        n = self.calls[user]
        self.calls[user] += 1
        poem = answer_for_message(user)
        return _output([_damaged(poem, 4), "对不起，我不会写词。", poem, _damaged(poem, 2)][n % 4])


# ---------------------------------------------------------------------------- best-of-N, Inspect


@pytest.fixture(scope="module")
def inspect_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("bon-inspect")
    model = get_model("mockllm/cycler", custom_outputs=Cycler())
    result = inspect_eval(
        "poetone/songci", model=model, epochs=4, log_dir=str(logs), display="none",
        task_args={"strategy": "zero_shot,completion", "cipai": "浣溪沙,念奴娇,钗头凤"},
    )  # fmt: skip
    assert result[0].status == "success"
    return logs


def test_bon_from_inspect_epochs_picks_the_best_valid_candidate(inspect_log: Path, tmp_path: Path) -> None:
    selection = build([inspect_log], tmp_path / "out")
    candidates, errors = read_candidates([inspect_log])
    assert not errors and len(candidates) == 2 * 3 * 6 * 4
    by_prompt: dict[str, list[Candidate]] = defaultdict(list)
    for c in candidates:
        by_prompt[c.prompt_id].append(c)
    assert len(selection.rows) == 36
    for row in selection.rows:
        group = by_prompt[row["prompt_id"]]
        valid = [c for c in group if c.valid and not c.copied]
        best = max(c.conformity for c in valid)
        assert row["conformity"] == best
        assert row["epoch"] == min(c.epoch for c in valid if c.conformity == best)  # ties: the earlier
        assert row["messages"][0]["role"] == "system" and row["messages"][1]["content"] == PROMPTS[row["prompt_id"]].user
        assert row["messages"][2] == {"role": "assistant", "content": next(c.poem for c in group if c.epoch == row["epoch"])}
        assert row["model"] == "mockllm/cycler" and row["candidates"] == 4
        # the chosen candidate's score is the critic's score of what the model sent
        chosen = next(c for c in group if c.epoch == row["epoch"])
        assert score_answer(PROMPTS[row["prompt_id"]], chosen.answer, CRITIC)["conformity"] == pytest.approx(row["conformity"])
    summary = {s["strategy"]: s for s in selection.summary}
    for strategy in ("zero_shot", "completion"):
        firsts = [next(c for c in g if c.epoch == 1) for g in by_prompt.values() if g[0].strategy == strategy]
        assert summary[strategy]["first_mean"] == pytest.approx(fmean(c.conformity if c.valid else 0.0 for c in firsts), abs=1e-6)
        assert summary[strategy]["best_mean"] >= summary[strategy]["first_mean"]
    # the files: JSONL and a datasets folder with the same rows
    import datasets

    lines = (tmp_path / "out" / "train.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == selection.rows
    ds = datasets.load_from_disk(str(tmp_path / "out" / "dataset"))
    assert ds.num_rows == 36 and ds[0]["messages"] == selection.rows[0]["messages"]
    meta = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert meta["rows"] == 36 and len(meta["data_sha256"]) == 64


def test_bon_min_score_drops_prompts_and_the_cli_reports(inspect_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = cli_main(["bon", str(inspect_log), "--out", str(tmp_path / "out"), "--min-score", "0.999"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "zero_shot" in printed and "completion" in printed and "first" in printed
    rows = [json.loads(line) for line in (tmp_path / "out" / "train.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows and all(r["conformity"] >= 0.999 for r in rows)
    meta = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert sum(s["below_min_score"] for s in meta["summary"]) == 36 - len(rows)


def test_bon_reports_a_bad_file_by_name_and_keeps_the_others(inspect_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "logs"
    bad.mkdir()
    (bad / "broken.eval").write_bytes(b"not a zip")
    (bad / "samples_songci_zeroshot_2026.jsonl").write_text('{"doc": {"id": 1}}\n', encoding="utf-8")
    status = cli_main(["bon", str(inspect_log), str(bad), "--out", str(tmp_path / "out")])
    assert status == 1
    err = capsys.readouterr().err
    assert "broken.eval" in err and "samples_songci_zeroshot_2026.jsonl, line 1" in err
    assert len((tmp_path / "out" / "train.jsonl").read_text(encoding="utf-8").splitlines()) == 36


def test_invalid_and_copied_candidates_never_win() -> None:
    def cand(epoch: int, score: float, valid: bool = True, copied: bool = False) -> Candidate:
        return Candidate("f", "inspect", "m", "p", "completion", "浣溪沙", "t", epoch, "s", "u", "a", f"poem{epoch}", valid, copied, score, score, score, score)

    rows, summary = select([cand(1, 0.0, valid=False), cand(2, 0.0, copied=True), cand(3, 0.5), cand(4, 0.5)])
    assert [r["epoch"] for r in rows] == [3]  # the tie goes to the earlier epoch
    rows, summary = select([cand(1, 0.0, valid=False), cand(2, 0.0, copied=True)])
    assert rows == [] and summary[0]["no_valid_candidate"] == 1 and summary[0]["best_mean"] == 0.0


# ---------------------------------------------------------------------------- best-of-N, lm-eval repeats


@pytest.mark.slow
def test_bon_from_lm_eval_repeats(tmp_path: Path) -> None:
    tasks = subprocess.run([sys.executable, "-m", "poetone.cli", "lm-eval-path"], capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "songci_zeroshot_x3.yaml").write_text(
        f"include: {tasks}/songci/songci_zeroshot.yaml\ntask: songci_zeroshot_x3\nrepeats: 3\n", encoding="utf-8"
    )
    cycler = Cycler()

    def answer(messages: list[dict[str, Any]]) -> str:
        class M:
            role = "user"

            def __init__(self, text: str) -> None:
                self.text = text

        user = next(m["content"] for m in messages if m["role"] == "user")
        return cycler([M(user)], None, None, GenerateConfig()).completion

    with OpenAIStub(answer) as stub:
        cmd = [
            sys.executable, "-m", "lm_eval", "run", "--model", "local-chat-completions",
            "--model_args", f"model=stubmodel,base_url={stub.base_url}/chat/completions,num_concurrent=1,max_retries=1,tokenized_requests=False",
            "--apply_chat_template", "--tasks", "songci_zeroshot_x3", "--include_path", str(tmp_path / "tasks"),
            "--metadata", '{"cipai": "浣溪沙,念奴娇"}', "--output_path", str(tmp_path / "out"), "--log_samples",
        ]  # fmt: skip
        env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        sent = defaultdict(list)
        for messages, text in stub.exchanges:
            sent[next(m["content"] for m in messages if m["role"] == "user")].append(text)
    selection = build([tmp_path / "out"], tmp_path / "bon")
    assert not selection.errors
    assert len(selection.rows) == 12
    for row in selection.rows:
        p = PROMPTS[row["prompt_id"]]
        scores = [score_answer(p, a, CRITIC) for a in sent[p.user]]
        assert len(scores) == 3
        assert row["conformity"] == pytest.approx(max(s["conformity"] for s in scores if s["valid"]))
        assert row["model"] == "stubmodel"
    (summary,) = selection.summary
    assert summary["prompts"] == 12 and summary["candidates_per_prompt"] == 3
    # the report reads the same lm-eval output folder: every repeat re-scored, avg and best per prompt
    from poetone.report import build_report

    rep = build_report([tmp_path / "out"], tmp_path / "report", n_boot=300)
    row, chance = next(t for t in rep.tables if t.name == "main").rows  # the run, then the chance reference row
    assert chance["model"].startswith("(chance")
    assert (row["model"], row["strategy"], row["prompts"], row["epochs"]) == ("stubmodel", "zero_shot", 12, 3)
    avg = [fmean(score_answer(PROMPTS[r["prompt_id"]], a, CRITIC)["conformity"] for a in sent[PROMPTS[r["prompt_id"]].user]) for r in selection.rows]
    assert row["conformity_avg"]["mean"] == pytest.approx(fmean(avg))
    assert row["conformity_best"]["mean"] == pytest.approx(fmean(r["conformity"] for r in selection.rows))
    (run,) = rep.record["runs"]
    assert run["framework"] == "lm-eval" and run["epochs"] == 3 and run["generation"]["temperature"] == 0.7


# ---------------------------------------------------------------------------- reward


def test_reward_equals_the_critic_and_reads_trl_columns() -> None:
    prompts = list(PROMPTS.values())[::7]
    completions = [reference_answer(p) for p in prompts]
    completions[0] = "I cannot help with that."
    columns = {
        "cipai": [p.cipai for p in prompts],
        "strategy": [p.strategy for p in prompts],
        "upper": [p.upper for p in prompts],
        "original_lower": [p.original_lower for p in prompts],
        "trainer_state": None,  # TRL passes extra keyword arguments: ignored
    }
    rewards = conformity_reward(prompts=[p.user for p in prompts], completions=completions, **columns)
    assert rewards[0] == 0.0
    assert rewards == [pytest.approx(score_answer(p, c, CRITIC)["conformity"]) for p, c in zip(prompts, completions)]
    chat = [[{"role": "assistant", "content": c}] for c in completions]
    assert conformity_reward(prompts=None, completions=chat, **columns) == rewards
    copied = next(p for p in prompts if p.strategy == "completion")
    assert conformity_reward(completions=[copied.original_lower], cipai=[copied.cipai], strategy=["completion"], upper=[copied.upper], original_lower=[copied.original_lower]) == [0.0]


def test_reward_errors_name_the_missing_column() -> None:
    with pytest.raises(ValueError, match="'cipai' column"):
        conformity_reward(prompts=["x"], completions=["y"])
    with pytest.raises(ValueError, match="column 'cipai' has 2 entries for 1 completions"):
        conformity_reward(completions=["y"], cipai=["浣溪沙", "浣溪沙"])


# ---------------------------------------------------------------------------- critic-guided revision


class Reviser:
    """First draft cut short; a revision request gets the full poem back (if it names the fault)."""

    def __init__(self) -> None:
        self.requests: list[str] = []

    def __call__(self, input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        user = next(m.text for m in input if m.role == "user")
        poem = answer_for_message(user)
        if len(input) <= 2:
            return _output(_damaged(poem, 3))
        self.requests.append(input[-1].text)
        return _output(poem if "应为" in input[-1].text else _damaged(poem, 5))


def test_critic_revise_improves_and_logs_every_draft(tmp_path: Path) -> None:
    reviser = Reviser()
    model = get_model("mockllm/reviser", custom_outputs=reviser)
    log = inspect_eval(
        "poetone/zero_shot", model=model, limit=4, log_dir=str(tmp_path), display="none", task_args={"revise": 2}
    )[0]  # fmt: skip
    assert log.status == "success", log.error
    assert len(reviser.requests) == 4  # one revision each: the second draft is perfect, so it stops
    assert all("格律检查发现以下问题" in r and "字" in r for r in reviser.requests)
    for sample in log.samples:
        drafts = sample.store["drafts"]
        assert [d["round"] for d in drafts] == [0, 1]
        assert drafts[0]["conformity"] < drafts[1]["conformity"] == 1.0
        assert drafts[0]["feedback"] == reviser.requests[0] or drafts[0]["feedback"] in reviser.requests
        assert sample.store["best_round"] == 1
        assert sample.scores["conformity"].value["conformity"] == 1.0
    assert log.eval.metadata["revise"] == 2


def test_critic_revise_keeps_the_best_draft_when_revisions_get_worse(tmp_path: Path) -> None:
    def worse(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        poem = answer_for_message(next(m.text for m in input if m.role == "user"))
        return _output(_damaged(poem, 2) if len(input) <= 2 else "改不好了，抱歉。")

    model = get_model("mockllm/worse", custom_outputs=worse)
    log = inspect_eval("poetone/zero_shot", model=model, limit=2, log_dir=str(tmp_path), display="none", task_args={"revise": 2})[0]
    for sample in log.samples:
        drafts = sample.store["drafts"]
        assert len(drafts) == 3 and sample.store["best_round"] == 0
        assert sample.scores["conformity"].value["conformity"] == pytest.approx(drafts[0]["conformity"])
        assert sample.output.completion == drafts[0]["answer"]
