"""Nothing a user feeds in is lost (issue 14): batch scoring and log reading, one test per class of bad input.

Each test feeds what a careless or hostile user would and checks that the bad part is named, the
rest is kept, and the output stays readable.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from poetone.cli import main

ROOT = Path(__file__).resolve().parents[1]
HUANXISHA = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？\n无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
GOOD = json.dumps({"cipai": "浣溪沙", "text": HUANXISHA}, ensure_ascii=False).encode()


def _no_constant(name: str) -> Any:
    raise AssertionError(f"the output holds {name}, which is not JSON")


def strict_rows(data: bytes) -> list[dict[str, Any]]:
    """The output as a strict reader sees it: UTF-8 without surrogates, JSON without NaN, one object a line."""
    text = data.decode("utf-8")  # strict: a raw surrogate or a bad byte fails here
    assert not any("\ud800" <= ch <= "\udfff" for ch in text)
    lines = text.split("\n")
    assert lines[-1] == ""
    return [json.loads(line, parse_constant=_no_constant) for line in lines[:-1]]


def score_file(tmp_path: Path, data: bytes, *extra: str) -> tuple[int, list[dict[str, Any]], str]:
    src = tmp_path / "in.jsonl"
    src.write_bytes(data)
    out = tmp_path / "out.jsonl"
    code = main(["score", "--jsonl", str(src), "--out", str(out), *extra])
    return code, strict_rows(out.read_bytes()), ""


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("CI", None)
    return subprocess.run(
        [sys.executable, "-m", "poetone.cli", *args], input=stdin, capture_output=True, env=env, timeout=120
    )


# --- score --jsonl: one output line per input line ---------------------------------------------------


def test_an_undecodable_byte_costs_only_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [GOOD] * 200
    lines[99] = b'{"cipai": "\xff\xfe", "text": "x"}'
    code, rows, _ = score_file(tmp_path, b"\n".join(lines) + b"\n")
    err = capsys.readouterr().err
    assert code == 1
    assert len(rows) == 200
    assert "error" in rows[99] and "not UTF-8" in rows[99]["error"] and rows[99]["line"] == 100
    assert "\\xff" in rows[99]["raw"]  # the line kept as it was, escaped
    assert all(r["conformity"] == 1.0 for i, r in enumerate(rows) if i != 99)
    assert "line 100: not UTF-8" in err and "199 poems, 1 lines failed" in err


@pytest.mark.parametrize(
    "line",
    [
        b'{"cipai": "\xe6\xb5\xa3\xe6\xba\xaa\xe6\xb2\x99", "text": "\xed\xa0\x80"}',  # a raw (CESU) surrogate: not UTF-8
        b'{"cipai": "\\u6d63\\u6eaa\\u6c99", "text": "\\ud800 \\u4e00"}',  # escaped: valid JSON, not valid text
        b'{"cipai": "\\u6d63\\u6eaa\\u6c99", "text": "x", "\\udfff": 1}',  # in a key
    ],
    ids=["raw", "escaped", "in-a-key"],
)
def test_a_lone_surrogate_is_a_named_error_and_the_output_stays_utf8(tmp_path: Path, line: bytes) -> None:
    code, rows, _ = score_file(tmp_path, GOOD + b"\n" + line + b"\n" + GOOD + b"\n")
    assert code == 1
    assert [("error" in r) for r in rows] == [False, True, False]
    assert "not UTF-8" in rows[1]["error"] and "U+D" in rows[1]["error"]
    assert rows[0]["conformity"] == rows[2]["conformity"] == 1.0


def test_nan_and_infinity_are_refused_in_and_never_written(tmp_path: Path) -> None:
    data = (
        b"\n".join(
            [b'{"cipai": "\\u6d63\\u6eaa\\u6c99", "text": "x", "w": NaN}', b'{"w": -Infinity}', b'{"w": 1e999}', GOOD]
        )
        + b"\n"
    )
    code, rows, _ = score_file(tmp_path, data)
    assert code == 1
    assert ["error" in r for r in rows] == [True, True, True, False]
    assert "NaN" in rows[0]["error"] and rows[0]["line"] == 1


def test_a_bom_on_the_first_line_is_read(tmp_path: Path) -> None:
    code, rows, _ = score_file(tmp_path, b"\xef\xbb\xbf" + GOOD + b"\r\n" + GOOD + b"\r\n")
    assert code == 0
    assert [r["conformity"] for r in rows] == [1.0, 1.0]


def test_the_inputs_own_error_and_result_fields_do_not_survive_a_new_score(tmp_path: Path) -> None:
    """Re-scoring an earlier output: a fixed line must not keep its old error, a failed one not its old score."""
    fixed = json.dumps({"cipai": "浣溪沙", "text": HUANXISHA, "error": "unknown cipai", "id": 7}, ensure_ascii=False)
    broken = json.dumps({"cipai": "无此调", "text": HUANXISHA, "conformity": 1.0, "valid": True}, ensure_ascii=False)
    code, rows, _ = score_file(tmp_path, (fixed + "\n" + broken + "\n").encode())
    assert code == 1
    assert "error" not in rows[0] and rows[0]["conformity"] == 1.0 and rows[0]["id"] == 7
    assert "无此调" in rows[1]["error"] and "conformity" not in rows[1] and "valid" not in rows[1]


def test_deep_nesting_and_a_crash_of_the_critic_cost_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from poetone.critic import Critic

    real = Critic.score

    def flaky(self: Critic, cipai: str, text: str, **kw: Any) -> Any:
        if text == "boom":
            raise RuntimeError("a bug")
        return real(self, cipai, text, **kw)

    monkeypatch.setattr(Critic, "score", flaky)
    boom = json.dumps({"cipai": "浣溪沙", "text": "boom"}).encode()
    code, rows, _ = score_file(tmp_path, b"[" * 50_000 + b"]" * 50_000 + b"\n" + boom + b"\n" + GOOD + b"\n")
    assert code == 1
    assert "nested too deeply" in rows[0]["error"]
    assert "RuntimeError: a bug" in rows[1]["error"]
    assert rows[2]["conformity"] == 1.0


def test_stdin_with_a_bad_byte_in_a_real_process() -> None:
    done = run_cli("score", "--jsonl", "-", stdin=GOOD + b"\n\x80\n" + GOOD + b"\n")
    assert done.returncode == 1, done.stderr
    rows = strict_rows(done.stdout)
    assert len(rows) == 3 and "not UTF-8" in rows[1]["error"] and rows[2]["conformity"] == 1.0
    assert b"line 2: not UTF-8" in done.stderr


# --- score --jsonl: the input is never destroyed, a wrong path is named ------------------------------


def test_out_equal_to_the_input_is_refused_and_the_input_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "poems.jsonl"
    src.write_bytes(GOOD + b"\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(src)
    for out in (str(src), str(tmp_path / "." / "poems.jsonl"), str(link)):
        assert main(["score", "--jsonl", str(src), "--out", out]) == 2
        assert "is the input file" in capsys.readouterr().err
        assert src.read_bytes() == GOOD + b"\n"
    with src.open("rb") as stdin:  # `--jsonl - --out poems.jsonl < poems.jsonl`
        done = subprocess.run(
            [sys.executable, "-m", "poetone.cli", "score", "--jsonl", "-", "--out", str(src)],
            stdin=stdin, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=120,
        )  # fmt: skip
    assert done.returncode == 2 and b"is the input file" in done.stderr
    assert src.read_bytes() == GOOD + b"\n"


def test_a_folder_as_input_or_output_is_a_clear_error(tmp_path: Path) -> None:
    src = tmp_path / "poems.jsonl"
    src.write_bytes(GOOD + b"\n")
    for args in (["--jsonl", str(tmp_path)], ["--jsonl", str(src), "--out", str(tmp_path)]):
        done = run_cli("score", *args)
        assert done.returncode == 2
        assert b"is a folder" in done.stderr and b"Traceback" not in done.stderr
    done = run_cli("score", "--jsonl", str(tmp_path / "missing.jsonl"))
    assert done.returncode == 2 and b"missing.jsonl: no such file" in done.stderr and b"Traceback" not in done.stderr


# --- log readers: a bad character, line, sample or file costs only itself ----------------------------


def _sample_line(prompt: Any, answers: list[str], **override: Any) -> str:
    row = {"doc_id": 0, "doc": prompt.as_record(), "resps": [answers], "filtered_resps": answers[:1], **override}
    return json.dumps(row, ensure_ascii=False)


@pytest.fixture(scope="module")
def prompts() -> list[Any]:
    from poetone.songci import build_eval_set

    return build_eval_set(["zero_shot", "one_shot"], cipai=["浣溪沙", "菩萨蛮", "卜算子"])  # 36 prompts


def _answer(prompt: Any) -> str:
    from poetone.reference import reference_answer

    return reference_answer(prompt)


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\u0085", "\x1c", "\x1d", "\x1e", "\x0b", "\x0c"])
def test_a_line_breaking_character_in_an_answer_costs_nothing(tmp_path: Path, prompts: list[Any], char: str) -> None:
    from poetone.logs import read_candidates

    lines = [_sample_line(p, [_answer(p)]) for p in prompts]
    lines[7] = _sample_line(prompts[7], [_answer(prompts[7]) + f"\n注{char}释"])
    lines[7] = lines[7].replace(
        json.dumps(char, ensure_ascii=False)[1:-1], char
    )  # raw, as lm-eval writes U+2028 (other tools \x1c)
    assert char in lines[7]
    (tmp_path / "samples_songci_zeroshot_2026-01-01T00-00-00.jsonl").write_text(
        "\n".join(lines) + "\n", encoding="utf-8"
    )
    candidates, errors = read_candidates([tmp_path])
    assert errors == []
    assert len(candidates) == len(prompts)
    assert candidates[7].answer.endswith(f"注{char}释")


def test_a_torn_last_line_loses_that_line_only(tmp_path: Path, prompts: list[Any]) -> None:
    from poetone.logs import read_candidates

    path = tmp_path / "samples_songci_zeroshot_2026-01-01T00-00-00.jsonl"
    text = "\n".join(_sample_line(p, [_answer(p)]) for p in prompts) + "\n"
    path.write_bytes(text.encode()[:-40])  # the run was killed while writing the last line
    candidates, errors = read_candidates([tmp_path])
    assert len(candidates) == len(prompts) - 1
    assert len(errors) == 1 and f"{path}, line {len(prompts)}: not JSON (the file ends inside it" in errors[0]


def _bad_lines(prompts: list[Any]) -> dict[str, str]:
    """One line per class of bad sample, keyed by what the error must say."""
    p = prompts[0]
    unknown_cipai = {**p.as_record(), "cipai": "无此调"}
    unknown_profile = {**p.as_record(), "profile": "no-such-profile"}
    return {
        "无此调": json.dumps({"doc": unknown_cipai, "resps": [[_answer(p)]]}, ensure_ascii=False),
        "no-such-profile": json.dumps({"doc": unknown_profile, "resps": [[_answer(p)]]}, ensure_ascii=False),
        "'doc' must be an object, not str": json.dumps({"doc": "浣溪沙", "resps": [["x"]]}),
        "'resps' must be a list of lists": _sample_line(p, [], resps=["一曲新词酒一杯"]),
        "'resps' must hold the answers as strings": _sample_line(p, [], resps=[[None]]),
        "a line must be a JSON object": json.dumps(["doc", "resps"]),
        "not UTF-8": "\udcff",  # stands for a bad byte, written below
    }


def _mixed_logs(tmp_path: Path, prompts: list[Any]) -> tuple[Path, Path, dict[str, int]]:
    """A folder with one good samples file and one whose good lines sit among bad ones."""
    folder = tmp_path / "logs"
    (folder / "good").mkdir(parents=True)
    (folder / "mixed").mkdir()
    good = folder / "good" / "samples_songci_oneshot_2026-01-01T00-00-00.jsonl"
    good.write_text(
        "".join(_sample_line(p, [_answer(p), _answer(p)[:-3]]) + "\n" for p in prompts[18:]), encoding="utf-8"
    )
    mixed = folder / "mixed" / "samples_songci_zeroshot_2026-01-01T00-00-00.jsonl"
    bad = _bad_lines(prompts)
    lines: list[bytes] = []
    numbers: dict[str, int] = {}
    for i, p in enumerate(prompts[:18]):
        lines.append(_sample_line(p, [_answer(p)]).encode())
        if i < len(bad):
            key, line = list(bad.items())[i]
            lines.append(b'{"doc": "\xff"}' if key == "not UTF-8" else line.encode())
            numbers[key] = len(lines)
    mixed.write_bytes(b"\n".join(lines) + b"\n")
    return folder, mixed, numbers


def _assert_named(errors: list[str] | str, mixed: Path, numbers: dict[str, int]) -> None:
    text = errors if isinstance(errors, str) else "\n".join(errors)
    for key, number in numbers.items():
        assert any(f"{mixed}, line {number}:" in e and key in e for e in text.splitlines()), (key, number, text)


def test_each_bad_sample_line_is_named_and_skipped_the_rest_read(tmp_path: Path, prompts: list[Any]) -> None:
    from poetone.logs import read_candidates

    folder, mixed, numbers = _mixed_logs(tmp_path, prompts)
    candidates, errors = read_candidates([folder])
    _assert_named(errors, mixed, numbers)
    assert len(errors) == len(numbers)
    assert sorted(c.prompt_id for c in candidates if c.source == str(mixed)) == sorted(p.id for p in prompts[:18])
    assert len([c for c in candidates if c.source != str(mixed)]) == 2 * 18  # the good file, both answers


def test_report_bon_and_probe_skip_bad_lines_and_exit_1(
    tmp_path: Path, prompts: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, mixed, numbers = _mixed_logs(tmp_path, prompts)
    assert main(["report", str(folder), "--out", str(tmp_path / "report"), "--bootstrap", "200"]) == 1
    _assert_named(capsys.readouterr().err, mixed, numbers)
    record = json.loads((tmp_path / "report" / "record.json").read_text(encoding="utf-8"))
    assert record["candidates"] == 18 + 2 * 18

    assert main(["bon", str(folder), "--out", str(tmp_path / "bon")]) == 1
    _assert_named(capsys.readouterr().err, mixed, numbers)
    assert len((tmp_path / "bon" / "train.jsonl").read_text(encoding="utf-8").splitlines()) == 36

    assert main(["probe", str(folder), "--out", str(tmp_path / "probe")]) == 1
    _assert_named(capsys.readouterr().err, mixed, numbers)
    assert (tmp_path / "probe" / "probes.md").exists()


def test_human_eval_pairs_skip_bad_lines(tmp_path: Path, prompts: list[Any]) -> None:
    from poetone.human_eval.pairs import pairs_from_logs

    folder, mixed, numbers = _mixed_logs(tmp_path, prompts)
    selection = pairs_from_logs([folder], top=None)
    _assert_named(selection.errors, mixed, numbers)
    assert selection.candidates == 18 + 2 * 18
    assert "error: " in selection.summary()


def test_a_bad_sample_of_an_inspect_log_is_named_and_the_others_kept(tmp_path: Path) -> None:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.log import read_eval_log, write_eval_log

    from poetone.logs import read_candidates

    (log,) = inspect_eval(
        "poetone/songci", model="poetone/reference", limit=4, log_dir=str(tmp_path / "run"), display="none",
        task_args={"strategy": "zero_shot", "cipai": "浣溪沙"},
    )  # fmt: skip
    assert log.status == "success"
    log = read_eval_log(log.location)
    first, second = log.samples[0], log.samples[1]
    first.metadata["cipai"], first.scores = "无此调", {}  # unscored: the reader must score it, and cannot
    second.metadata["profile"], second.scores = "no-such-profile", {}
    write_eval_log(log, str(tmp_path / "logs" / "edited.eval"))
    candidates, errors = read_candidates([tmp_path / "logs"])
    assert len(candidates) == 2
    assert len(errors) == 2
    assert f"sample {first.id!r}" in errors[0] and "无此调" in errors[0]
    assert f"sample {second.id!r}" in errors[1] and "no-such-profile" in errors[1]


def test_bazi_report_reads_past_line_breaking_characters_and_bad_lines(tmp_path: Path) -> None:
    from poetone.bazi.report import read_answers

    def line(i: int, reply: str) -> str:
        doc = {"id": f"q{i}", "task": "theory", "category": "天干", "answer": "A"}
        return json.dumps({"doc": doc, "resps": [[reply]], "filtered_resps": [reply]}, ensure_ascii=False)

    lines = [line(i, "分析\u2028\x85…\n答案：A") for i in range(10)]
    lines[4] = json.dumps({"doc": "天干", "resps": [["A"]]}, ensure_ascii=False)
    path = tmp_path / "samples_bazi_theory_2026-01-01T00-00-00.jsonl"
    path.write_bytes(("\n".join(lines) + "\n").encode()[:-30])  # and the last line torn
    answers, errors = read_answers([tmp_path])
    assert len(answers) == 8 and all(a.correct for a in answers)
    assert len(errors) == 2 and f"{path}, line 5:" in errors[0] and f"{path}, line 10: not JSON" in errors[1]


# --- cipai names with a title: no converter per miss, nothing kept forever --------------------------


def test_titled_names_build_opencc_once_and_keep_a_bounded_table(monkeypatch: pytest.MonkeyPatch) -> None:
    import opencc

    import poetone.metadata as metadata

    built = []
    real = opencc.OpenCC

    def counting(*args: Any, **kwargs: Any) -> Any:
        built.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(opencc, "OpenCC", counting)
    if hasattr(metadata, "_t2s"):
        metadata._t2s.cache_clear()
    registry = metadata.load_cipai()
    sizes = lambda: sum(len(v) for v in vars(registry).values() if isinstance(v, dict))  # noqa: E731
    start = sizes()
    for i in range(6_000):
        assert registry.resolve(f"浣溪沙·春恨{i}") == "浣溪沙"
        assert registry.resolve(f"點絳脣·{i}") == "点绛唇"
    assert registry.resolve("鵲踏枝") == "蝶恋花" and registry.resolve("《菩萨蛮》") == "菩萨蛮"
    with pytest.raises(KeyError, match="unknown cipai"):
        registry.resolve("无此调·春恨")
    assert len(built) <= 1  # the converter is built once, not per name
    assert sizes() - start <= 4096  # 12,000 distinct spellings later


# --- progress: a bar on a terminal, nothing in a pipe (issue 15) --------------------------------------


def _run_with_stderr(args: list[str], terminal: bool) -> tuple[int, bytes]:
    """Run ``poetone ARGS`` with stderr on a pseudo-terminal or a pipe; its exit status and stderr."""
    import pty

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TERM": "xterm", "COLUMNS": "100"}
    env.pop("CI", None)
    cmd = [sys.executable, "-m", "poetone.cli", *args]
    if not terminal:
        done = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=300)
        return done.returncode, done.stderr
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=300), b"".join(chunks)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
@pytest.mark.parametrize("command", ["score", "report", "bon", "probe"])
def test_progress_is_shown_on_a_terminal_and_not_in_a_pipe(tmp_path: Path, prompts: list[Any], command: str) -> None:
    if command == "score":
        (tmp_path / "in.jsonl").write_bytes((GOOD + b"\n") * 50)
        args, label = ["score", "--jsonl", str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "out.jsonl")], b"scoring"
    else:
        logs = tmp_path / "logs"
        logs.mkdir()
        lines = "".join(_sample_line(p, [_answer(p), _answer(p)[:-2]]) + "\n" for p in prompts)
        (logs / "samples_songci_zeroshot_2026-01-01T00-00-00.jsonl").write_text(lines, encoding="utf-8")
        args, label = [command, str(logs), "--out", str(tmp_path / "out")], b"reading logs"
        if command == "report":
            args += ["--bootstrap", "100"]
    code, err = _run_with_stderr(args, terminal=True)
    assert code in (0, 1), err  # probe reports classes too small to probe: exit 1, not a crash
    assert label in err and b"\x1b[" in err  # a bar, drawn with escape codes
    code, err = _run_with_stderr(args, terminal=False)
    assert code in (0, 1), err
    assert label not in err and b"\x1b[" not in err


def test_no_progress_in_ci_or_on_a_dumb_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from poetone._progress import wanted

    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert wanted(Terminal())  # type: ignore[arg-type]
    monkeypatch.setenv("CI", "true")
    assert not wanted(Terminal())  # type: ignore[arg-type]
    monkeypatch.delenv("CI")
    monkeypatch.setenv("TERM", "dumb")
    assert not wanted(Terminal())  # type: ignore[arg-type]


def test_a_calibration_log_torn_past_its_header_is_named_not_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import inspect_ai.log

    from poetone.report import calibration_table

    def torn(path: str, header_only: bool = False) -> Any:
        raise ValueError("truncated zip")

    monkeypatch.setattr(inspect_ai.log, "read_eval_log", torn)
    errors: list[str] = []
    table = calibration_table([tmp_path / "calibration.eval"], errors)
    assert table.rows == [] and len(errors) == 1 and "calibration.eval" in errors[0] and "truncated zip" in errors[0]
