"""poetone.logs at its thresholds and on both sides of each choice (issue 17).

Inspect logs are written here with inspect_ai's own classes (no eval is run), so every score they
hold is a literal of this file; the one the reader scores itself is 晏殊's 浣溪沙 with 来 for its last
rhyme 人 (第五部 for 第六部): structure 1.0, tonal 1.0, rhyme 4/5 = 0.8, conformity
0.4·1 + 0.3·1 + 0.3·0.8 = 0.94 (docs/lm-eval.md's weights).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalPlan, EvalSample, EvalSpec, write_eval_log
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, ModelOutput
from inspect_ai.scorer import Score

from poetone.logs import MAX_LINE_ERRORS, LogError, capped, read_file, read_runs

YAN_SHU = "一向年光有限身。等闲离别易消魂。酒筵歌席莫辞频。\n满目山河空念远，落花风雨更伤春。不如怜取眼前人。"
OFF_RHYME = YAN_SHU[:-2] + "来。"


# --- capped: 20 messages named, the 21st counted ---------------------------------------------------


def test_the_cap_is_20_messages() -> None:
    assert MAX_LINE_ERRORS == 20
    twenty = [f"m{i}" for i in range(20)]
    assert capped(Path("f"), twenty) == twenty
    assert capped(Path("f"), [*twenty, "m20"]) == [*twenty, "f: 1 more bad lines skipped"]
    assert capped(Path("f"), ["a", "b"], limit=2) == ["a", "b"]
    assert capped(Path("f"), ["a", "b", "c", "d"], limit=2) == ["a", "b", "f: 2 more bad lines skipped"]


# --- read_file chooses the reader by name ----------------------------------------------------------


@pytest.mark.parametrize("name", ["sample_x.jsonl", "samples_x.txt", "x.jsonl", "x.evals"])
def test_a_file_of_neither_kind_is_refused_by_name(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text('{"doc": {}}\n', encoding="utf-8")
    with pytest.raises(LogError) as caught:
        read_file(path)
    assert str(caught.value) == f"{path}: not an Inspect log (.eval, .json) or an lm-eval samples_*.jsonl file"


@pytest.mark.parametrize("name", ["x.eval", "x.json", "samples_x.json"])
def test_eval_and_json_files_are_read_as_inspect_logs(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("not a log", encoding="utf-8")
    with pytest.raises(LogError) as caught:
        read_file(path)
    assert str(caught.value).startswith(f"{path}: not a readable Inspect log (")


def test_an_unreadable_inspect_log_message_quotes_200_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import inspect_ai.log

    def broken(path: str) -> Any:
        raise OSError("y" * 300)

    monkeypatch.setattr(inspect_ai.log, "read_eval_log", broken)
    path = tmp_path / "x.eval"
    with pytest.raises(LogError) as caught:
        read_file(path)
    assert str(caught.value) == f"{path}: not a readable Inspect log (OSError: {'y' * 200})"


# --- Inspect logs written by hand ------------------------------------------------------------------

SCORED = {"conformity": 0.94, "structure": 1.0, "tonal": 1.0, "rhyme": 0.8, "invalid": 0.0}


def _sample(sid: str, epoch: int = 1, meta: dict[str, Any] | None = None, **kw: Any) -> EvalSample:
    meta = {"strategy": "zero_shot", "cipai": "浣溪沙"} if meta is None else meta
    fields: dict[str, Any] = {
        "id": sid,
        "epoch": epoch,
        "input": [ChatMessageSystem(content="系统"), ChatMessageUser(content="用户")],
        "target": "",
        "metadata": meta,
        "output": ModelOutput.from_content("m", OFF_RHYME),
        **kw,
    }
    return EvalSample(**fields)


def _log(
    path: Path, samples: list[EvalSample], task: str = "poetone/songci", epochs: int | None = 2, meta: Any = None
) -> Path:
    spec = EvalSpec(
        created="2026-01-01T00:00:00+00:00",
        task=task,
        dataset=EvalDataset(),
        model="openai/qwen",
        config=EvalConfig(epochs=epochs),
        metadata=meta,
        model_generate_config=GenerateConfig(temperature=1.0),
        packages={"inspect_ai": "0.3.1"},
    )
    plan = EvalPlan(config=GenerateConfig(temperature=0.7, max_tokens=512))
    write_eval_log(EvalLog(eval=spec, plan=plan, samples=samples, status="success"), str(path))
    return path


def test_an_inspect_log_keeps_its_scores_and_its_run(tmp_path: Path) -> None:
    meta = {
        "strategy": "completion",
        "cipai": "浣溪沙",
        "theme": "离愁",
        "prompt_hash": "h2",
        "upper": "上",
        "original_lower": "原",
        "band": "b",
        "profile": "paper",
    }
    samples = [
        _sample("p1", 2, scores={"conformity": Score(value=SCORED, answer="诗", metadata={"valid": True, "copied": 1.0}),
                                 "songci_judge": Score(value={"流畅": 4, "意境": 3.5})}),
        _sample("p2", 1, meta=meta, scores={"conformity": Score(value={**SCORED, "invalid": 1.0}, answer=None),
                                            "songci_judge": Score(value=3)}),
        _sample("p3", 1, meta={"strategy": "zero_shot", "cipai": "浣溪沙", "prompt_hash": "h1"},
                scores={"conformity": Score(value={**SCORED, "invalid": 0.0}, metadata={"copied": 0.0})}),
    ]  # fmt: skip
    path = _log(tmp_path / "a.eval", samples, meta={"profile": "poetone-code"})
    found, info, skipped = read_file(path)
    assert skipped == []
    first, second, third = sorted(found, key=lambda c: c.prompt_id)  # Inspect keeps them by epoch
    assert (first.source, first.framework, first.model, first.prompt_id, first.epoch) == (
        str(path),
        "inspect",
        "openai/qwen",
        "p1",
        2,
    )
    assert (first.strategy, first.cipai, first.theme, first.system, first.user) == (
        "zero_shot",
        "浣溪沙",
        "",
        "系统",
        "用户",
    )
    assert (first.answer, first.poem, first.valid, first.copied) == (OFF_RHYME, "诗", True, True)
    assert (first.conformity, first.structure, first.tonal, first.rhyme) == (0.94, 1.0, 1.0, 0.8)
    assert first.profile == "poetone-code"  # the sample names none: the log's
    assert first.prompt_hash == ""
    assert first.extra == {"upper": "", "original_lower": "", "band": "", "judge": {"流畅": 4.0, "意境": 3.5}}
    assert (second.valid, second.copied, second.poem) == (False, False, "")  # no metadata: invalid 1.0
    assert (second.strategy, second.theme, second.prompt_hash, second.profile) == ("completion", "离愁", "h2", "paper")
    assert second.extra == {"upper": "上", "original_lower": "原", "band": "b"}  # a judge score that is not a dict
    assert (third.valid, third.copied) == (True, False)  # no "valid": invalid 0.0
    assert info.source == str(path)
    assert info.framework == "inspect"
    assert info.model == "openai/qwen"
    assert info.task == "poetone/songci"
    assert info.created == "2026-01-01T00:00:00+00:00"
    assert info.samples == 3
    assert info.epochs == 2
    assert info.generation == {"temperature": 1.0, "max_tokens": 512}  # the command line wins over the plan
    assert info.profile == "poetone-code"
    assert info.prompt_hashes == ["h1", "h2"]
    assert info.versions == {"inspect_ai": "0.3.1"}


def test_an_unscored_sample_is_scored_here(tmp_path: Path) -> None:
    samples = [
        _sample("p1", meta={"strategy": "zero_shot", "cipai": "浣溪沙", "profile": "default"}),
        _sample("p2", input="只有用户", output=ModelOutput(model="m", choices=[]), scores={"other": Score(value=1.0)}),
        _sample("p3", scores={"conformity": Score(value=0.5)}),  # not a dict: scored here
    ]
    path = _log(tmp_path / "a.eval", samples, epochs=None, meta={"profile": "paper"})
    found, info, skipped = read_file(path)
    assert skipped == []
    first, second, third = sorted(found, key=lambda c: c.prompt_id)
    assert (first.conformity, first.structure, first.tonal, first.rhyme) == pytest.approx((0.94, 1.0, 1.0, 0.8))
    assert (first.valid, first.copied, first.poem, first.profile) == (True, False, OFF_RHYME, "default")  # the sample's
    assert (second.system, second.user, second.answer, second.valid, second.poem) == ("", "只有用户", "", False, "")
    assert (second.conformity, second.profile) == (0.0, "paper")  # the log's
    assert third.conformity == pytest.approx(0.94)
    assert (info.epochs, info.profile, info.prompt_hashes) == (1, "paper", [])


def test_a_bad_sample_is_named_and_the_others_kept(tmp_path: Path) -> None:
    samples = [
        _sample("ok"),
        _sample("cipai", meta={"strategy": "zero_shot", "cipai": "无此调"}),
        _sample("profile", 3, meta={"strategy": "zero_shot", "cipai": "浣溪沙", "profile": "nope"}),
        _sample("nometa", meta={}),
        _sample("notext", meta={"strategy": "zero_shot", "cipai": 5}),
        _sample("nostrategy", meta={"strategy": 1, "cipai": "浣溪沙"}),
        _sample("key", scores={"conformity": Score(value={"conformity": 1.0})}),
    ]
    path = _log(tmp_path / "a.eval", samples)
    found, _, skipped = read_file(path)
    assert [c.prompt_id for c in found] == ["ok"]
    no_meta = "not a poetone Songci sample (no strategy/cipai metadata)"
    assert sorted(skipped) == [
        f"{path}, sample 'cipai' epoch 1: skipped (unknown cipai '无此调'; closest: 水调歌头, 无闷, 古调笑)",
        f"{path}, sample 'key' epoch 1: skipped (KeyError: 'structure')",
        f"{path}, sample 'nometa' epoch 1: skipped ({no_meta})",
        f"{path}, sample 'nostrategy' epoch 1: skipped ({no_meta})",
        f"{path}, sample 'notext' epoch 1: skipped ({no_meta})",
        f"{path}, sample 'profile' epoch 3: skipped (ValueError: unknown profile 'nope'; expected one of default, paper, poetone-code)",
    ]


@pytest.mark.parametrize(
    "metas",
    [[{}], [{"strategy": "zero_shot"}], [{"cipai": "浣溪沙"}], [{"strategy": "zero_shot"}, {"cipai": "浣溪沙"}]],
)
def test_a_log_with_no_songci_sample_is_refused(tmp_path: Path, metas: list[dict[str, Any]]) -> None:
    path = _log(tmp_path / "a.eval", [_sample(f"s{i}", meta=m) for i, m in enumerate(metas)])
    candidates, runs, errors = read_runs([path])
    assert (candidates, runs) == ([], [])
    assert errors == [f"{path}: not a poetone Songci log (no sample has strategy/cipai metadata)"]


def test_one_songci_sample_is_enough_for_a_songci_log(tmp_path: Path) -> None:
    only_system = [ChatMessageSystem(content="系统")]
    path = _log(tmp_path / "a.eval", [_sample("x", meta={"strategy": "zero_shot"}), _sample("ok", input=only_system)])
    found, info, skipped = read_file(path)
    assert [c.prompt_id for c in found] == ["ok"]
    assert len(skipped) == 1
    assert (found[0].system, found[0].user) == ("系统", "")  # no user message
    assert found[0].profile == info.profile == "default"  # neither the sample nor the log names one


def test_a_bazi_log_and_an_empty_log_are_refused(tmp_path: Path) -> None:
    bazi = _log(tmp_path / "b.eval", [_sample("ok")], task="poetone/bazi_theory")
    empty = _log(tmp_path / "e.eval", [])
    _, _, errors = read_runs([bazi, empty])
    assert errors == [
        f"{bazi}: a BaZi log (poetone/bazi_theory): report it with `poetone bazi report`",
        f"{empty}: the Inspect log holds no samples (status success)",
    ]


def test_valid_and_copied_from_the_scores_metadata_win_over_the_value(tmp_path: Path) -> None:
    samples = [
        _sample("a", scores={"conformity": Score(value=SCORED, metadata={"valid": False})}),  # invalid 0.0 says valid
        _sample("b", scores={"conformity": Score(value={**SCORED, "invalid": 1.0}, metadata={"valid": True})}),
    ]
    found = sorted(read_file(_log(tmp_path / "a.eval", samples, meta={"other": 1}))[0], key=lambda c: c.prompt_id)
    assert [c.valid for c in found] == [False, True]
    assert [c.profile for c in found] == ["default", "default"]  # the log's metadata names no profile
    assert read_file(tmp_path / "a.eval")[1].profile == "default"


def test_an_unscored_completion_that_copies_the_original_is_copied(tmp_path: Path) -> None:
    upper, lower = YAN_SHU.split("\n")
    meta = {"strategy": "completion", "cipai": "浣溪沙", "upper": upper, "original_lower": lower}
    samples = [_sample("c", meta=meta, output=ModelOutput.from_content("m", lower)), _sample("z")]
    found = sorted(read_file(_log(tmp_path / "a.eval", samples))[0], key=lambda c: c.prompt_id)
    assert [(c.prompt_id, c.copied) for c in found] == [("c", True), ("z", False)]
    assert found[0].conformity == 0.0
    assert found[0].full_poem == YAN_SHU


def test_more_than_20_bad_samples_are_capped(tmp_path: Path) -> None:
    bad = [_sample(f"s{i:02}", meta={"strategy": "zero_shot", "cipai": "无此调"}) for i in range(22)]
    path = _log(tmp_path / "a.eval", [*bad, _sample("ok")])
    found, _, skipped = read_file(path)
    assert [c.prompt_id for c in found] == ["ok"]
    assert len(skipped) == 21
    assert skipped[20] == f"{path}: 2 more bad lines skipped"
