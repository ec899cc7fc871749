"""The BaZi tasks: the rule tables against lunar-python, the answer parser, the item loader, the
rule-verified item set, the lm-eval and Inspect tasks end to end, and the report's statistics.

Every number a framework or the report gives must equal what we compute here directly from what
the model sent (``poetone.bazi.parse``) and ``poetone.stats``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import importlib.util
import json
import math
import os
import random
import re
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest
from lunar_python import EightChar, Solar
from lunar_python.util import LunarUtil
from openai_stub import OpenAIStub

from poetone.bazi import rules
from poetone.bazi.data import BaziDataError, item_hash, load_items, read_items, select
from poetone.bazi.parse import parse_answer, score_reply
from poetone.bazi.prompt import format_prompt
from poetone.bazi.report import Answer, build_report, newcombe, read_answers, render_markdown
from poetone.bazi.tables import BRANCHES, LIU_HE, NAYIN, SAN_HE, STEMS, TEN_GODS, TWELVE_STAGES, VERIFIED_CATEGORIES
from poetone.bazi.verified import PREDICATES, check_item, generate_items, solve
from poetone.stats import holm, mcnemar_p, wilson

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "src" / "poetone" / "lm_eval_tasks"


# ============================================================================ tables vs lunar-python


def test_elements_and_polarity_match_lunar_python() -> None:
    for s in STEMS:
        assert rules.element(s) == LunarUtil.WU_XING_GAN[s]
    for b in BRANCHES:
        assert rules.element(b) == LunarUtil.WU_XING_ZHI[b]
    assert [rules.yin_yang(s) for s in "甲乙"] == ["阳", "阴"] and rules.yin_yang("亥") == "阴"


def test_sixty_cycle_and_nayin_match_lunar_python() -> None:
    assert rules.JIAZI == LunarUtil.JIA_ZI
    for i, pillar in enumerate(rules.JIAZI):
        assert rules.cycle_index(pillar) == i
        assert rules.nayin(pillar) == LunarUtil.NAYIN[pillar], pillar
        assert pillar in rules.nayin_pillars(rules.nayin(pillar))
    assert len(set(NAYIN)) == 30
    with pytest.raises(ValueError, match="甲丑 is not a pillar"):
        rules.cycle_index("甲丑")


def test_ten_gods_match_lunar_python() -> None:
    for day in STEMS:
        for stem in STEMS:
            assert rules.ten_god(day, stem) == LunarUtil.SHI_SHEN[day + stem], (day, stem)
        assert sorted(rules.ten_god(day, s) for s in STEMS) == sorted(TEN_GODS)  # a bijection
        for god in TEN_GODS:
            assert rules.ten_god(day, rules.ten_god_stem(day, god)) == god


def test_twelve_stages_match_lunar_python() -> None:
    """lunar-python's 地势 of the hour pillar: 10 consecutive days (every day stem) × 12 hours."""
    seen = set()
    start = datetime(2024, 3, 10)
    for d in range(10):
        day = start + timedelta(days=d)
        for hour in (0, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21):
            ec = Solar.fromYmdHms(day.year, day.month, day.day, hour, 30, 0).getLunar().getEightChar()
            stem, branch = ec.getDayGan(), ec.getTimeZhi()
            assert rules.twelve_stage(stem, branch) == ec.getTimeDiShi(), (stem, branch)
            assert rules.twelve_stage(stem, ec.getMonthZhi()) == ec.getMonthDiShi()
            seen.add((stem, branch))
    assert len(seen) == 120
    for stem in STEMS:
        assert sorted(rules.twelve_stage(stem, b) for b in BRANCHES) == sorted(TWELVE_STAGES)
        for stage in TWELVE_STAGES:
            assert rules.twelve_stage(stem, rules.stage_branch(stem, stage)) == stage
    assert rules.stage_branch("甲", "长生") == "亥" and rules.stage_branch("乙", "长生") == "午"
    assert rules.twelve_stage("乙", "巳") == "沐浴"  # 阴干 counts backwards


def test_xun_kong_matches_lunar_python() -> None:
    for pillar in rules.JIAZI:
        assert rules.xun(pillar) == LunarUtil.getXun(pillar)
        assert rules.xun_kong(pillar) == LunarUtil.getXunKong(pillar)
        s, b = STEMS.index(pillar[0]), BRANCHES.index(pillar[1])  # the rule: the two branches after 癸's
        assert rules.xun_kong(pillar) == BRANCHES[(b - s + 10) % 12] + BRANCHES[(b - s + 11) % 12]


def test_branch_relations() -> None:
    for i, b in enumerate(BRANCHES):
        assert rules.partner(b, "六冲") == LunarUtil.CHONG[i]  # lunar-python's 冲 table
    assert sorted(c for pair in LIU_HE for c in pair) == sorted(BRANCHES)
    assert sorted(c for group in SAN_HE for c in group) == sorted(BRANCHES)
    assert rules.branch_relations("子", "丑") == {"六合"}
    assert rules.branch_relations("寅", "巳") == {"相刑", "相害"}
    assert rules.branch_relations("寅", "申") == {"六冲", "相刑"}
    assert rules.branch_relations("巳", "申") == {"六合", "相刑"}
    assert rules.branch_relations("子", "卯") == {"相刑"}
    assert rules.branch_relations("午", "午") == {"相刑"} and rules.branch_relations("子", "子") == set()
    assert rules.branch_relations("酉", "戌") == {"相害"}
    assert rules.san_he("辰子申") == "水" and rules.san_he("申子午") is None
    assert rules.liu_he_element("午", "未") == "火"


def _lunar_pillars(when: datetime) -> dict[str, tuple[str, ...]]:
    lunar = Solar.fromYmdHms(when.year, when.month, when.day, when.hour, when.minute, when.second).getLunar()
    out = {}
    for zi_hour, sect in (("next_day", 1), ("same_day", 2)):
        ec = EightChar.fromLunar(lunar)
        ec.setSect(sect)
        out[zi_hour] = (ec.getYear(), ec.getMonth(), ec.getDay(), ec.getTime())
    return out


def test_four_pillars_match_lunar_python() -> None:
    rng = random.Random(8)
    moments = [datetime(1900, 1, 1) + timedelta(minutes=rng.randrange(200 * 365 * 24 * 60)) for _ in range(200)]
    moments += [
        datetime(1950, 1, 1) + timedelta(days=rng.randrange(36500), hours=23, minutes=rng.randrange(60))
        for _ in range(80)
    ]
    moments += [
        datetime(1980, 5, 5) + timedelta(days=rng.randrange(3650), minutes=rng.choice((-1, 0, 1))) for _ in range(20)
    ]
    for year in range(1901, 2100, 14):  # every 节 of the year, one second before, at and after it
        for moment, _ in rules.jie_moments(year):
            moments += [moment - timedelta(seconds=1), moment, moment + timedelta(seconds=1)]
    for year in range(1931, 2031, 9):  # 立春 and midnight, ± a minute
        lichun = next(m for m, name in rules.jie_moments(year) if name == "立春")
        moments += [lichun - timedelta(minutes=1), lichun + timedelta(minutes=1)]
    for when in moments:
        expected = _lunar_pillars(when)
        for zi_hour in ("next_day", "same_day"):
            assert rules.four_pillars(when, zi_hour).pillars == expected[zi_hour], (when, zi_hour)


def test_chart_conventions() -> None:
    lichun = datetime(2024, 2, 4, 16, 27, 7)  # 立春 2024 per lunar-python
    assert rules.four_pillars(lichun - timedelta(seconds=1)).pillars[:2] == ("癸卯", "乙丑")
    assert rules.four_pillars(lichun).pillars[:2] == ("甲辰", "丙寅")
    late = datetime(2024, 3, 10, 23, 30)
    nxt, same = rules.four_pillars(late, "next_day"), rules.four_pillars(late, "same_day")
    assert nxt.day == rules.day_pillar_of(late.date() + timedelta(days=1)) and same.day == rules.day_pillar_of(
        late.date()
    )
    assert nxt.hour == same.hour and nxt.hour[1] == "子"
    assert rules.day_pillar_of(datetime(2000, 1, 1).date()) == "戊午"
    assert nxt.format().endswith("时") and len(nxt.format().split()) == 4
    with pytest.raises(ValueError, match="zi_hour"):
        rules.four_pillars(late, "midnight")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="UTC\\+8"):
        rules.four_pillars(datetime.fromisoformat("2024-03-10T12:00+08:00"))


def test_chart_without_lunar_python_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "lunar_python", None)  # as if it were not installed
    rules.jie_moments.cache_clear()
    try:
        assert generate_items(n=2, category="Nayin")  # only charts need it
        with pytest.raises(ImportError, match=re.escape("pip install 'lunar-python>=1.4.8'")):
            generate_items(n=2, category="Chart Construction")
    finally:
        rules.jie_moments.cache_clear()


# ============================================================================ parser


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("B", "B"), ("答案：B", "B"), ("答案: B", "B"), ("(B)", "B"), ("（Ｂ）", "B"), ("B.", "B"), ("选B", "B"),
        ("Ｂ", "B"), ("**B**", "B"), ("答案是 C。", "C"), ("D. 海中金", "D"), ("The answer is A", "A"),
        ("Answer: A", "A"), ("正确答案为【C】", "C"), ("b", "B"), ("<think>A 还是 C?</think>\nC", "C"), ("  A\n", "A"),
    ],
)  # fmt: skip
def test_parser_accepts_one_letter(reply: str, letter: str) -> None:
    assert parse_answer(reply) == letter


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "   ",
        None,
        "A或B",
        "AB",
        "A, B",
        "海中金",
        "ABCD",
        "E",
        "A. B.",
        "<think>B",
        "选项A和选项C都对",
        "I think so",
    ],
)
def test_parser_rejects_everything_else(reply: str | None) -> None:
    assert parse_answer(reply) is None
    assert score_reply(reply, "A") == {"parsed": None, "invalid": True, "correct": False}


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("甲子纳音是海中金，A 对；C 是炉中火。\n</think>\n\nA", "A"),  # Qwen3 / DeepSeek-R1: the template opened it
        ("<thinking>选 A 还是 D？丙寅属火。</thinking>\nD", "D"),
        ("A or D? 丙寅属火。</thinking> D", "D"),
        ("<think>B 或 C</think>\n<think>应为 C</think>\nC", "C"),
    ],
)
def test_parser_drops_reasoning_in_every_template_form(reply: str, letter: str) -> None:
    assert parse_answer(reply) == letter
    assert parse_answer(reply + "\n<think>") is None  # reasoning opened again and never closed: no answer


def test_score_reply() -> None:
    assert score_reply("答案：Ｃ", "C") == {"parsed": "C", "invalid": False, "correct": True}
    assert score_reply("(A)", "C") == {"parsed": "A", "invalid": False, "correct": False}


# ============================================================================ loader

OPTS = ["海中金", "炉中火", "大林木", "路旁土"]


def _paper_records() -> list[dict[str, Any]]:
    """Records in the paper's layout and in the variants the loader must tolerate."""
    return [
        {"id": "t1", "question": "甲子纳音？", "options": OPTS, "answer": "A", "task": "theory", "category": "Nayin"},
        {"qid": "t2", "prompt": "乙丑纳音？", "choices": {"a": "海中金", "b": "炉中火", "c": "大林木", "d": "路旁土"},
         "label": "(A)", "family": "Theory", "type": "Nayin"},
        {"id": "t3", "stem": "丙寅纳音？", "A": "A. 海中金", "B": "B. 炉中火", "C": "C. 大林木", "D": "D. 路旁土",
         "key": 1, "split": "理论", "subcategory": "Nayin"},
        {"id": "c1", "context": "男，1990年生。", "question": "其年柱？", "options": "A. 庚午 B. 己巳 C. 辛未 D. 壬申",
         "correct": "庚午", "task": "case", "category": "Chart Construction"},
        {"id": "c2", "question": "其月柱？", "option_a": "甲", "option_b": "乙", "option_c": "丙", "option_d": "丁",
         "answer": "Ｃ", "task": "案例", "category": "Chart Construction", "difficulty": 3},
    ]  # fmt: skip


def _check_canonical(items: list[dict[str, Any]]) -> None:
    by_id = {i["id"]: i for i in items}
    assert [by_id[k]["answer"] for k in ("t1", "t2", "t3", "c1", "c2")] == ["A", "A", "B", "A", "C"]
    assert by_id["t3"]["options"] == OPTS  # the repeated "A. " labels are dropped
    assert by_id["t2"]["options"] == OPTS and by_id["t2"]["task"] == "theory" and by_id["t2"]["category"] == "Nayin"
    assert by_id["t3"]["task"] == "theory" and by_id["c2"]["task"] == "case"
    assert by_id["c1"]["options"] == ["庚午", "己巳", "辛未", "壬申"] and by_id["c1"]["context"] == "男，1990年生。"
    assert by_id["c2"]["extra"] == {"difficulty": 3}
    assert all(len(i["hash"]) == 12 and i["hash"] == item_hash(i) for i in items)


def test_loader_reads_json_jsonl_parquet(tmp_path: Path) -> None:
    records = _paper_records()
    (tmp_path / "items.json").write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "wrapped.json").write_text(json.dumps({"data": records}, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "items.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n\n", encoding="utf-8"
    )
    for name in ("items.json", "wrapped.json", "items.jsonl"):
        _check_canonical(read_items(tmp_path / name))
    import pyarrow as pa
    import pyarrow.parquet as pq

    # Parquet has one type per column: the usual layout there is one column per option
    table = [
        {"id": "p1", "question": "甲子纳音？", "A": "海中金", "B": "炉中火", "C": "大林木", "D": "路旁土", "answer": "A", "task": "theory", "category": "Nayin"},
        {"id": "p2", "question": "其年柱？", "A": "庚午", "B": "己巳", "C": "辛未", "D": "壬申", "answer": "（Ｃ）", "task": "Case", "category": "Chart Construction"},
    ]  # fmt: skip
    pq.write_table(pa.Table.from_pylist(table), tmp_path / "items.parquet")
    parquet = read_items(tmp_path / "items.parquet")
    assert [(i["id"], i["answer"], i["task"]) for i in parquet] == [("p1", "A", "theory"), ("p2", "C", "case")]
    assert parquet[0]["options"] == OPTS
    assert select(read_items(tmp_path / "items.jsonl"), split="case")[0]["id"] == "c1"
    assert {i["id"] for i in load_items(tmp_path / "items.jsonl", category="nayin")} == {"t1", "t2", "t3"}
    with pytest.raises(BaziDataError, match="the categories are: Chart Construction, Nayin"):
        load_items(tmp_path / "items.jsonl", category="Shensha Basics")


def test_loader_strips_an_option_label_only_with_its_separator(tmp_path: Path) -> None:
    words = ["Apple", "Banana", "Cherry", "Date"]  # once read as "pple": a bare A was taken for a label
    labelled = ["A. 海中金", "(B)炉中火", "C、大林木", "【D】路旁土"]
    kept = ["A股", "B超", "C位", "D调"]
    records = [
        {"id": i, "question": "q", "options": opts, "answer": "A", "task": "theory", "category": "x"}
        for i, opts in enumerate((words, labelled, kept, ["A.I. 算命", "B", "C", "D"]))
    ]
    (tmp_path / "items.json").write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    options = [i["options"] for i in read_items(tmp_path / "items.json")]
    assert options == [words, OPTS, kept, ["A.I. 算命", "B", "C", "D"]]


def test_loader_reads_a_csv_with_a_bom_and_a_text_index(tmp_path: Path) -> None:
    def write(name: str, rows: list[list[str]], encoding: str) -> Path:
        path = tmp_path / name
        with path.open("w", encoding=encoding, newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["id", "question", "A", "B", "C", "D", "answer", "category"])
            writer.writerows([[ident, "纳音？", *OPTS, answer, "Nayin"] for ident, answer in rows])
        return path

    bom = write("bazi_theory.csv", [["t1", "B"], ["t2", "C"]], "utf-8-sig")  # as Excel saves "CSV UTF-8"
    assert [(i["id"], i["answer"]) for i in read_items(bom)] == [("t1", "B"), ("t2", "C")]  # once bazi_theory-2, -3
    # an index as text: every CSV cell is; "0.0" as pandas writes an integer column with gaps
    indexed = write("theory_indexed.csv", [["t1", "1"], ["t2", "B"], ["t3", "0.0"]], "utf-8")
    assert [(i["id"], i["answer"]) for i in read_items(indexed)] == [("t1", "B"), ("t2", "B"), ("t3", "A")]
    ambiguous = tmp_path / "numbers.json"  # "1" as an index is B, as an option's text A: refused, not guessed
    record = {"id": "n", "question": "几？", "options": ["1", "2", "3", "4"], "answer": "1", "category": "x"}
    ambiguous.write_text(json.dumps({"theory": [record]}), encoding="utf-8")
    with pytest.raises(BaziDataError, match="answer '1' is ambiguous"):
        read_items(ambiguous)


def test_loader_splits_jsonl_on_newlines_only(tmp_path: Path) -> None:
    separators = ["\u2028", "\u2029", "\u0085", "\x1c", "\x1d", "\x1e", "\x0b", "\x0c"]  # splitlines() breaks
    records = [
        {"id": f"s{k}", "question": f"甲子{sep}纳音？", "options": OPTS, "answer": "A", "category": "x"}
        for k, sep in enumerate(separators)
    ]
    body = "\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    for sep in separators:  # every one raw inside its string, as some writers leave them
        body = body.replace(json.dumps(sep)[1:-1], sep)
    assert all(sep in body for sep in separators)
    path = tmp_path / "theory.jsonl"
    path.write_text(body + "\n", encoding="utf-8")
    assert [i["question"] for i in read_items(path)] == [r["question"] for r in records]
    path.write_text("\ufeff" + body + "\r\n" + '{"id": "torn", "question": "乙', encoding="utf-8")
    with pytest.warns(UserWarning, match=f"line {len(records) + 1} is cut off"):
        items = read_items(path)
    assert [i["question"] for i in items] == [r["question"] for r in records]  # a BOM, and the torn line alone lost
    path.write_text(body + "\n{bad\n" + body.replace('"s', '"u'), encoding="utf-8")
    with pytest.raises(BaziDataError, match=f"line {len(records) + 1}: malformed JSON"):
        read_items(path)  # not the last line: a corrupt file, named


def test_loader_family_from_file_name_and_folders(tmp_path: Path) -> None:
    rows = [{"id": 1, "question": "q", "options": OPTS, "answer": "B", "category": "Nayin"}]
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "bazi_theory.jsonl").write_text(json.dumps(rows[0], ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / "bazi_case.json").write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    items = read_items(folder)
    assert sorted(i["id"] for i in items) == ["case/1", "theory/1"]  # ids repeated across families
    (tmp_path / "split.json").write_text(json.dumps({"theory": rows, "case": rows}), encoding="utf-8")
    assert [i["task"] for i in read_items(tmp_path / "split.json")] == ["theory", "case"]


def test_loader_hub_id(monkeypatch: pytest.MonkeyPatch) -> None:
    import datasets

    rows = [{"id": "x", "question": "q", "options": OPTS, "answer": "D", "category": "Ten Gods"}]
    calls = []

    def fake(name: str, split: str | None = None) -> Any:
        calls.append((name, split))
        ds = datasets.Dataset.from_list(rows)
        return ds if split else datasets.DatasetDict({"theory": ds, "case": ds})

    monkeypatch.setattr(datasets, "load_dataset", fake)
    items = read_items("someone/BaZi2500")
    assert calls == [("someone/BaZi2500", None)] and sorted(i["id"] for i in items) == ["case/x", "theory/x"]
    assert read_items("someone/BaZi2500", hub_split="theory")[0]["task"] == "theory"

    def offline(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("hub unreachable")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(
        BaziDataError, match="someone/BaZi2500: no such file or folder, and it could not be loaded as a hub dataset"
    ):
        read_items("someone/BaZi2500")


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"id": "q9", "question": "q", "options": OPTS[:3], "answer": "A", "task": "theory", "category": "x"}, "row 2 \\(id q9\\): field 'options' has 3 options, expected 4"),
        ({"id": "q9", "question": "q", "options": OPTS, "answer": "E", "task": "theory", "category": "x"}, "answer 'E' is not a letter"),
        ({"id": "q9", "question": "q", "options": OPTS, "answer": 7, "task": "theory", "category": "x"}, "answer index 7 is out of range"),
        ({"id": "q9", "options": OPTS, "answer": "A", "task": "theory", "category": "x"}, "no question: expected one of the fields question, prompt, stem"),
        ({"id": "q9", "question": "q", "answer": "A", "task": "theory", "category": "x"}, "no options"),
        ({"id": "q9", "question": "q", "options": OPTS, "task": "theory", "category": "x"}, "no answer key"),
        ({"id": "q9", "question": "q", "options": OPTS, "answer": "A", "category": "x"}, "no family: expected one of the fields task, split, family"),
        ({"id": "q9", "question": "q", "options": OPTS, "answer": "A", "task": "exam", "category": "x"}, "task='exam' is neither theory nor case"),
        ({"id": "q9", "question": "q", "options": OPTS, "answer": "A", "task": "case"}, "no category"),
        ({"id": "q9", "question": "q", "options": ["a", "a", "b", "c"], "answer": "A", "task": "case", "category": "x"}, "not distinct"),
        ({"id": "q1", "question": "q", "options": OPTS, "answer": "A", "task": "theory", "category": "x"}, "id 'q1' repeats the id of"),
    ],
)  # fmt: skip
def test_loader_errors_name_the_file_and_row(tmp_path: Path, record: dict[str, Any], message: str) -> None:
    good = {"id": "q1", "question": "q", "options": OPTS, "answer": "A", "task": "theory", "category": "x"}
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(BaziDataError, match=message) as err:
        read_items(path)
    assert str(path) in str(err.value)


def test_loader_source_errors(tmp_path: Path) -> None:
    with pytest.raises(BaziDataError, match=re.escape("missing.jsonl: no such file or folder")):
        read_items(tmp_path / "missing.jsonl")
    (tmp_path / "torn.jsonl").write_text('{"id": 1}\n{"id": \n', encoding="utf-8")
    with pytest.raises(BaziDataError, match=re.escape("torn.jsonl: line 2: malformed JSON")):
        read_items(tmp_path / "torn.jsonl")
    (tmp_path / "x.txt").write_text("hi", encoding="utf-8")
    with pytest.raises(BaziDataError, match=re.escape("unsupported file type '.txt'")):
        read_items(tmp_path / "x.txt")
    (tmp_path / "empty").mkdir()
    with pytest.raises(BaziDataError, match="the folder holds no"):
        read_items(tmp_path / "empty")
    (tmp_path / "obj.json").write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(BaziDataError, match="expected a list of records"):
        read_items(tmp_path / "obj.json")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    with pytest.raises(BaziDataError, match=re.escape("bad.parquet: cannot be read as parquet")):
        read_items(tmp_path / "bad.parquet")
    with pytest.raises(BaziDataError, match="split must be theory or case"):
        select([{"task": "theory", "category": "x"}], split="exam")


def test_category_in_the_other_family_is_named(tmp_path: Path) -> None:
    path = tmp_path / "items.json"
    path.write_text(json.dumps(_paper_records(), ensure_ascii=False), encoding="utf-8")
    assert len(load_items(path, split="case", category="chart construction")) == 2
    with pytest.raises(BaziDataError, match=r"no theory items .*Chart Construction is in the other family"):
        load_items(path, split="theory", category="Chart Construction")


# ============================================================================ the verified item set


def _rederive_with_lunar_python(item: dict[str, Any]) -> str | None:
    """The correct option, computed by lunar-python where it has the rule (None otherwise)."""
    p = item["params"]
    match item["rule"]:
        case "nayin_of":
            return LunarUtil.NAYIN[p["pillar"]]
        case "god_of":
            return LunarUtil.SHI_SHEN[p["day_stem"] + p["stem"]]
        case "kong_of":
            return LunarUtil.getXunKong(p["pillar"])
        case "chart" | "pillar":
            pillars = dict(
                zip(("year", "month", "day", "hour"), _lunar_pillars(datetime.fromisoformat(p["birth"]))[p["zi_hour"]])
            )
            if item["rule"] == "pillar":
                return pillars[p["which"]]
            return f"{pillars['year']}年 {pillars['month']}月 {pillars['day']}日 {pillars['hour']}时"
    return None


def test_verified_items_are_sound_and_rederived() -> None:
    items = generate_items(n=40, seed=3)
    assert len(items) == 40 * len(VERIFIED_CATEGORIES)
    assert {i["rule"] for i in items} == set(PREDICATES)  # every template is exercised
    rederived = 0
    for item in items:
        assert len(item["options"]) == 4 and len(set(item["options"])) == 4
        assert solve(item) == [item["answer"]], item
        check_item(item)
        correct = item["options"]["ABCD".index(item["answer"])]
        expected = _rederive_with_lunar_python(item)
        if expected is not None:
            assert correct == expected, item
            rederived += 1
        assert item["task"] == VERIFIED_CATEGORIES[item["category"]]["task"]
    assert rederived > 60
    assert len({(i["question"], frozenset(i["options"])) for i in items}) == len(items)
    letters = [i["answer"] for i in items]
    assert all(letters.count(x) > len(items) / 8 for x in "ABCD")  # the key is not always in one place


def test_verified_items_are_reproducible() -> None:
    a = generate_items(n=8, seed=11)
    assert a == generate_items(n=8, seed=11)
    assert a != generate_items(n=8, seed=12)
    longer = generate_items(n=12, seed=11)
    assert [i for i in longer if int(i["id"][-4:]) <= 8] == a  # more items per category: the first ones stay
    only = generate_items(n=8, seed=11, category="纳音,chart_construction")
    assert only == [i for i in a if i["category"] in ("Nayin", "Chart Construction")]
    same_day = generate_items(n=8, seed=11, category="Chart Construction", zi_hour="same_day")
    assert all("晚子时" in i["question"] and i["params"]["zi_hour"] == "same_day" for i in same_day)
    assert all(solve(i) == [i["answer"]] for i in same_day)
    with pytest.raises(ValueError, match="unknown verified category 'Shensha'"):
        generate_items(n=2, category="Shensha")
    with pytest.raises(ValueError, match="n must be at least 1"):
        generate_items(n=0)


def test_a_wrong_key_is_caught() -> None:
    item = dict(generate_items(n=1, seed=0, category="Ten Gods")[0])
    item["answer"] = next(x for x in "ABCD" if x != item["answer"])
    with pytest.raises(ValueError, match="the rule accepts"):
        check_item(item)


def test_cli_items_and_report(tmp_path: Path) -> None:
    from poetone.bazi.cli import add_parser

    parser = argparse.ArgumentParser(prog="poetone")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["bazi", "items", "--out", str(tmp_path / "v.jsonl"), "--n", "3", "--seed", "5"])
    assert args.func(args) == 0
    written = [json.loads(line) for line in (tmp_path / "v.jsonl").read_text(encoding="utf-8").splitlines()]
    assert written == generate_items(n=3, seed=5)
    reread = {i["id"]: i for i in read_items(tmp_path / "v.jsonl")}  # the item file is a valid item source
    assert all(reread[i["id"]]["hash"] == i["hash"] and reread[i["id"]]["rule"] == i["rule"] for i in written)
    args = parser.parse_args(["bazi", "report", str(tmp_path / "nothing-here")])
    with pytest.raises(ValueError, match="no such file or folder"):
        args.func(args)


# ============================================================================ the report


def _answers(model: str, pattern: list[tuple[str, str, bool, bool]]) -> list[Answer]:
    return [
        Answer(
            model,
            "inspect",
            "x",
            f"i{k}",
            f"i{k}#h",
            task,
            cat,
            "A",
            "",
            None if invalid else ("A" if ok else "B"),
            ok,
            invalid,
        )
        for k, (task, cat, ok, invalid) in enumerate(pattern)
    ]


def test_report_numbers_equal_direct_computation() -> None:
    rng = random.Random(4)
    cats = [("theory", "Nayin"), ("theory", "Ten Gods"), ("case", "Health"), ("case", "Career")]
    shape = [cats[k % 4] for k in range(80)]
    models = {}
    for m, p_right in (("m1", 0.7), ("m2", 0.5), ("m3", 0.45)):
        pattern = []
        for task, cat in shape:
            invalid = rng.random() < 0.1
            pattern.append((task, cat, (not invalid) and rng.random() < p_right, invalid))
        models[m] = pattern
    answers = [a for m, pat in models.items() for a in _answers(m, pat)]
    report = build_report(answers + answers[:5])  # repeats are dropped
    assert report["notes"] == ["5 repeated answers (same model, same item) dropped; the first was kept"]
    for row in report["categories"]:
        pat = [x for x, c in zip(models[row["model"]], shape) if c == (row["task"], row["category"])]
        right, bad = sum(x[2] for x in pat), sum(x[3] for x in pat)
        iv, iv_valid = wilson(right, len(pat)), wilson(right, len(pat) - bad)
        assert (row["n"], row["correct"], row["invalid"]) == (len(pat), right, bad)
        assert (row["accuracy"], row["accuracy_low"], row["accuracy_high"]) == (iv.estimate, iv.low, iv.high)
        assert (row["accuracy_valid"], row["accuracy_valid_low"]) == (iv_valid.estimate, iv_valid.low)
        assert row["invalid_rate"] == bad / len(pat)
    for row in report["summary"]:
        pat = [x for x, c in zip(models[row["model"]], shape) if row["scope"] == "all" or c[0] == row["scope"]]
        assert row["accuracy_high"] == wilson(sum(x[2] for x in pat), len(pat)).high
        per_cat = [
            r["accuracy"]
            for r in report["categories"]
            if r["model"] == row["model"] and row["scope"] in ("all", r["task"])
        ]
        assert row["macro_accuracy"] == pytest.approx(fmean(per_cat))
    for gap in report["gaps"]:
        t = next(r for r in report["summary"] if r["model"] == gap["model"] and r["scope"] == "theory")
        c = next(r for r in report["summary"] if r["model"] == gap["model"] and r["scope"] == "case")
        expected = newcombe(wilson(t["correct"], t["n"]), wilson(c["correct"], c["n"]))
        assert (gap["gap"], gap["gap_low"], gap["gap_high"]) == (expected.estimate, expected.low, expected.high)
        assert expected.low < expected.estimate < expected.high
    raw = []
    for a, b in (("m1", "m2"), ("m1", "m3"), ("m2", "m3")):
        for scope in ("theory", "case", "all"):
            pairs = [(x[2], y[2]) for x, y, c in zip(models[a], models[b], shape) if scope in ("all", c[0])]
            only_a, only_b = sum(x and not y for x, y in pairs), sum(y and not x for x, y in pairs)
            raw.append(((a, b, scope), only_a, only_b, mcnemar_p(only_a, only_b)))
    got = {(c["model_a"], c["model_b"], c["scope"]): c for c in report["comparisons"]}
    for (key, only_a, only_b, p), adjusted in zip(raw, holm([r[3] for r in raw])):
        assert (got[key]["only_a"], got[key]["only_b"]) == (only_a, only_b)
        assert got[key]["p"] == p and got[key]["p_holm"] == adjusted
    assert any(c["p_holm"] < 0.05 for c in report["comparisons"])  # m1 is clearly better than m3
    md = render_markdown(report)
    assert "## Paired comparisons" in md and "Theory − Case gap" in md
    first = report["categories"][0]
    assert (
        f"| {first['model']} | {first['task']} | {first['category']} | {first['n']} | {wilson(first['correct'], first['n']).format()} |"
        in md
    )


# ============================================================================ lm-eval and Inspect, end to end


def _reply(item: dict[str, Any], salt: str) -> str:
    """A deterministic mix of right, wrong and invalid replies in every accepted wrapping."""
    key = item["answer"]
    wrong = "ABCD"[("ABCD".index(key) + 1) % 4]
    kind = int(hashlib.sha256((salt + item["hash"]).encode()).hexdigest(), 16) % 7
    return [key, f"答案：{chr(ord(key) + 0xFEE0)}", f"**{key}**", f"({wrong})", "A或B", "", "海中金"][kind]


def _release(tmp: Path) -> list[dict[str, Any]]:
    """A small BaZi2500-shaped file (paper layout, some variant fields), written by the test."""
    records = []
    for k, item in enumerate(generate_items(n=3, seed=21)):
        family = "Theory" if item["task"] == "theory" else "Case"
        rec = {"id": f"b{k}", "question": item["question"], "options": item["options"], "answer": item["answer"],
               "task": family, "category": item["category"]}  # fmt: skip
        if k % 3 == 1:
            rec = {"qid": rec["id"], "stem": rec["question"], "choices": rec["options"], "label": rec["answer"],
                   "family": family, "type": rec["category"]}  # fmt: skip
        rec["context" if k % 2 else "background"] = f"（样题 {k}）"  # and so never the prompt of a verified item
        records.append(rec)
    (tmp / "bazi2500.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", encoding="utf-8"
    )
    return read_items(tmp / "bazi2500.jsonl")


@pytest.fixture(scope="module")
def lm_eval_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("bazi_lm_eval")
    release = _release(tmp)
    verified = generate_items(n=4, seed=7)
    by_prompt = {format_prompt(i): i for i in release + verified}

    def responder(messages: list[dict[str, Any]]) -> str:
        return _reply(by_prompt[messages[-1]["content"]], "lm-eval")

    metadata = json.dumps({"path": str(tmp / "bazi2500.jsonl"), "n": 4, "seed": 7})
    with OpenAIStub(responder) as stub:
        cmd = [
            sys.executable, "-m", "lm_eval", "run",
            "--model", "local-chat-completions",
            "--model_args", f"model=stub,base_url={stub.base_url}/chat/completions,num_concurrent=2,max_retries=1,tokenized_requests=False",
            "--apply_chat_template", "--tasks", "bazi,bazi_verified", "--include_path", str(TASKS),
            "--metadata", metadata, "--output_path", str(tmp / "out"), "--log_samples",
        ]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        exchanges = list(stub.exchanges)
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads(sorted((tmp / "out").rglob("results_*.json"))[-1].read_text(encoding="utf-8"))
    return {
        "tmp": tmp,
        "release": release,
        "verified": verified,
        "by_prompt": by_prompt,
        "exchanges": exchanges,
        "results": results,
    }


def _expected(
    exchanges: list[tuple[list[dict[str, Any]], str]], by_prompt: dict[str, dict[str, Any]]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [
        (by_prompt[m[-1]["content"]], score_reply(reply, by_prompt[m[-1]["content"]]["answer"]))
        for m, reply in exchanges
    ]


def _acc(scored: list[dict[str, Any]]) -> tuple[float, float, float]:
    valid = [s for s in scored if not s["invalid"]]
    acc_valid = fmean(s["correct"] for s in valid) if valid else math.nan
    return fmean(s["correct"] for s in scored), fmean(s["invalid"] for s in scored), acc_valid


def test_lm_eval_metrics_equal_direct_computation(lm_eval_run: dict[str, Any]) -> None:
    run = lm_eval_run
    expected = _expected(run["exchanges"], run["by_prompt"])
    assert len(expected) == len(run["release"]) + len(run["verified"])
    release_prompts = {format_prompt(i) for i in run["release"]}
    groups: dict[str, list[dict[str, Any]]] = {"bazi_theory": [], "bazi_case": [], "bazi_verified": []}
    per_category: dict[str, list[dict[str, Any]]] = {}
    for item, s in expected:
        if format_prompt(item) in release_prompts:
            groups[f"bazi_{item['task']}"].append(s)
        else:
            groups["bazi_verified"].append(s)
            per_category.setdefault(item["category"], []).append(s)
    res = run["results"]["results"]
    for task, scored in groups.items():
        acc, invalid, acc_valid = _acc(scored)
        assert res[task]["acc,none"] == pytest.approx(acc, abs=1e-12), task
        assert res[task]["invalid,none"] == pytest.approx(invalid, abs=1e-12), task
        assert res[task]["acc_valid,none"] == pytest.approx(acc_valid, abs=1e-12), task
    assert 0 < res["bazi_verified"]["invalid,none"] < 1
    both = groups["bazi_theory"] + groups["bazi_case"]
    assert res["bazi"]["acc,none"] == pytest.approx(fmean(s["correct"] for s in both), abs=1e-12)
    for name, scored in per_category.items():
        assert res["bazi_verified"][f"acc_{VERIFIED_CATEGORIES[name]['slug']},none"] == pytest.approx(
            fmean(s["correct"] for s in scored)
        )
    sample = json.loads(
        sorted(run["tmp"].rglob("samples_bazi_theory_*.jsonl"))[-1].read_text(encoding="utf-8").splitlines()[0]
    )
    assert set(sample["doc"]["bazi"]) == {"reply", "parsed", "correct", "invalid"} and sample["doc"]["category"]
    assert run["results"]["configs"]["bazi_theory"]["generation_kwargs"]["do_sample"] is False


def test_lm_eval_missing_path_says_how_to_pass_it() -> None:
    spec = importlib.util.spec_from_file_location("bazi_lm_eval_utils", TASKS / "bazi" / "utils.py")
    utils = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(utils)  # type: ignore[union-attr]
    with pytest.raises(
        ValueError,
        match=r"bazi_theory needs the BaZi2500 items.*" + re.escape("""--metadata '{"path": "items.jsonl"}'"""),
    ):
        utils.load_bazi("theory", version=1.0)
    assert len(utils.load_bazi_verified(n=2, seed=1, version=1.0)["test"]) == 12


def _inspect(task: str, salt: str, log_dir: Path, by_prompt: dict[str, dict[str, Any]], **task_args: Any) -> Any:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def outputs(input: Any, tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        out = ModelOutput.from_content("m", _reply(by_prompt[input[-1].text], salt))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    model = get_model(f"mockllm/{salt}", custom_outputs=outputs)
    (log,) = inspect_eval(task, model=model, task_args=task_args, log_dir=str(log_dir), display="none")
    assert log.status == "success", log.error
    return log


def _metrics(log: Any) -> dict[str, dict[str, float]]:
    return {s.name: {k: v.value for k, v in s.metrics.items()} for s in log.results.scores}


def test_inspect_tasks_and_the_report(lm_eval_run: dict[str, Any], tmp_path: Path) -> None:
    run = lm_eval_run
    by_prompt = run["by_prompt"]
    log = _inspect(
        "poetone/bazi", "inspect", tmp_path / "logs", by_prompt, path=str(run["tmp"] / "bazi2500.jsonl"), split="theory"
    )
    theory = [i for i in run["release"] if i["task"] == "theory"]
    assert log.eval.task == "poetone/bazi" and len(log.samples) == len(theory)
    assert log.plan.config.temperature == 0.0
    scored = [score_reply(s.output.completion, s.target) for s in log.samples]
    acc, invalid, acc_valid = _acc(scored)
    m = _metrics(log)
    assert m["accuracy"]["accuracy"] == pytest.approx(acc) and m["invalid"]["mean"] == pytest.approx(invalid)
    assert m["accuracy_valid"]["accuracy"] == pytest.approx(acc_valid)
    for name in {i["category"] for i in theory}:
        cat = [s for s, smp in zip(scored, log.samples) if smp.metadata["category"] == name]
        assert m["accuracy"][f"poetone/category_{name}"] == pytest.approx(fmean(s["correct"] for s in cat))
    assert m["accuracy"]["poetone/family_theory"] == pytest.approx(acc)
    only = _inspect(
        "poetone/bazi",
        "inspect",
        tmp_path / "other",
        by_prompt,
        path=str(run["tmp"] / "bazi2500.jsonl"),
        category="Nayin,chart construction",
    )
    assert {s.metadata["category"] for s in only.samples} == {"Nayin", "Chart Construction"}
    with pytest.raises(ValueError, match=re.escape("-T path=items.jsonl")):
        from poetone.inspect_tasks.bazi import bazi

        bazi()

    verified = _inspect("poetone/bazi_verified", "inspect", tmp_path / "logs", by_prompt, n=4, seed=7)
    assert len(verified.samples) == 24 and {s.id for s in verified.samples} == {i["id"] for i in run["verified"]}

    # the report over both frameworks: Inspect (mockllm/inspect) and lm-eval (stub), paired on the items both answered
    answers, errors = read_answers([tmp_path / "logs", run["tmp"] / "out"])
    assert errors == []
    report = build_report(answers)
    assert report["models"] == ["mockllm/inspect", "stub"]
    stub = {
        m[-1]["content"]: score_reply(reply, by_prompt[m[-1]["content"]]["answer"]) for m, reply in run["exchanges"]
    }
    row = next(r for r in report["summary"] if r["model"] == "stub" and r["scope"] == "all")
    iv = wilson(sum(s["correct"] for s in stub.values()), len(stub))
    assert (row["n"], row["accuracy"], row["accuracy_low"], row["accuracy_high"]) == (
        len(stub),
        iv.estimate,
        iv.low,
        iv.high,
    )
    assert row["invalid"] == sum(s["invalid"] for s in stub.values())
    mock = {
        s.input[-1].text: score_reply(s.output.completion, s.target)["correct"] for s in log.samples + verified.samples
    }
    assert len(mock) == len(theory) + 24 and set(mock) <= set(
        stub
    )  # both answered the theory items and the verified set
    only_a = sum(mock[p] and not stub[p]["correct"] for p in mock)
    only_b = sum(stub[p]["correct"] and not mock[p] for p in mock)
    comparisons = {c["scope"]: c for c in report["comparisons"]}
    assert (comparisons["all"]["n"], comparisons["all"]["only_a"], comparisons["all"]["only_b"]) == (
        len(mock),
        only_a,
        only_b,
    )
    assert comparisons["all"]["p"] == mcnemar_p(only_a, only_b)
    assert [c["p_holm"] for c in report["comparisons"]] == holm([c["p"] for c in report["comparisons"]])
    from poetone.bazi.cli import cmd_report

    code = cmd_report(
        argparse.Namespace(logs=[str(tmp_path / "logs"), str(run["tmp"] / "out")], out=str(tmp_path / "rep"))
    )
    assert code == 0
    saved = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    assert saved["comparisons"][0]["p_holm"] == report["comparisons"][0]["p_holm"]
    assert "| stub | all |" in (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
