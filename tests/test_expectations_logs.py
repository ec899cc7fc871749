"""poetone.logs against expectations written out by hand (issue 17).

The poems are 晏殊's 浣溪沙 「一向年光有限身」 (the resource's own example of the tune: it scores 1.0
on every score) and the same poem with its last rhyme 人 (第六部平) replaced by 来 (第五部平): every
character keeps its tone and the line count, so structure 1.0, tonal 1.0, rhyme 4/5 = 0.8 (one of
the five rhyme positions misses the rhyme group), conformity 0.4·1 + 0.3·1 + 0.3·0.8 = 0.94
(docs/lm-eval.md's weights). Every error message is the text written in this file, not taken from
the code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from poetone import logs
from poetone.logs import (
    Candidate,
    LogError,
    find_log_files,
    lm_eval_model,
    log_files,
    read_candidates,
    read_file,
    read_jsonl,
    read_runs,
)

YAN_SHU = "一向年光有限身。等闲离别易消魂。酒筵歌席莫辞频。\n满目山河空念远，落花风雨更伤春。不如怜取眼前人。"
OFF_RHYME = YAN_SHU[:-2] + "来。"  # 来 is 第五部: rhyme 4/5
UPPER = "一向年光有限身。等闲离别易消魂。酒筵歌席莫辞频。"
LOWER = "满目山河空念远，落花风雨更伤春。不如怜取眼前人。"
STAMP = "2026-01-01T00-00-00"

DOC = {
    "id": "zero_shot-huanxisha-love_longing",
    "strategy": "zero_shot",
    "cipai": "浣溪沙",
    "theme": "love_longing",
    "system": "你是一位词人。",
    "user": "请按《浣溪沙》填词。",
    "prompt_hash": "e864e1222b37",
    "band": "top",
}


def _line(doc: Any, answers: Any) -> str:
    return json.dumps(
        {"doc_id": 0, "doc": doc, "resps": [answers] if isinstance(answers, list) else answers}, ensure_ascii=False
    )


def _raw(doc: Any, resps: Any) -> str:
    return json.dumps({"doc": doc, "resps": resps}, ensure_ascii=False)


def _samples(folder: Path, lines: list[str], name: str = f"samples_songci_zeroshot_{STAMP}.jsonl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# --- the candidates of an lm-eval samples file ---------------------------------------------------


def test_every_response_of_a_line_is_a_candidate_with_the_docs_fields(tmp_path: Path) -> None:
    path = _samples(tmp_path / "my-model", [_line(DOC, [YAN_SHU, OFF_RHYME, ""])])
    found, _, skipped = read_file(path)
    assert skipped == []
    assert [c.epoch for c in found] == [1, 2, 3]
    first, second, third = found
    assert (first.conformity, first.structure, first.tonal, first.rhyme) == (1.0, 1.0, 1.0, 1.0)
    assert (second.conformity, second.structure, second.tonal, second.rhyme) == pytest.approx((0.94, 1.0, 1.0, 0.8))
    assert (third.conformity, third.structure, third.tonal, third.rhyme) == (0.0, 0.0, 0.0, 0.0)
    assert (first.valid, second.valid, third.valid) == (True, True, False)
    assert (first.poem, second.poem, third.poem) == (YAN_SHU, OFF_RHYME, "")
    assert [c.copied for c in found] == [False, False, False]
    assert (first.answer, second.answer, third.answer) == (YAN_SHU, OFF_RHYME, "")
    assert first.source == str(path)
    assert first.framework == "lm-eval"
    assert first.model == "my-model"  # no results file: the folder lm-eval names after the model
    assert first.prompt_id == "zero_shot-huanxisha-love_longing"
    assert first.strategy == "zero_shot"
    assert first.cipai == "浣溪沙"
    assert first.theme == "love_longing"
    assert first.system == "你是一位词人。"
    assert first.user == "请按《浣溪沙》填词。"
    assert first.prompt_hash == "e864e1222b37"
    assert first.profile == "default"
    assert first.extra == {"upper": "", "original_lower": "", "band": "top"}
    assert first.eligible and not third.eligible


def test_a_doc_without_the_optional_fields_gets_empty_ones(tmp_path: Path) -> None:
    doc = {"id": 7, "strategy": "zero_shot", "cipai": "浣溪沙", "profile": "paper"}
    (c,) = read_file(_samples(tmp_path / "m", [_line(doc, [YAN_SHU])]))[0]
    assert c.prompt_id == "7"
    assert (c.theme, c.system, c.user, c.prompt_hash) == ("", "", "", "")
    assert c.profile == "paper"
    assert c.extra == {"upper": "", "original_lower": "", "band": ""}


def test_a_completion_that_copies_the_original_lower_stanza_is_copied(tmp_path: Path) -> None:
    doc = {**DOC, "id": "c1", "strategy": "completion", "upper": UPPER, "original_lower": LOWER}
    (c,) = read_file(_samples(tmp_path / "m", [_line(doc, [LOWER])]))[0]
    assert c.copied is True
    assert (c.conformity, c.structure, c.tonal, c.rhyme) == (0.0, 0.0, 0.0, 0.0)
    assert not c.eligible
    assert c.extra == {"upper": UPPER, "original_lower": LOWER, "band": "top"}
    assert c.full_poem == UPPER + "\n" + LOWER


def test_an_answer_the_critic_fails_on_is_invalid_and_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = logs.score_answer

    def score(doc: Any, answer: str, critic: Any) -> Any:
        if answer == "boom":
            raise RuntimeError("the critic broke")
        return real(doc, answer, critic)

    monkeypatch.setattr(logs, "score_answer", score)
    path = _samples(tmp_path / "m", [_line(DOC, [YAN_SHU, "boom"])])
    found, _, skipped = read_file(path)
    assert skipped == [f"{path}, line 1: answer 2 scored as invalid (RuntimeError: the critic broke)"]
    assert [c.valid for c in found] == [True, False]
    bad = found[1]
    assert (bad.poem, bad.copied, bad.conformity, bad.structure, bad.tonal, bad.rhyme) == (
        "",
        False,
        0.0,
        0.0,
        0.0,
        0.0,
    )
    assert bad.answer == "boom"


# --- the messages of a bad line --------------------------------------------------------------------

BAD_LINES = [
    ('["doc", "resps"]', "a line must be a JSON object, not list"),
    ('{"resps": [["x"]]}', "'doc' must be an object, not NoneType"),
    ('{"doc": "浣溪沙", "resps": [["x"]]}', "'doc' must be an object, not str"),
    ('{"doc": {"id": "a"}, "resps": [["x"]]}', "doc has no strategy, cipai"),
    ('{"doc": {"strategy": "zero_shot", "cipai": "浣溪沙"}}', "doc has no id"),
    (_line({**DOC, "id": True}, ["x"]), "doc id must be a string, not bool"),
    (_line({**DOC, "id": 1.5}, ["x"]), "doc id must be a string, not float"),
    (_line({**DOC, "strategy": ""}, ["x"]), "doc strategy must be a non-empty string, not ''"),
    (_line({**DOC, "cipai": 3}, ["x"]), "doc cipai must be a non-empty string, not 3"),
    (_line({**DOC, "theme": 1, "upper": None}, ["x"]), "doc theme, upper must be text"),
    (_line({**DOC, "original_lower": []}, ["x"]), "doc original_lower must be text"),
    (_line({**DOC, "profile": "nope"}, ["x"]), "unknown profile 'nope'; expected one of default, paper, poetone-code"),
    (_line({**DOC, "profile": 3}, ["x"]), "unknown profile 3; expected one of default, paper, poetone-code"),
    (_line({**DOC, "cipai": "无此调"}, ["x"]), "unknown cipai '无此调'"),
    (json.dumps({"doc": DOC}), "'resps' must be a list of lists of answers, not null"),
    (_line(DOC, "一曲新词"), "'resps' must be a list of lists of answers, not \"一曲新词\""),
    (_raw(DOC, []), "'resps' must be a list of lists of answers, not []"),
    (_raw(DOC, [["a"], "b"]), '\'resps\' must be a list of lists of answers, not [["a"], "b"]'),
    (_raw(DOC, [[]]), "'resps' holds no answer"),
    (_raw(DOC, [[None]]), "'resps' must hold the answers as strings"),
    (_raw(DOC, [["a", 2]]), "'resps' must hold the answers as strings"),
]


@pytest.mark.parametrize(("line", "message"), BAD_LINES)
def test_a_bad_line_is_named_and_skipped(tmp_path: Path, line: str, message: str) -> None:
    path = _samples(tmp_path / "m", [line, _line(DOC, [YAN_SHU])])
    found, _, skipped = read_file(path)
    assert len(skipped) == 1
    assert skipped[0].startswith(f"{path}, line 1: not a poetone lm-eval sample ({message}")
    assert skipped[0].endswith(")")
    assert [c.prompt_id for c in found] == [DOC["id"]]


def test_the_resps_of_the_message_are_cut_at_80_characters(tmp_path: Path) -> None:
    path = _samples(tmp_path / "m", [_line(DOC, "词" * 100)])
    (message,) = read_file(path)[2]
    quoted = '"' + "词" * 79  # json.dumps gives the quote and 100 characters; 80 are kept
    assert (
        message
        == f"{path}, line 1: not a poetone lm-eval sample ('resps' must be a list of lists of answers, not {quoted})"
    )


# --- JSON lines ------------------------------------------------------------------------------------


def test_json_lines_name_each_bad_line_and_keep_the_good(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(
        b'{"a": 1}\n\n   \n'
        + b'{"a": "\xff"}\n'  # a bad byte at offset 7
        + b"[" * 100_000
        + b"\n"
        + b'{"a": 2\n'
        + b'{"a": "tab\there\x01"}\n'  # raw control characters in a string are kept
        + b'{"a": 3'  # torn
    )
    errors: list[str] = []
    assert list(read_jsonl(path, errors)) == [(1, {"a": 1}), (7, {"a": "tab\there\x01"})]
    assert errors == [
        f"{path}, line 4: not UTF-8 (byte 0xff at offset 7)",
        f"{path}, line 5: not JSON (nested too deeply)",
        f"{path}, line 6: not JSON (Expecting ',' delimiter)",
        f"{path}, line 8: not JSON (the file ends inside it: a torn last line) (Expecting ',' delimiter)",
    ]


def test_a_byte_order_mark_is_dropped_from_the_first_line_only(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n\xef\xbb\xbf{"a": 2}\n')
    errors: list[str] = []
    assert list(read_jsonl(path, errors)) == [(1, {"a": 1})]
    assert errors == [f"{path}, line 2: not JSON (Unexpected UTF-8 BOM (decode using utf-8-sig))"]


def test_a_file_that_cannot_be_opened_raises_at_once(tmp_path: Path) -> None:
    with pytest.raises(LogError) as caught:
        read_jsonl(tmp_path, [])  # a folder: no iteration needed for the error
    assert str(caught.value) == f"{tmp_path}: cannot be read (Is a directory)"


# --- finding the files ---------------------------------------------------------------------------


def test_find_log_files_lists_logs_and_samples_but_not_the_rest(tmp_path: Path) -> None:
    for name in (
        "a.eval", "b.json", "results_songci_x.json", f"samples_t_{STAMP}.jsonl", "other.jsonl", ".hidden.eval",
        "logs.json", "eval-set.json", "listing.json", "notes.txt", "mine.json", "s_t_1.jsonl", "samples_t.txt",
        "sub/c.eval",
    ):  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}", encoding="utf-8")
    (tmp_path / "d.eval").mkdir()  # a folder named like a log
    assert find_log_files([tmp_path]) == [
        (tmp_path / "a.eval", False),
        (tmp_path / "b.json", False),
        (tmp_path / "mine.json", False),
        (tmp_path / f"samples_t_{STAMP}.jsonl", False),
        (tmp_path / "sub" / "c.eval", False),
    ]
    assert find_log_files([tmp_path], samples_prefix="s_", skip=["mine.json"]) == [
        (tmp_path / "a.eval", False),
        (tmp_path / "b.json", False),
        (tmp_path / "s_t_1.jsonl", False),
        (tmp_path / "sub" / "c.eval", False),
    ]
    assert find_log_files([tmp_path / "notes.txt", str(tmp_path / "sub")]) == [
        (tmp_path / "notes.txt", True),
        (tmp_path / "sub" / "c.eval", False),
    ]
    assert log_files([tmp_path / "sub", tmp_path / "logs.json"]) == [
        tmp_path / "sub" / "c.eval",
        tmp_path / "logs.json",
    ]
    with pytest.raises(LogError) as caught:
        find_log_files([tmp_path / "gone"])
    assert str(caught.value) == f"{tmp_path / 'gone'}: no such file or folder"


# --- read_runs -----------------------------------------------------------------------------------


def test_read_runs_names_each_bad_file_and_reads_the_others(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = _samples(tmp_path / "m1", [_line(DOC, [YAN_SHU, OFF_RHYME])])
    second = _samples(tmp_path / "m2", [_line({**DOC, "id": "b"}, [OFF_RHYME])])
    empty = _samples(tmp_path / "m3", [])
    only_bad = _samples(tmp_path / "m4", ["[]"])
    notes = tmp_path / "notes.txt"
    notes.write_text("x", encoding="utf-8")
    candidates, runs, errors = read_runs([good, tmp_path / "gone", notes, empty, only_bad, second])
    assert [(c.source, c.epoch) for c in candidates] == [(str(good), 1), (str(good), 2), (str(second), 1)]
    assert [r.source for r in runs] == [str(good), str(second)]
    assert errors == [
        f"{tmp_path / 'gone'}: no such file or folder",
        f"{notes}: not an Inspect log (.eval, .json) or an lm-eval samples_*.jsonl file",
        f"{empty}: holds no samples",
        f"{only_bad}, line 1: not a poetone lm-eval sample (a line must be a JSON object, not list)",
    ]
    assert read_candidates([good, tmp_path / "gone"]) == (
        candidates[:2],
        [f"{tmp_path / 'gone'}: no such file or folder"],
    )

    real = logs.read_file

    def broken(path: Path) -> Any:
        if path == good:
            raise RuntimeError("x" * 300)
        return real(path)

    monkeypatch.setattr(logs, "read_file", broken)
    candidates, runs, errors = read_runs([good, second])  # the file after a broken one is still read
    assert [c.source for c in candidates] == [str(second)]
    assert [r.source for r in runs] == [str(second)]
    assert errors == [f"{good}: cannot be read (RuntimeError: {'x' * 200})"]


def test_a_file_of_more_than_20_bad_lines_names_20_and_counts_the_rest(tmp_path: Path) -> None:
    path = _samples(tmp_path / "m", ["[]"] * 23 + [_line(DOC, [YAN_SHU])])
    found, _, skipped = read_file(path)
    assert len(found) == 1
    assert len(skipped) == 21
    assert skipped[19] == f"{path}, line 20: not a poetone lm-eval sample (a line must be a JSON object, not list)"
    assert skipped[20] == f"{path}: 3 more bad lines skipped"


# --- the run of an lm-eval samples file ----------------------------------------------------------


def _results(folder: Path, data: Any, stamp: str = STAMP) -> None:
    (folder / f"results_{stamp}.json").write_text(json.dumps(data), encoding="utf-8")


def test_the_run_info_comes_from_the_results_file_of_the_same_run(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    path = _samples(
        folder,
        [
            _line(DOC, [YAN_SHU, YAN_SHU]),
            _line({**DOC, "id": "b", "prompt_hash": "aaa"}, [YAN_SHU]),
            _line({**DOC, "id": "c", "prompt_hash": ""}, [YAN_SHU]),
        ],
    )
    _results(folder, {"model_name": "wrong run"}, stamp="2025-01-01T00-00-00")  # sorts first, another run
    _results(folder, {
        "configs": {"songci_zeroshot": {"generation_kwargs": {"temperature": 0.7, "max_gen_toks": 512}, "repeats": 2}},
        "config": {"gen_kwargs": {"temperature": 1.0}, "model_args": "model=qwen,base_url=http://h/v1?a=b,trust_remote_code"},
        "date": 1767225600.5,
        "lm_eval_version": "0.4.9",
    })  # fmt: skip
    found, info, _ = read_file(path)
    assert {c.model for c in found} == {"qwen"}
    assert info.source == str(path)
    assert info.framework == "lm-eval"
    assert info.model == "qwen"
    assert info.task == "songci_zeroshot"
    assert info.created == "1767225600.5"
    assert info.samples == 3  # prompts, not answers
    assert info.epochs == 2
    assert info.generation == {"temperature": 1.0, "max_gen_toks": 512}  # the command line wins
    assert info.profile == "default"
    assert info.prompt_hashes == ["aaa", "e864e1222b37"]
    assert info.versions == {"lm_eval": "0.4.9"}


def test_a_run_without_a_results_file(tmp_path: Path) -> None:
    path = _samples(tmp_path / "folder-model", [_line({**DOC, "profile": "paper"}, [YAN_SHU])])
    _, info, _ = read_file(path)
    assert (info.model, info.created, info.epochs, info.generation) == ("folder-model", "", 1, {})
    assert info.profile == "paper"
    assert info.versions == {"lm_eval": ""}


def test_the_run_info_of_a_file_of_bad_lines_only(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    path = _samples(folder, ["[]"])
    _results(folder, {"config": {"model": "hf"}, "configs": {"songci_zeroshot": {"repeats": "3"}}, "date": None})
    found, info, _ = read_file(path)
    assert found == []
    assert (info.model, info.samples, info.epochs, info.profile, info.prompt_hashes, info.created) == (
        "hf",
        0,
        1,
        "default",
        [],
        "",
    )


@pytest.mark.parametrize(
    ("data", "model"),
    [
        ({"config": {"model_args": {"model": "a", "pretrained": "b"}, "model": "e"}, "model_name": "d"}, "a"),
        ({"config": {"model_args": {"pretrained": "b"}, "model": "e"}, "model_name": "d"}, "b"),
        ({"config": {"model_args": "pretrained=b=c,dtype=auto", "model": "e"}}, "b=c"),
        ({"config": {"model_args": "", "model": "e"}, "model_name": "d"}, "d"),
        ({"config": {"model_args": 3, "model": "e"}}, "e"),
        ({"config": "x", "model_name": "d"}, "d"),
        ({"config": {"model": ""}, "model_name": ""}, "run-folder"),
        (["not", "an", "object"], "run-folder"),
        ("not JSON", "run-folder"),
    ],
)
def test_the_model_of_a_samples_file(tmp_path: Path, data: Any, model: str) -> None:
    folder = tmp_path / "run-folder"
    path = _samples(folder, [])
    if data == "not JSON":
        (folder / f"results_{STAMP}.json").write_text("{", encoding="utf-8")
    else:
        _results(folder, data)
    assert lm_eval_model(path) == model


# --- Candidate -----------------------------------------------------------------------------------


def _candidate(strategy: str, poem: str, upper: Any = None, valid: bool = True, copied: bool = False) -> Candidate:
    extra = {} if upper is None else {"upper": upper}
    return Candidate(
        "f",
        "lm-eval",
        "m",
        "p",
        strategy,
        "浣溪沙",
        "t",
        1,
        "",
        "",
        "",
        poem,
        valid,
        copied,
        1.0,
        1.0,
        1.0,
        1.0,
        extra=extra,
    )


def test_full_poem_and_eligible() -> None:
    assert _candidate("zero_shot", " 诗 \n", upper="上").full_poem == " 诗 \n"  # not a completion: as written
    assert _candidate("completion", " 下阕 \n", upper="  上阕 \n").full_poem == "上阕\n下阕"
    assert _candidate("completion", " 下阕 \n", upper=" ").full_poem == "下阕"
    assert _candidate("completion", " 下阕 \n").full_poem == "下阕"
    assert [
        _candidate("zero_shot", "", valid=v, copied=c).eligible
        for v, c in [(True, False), (True, True), (False, False), (False, True)]
    ] == [True, False, False, False]


def test_the_profile_named_by_a_doc_scores_its_answers(tmp_path: Path) -> None:
    # The paper profile reads tones in Mandarin: 席 (an entering-tone character, 仄 in the classical
    # tones) is xí, level (平), where 浣溪沙 wants 仄 at line 3, position 4. One of 42 characters off:
    # tonal 41/42; with 来's rhyme 4/5, conformity 0.4·1 + 0.3·41/42 + 0.3·0.8.
    paper = {**DOC, "profile": "paper"}
    found = read_file(_samples(tmp_path / "m", [_line(paper, [OFF_RHYME]), _line(DOC, [OFF_RHYME])]))[0]
    assert (found[0].tonal, found[0].rhyme) == pytest.approx((41 / 42, 0.8))
    assert found[0].conformity == pytest.approx(0.4 + 0.3 * 41 / 42 + 0.3 * 0.8)
    assert found[1].conformity == pytest.approx(0.94)  # the default profile: classical tones


def test_reading_shows_one_step_per_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []

    class Recorder:
        def __init__(self, description: str, total: Any = None) -> None:
            calls.append(("start", description, total))

        def __enter__(self) -> Recorder:
            return self

        def __exit__(self, *exc: Any) -> None:
            calls.append(("end",))

        def advance(self, amount: float = 1, detail: str | None = None) -> None:
            calls.append(("advance", amount, detail))

    monkeypatch.setattr(logs, "Progress", Recorder)
    a = _samples(tmp_path / "a", [_line(DOC, [YAN_SHU])])
    b = _samples(tmp_path / "b", ["[]"], name="samples_t_1.jsonl")
    read_runs([a, b])
    assert calls == [
        ("start", "reading logs", 2),
        ("advance", 0, a.name),
        ("advance", 1, None),
        ("advance", 0, "samples_t_1.jsonl"),
        ("advance", 1, None),
        ("end",),
    ]


def test_a_line_that_is_not_json_is_named_by_read_file(tmp_path: Path) -> None:
    # a 5,000-digit number: json.loads raises a plain ValueError (Python's 4,300-digit limit on
    # int conversion), which has no .msg, so the message quotes the error itself
    path = _samples(tmp_path / "m", ["{", "1" * 5000, _line(DOC, [YAN_SHU])])
    found, _, skipped = read_file(path)
    assert len(found) == 1
    assert skipped[0] == f"{path}, line 1: not JSON (Expecting property name enclosed in double quotes)"
    assert skipped[1].startswith(
        f"{path}, line 2: not JSON (Exceeds the limit (4300 digits) for integer string conversion"
    )


def test_the_model_of_a_file_named_without_a_stamp(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    path = _samples(folder, [], name="answers.jsonl")  # no "_": the whole stem is the stamp
    (folder / "results_answers.json").write_text(json.dumps({"model_name": "named"}), encoding="utf-8")
    assert lm_eval_model(path) == "named"
