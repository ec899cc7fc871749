"""poetone human-eval: pairs, the study database, the statistics, the app under concurrent
annotators, and a whole annotation in a real browser.

The app tests need the ``poetone[human-eval]`` extra (Starlette, Jinja2, uvicorn) and skip without
it; the browser test also needs Playwright (``pip install playwright``) and Debian's Chromium at
/usr/bin/chromium (``apt-get install chromium``; never ``playwright install``).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from poetone import corpus
from poetone.human_eval import cli as he_cli
from poetone.human_eval.db import ANSWER_FIELDS, Database, StudyError, clean_annotator, export
from poetone.human_eval.pairs import Pair, assign, build_pairs, display_text, pairs_from_logs, slot_of
from poetone.human_eval.stats import agreement, format_report, krippendorff_alpha, study_stats
from poetone.logs import Candidate
from poetone.stats import binomial_test_p, bootstrap_ci, holm, wilson

CHROMIUM = Path("/usr/bin/chromium")
XSS = "<script>window.__xss=1</script>"
RECORDS = corpus.load_records()
BY_ID = {r["id"]: r for r in RECORDS}
THEMES = list(corpus.THEMES)


def other_poem(slot: str) -> str:
    """A poem of the same cipai on the next theme: a plausible 'generated' poem for ``slot``."""
    slug, theme = slot.split("-", 1)
    return BY_ID[f"{slug}-{THEMES[(THEMES.index(theme) + 1) % len(THEMES)]}"]["text"]


def cand(
    model: str,
    slot: str,
    conformity: float,
    *,
    epoch: int = 1,
    strategy: str = "zero_shot",
    poem: str | None = None,
    valid: bool = True,
    copied: bool = False,
    upper: str = "",
) -> Candidate:
    record = BY_ID.get(slot, {"cipai": "浣溪沙", "theme": slot.split("-", 1)[-1]})
    text = other_poem(slot) if poem is None else poem
    return Candidate(
        source="hand-made", framework="inspect", model=model, prompt_id=f"{strategy}-{slot}", strategy=strategy,
        cipai=record["cipai"], theme=slot.split("-", 1)[1], epoch=epoch, system="", user="", answer=text,
        poem=text, valid=valid, copied=copied, conformity=conformity, structure=1.0, tonal=conformity,
        rhyme=conformity, extra={"upper": upper, "original_lower": ""},
    )  # fmt: skip


def slots(n: int, slug: str = "huanxisha") -> list[str]:
    return [f"{slug}-{t}" for t in THEMES[:n]]


@pytest.fixture
def study(tmp_path: Path) -> tuple[Database, list[Pair]]:
    """A study of 6 pairs (two models, three slots each) in a fresh database."""
    cands = [cand("m/a", s, 0.9 - 0.1 * i) for i, s in enumerate(slots(3))]
    cands += [cand("m/b", s, 0.8) for s in slots(3, "dielianhua")]
    pairs = build_pairs(cands, RECORDS, top=3).pairs
    db = Database(tmp_path / "study.sqlite")
    db.setup(pairs, seed=7)
    return db, pairs


# ---------------------------------------------------------------------------------- pairs


def test_pairs_take_the_top_k_per_model_by_best_epoch() -> None:
    cands = []
    for i, s in enumerate(slots(6)):
        cands.append(cand("m/a", s, 0.5 + 0.05 * i, epoch=1))
        cands.append(cand("m/a", s, 0.9 if s.endswith("love_longing") else 0.1, epoch=2))
    cands += [cand("m/b", s, 0.7) for s in slots(2, "dielianhua")]
    sel = build_pairs(cands, RECORDS, top=3)
    a = [p for p in sel.pairs if p.model == "m/a"]
    b = [p for p in sel.pairs if p.model == "m/b"]
    assert len(a) == 3 and len(b) == 2  # K per model, or all a model has
    assert [(p.theme, p.epoch) for p in a] == [("love_longing", 2), ("philosophical_reflection", 1), ("sorrow_grief", 1)]
    assert sel.skipped == {"below the top 3 of its model": 9}  # the 12 candidates of m/a, less 3
    for p in sel.pairs:  # each pair: one generated poem and the canonical poem of its cipai and theme
        record = BY_ID[slot_of(p.prompt_id)]
        assert p.canonical_id == record["id"] and p.cipai == record["cipai"] and p.theme == record["theme"]
        assert p.canonical == display_text(record["text"], record["cipai"])
        assert p.generated != p.canonical and p.theme_label == corpus.THEMES[p.theme]
    assert build_pairs(cands, RECORDS, top=3).pairs == sel.pairs  # deterministic
    everything = build_pairs(cands, RECORDS, top=None)
    assert len(everything.pairs) == 14 and not everything.skipped  # --all: every epoch


def test_pairs_skip_unusable_candidates_by_reason() -> None:
    s = "niannujiao-history_nostalgia"
    cands = [
        cand("m", s, 0.0, valid=False),
        cand("m", s, 0.0, epoch=2, copied=True),
        cand("m", s, 1.0, epoch=3, poem=BY_ID[s]["text"]),  # recites 苏轼: would be two identical poems
        cand("m", "niannujiao-no_such_theme", 0.9, poem=other_poem(s)),
        cand("m", s, 0.8, epoch=4),
        cand("m", s, 0.8, epoch=4),  # the same log read twice
    ]
    sel = build_pairs(cands, RECORDS, top=None)
    assert [p.epoch for p in sel.pairs] == [4]
    assert sel.skipped == {
        "invalid answer": 1,
        "copies the withheld 下阕": 1,
        "copies the canonical poem": 1,
        "prompt id without a corpus slot": 1,
        "duplicate": 1,
    }
    assert "1 pairs from 6 candidates" in sel.summary()
    with pytest.raises(ValueError, match="top must be at least 1"):
        build_pairs(cands, RECORDS, top=0)


def test_completion_pair_shows_the_given_upper_and_the_models_lower() -> None:
    s = "huanxisha-nature_landscape"
    upper, lower = BY_ID[s]["text"].split("\n")
    model_lower = other_poem(s).split("\n")[1]
    (pair,) = build_pairs([cand("m", s, 0.9, strategy="completion", poem=model_lower, upper=upper)], RECORDS).pairs
    assert pair.generated == f"{upper}\n{model_lower}" and pair.canonical == f"{upper}\n{lower}"


def test_display_text_lays_out_both_poems_as_two_stanzas() -> None:
    text = BY_ID["huanxisha-love_longing"]["text"]
    one_clause_a_line = "\n".join(re.findall(r"[^，。]+[，。]", text.replace("\n", "")))
    assert display_text(one_clause_a_line, "浣溪沙") == text
    assert display_text("  一向年光 有限身。\n\n", "浣溪沙") == "一向年光有限身。"


def test_assignment_is_seeded_by_annotator_and_balanced() -> None:
    ids = [f"p{i:02d}" for i in range(7)]
    first = assign(ids, "王安石", seed=3)
    assert first == assign(list(reversed(ids)), "王安石", seed=3)  # reproducible, input order irrelevant
    assert sorted(pid for pid, _ in first) == ids  # every pair once
    assert [pid for pid, _ in first] != [pid for pid, _ in assign(ids, "欧阳修", seed=3)]
    assert first != assign(ids, "王安石", seed=4)
    for n in (1, 2, 7, 20):
        sides = [side for _, side in assign([f"q{i}" for i in range(n)], "x")]
        assert abs(sides.count("left") - sides.count("right")) <= 1
    orders = {tuple(pid for pid, _ in assign(ids, f"a{k}")) for k in range(10)}
    assert len(orders) > 5  # annotators do not share one order


# ---------------------------------------------------------------------------------- database


def test_db_persists_each_answer_and_resumes(study: tuple[Database, list[Pair]]) -> None:
    db, pairs = study
    name = db.start("  苏 轼 ")
    assert name == "苏 轼" and db.start("苏 轼") == name  # a returning name: same sequence
    steps = db.sequence(name)
    assert [s.position for s in steps] == list(range(6))
    assert [(s.pair_id, s.human_side) for s in steps] == assign([p.id for p in pairs], name, seed=7)
    first, second = steps[0], steps[1]
    assert db.save_stage1(name, first.pair_id, "left", 4) is True
    assert db.save_stage1(name, first.pair_id, "right", 1) is False  # double submit: the first stands
    assert db.save_stage2(name, first.pair_id, 5, 4, 3) is True
    assert db.save_stage2(name, first.pair_id, 1, 1, 1) is False
    assert db.save_stage1(name, second.pair_id, "right", 2) is True  # stopped after stage 1

    reopened = Database(db.path, create=False)  # a restarted server
    step, done, total = reopened.current(name)
    assert (step.position, step.chosen_side, step.ratings, done, total) == (1, "right", None, 1, 6)
    assert reopened.sequence(name)[0].ratings == (5, 4, 3)
    rows = reopened.answers()
    assert [(r["chosen_side"], r["confidence"], r["overall"]) for r in rows] == [("left", 4, 3), ("right", 2, None)]
    assert rows[0]["identified_human"] == int(first.human_side == "left")
    assert reopened.counts() == {"pairs": 6, "annotators": 1, "assignments": 6, "stage1": 2, "stage2": 1}
    import sqlite3

    with sqlite3.connect(db.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_db_refuses_bad_answers_and_other_studies(study: tuple[Database, list[Pair]], tmp_path: Path) -> None:
    db, pairs = study
    name = db.start("晏殊")
    pid = db.sequence(name)[0].pair_id
    with pytest.raises(StudyError, match="before saying which poem is human"):
        db.save_stage2(name, pid, 3, 3, 3)
    with pytest.raises(StudyError, match="not in the sequence of annotator"):
        db.save_stage1(name, "nope", "left", 3)
    with pytest.raises(StudyError, match="confidence must be an integer from 1 to 5, got 6"):
        db.save_stage1(name, pid, "left", 6)
    with pytest.raises(StudyError, match="chosen side must be one of"):
        db.save_stage1(name, pid, "middle", 3)
    for bad, message in (("", "empty"), ("x" * 41, "longer than 40"), ("a\x00b", "control characters")):
        with pytest.raises(StudyError, match=message):
            clean_annotator(bad)
    db.setup(pairs, seed=7)  # the same study again: a restart
    with pytest.raises(StudyError, match="already holds another study"):
        db.setup(pairs[:2], seed=7)
    with pytest.raises(StudyError, match="was set up with --seed 7, not 8"):
        db.setup(pairs, seed=8)
    with pytest.raises(StudyError, match="no such study database"):
        Database(tmp_path / "missing.sqlite", create=False)
    (tmp_path / "junk.sqlite").write_text("not sqlite " * 100)
    with pytest.raises(StudyError, match="not a usable study database"):
        Database(tmp_path / "junk.sqlite")


def test_stage1_answers_only_the_pair_being_shown(study: tuple[Database, list[Pair]]) -> None:
    db, _ = study
    name = db.start("秦观")
    first, second, third = db.sequence(name)[:3]
    with pytest.raises(StudyError, match="is not the pair being shown: annotator '秦观' is shown pair 1"):
        db.save_stage1(name, third.pair_id, "left", 3)  # a later pair of the sequence, not yet shown
    assert db.counts()["stage1"] == 0
    assert db.save_stage1(name, first.pair_id, "left", 3) is True
    with pytest.raises(StudyError, match="is shown pair 1"):  # pair 1 is still shown, for its ratings
        db.save_stage1(name, second.pair_id, "left", 3)
    db.save_stage2(name, first.pair_id, 3, 3, 3)
    assert db.save_stage1(name, first.pair_id, "right", 1) is False  # a double submit is still a no-op
    assert db.save_stage1(name, second.pair_id, "right", 2) is True
    assert [(s.chosen_side, s.confidence) for s in db.sequence(name)[:3]] == [("left", 3), ("right", 2), (None, None)]


def test_export_csv_cells_are_never_formulas(tmp_path: Path) -> None:
    evil_model = '=HYPERLINK("http://evil.example","m")'
    cands = [cand(evil_model, s, 0.9) for s in slots(2)] + [cand("@m/x", s, 0.8) for s in slots(2, "dielianhua")]
    db = Database(tmp_path / "s.sqlite")
    db.setup(build_pairs(cands, RECORDS).pairs)
    for annotator in ("+1+1", "-2+3", "@SUM(A1)", "普通"):
        name = db.start(annotator)
        step = db.sequence(name)[0]
        db.save_stage1(name, step.pair_id, "left", 3)
    export(db, tmp_path / "out")
    for table in ("answers", "pairs"):
        with open(tmp_path / "out" / f"{table}.csv", encoding="utf-8", newline="") as fh:
            cells = [cell for row in csv.reader(fh) for cell in row]
        assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], table
        assert f"'{evil_model}" in cells and "'@m/x" in cells
    with open(tmp_path / "out" / "answers.csv", encoding="utf-8", newline="") as fh:
        assert {r["annotator"] for r in csv.DictReader(fh)} == {"'+1+1", "'-2+3", "'@SUM(A1)", "普通"}
    rows = json.loads((tmp_path / "out" / "answers.json").read_text(encoding="utf-8"))
    assert {r["annotator"] for r in rows} == {"+1+1", "-2+3", "@SUM(A1)", "普通"}  # JSON keeps the values
    from poetone.human_eval.db import csv_cell

    assert [csv_cell(v) for v in ("\tx", "\rx", "a=b", -0.5, 3)] == ["'\tx", "'\rx", "a=b", -0.5, 3]


def test_export_writes_csv_and_json(study: tuple[Database, list[Pair]], tmp_path: Path) -> None:
    db, pairs = study
    name = db.start("柳永")
    for i, step in enumerate(db.sequence(name)[:3]):
        db.save_stage1(name, step.pair_id, "left", i + 1)
        db.save_stage2(name, step.pair_id, 2, 3, 4)
    paths = export(db, tmp_path / "out")
    assert sorted(p.name for p in paths) == ["answers.csv", "answers.json", "pairs.csv", "pairs.json"]
    rows = json.loads((tmp_path / "out" / "answers.json").read_text(encoding="utf-8"))
    assert rows == db.answers() and len(rows) == 3
    with open(tmp_path / "out" / "answers.csv", encoding="utf-8", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert list(table[0]) == list(ANSWER_FIELDS) and [r["confidence"] for r in table] == ["1", "2", "3"]
    assert len(json.loads((tmp_path / "out" / "pairs.json").read_text(encoding="utf-8"))) == len(pairs)


# ---------------------------------------------------------------------------------- statistics


def answer(annotator: str, pair: str, model: str, identified: int, confidence: int, ratings: tuple | None) -> dict:
    f, a, o = ratings or (None, None, None)
    return {"annotator": annotator, "pair_id": pair, "model": model, "identified_human": identified,
            "confidence": confidence, "faithfulness": f, "artistry": a, "overall": o}  # fmt: skip


def test_stats_use_poetone_stats() -> None:
    rows = [answer("u1", f"a{i}", "m/a", int(i < 7), 1 + i % 5, (1 + i % 5, 3, 4)) for i in range(10)]
    rows += [answer("u2", f"b{i}", "m/b", int(i < 2), 3, (2, 2, 1 + i % 3) if i < 6 else None) for i in range(8)]
    report = study_stats(rows, n_boot=2000, seed=1)
    a, b = report["models"]
    assert (a["model"], a["answers"], a["identified"], b["identified"], b["rated"]) == ("m/a", 10, 7, 2, 6)
    w = wilson(7, 10)
    assert (a["rate"]["mean"], a["rate"]["low"], a["rate"]["high"]) == pytest.approx((w.estimate, w.low, w.high), abs=1e-6)
    assert a["p"] == binomial_test_p(7, 10) and b["p"] == binomial_test_p(2, 8)
    assert [a["p_holm"], b["p_holm"]] == holm([a["p"], b["p"]])
    boot = bootstrap_ci([1 + i % 3 for i in range(6)], n_boot=2000, seed=1)
    assert (b["overall"]["mean"], b["overall"]["low"], b["overall"]["high"]) == pytest.approx((boot.estimate, boot.low, boot.high), abs=1e-6)
    assert report["all"]["identified"] == 9 and report["answers"] == 18 and report["annotators"] == 2
    text = format_report(report)
    assert "m/a" in text and "0.70 [" in text and "Krippendorff" in text
    assert json.loads(json.dumps(report)) == report  # JSON-ready: NaN becomes None


def test_krippendorff_alpha_textbook_values() -> None:
    """Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers, 12 units,
    missing values; alpha = 0.743 nominal, 0.815 ordinal, 0.849 interval, 0.797 ratio."""
    n = None
    data = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
        [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n],
    ]
    expected = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
    for metric, value in expected.items():
        assert krippendorff_alpha(data, metric) == pytest.approx(value, abs=5e-4), metric
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 3]], "interval") == 1.0
    assert math.isnan(krippendorff_alpha([[1, n], [n, 2]]))  # nothing pairable
    assert math.isnan(krippendorff_alpha([[2, 2], [2, 2]]))  # no variation: undefined
    with pytest.raises(ValueError, match="metric must be one of"):
        krippendorff_alpha(data, "cosine")
    with pytest.raises(ValueError, match="coder row 1 has 2 units"):
        krippendorff_alpha([[1, 2, 3], [1, 2]])
    with pytest.raises(ValueError, match="interval alpha needs numeric values"):
        krippendorff_alpha([["a", "b"], ["a", "b"]], "interval")


def test_agreement_over_pairs_answered_by_several_annotators() -> None:
    rows = []
    for who in ("u1", "u2", "u3"):
        for i in range(4):
            rows.append(answer(who, f"p{i}", "m", i % 2, 3, (i + 1, i + 1, 5 - i)))
    rows.append(answer("u1", "solo", "m", 1, 3, (1, 1, 1)))  # one coder: not pairable
    ag = agreement(rows)
    assert ag["identified_human"] == {"nominal": 1.0, "units": 4}
    assert ag["faithfulness"] == {"interval": 1.0, "ordinal": 1.0, "units": 4}
    rows[1]["identified_human"] = 0  # u1 disagrees once
    assert agreement(rows)["identified_human"]["nominal"] < 1.0


# ---------------------------------------------------------------------------------- command line


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="poetone")
    he_cli.add_parser(p.add_subparsers(dest="command", required=True))
    return p


def test_cli_parses_serve_and_runs_export_and_stats(study, tmp_path: Path, capsys) -> None:
    args = parser().parse_args(["human-eval", "serve", "--logs", "a.eval", "b", "--db", "s.sqlite"])
    assert (args.host, args.port, args.top, args.all, args.seed, args.logs) == ("127.0.0.1", 8000, 20, False, 0, ["a.eval", "b"])
    assert parser().parse_args(["human-eval", "serve", "--logs", "x", "--db", "d", "--all"]).all
    with pytest.raises(SystemExit):
        parser().parse_args(["human-eval", "serve", "--logs", "x", "--db", "d", "--all", "--top", "3"])
    db, _ = study
    for who in ("u1", "u2"):
        name = db.start(who)
        for step in db.sequence(name):
            db.save_stage1(name, step.pair_id, step.human_side, 4)
            db.save_stage2(name, step.pair_id, 3, 3, 3)
    args = parser().parse_args(["human-eval", "stats", "--db", str(db.path), "--json", "--n-boot", "200"])
    assert args.func(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["answers"] == 12 and report["agreement"]["identified_human"]["units"] == 6
    assert all(m["identified"] == m["answers"] == 6 for m in report["models"])
    args = parser().parse_args(["human-eval", "stats", "--db", str(db.path), "--n-boot", "200"])
    assert args.func(args) == 0 and "m/a" in capsys.readouterr().out
    args = parser().parse_args(["human-eval", "export", "--db", str(db.path), "--out", str(tmp_path / "x")])
    assert args.func(args) == 0 and (tmp_path / "x" / "answers.csv").is_file()
    args = parser().parse_args(["human-eval", "stats", "--db", str(tmp_path / "none.sqlite")])
    with pytest.raises(StudyError, match="no such study database"):
        args.func(args)


def test_export_and_stats_count_the_same_annotators(study, tmp_path: Path, capsys) -> None:
    db, _ = study
    name = db.start("周邦彦")
    first, second = db.sequence(name)[:2]
    db.save_stage1(name, first.pair_id, first.human_side, 4)
    db.save_stage2(name, first.pair_id, 3, 3, 3)
    db.save_stage1(name, second.pair_id, second.human_side, 4)
    db.start("姜夔")  # started, answered nothing
    args = parser().parse_args(["human-eval", "stats", "--db", str(db.path), "--json", "--n-boot", "50"])
    args.func(args)
    report = json.loads(capsys.readouterr().out)
    args = parser().parse_args(["human-eval", "export", "--db", str(db.path), "--out", str(tmp_path / "x")])
    args.func(args)
    summary = capsys.readouterr().out.splitlines()[0]
    assert report["annotators"] == 1 and report["pairs"] == 2
    assert summary.startswith(f"2 answers (1 rated) by {report['annotators']} annotators on {report['pairs']} of ")
    assert "1 more annotators started without answering" in summary


# ---------------------------------------------------------------------------------- the app


def _web() -> Any:
    for module in ("starlette", "jinja2", "uvicorn", "python_multipart", "itsdangerous", "httpx"):
        pytest.importorskip(module, reason=f"the human-eval app needs {module} (pip install 'poetone[human-eval]')")
    from poetone.human_eval import app

    return app


CSRF = re.compile(r'name="csrf" value="([^"]+)"')
PAIR = re.compile(r'name="pair_id" value="([^"]+)"')
STAGE = re.compile(r'data-stage="([^"]+)"')


def test_app_checks_csrf_and_origin_and_escapes_poems(tmp_path: Path) -> None:
    web = _web()
    from starlette.testclient import TestClient

    s = "huanxisha-love_longing"
    upper, lower = other_poem(s).split("\n")
    pairs = build_pairs([cand("m/x", s, 0.9, poem=f"{XSS}{upper}\n{lower}")], RECORDS).pairs
    db = Database(tmp_path / "s.sqlite")
    db.setup(pairs)
    own = "http://127.0.0.1:8000"
    client = TestClient(web.create_app(db), base_url=own)
    page = client.get("/")
    assert page.status_code == 200 and "姓名或令牌" in page.text
    assert "script-src" not in page.headers["content-security-policy"]  # default-src 'none': no script at all
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    token = CSRF.search(page.text).group(1)
    assert client.post("/start", data={"annotator": "a"}, headers={"origin": own}).status_code == 403
    assert client.post("/start", data={"annotator": "a", "csrf": "forged"}, headers={"origin": own}).status_code == 403
    evil = client.post("/start", data={"annotator": "a", "csrf": token}, headers={"origin": "http://evil.example"})
    assert evil.status_code == 403 and "跨站请求被拒绝" in evil.text
    assert client.post("/start", data={"annotator": "a", "csrf": token}).status_code == 403  # no Origin, no Referer
    assert db.counts()["annotators"] == 0
    bad = client.post("/start", data={"annotator": " ", "csrf": token}, headers={"origin": own})
    assert bad.status_code == 400 and "annotator name is empty" in bad.text
    shown = client.post("/start", data={"annotator": "a", "csrf": token}, headers={"referer": own + "/"})
    assert shown.status_code == 200 and "第 1 / 1 组" in shown.text
    assert XSS not in shown.text and "&lt;script&gt;window.__xss=1&lt;/script&gt;" in shown.text
    pid = PAIR.search(shown.text).group(1)
    missing = client.post("/stage1", data={"csrf": token, "pair_id": pid, "choice": "left"}, headers={"origin": own})
    assert missing.status_code == 400 and "请为“把握程度”选择" in missing.text and db.counts()["stage1"] == 0
    ok = client.post("/stage1", data={"csrf": token, "pair_id": pid, "choice": "left", "confidence": "2"}, headers={"origin": own})
    assert ok.status_code == 200 and 'data-stage="2"' in ok.text and "人类作品" in ok.text
    assert client.get("/nowhere").status_code == 404
    # both poems are laid out alike: stanzas of sentences, one a line
    assert web.verse_layout("甲乙。丙丁，戊己！\n庚辛？壬癸") == [["甲乙。", "丙丁，戊己！"], ["庚辛？", "壬癸"]]


def test_app_refuses_a_rebound_host(tmp_path: Path) -> None:
    """DNS rebinding: a page on rebind.example whose name now resolves to 127.0.0.1 sends its own
    name as Host and as Origin, so the origin check alone takes it for the app's own page."""
    web = _web()
    from starlette.testclient import TestClient

    db = Database(tmp_path / "s.sqlite")
    db.setup(build_pairs([cand("m/x", "huanxisha-love_longing", 0.9)], RECORDS).pairs)
    rebound = "http://rebind.example:8000"
    attacker = TestClient(web.create_app(db), base_url=rebound)
    page = attacker.get("/")
    assert page.status_code == 400 and "csrf" not in page.text
    token = CSRF.search(TestClient(web.create_app(db), base_url="http://127.0.0.1:8000").get("/").text)
    post = attacker.post("/start", data={"annotator": "victim", "csrf": token.group(1)}, headers={"origin": rebound})
    assert post.status_code == 400 and db.counts()["annotators"] == 0
    for base in ("http://localhost:8000", "http://127.0.0.1:9", "http://[::1]:8000"):  # loopback names: served
        assert TestClient(web.create_app(db), base_url=base).get("/").status_code == 200, base
    hosts = web.trusted_hosts("0.0.0.0", ["Annotate.Lab.example"])
    assert hosts == ["127.0.0.1", "localhost", "[::1]", "0.0.0.0", "annotate.lab.example"]
    assert web.trusted_hosts("::")[-1] == "[::]"
    proxied = TestClient(web.create_app(db, allowed_hosts=hosts), base_url="https://annotate.lab.example")
    assert proxied.get("/").status_code == 200
    serve = ["human-eval", "serve", "--logs", "x", "--db", "d"]
    args = parser().parse_args([*serve, "--allowed-host", "a.example", "--allowed-host", "b"])
    assert args.allowed_host == ["a.example", "b"]


def _annotate_over_http(base: str, name: str, k: int, barrier: threading.Barrier, out: dict[str, Any]) -> None:
    """One annotator: every pair, stage 1 and stage 2, each answer also submitted twice."""
    import httpx

    expected = {}
    try:
        with httpx.Client(base_url=base, headers={"origin": base}, timeout=30) as c:
            token = CSRF.search(c.get("/").text).group(1)
            barrier.wait()
            page = c.post("/start", data={"annotator": name, "csrf": token}, follow_redirects=True)
            for _ in range(200):
                stage = STAGE.search(page.text).group(1)
                if stage == "done":
                    break
                pid = PAIR.search(page.text).group(1)
                pos = len(expected)
                if stage == "1":
                    form = {"csrf": token, "pair_id": pid, "choice": ("left", "right")[(k + pos) % 2], "confidence": str(1 + (k + pos) % 5)}
                    expected[pid] = (form["choice"], int(form["confidence"]))
                    c.post("/stage1", data=form)  # a double submit, answered by the same redirect
                    page = c.post("/stage1", data=form, follow_redirects=True)
                else:
                    rating = 1 + (k + len(expected)) % 5
                    form = {"csrf": token, "pair_id": pid, "faithfulness": str(rating), "artistry": "3", "overall": "4"}
                    expected[pid] = (*expected[pid], rating)
                    c.post("/stage2", data=form)
                    page = c.post("/stage2", data=form, follow_redirects=True)
                assert page.status_code == 200, page.text[-500:]
        out[name] = expected
    except Exception as exc:  # reported by the test, with the annotator named
        out[name] = exc


@pytest.fixture(scope="module")
def inspect_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Inspect logs of a mock model that answers each prompt with another poem of its cipai."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from poetone.reference import answer_for_message
    from poetone.songci import build_eval_set

    prompts = {p.user: p for p in build_eval_set()}

    def reply(input: list, tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        user = next(m.text for m in reversed(input) if m.role == "user")
        p = prompts[user]
        text = answer_for_message(user) if p.strategy == "completion" else other_poem(slot_of(p.id))
        out = ModelOutput.from_content("mockllm/poet", text)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # else tiktoken downloads
        return out

    folder = tmp_path_factory.mktemp("logs")
    model = get_model("mockllm/poet", custom_outputs=reply)
    inspect_eval(["poetone/zero_shot", "poetone/completion"], model=model, limit=3, log_dir=str(folder), display="none")
    return folder


def test_concurrent_annotators_lose_no_answer(inspect_logs: Path, tmp_path: Path) -> None:
    web = _web()
    selection = pairs_from_logs([inspect_logs], top=20)
    assert not selection.errors and len(selection.pairs) == 6
    assert {p.strategy for p in selection.pairs} == {"zero_shot", "completion"}
    db = Database(tmp_path / "busy.sqlite")
    db.setup(selection.pairs, seed=1)
    n_annotators = 8
    barrier = threading.Barrier(n_annotators)
    results: dict[str, Any] = {}
    with web.serve_in_thread(web.create_app(db)) as base:
        assert base.startswith("http://127.0.0.1:")
        threads = [
            threading.Thread(target=_annotate_over_http, args=(base, f"评审{k}", k, barrier, results))
            for k in range(n_annotators)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    failures = {k: v for k, v in results.items() if isinstance(v, Exception)}
    assert not failures and len(results) == n_annotators
    counts = db.counts()
    assert counts["stage1"] == counts["stage2"] == n_annotators * 6 and counts["annotators"] == n_annotators
    for row in db.answers():
        choice, confidence, rating = results[row["annotator"]][row["pair_id"]]
        assert (row["chosen_side"], row["confidence"], row["faithfulness"], row["overall"]) == (choice, confidence, rating, 4)
    report = study_stats(db.answers(), n_boot=200)
    assert report["answers"] == 48 and report["agreement"]["identified_human"]["units"] == 6


# ---------------------------------------------------------------------------------- a real browser


def _browser():
    _web()
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (pip install playwright)")
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's Chromium at /usr/bin/chromium (apt-get install chromium)")
    return sync_api


def test_browser_annotation_end_to_end(tmp_path: Path) -> None:
    sync_api = _browser()
    expect = sync_api.expect
    web = _web()
    s1, s2, s3 = "huanxisha-love_longing", "dielianhua-nature_landscape", "niannujiao-history_nostalgia"
    upper, lower = other_poem(s1).split("\n")
    cands = [cand("m/x", s1, 0.9, poem=f"{XSS}{upper}\n{lower}"), cand("m/x", s2, 0.8), cand("m/y", s3, 0.7)]
    db = Database(tmp_path / "browser.sqlite")
    db.setup(build_pairs(cands, RECORDS).pairs, seed=0)
    ratings = {1: ("5", "4", "3"), 2: ("2", "2", "2"), 3: ("1", "3", "5")}
    seen_xss = False
    with web.serve_in_thread(web.create_app(db)) as base, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"], headless=True)
        try:
            page = browser.new_page()
            page.goto(base + "/")
            page.fill("#annotator", "李清照")
            page.click("#begin")
            for k in (1, 2, 3):
                expect(page.locator('[data-stage="1"]')).to_have_count(1)
                expect(page.locator("#progress")).to_have_text(f"第 {k} / 3 组")
                poems = "".join(page.locator(".poem").all_inner_texts())
                if XSS in poems:  # shown as text, never run
                    seen_xss = True
                    assert page.evaluate("window.__xss") is None
                page.check('input[name="choice"][value="left"]')
                page.check('input[name="confidence"][value="4"]')
                page.click("#submit-stage1")
                expect(page.locator('[data-stage="2"]')).to_have_count(1)
                human_side = db.sequence("李清照")[k - 1].human_side
                expect(page.locator("#verdict")).to_contain_text("判断正确" if human_side == "left" else "判断有误")
                expect(page.locator(".poem-card.human .attribution")).to_have_count(1)
                for field, value in zip(("faithfulness", "artistry", "overall"), ratings[k]):
                    page.check(f'input[name="{field}"][value="{value}"]')
                page.click("#submit-stage2")
                if k == 1:  # stop, come back under the same name: resumes at the second pair
                    page.click("#stop")
                    expect(page.locator(".notice")).to_contain_text("下次输入同一名字")
                    page.fill("#annotator", "李清照")
                    page.click("#begin")
            expect(page.locator('[data-stage="done"]')).to_have_count(1)
            expect(page.locator("#finished")).to_contain_text("全部 3 组")
            assert seen_xss and page.evaluate("window.__xss") is None

            token = page.locator('input[name="csrf"]').first.input_value()
            form = {"pair_id": "x", "choice": "left", "confidence": "3"}
            forged = page.request.post(base + "/stage1", form=form, headers={"origin": base})
            assert forged.status == 403  # same origin, but no CSRF token
            honest = page.request.post(base + "/stage1", form={**form, "csrf": token}, headers={"origin": base})
            assert honest.status == 400 and "not in the sequence" in honest.text()  # passes the checks, then validated
            cross = page.request.post(
                base + "/stage1",
                form={**form, "csrf": token},
                headers={"origin": "http://evil.example"},
            )
            assert cross.status == 403  # right token, foreign origin
        finally:
            browser.close()
    rows = db.answers()
    assert len(rows) == 3 and {r["annotator"] for r in rows} == {"李清照"}
    by_position = {r["position"] + 1: r for r in rows}
    for k, (f, a, o) in ratings.items():
        r = by_position[k]
        assert (r["chosen_side"], r["confidence"], r["faithfulness"], r["artistry"], r["overall"]) == ("left", 4, int(f), int(a), int(o))
        assert r["identified_human"] == int(r["human_side"] == "left")
