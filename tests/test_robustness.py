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
