"""The ``poetone`` command line, called in-process through ``main`` and once as a real subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from homonym_poems import HECHONGTIAN_OUYANG, ZHEGUTIAN_YAN

from poetone.cli import main
from poetone.metadata import load_cipai

ROOT = Path(__file__).resolve().parents[1]
PUSA = "平林漠漠烟如织，寒山一带伤心碧。暝色入高楼，有人楼上愁。\n玉阶空伫立，宿鸟归飞急。何处是归程？长亭更短亭。"
HUANXISHA = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？\n无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
RESULT_FIELDS = {"conformity", "structure", "tonal", "rhyme", "valid", "variant", "scored_cipai"}

GOOD_CIPAI: dict[str, Any] = {
    "name": "测试调",
    "aliases": [],
    "source": "手写",
    "variants": [
        {
            "id": "正体",
            "source": "手写",
            "example": {"poet": "无名", "first_line": "春风"},
            "stanzas": [["中平 句", "平平仄仄平 韵A"]],
        }
    ],
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def record(**fields: Any) -> str:
    return json.dumps(fields, ensure_ascii=False)


# --- score ---------------------------------------------------------------------------------------------


def test_score_prints_the_rendering(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "菩萨蛮", PUSA)
    assert code == 0
    assert out.startswith("菩萨蛮 · 正体  conformity 1.000 (structure 1.000, tonal 1.000, rhyme 1.000)  [default]")
    for sym in "○●◐":
        assert sym in out
    assert re.search(r"^长亭更短亭\s+◐○◐●○\s+韵D$", out, re.M), out
    assert "✗" not in out


def test_score_marks_a_fault(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "菩萨蛮", PUSA.replace("长亭更短亭", "长路更短亭"))
    assert code == 0
    assert "tonal 0.977" in out
    assert "✗" in out
    assert "路@2 wants 平, is 仄" in out


def test_score_with_profile_and_alias(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "菩薩蠻", PUSA, "--profile", "paper")
    assert code == 0
    assert out.splitlines()[0].startswith("菩萨蛮 · 正体")
    assert "[paper]" in out
    assert "rhyme 0.500" in out


def test_score_from_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(HUANXISHA))
    code, out, _ = run(capsys, "score", "浣溪沙", "-")
    assert code == 0
    assert "conformity 1.000" in out


def test_score_unknown_cipai(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "score", "菩萨慢", PUSA)
    assert code == 2
    assert out == ""
    assert "菩萨慢" in err and "菩萨蛮" in err


def test_score_without_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "score")
    assert code == 2
    assert "CIPAI" in err


def test_score_invalid_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "浣溪沙", "抱歉，我无法完成这个请求。")
    assert code == 0
    assert "INVALID" in out
    assert "conformity 0.000" in out


# --- score --jsonl -------------------------------------------------------------------------------------


def test_jsonl_output_lines_hold_no_raw_line_separator(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # U+2028, U+2029 and NEL are JSON's to keep raw, but str.splitlines (and editors) break lines at them
    note = "抄自\u2028旧本\x85第二\u2029页"
    src = jsonl(tmp_path / "in.jsonl", [record(id="a", cipai="菩萨蛮", text=PUSA, note=note), record(id="b")])
    code, out, _ = run(capsys, "score", "--jsonl", str(src))
    lines = out.splitlines()
    assert len(lines) == 2 and code == 1
    assert json.loads(lines[0])["note"] == note and json.loads(lines[0])["valid"] is True


def test_jsonl_names_the_tune_each_variant_belongs_to(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = jsonl(
        tmp_path / "in.jsonl",
        [
            record(id="a", cipai="鹤冲天", text=HECHONGTIAN_OUYANG, scored_cipai="mine"),
            record(id="b", cipai="思佳客", text=ZHEGUTIAN_YAN),
            record(id="c", cipai="菩萨蛮", text="抱歉，我无法完成这个请求。"),
            record(id="d", cipai="菩萨慢", text=PUSA),
        ],
    )
    code, out, _ = run(capsys, "score", "--jsonl", str(src))
    a, b, c, d = map(json.loads, out.splitlines())
    # the title's own tune is 鹤冲天; the poem follows 喜迁莺, and the variant is 喜迁莺's. The input's
    # own value of a result field is replaced, as for the others
    assert (a["cipai"], a["scored_cipai"], a["structure"]) == ("鹤冲天", "喜迁莺", 1.0)
    assert a["variant"] in {v.id for v in load_cipai()["喜迁莺"].variants}
    assert (b["cipai"], b["scored_cipai"], b["valid"]) == ("思佳客", "鹧鸪天", True)
    assert (c["scored_cipai"], c["variant"], c["valid"]) == ("菩萨蛮", None, False)  # invalid: still the tune it was scored as
    assert "scored_cipai" not in d and "菩萨蛮" in d["error"] and code == 1  # an unknown cipai scores as nothing


def test_jsonl_mixed_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = jsonl(
        tmp_path / "in.jsonl",
        [
            record(id="a", cipai="菩萨蛮", text=PUSA, model="m1"),
            '{"id": "b", "cipai": "浣溪沙", "text": ',
            record(id="c", cipai="菩萨慢", text=PUSA),
            record(id="d", cipai="菩萨蛮"),
            record(id="e", cipai="浣溪沙", text=HUANXISHA.replace("夕阳西下几时回", "夕阳西下几时东")),
            "[1, 2, 3]",
            record(id="g", text=PUSA),
            record(id="h", cipai="浣溪沙", text="抱歉，我无法完成这个请求。"),
        ],
    )
    out_path = tmp_path / "out.jsonl"
    code, out, err = run(capsys, "score", "--jsonl", str(src), "--out", str(out_path))
    assert code == 1
    assert out == ""
    rows = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 8

    a, b, c, d, e, f, g, h = rows
    # good lines: their input fields kept, the result fields added
    assert {k: a[k] for k in ("id", "cipai", "text", "model")} == {
        "id": "a",
        "cipai": "菩萨蛮",
        "text": PUSA,
        "model": "m1",
    }
    assert set(a) >= RESULT_FIELDS
    assert "error" not in a
    assert (a["conformity"], a["structure"], a["tonal"], a["rhyme"], a["valid"], a["variant"]) == (
        1.0,
        1.0,
        1.0,
        1.0,
        True,
        "正体",
    )
    assert e["id"] == "e" and e["rhyme"] == pytest.approx(0.8) and e["structure"] == 1.0 and "error" not in e
    assert (
        h["id"] == "h" and h["valid"] is False and h["conformity"] == 0.0 and h["variant"] is None and "error" not in h
    )
    # bad lines: in place, with an error
    assert "malformed JSON" in b["error"] and b["line"] == 2
    assert c["id"] == "c" and "菩萨蛮" in c["error"] and "conformity" not in c
    assert d["id"] == "d" and "text" in d["error"] and "conformity" not in d
    assert f["line"] == 6 and "error" in f
    assert g["id"] == "g" and "cipai" in g["error"] and "conformity" not in g
    # stderr names the bad lines
    for n in (2, 3, 4, 6, 7):
        assert re.search(rf"\bline {n}\b", err), err
    for n in (1, 5, 8):
        assert not re.search(rf"\bline {n}\b", err), err
    assert "5 lines failed" in err


def test_jsonl_all_good_exits_zero(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = jsonl(tmp_path / "in.jsonl", [record(cipai="菩萨蛮", text=PUSA), record(cipai="浣溪沙", text=HUANXISHA, n=2)])
    code, out, err = run(capsys, "score", "--jsonl", str(src))
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["cipai"] for r in rows] == ["菩萨蛮", "浣溪沙"]
    assert rows[1]["n"] == 2
    assert all(r["conformity"] == 1.0 and r["valid"] is True for r in rows)
    assert "scored 2 poems, 0 lines failed" in err


def test_jsonl_scores_rounded_to_six_places(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = jsonl(tmp_path / "in.jsonl", [record(cipai="菩萨蛮", text=PUSA.replace("长亭更短亭", "长路更短亭"))])
    code, out, _ = run(capsys, "score", "--jsonl", str(src), "--out", "-")
    assert code == 0
    row = json.loads(out)
    assert row["tonal"] == round(43 / 44, 6)


def test_jsonl_from_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(record(cipai="浣溪沙", text=HUANXISHA) + "\n"))
    code, out, _ = run(capsys, "score", "--jsonl", "-")
    assert code == 0
    assert json.loads(out)["conformity"] == 1.0


def test_jsonl_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "score", "--jsonl", str(tmp_path / "nope.jsonl"))
    assert code == 2
    assert "nope.jsonl" in err


# --- cipai ---------------------------------------------------------------------------------------------


def test_cipai_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "cipai", "list")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 20
    names = {line.split("\t")[0] for line in lines}
    assert {"菩萨蛮", "念奴娇", "浣溪沙", "一剪梅", "点绛唇"} <= names
    [pusa] = [line for line in lines if line.startswith("菩萨蛮\t")]
    assert "1 variants" in pusa and "44 chars" in pusa


def test_cipai_show(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "cipai", "show", "菩萨蛮")
    assert code == 0
    assert out.startswith("菩萨蛮")
    for sym in "○●◐":
        assert sym in out
    assert "[正体]" in out
    assert "上阕" in out and "下阕" in out
    assert re.search(r"◐○◐●○○●\s+中平中仄平平仄\s+韵A", out)


def test_cipai_show_names_other_tunes_of_the_title(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "cipai", "show", "定风波")
    assert code == 0
    assert "同名异调 (not a variant): 定风波慢: 柳永「伫立长堤」、柳永「自春来」" in out
    assert "[定风波慢]" not in out


def test_cipai_show_counts_the_variants_and_names_the_other_tunes_of_a_generated_title(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "cipai", "show", "浪淘沙")
    assert code == 0
    assert "3 variants, 28 字" in out.splitlines()[2]
    assert "同名异调: a poem titled 浪淘沙 is also scored as 浪淘沙令、浪淘沙慢" in out
    assert "  全词\n" in out and "上阕" not in out  # 单调: one stanza, not an 上阕
    _, out, _ = run(capsys, "cipai", "show", "菩萨蛮")
    assert "1 variant, 44 字" in out


def test_cipai_validate_reads_the_generated_folder(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "cipai", "validate", str(ROOT / "src/poetone/cipai_generated"))
    assert code == 0, err  # its _index.json is the resource's index, not a cipai
    assert re.fullmatch(r"ok: \d{3} cipai, \d{4} variants\n", out)


def test_cipai_show_alias_and_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "cipai", "show", "酹江月")
    assert code == 0
    assert out.startswith("念奴娇")
    code, _, err = run(capsys, "cipai", "show", "念奴桥")
    assert code == 2
    assert "念奴娇" in err


def test_cipai_validate_good(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "good.json"
    path.write_text(json.dumps(GOOD_CIPAI, ensure_ascii=False), encoding="utf-8")
    code, out, _ = run(capsys, "cipai", "validate", str(path))
    assert code == 0
    assert "ok: 1 cipai, 1 variants" in out


def test_cipai_validate_bundled_folder(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "cipai", "validate", str(ROOT / "src" / "poetone" / "cipai"))
    assert code == 0
    assert out.startswith("ok: 20 cipai")


def test_cipai_validate_bad(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = json.loads(json.dumps(GOOD_CIPAI))
    bad["variants"][0]["stanzas"][0][1] = "平平仄仄平 韵"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad, ensure_ascii=False), encoding="utf-8")
    code, out, err = run(capsys, "cipai", "validate", str(path))
    assert code == 1
    assert out == ""
    assert "invalid" in err
    assert "bad.json" in err and "'正体'" in err and "line 2" in err and "segment letter" in err


def test_cipai_validate_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "cipai", "validate", str(tmp_path / "none.json"))
    assert code == 1
    assert "none.json" in err


def test_cipai_validate_official_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    entries = [
        {
            "Cipai": "小令",
            "variant": "default",
            "stanza1": {"rhyme_positions": [2], "lines": ["平平仄仄句", "仄仄平平韵"]},
            "total": {"chars_per_line": [4, 4], "rhyme_positions": [2]},
            "rhyme_type": "平韵",
        }
    ]
    path = tmp_path / "official.json"
    path.write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
    code, out, _ = run(capsys, "cipai", "validate", str(path), "--metadata-format", "poetone")
    assert code == 0
    assert "ok: 1 cipai, 1 variants" in out
    code, _, err = run(capsys, "cipai", "validate", str(path))
    assert code == 1
    assert "official.json" in err


# --- demo, errors, subprocess ---------------------------------------------------------------------------


def test_demo(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo")
    assert code == 0
    assert "苏轼《念奴娇》大江东去" in out
    assert "念奴娇 · " in out
    assert "大江东去" in out
    m = re.search(r"conformity (\d\.\d{3})", out)
    assert m and float(m.group(1)) >= 0.95


def test_bad_usage_exits_through_argparse(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["score", "菩萨蛮", PUSA, "--profile", "nope"])
    assert info.value.code == 2
    assert "nope" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([])


def _poetone(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a fresh interpreter, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "poetone.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True, encoding="utf-8", timeout=60
    )


def test_real_subprocess(tmp_path: Path) -> None:
    done = _poetone("score", "菩萨蛮", PUSA)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("菩萨蛮 · 正体  conformity 1.000")
    assert "○" in done.stdout

    src = jsonl(tmp_path / "in.jsonl", [record(cipai="浣溪沙", text=HUANXISHA), "not json"])
    done = _poetone("score", "--jsonl", str(src))
    assert done.returncode == 1
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 2
    assert rows[0]["conformity"] == 1.0
    assert "error" in rows[1]
    assert "line 2" in done.stderr


def test_cipai_list_all_lists_every_tune_with_its_source() -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "poetone.cli", "cipai", "list", "--all"], capture_output=True, text=True, check=True).stdout
    rows = out.splitlines()
    assert len(rows) > 800
    assert rows[0].split("\t")[3].startswith("curated")
    qinyuan = next(r for r in rows if r.startswith("沁园春\t"))
    assert "\t词谱: 钦定词谱" in qinyuan
    short = subprocess.run([sys.executable, "-m", "poetone.cli", "cipai", "list"], capture_output=True, text=True, check=True)
    assert len(short.stdout.splitlines()) == 20 and "poetone cipai list --all" in short.stderr
