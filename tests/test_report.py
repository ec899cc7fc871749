"""``poetone report`` on logs built here: numbers equal direct computation, intervals cover at the
nominal rate, Holm is applied, figures are written."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from openai_stub import OpenAIStub

from poetone.cli import main as cli_main
from poetone.reference import answer_for_message
from poetone.report import build_report
from poetone.stats import bootstrap_ci, holm, paired_bootstrap

TASK_ARGS = {"strategy": "zero_shot,completion", "cipai": "浣溪沙,念奴娇,卜算子,菩萨蛮"}


def _output(text: str) -> ModelOutput:
    out = ModelOutput.from_content("m", text)
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out


def _weak(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
    """A weaker 'model': drops characters from the authentic poem, and refuses some prompts."""
    user = next(m.text for m in input if m.role == "user")
    if "哲理" in user:
        return _output("抱歉，我写不出来。")
    poem = answer_for_message(user)
    return _output(poem[: len(poem) - 1 - len(user) % 5])


def _grader(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
    prompt = input[0].text
    if "菩萨蛮" in prompt:
        return _output("无法评分")  # invalid, twice
    level = 2 + len(prompt) % 4
    return _output(f'{{"流畅": {level}, "连贯": {min(5, level + 1)}, "意境": {level}}}')


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report-logs")
    grader = get_model("mockllm/grader", custom_outputs=_grader)
    runs = [
        ("poetone/reference", {"epochs": 1, "task_args": {**TASK_ARGS, "judge": True}, "model_roles": {"grader": grader}}),
        (get_model("mockllm/weak", custom_outputs=_weak), {"epochs": 2, "task_args": TASK_ARGS}),
    ]
    for model, kwargs in runs:
        (log,) = inspect_eval("poetone/songci", model=model, log_dir=str(folder), display="none", **kwargs)
        assert log.status == "success", log.error
    return folder


@pytest.fixture(scope="module")
def report(logs: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    out = tmp_path_factory.mktemp("report-out")
    return build_report([logs], out, n_boot=2000, seed=1), out


def _direct(logs: Path) -> dict[tuple[str, str], dict[str, list[float]]]:
    """Per (model, strategy): per prompt the epoch mean of conformity and of invalid, and the best."""
    out: dict[tuple[str, str], dict[str, list[float]]] = {}
    for path in sorted(logs.glob("*.eval")):
        log = read_eval_log(str(path))
        per: dict[tuple[str, str], list[dict[str, float]]] = defaultdict(list)
        for s in log.samples:
            per[(s.metadata["strategy"], str(s.id))].append(s.scores["conformity"].value)
        for (strategy, _), values in sorted(per.items()):
            d = out.setdefault((log.eval.model, strategy), defaultdict(list))
            d["avg"].append(fmean(v["conformity"] for v in values))
            d["best"].append(max(v["conformity"] for v in values))
            d["invalid"].append(fmean(v["invalid"] for v in values))
            d["tonal"].append(fmean(v["tonal"] for v in values))
    return out


def _table(report: Any, name: str) -> Any:
    return next(t for t in report.tables if t.name == name)


CHANCE = "(chance: random characters in the form)"


def _model_rows(rep: Any) -> list[dict[str, Any]]:
    """The main table's rows of the runs, without the chance reference row."""
    rows = _table(rep, "main").rows
    assert rows[-1]["model"] == CHANCE  # every report carries it, last
    return rows[:-1]


def test_main_table_equals_direct_computation(report: tuple[Any, Path], logs: Path) -> None:
    rep, _ = report
    direct = _direct(logs)
    rows = {(r["model"], r["strategy"]): r for r in _model_rows(rep)}
    assert set(rows) == set(direct) and len(rows) == 4
    for key, d in direct.items():
        row = rows[key]
        assert row["prompts"] == len(d["avg"]) == 24
        assert row["conformity_avg"]["mean"] == pytest.approx(fmean(d["avg"]))
        assert row["invalid_rate"]["mean"] == pytest.approx(fmean(d["invalid"]))
        iv = bootstrap_ci(d["avg"], n_boot=2000, seed=1)
        assert (row["conformity_avg"]["low"], row["conformity_avg"]["high"]) == pytest.approx((iv.low, iv.high))
        if key[0] == "mockllm/weak":
            assert row["epochs"] == 2 and row["conformity_best"]["mean"] == pytest.approx(fmean(d["best"]))
            assert row["invalid_rate"]["mean"] == pytest.approx(4 / 24)  # the 哲理 prompts
        else:
            assert row["conformity_best"] is None
    comps = {(r["model"], r["strategy"]): r for r in _table(rep, "components").rows}
    for key, d in direct.items():
        assert comps[key]["tonal"]["mean"] == pytest.approx(fmean(d["tonal"]))


def test_main_table_carries_the_chance_level(report: tuple[Any, Path], logs: Path) -> None:
    """Every prompt of the report counts its cipai's chance level: random text in the 正体's shape."""
    from poetone import Critic
    from poetone.validation import random_in_shape

    rep, _ = report
    chance = _table(rep, "main").rows[-1]
    assert chance["model"] == CHANCE and chance["epochs"] == 200
    critic = Critic()
    prompt_cipai = {str(s.id): s.metadata["cipai"] for path in sorted(logs.glob("*.eval")) for s in read_eval_log(str(path)).samples}
    per = {c: fmean(critic.score(c, t).conformity for t in random_in_shape(critic, c, 200, 1)) for c in set(prompt_cipai.values())}
    assert chance["prompts"] == len(prompt_cipai)
    assert chance["conformity_avg"]["mean"] == pytest.approx(fmean(per[c] for c in prompt_cipai.values()))
    assert 0.5 < chance["conformity_avg"]["mean"] < 0.8


def test_breakdowns_by_cipai_and_theme(report: tuple[Any, Path], logs: Path) -> None:
    rep, _ = report
    by_cipai = {(r["model"], r["cipai"]): r for r in _table(rep, "by_cipai").rows}
    assert {c for _, c in by_cipai} == {"浣溪沙", "念奴娇", "卜算子", "菩萨蛮"}
    assert all(r["prompts"] == 12 for r in by_cipai.values())
    by_theme = _table(rep, "by_theme").rows
    assert all(r["prompts"] == 8 for r in by_theme)
    weak_philosophy = next(r for r in by_theme if r["model"] == "mockllm/weak" and r["theme"] == "philosophical_reflection")
    assert weak_philosophy["conformity"]["mean"] == 0.0


def test_judge_table_counts_invalid_judgments_and_averages_the_rest(report: tuple[Any, Path], logs: Path) -> None:
    rep, _ = report
    rows = {(r["model"], r["strategy"]): r for r in _table(rep, "judge").rows}
    assert set(rows) == {("poetone/reference", "zero_shot"), ("poetone/reference", "completion")}
    log = read_eval_log(str(next(p for p in sorted(logs.glob("*.eval")) if "reference" in read_eval_log(str(p), header_only=True).eval.model)))
    for strategy in ("zero_shot", "completion"):
        values = [s.scores["songci_judge"].value for s in log.samples if s.metadata["strategy"] == strategy]
        valid = [v["fluency"] for v in values if v["fluency"] == v["fluency"]]
        row = rows[("poetone/reference", strategy)]
        assert row["judged"] == len(valid) == 18
        assert row["invalid_judgments"] == 6  # 菩萨蛮: one grader, invalid twice over, per prompt
        assert row["fluency"]["mean"] == pytest.approx(fmean(valid))


def test_paired_comparisons_and_holm(report: tuple[Any, Path], logs: Path) -> None:
    rep, _ = report
    table = _table(rep, "comparisons")
    direct = _direct(logs)
    models = [r for r in table.rows if r["comparison"] == "models"]
    assert {r["within"] for r in models} == {"zero_shot", "completion"}
    for row in models:
        a, b = direct[(row["a"], row["within"])]["avg"], direct[(row["b"], row["within"])]["avg"]
        expected = paired_bootstrap(a, b, n_boot=2000, seed=1)
        assert row["pairs"] == 24
        assert row["difference"]["mean"] == pytest.approx(expected.mean_diff)
        assert row["p_wilcoxon"] == pytest.approx(expected.p_wilcoxon)
    strategies = [r for r in table.rows if r["comparison"] == "strategies"]
    assert len(strategies) == 2 and all(r["pairs"] == 24 for r in strategies)
    assert [r["p_wilcoxon_holm"] for r in table.rows] == pytest.approx(holm([r["p_wilcoxon"] for r in table.rows]))
    assert [r["p_bootstrap_holm"] for r in table.rows] == pytest.approx(holm([r["p_bootstrap"] for r in table.rows]))
    weak_vs_ref = next(r for r in models if r["within"] == "zero_shot")
    assert weak_vs_ref["p_wilcoxon_holm"] < 0.05  # a real difference is found


def test_files_figures_and_record(report: tuple[Any, Path]) -> None:
    rep, out = report
    for name in ("heatmap_conformity.png", "components.png"):
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "Table 1" in md and "Reporting record" in md and "heatmap_conformity.png" in md
    assert "<table>" in (out / "report.html").read_text(encoding="utf-8")
    with (out / "main.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    table_rows = _table(rep, "main").rows
    assert [float(r["conformity_avg"]) for r in rows] == pytest.approx([r["conformity_avg"]["mean"] for r in table_rows])
    record = json.loads((out / "record.json").read_text(encoding="utf-8"))
    assert record["poetone_version"] and len(record["cipai_resource_hash"]) == 12
    assert record["prompt_hashes_in_logs"] == [record["prompt_hash_current"]]
    assert {r["model"] for r in record["runs"]} == {"poetone/reference", "mockllm/weak"}
    assert all(r["generation"]["temperature"] == 0.7 and r["created"] for r in record["runs"])
    assert sorted(r["epochs"] for r in record["runs"]) == [1, 2]
    assert "scores 0" in record["invalid_outputs"] and record["critic_profiles"] == ["default"]


def test_bad_and_missing_logs_are_named_and_the_rest_reported(logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "torn.eval").write_bytes(b"PK\x03\x04 torn")
    status = cli_main(["report", str(logs), str(bad), str(tmp_path / "missing"), "--out", str(tmp_path / "out"), "--bootstrap", "200"])
    assert status == 1
    err = capsys.readouterr().err
    assert "torn.eval" in err and "missing: no such file or folder" in err
    assert (tmp_path / "out" / "report.md").exists()
    with pytest.raises(ValueError, match="nothing to report"):
        build_report([bad], tmp_path / "none")


def test_report_reads_a_local_server_run_and_lm_eval_style_samples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIStub(lambda m: answer_for_message(next(x["content"] for x in m if x["role"] == "user"))) as stub:
        monkeypatch.setenv("REPSTUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("REPSTUB_API_KEY", "test")
        (log,) = inspect_eval("poetone/one_shot", model="openai-api/repstub/stub", limit=6, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success"
    rep = build_report([tmp_path / "logs"], tmp_path / "out", n_boot=500)
    (row,) = _model_rows(rep)
    assert row["model"] == "openai-api/repstub/stub" and row["prompts"] == 6
    assert row["conformity_avg"]["mean"] == pytest.approx(fmean(s.scores["conformity"].value["conformity"] for s in log.samples))


def test_bootstrap_intervals_cover_the_truth_at_about_the_nominal_rate() -> None:
    """A seeded simulation: conformity-like scores from a Beta(8, 2), true mean 0.8, n = 60."""
    rng = np.random.default_rng(2026)
    trials, covered = 400, 0
    for i in range(trials):
        values = rng.beta(8, 2, size=60)
        iv = bootstrap_ci(values, n_boot=1000, seed=i)
        covered += iv.low <= 0.8 <= iv.high
    assert 0.91 <= covered / trials <= 0.98, covered / trials


def test_holm_on_a_known_example() -> None:
    # Holm (1979)-style worked example: p = .01, .04, .03, .005 with m = 4
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_json_logs_and_judge_calibration_logs(tmp_path: Path) -> None:
    def discerning(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        from poetone.corpus import load_records

        level = 5 if any(r["text"].strip() in input[0].text for r in load_records()) else 2
        return _output(f'{{"流畅": {level}, "连贯": {level}, "意境": 3}}')

    judge_model = get_model("mockllm/judge", custom_outputs=discerning)
    (cal,) = inspect_eval("poetone/judge_calibration", model=judge_model, task_args={"cipai": "浣溪沙,念奴娇,卜算子,菩萨蛮"},
                          log_dir=str(tmp_path / "logs"), log_format="json", display="none")  # fmt: skip
    (run,) = inspect_eval("poetone/zero_shot", model="poetone/reference", limit=5, log_dir=str(tmp_path / "logs"), log_format="json", display="none")
    assert cal.status == run.status == "success"
    assert sorted(p.suffix for p in (tmp_path / "logs").iterdir()) == [".json", ".json"]
    rep = build_report([tmp_path / "logs"], tmp_path / "out", n_boot=300)
    (main,) = _model_rows(rep)
    assert main["prompts"] == 5
    rows = {(r["degradation"], r["dimension"]): r for r in _table(rep, "judge_calibration").rows}
    assert len(rows) == 2 * 3 and all(r["pairs"] == 24 for r in rows.values())
    assert rows[("replace_chars", "fluency")]["authentic_higher"]["mean"] == 1.0
    assert rows[("replace_chars", "fluency")]["verdict"] == "trusted"
    assert rows[("shuffle_lines", "yijing")]["authentic_higher"]["mean"] == 0.0  # 3 against 3: a tie
    assert rows[("shuffle_lines", "yijing")]["verdict"].startswith("NOT TRUSTED")
    assert "NOT TRUSTED" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
