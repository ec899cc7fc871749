"""Forms the 词谱 lacks that Song poets used (issue 16, item 3): scripts/cipu_song_forms.json, appended
by scripts/build_cipu.py. Each form must be attested by two or more poets and read its poems line for
line; the tests that read the 全宋词 or run the build need ../shared."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from poetone import Critic
from poetone.metadata import GENERATED_FOLDER
from poetone.validation import lenient

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "src" / "poetone" / GENERATED_FOLDER
CURATED = ROOT / "src" / "poetone" / "cipai"


FORMS_FILE = ROOT / "scripts" / "cipu_song_forms.json"
FORMS = json.loads(FORMS_FILE.read_text(encoding="utf-8"))["forms"]
MARK = "(全宋词)"

# 李清照 好事近 「风定落花深」: 前段第四句 六字 (正是伤春时节), the 词谱 has five (刘过 「谁斫碧琅轩」 too)
HAOSHIJIN = (
    "风定落花深，帘外拥红堆雪。长记海棠开后，正是伤春时节。酒阑歌罢玉尊空，青缸暗明灭。魂梦不堪幽怨，更一声啼鴂。"
)
# 刘克庄 法驾导引 「樵柯烂」: the 单调 三十字 form written twice (双叠), as 刘辰翁's
FAJIA = (
    "樵柯烂，丹灶熟，一跳出红尘。斗紫一双龙奋贽，帝青九万里为程。赤脚踏层云。"
    "鞭鸾上，骑麟下，彷佛睹昆仑。洒马鬃泉苏赤地，翻蟾滴水涨沧溟。笑杀懵仙人。"
)
# 辛弃疾 瑞鹤仙 「黄金堆到斗」: 怎得似、长年画堂劝酒 reads 三、六 where the 词谱's 第7体 has 五、四
RUIHEXIAN = (
    "黄金堆到斗。怎得似、长年画堂劝酒。蛾眉最明秀。向水沈烟里，两行红袖。笙歌撋就。争说道、明年时候。"
    "被姮娥、做了殷勤，仙桂一枝入手。知否。风流别驾，近日人呼，文章太守。天长地久。岁岁上、乃翁寿。"
    "记从来人道，相门出相，金印累累尽有。但直须，周公拜前，鲁公拜后。"
)


def _added(critic: Critic, tune: str) -> list:
    return [v for v in critic.registry[tune].variants if v.label.endswith(MARK)]


def _cipu_best(critic: Critic, tune: str, text: str) -> float:
    """The score against the 词谱's forms alone (the forms added here left out)."""
    return max(
        critic.score(tune, text, variant=v.id).conformity for v in critic.registry[tune].variants if MARK not in v.label
    )


def test_every_form_has_two_poets_and_is_no_curated_tune() -> None:
    curated = {json.loads(p.read_text(encoding="utf-8"))["name"] for p in CURATED.glob("*.json")}
    assert len(FORMS) == 35
    for form in FORMS:
        assert len({p["poet"] for p in form["poems"]}) >= 2, form["tune"]
        assert form["tune"] not in curated
        assert all(p["first_line"] and "，" not in p["first_line"] for p in form["poems"])


def test_forms_are_appended_after_the_cipu_with_their_poems_as_source(critic: Critic) -> None:
    by_tune: dict[str, list[dict]] = {}
    for form in FORMS:
        by_tune.setdefault(form["tune"], []).append(form)
    for tune, forms in by_tune.items():
        variants = critic.registry[tune].variants
        added = _added(critic, tune)
        assert len(added) == len(forms)
        assert list(variants[-len(forms) :]) == added  # after the 词谱's, ids continuing the numbering
        assert [v.id for v in variants] == ["正体"] + [f"又一体{i}" for i in range(1, len(variants))]
        for v, form in zip(added, forms):
            assert v.source.startswith("全宋词 ") and form["why"] in v.source
            assert dict(v.example) == {"poet": form["poems"][0]["poet"], "first_line": form["poems"][0]["first_line"]}
            assert [[ln.spec() for ln in st] for st in v.stanzas] == form["stanzas"]
    report = (GENERATED / "BUILD_REPORT.md").read_text(encoding="utf-8")
    assert "## Forms the 词谱 lacks, added from scripts/cipu_song_forms.json (Song poets' forms) (35)" in report
    assert "- 好事近 又一体3 (46字): 李清照「风定落花深」、刘过「谁斫碧琅轩」" in report


def _write_forms(path: Path, poems: list[dict]) -> Path:
    form = {"tune": "好事近", "after": "正体", "why": "test", "poems": poems, "stanzas": FORMS[7]["stanzas"]}
    path.write_text(json.dumps({"forms": [form]}, ensure_ascii=False), encoding="utf-8")
    return path


def test_the_file_rejects_a_form_of_one_poet(tmp_path: Path, build_cipu) -> None:
    build = build_cipu
    one = [{"poet": "李清照", "first_line": "风定落花深"}, {"poet": "李清照", "first_line": "帘外五更风"}]
    with pytest.raises(build.FormError, match="attested by 1 poet"):
        build.read_song_forms(_write_forms(tmp_path / "one.json", one))
    with pytest.raises(build.FormError, match="no poems"):
        build.read_song_forms(_write_forms(tmp_path / "none.json", []))
    with pytest.raises(build.FormError, match="poet and first clause"):
        build.read_song_forms(_write_forms(tmp_path / "bare.json", [{"poet": "李清照"}, {"poet": "刘过"}]))
    two = [{"poet": "李清照", "first_line": "风定落花深"}, {"poet": "刘过", "first_line": "谁斫碧琅轩"}]
    assert list(build.read_song_forms(_write_forms(tmp_path / "two.json", two))) == ["好事近"]


def test_the_committed_file_reads(build_cipu) -> None:
    forms = build_cipu.read_song_forms(FORMS_FILE)
    assert sum(len(v) for v in forms.values()) == 35 and len(forms) == 18


@pytest.mark.shared
def test_the_build_refuses_a_form_of_one_poet(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture, build_cipu
) -> None:
    build = build_cipu
    source = shared / "reference" / "couyun-cipu" / "cipu_all.json"
    bad = _write_forms(tmp_path / "one.json", [{"poet": "李清照", "first_line": "风定落花深"}])
    with pytest.raises(build.FormError, match="two or more poets"):
        build.build(source, tmp_path / "out", ["好事近"], bad)
    assert not (tmp_path / "out").exists()
    assert (
        build.main(
            ["--source", str(source), "--out", str(tmp_path / "out"), "--only", "好事近", "--song-forms", str(bad)]
        )
        == 2
    )
    assert "a form needs two or more poets" in capsys.readouterr().err
    curated = _write_forms(
        tmp_path / "curated.json", [{"poet": "a", "first_line": "b"}, {"poet": "c", "first_line": "d"}]
    )
    curated.write_text(curated.read_text(encoding="utf-8").replace("好事近", "念奴娇"), encoding="utf-8")
    with pytest.raises(build.FormError, match="hand-curated"):
        build.build(source, tmp_path / "out", ["好事近"], curated)


@pytest.mark.shared
def test_a_build_with_the_forms_matches_the_committed_files(shared: Path, tmp_path: Path, build_cipu) -> None:
    build = build_cipu
    source = shared / "reference" / "couyun-cipu" / "cipu_all.json"
    tunes = sorted({f["tune"] for f in FORMS})
    build.build(source, tmp_path / "a", tunes)
    for name in tunes:
        built = json.loads((tmp_path / "a" / f"{name}.json").read_text(encoding="utf-8"))
        committed = json.loads((GENERATED / f"{name}.json").read_text(encoding="utf-8"))
        assert built["variants"] == committed["variants"], f"{name}: rerun scripts/build_cipu.py"


@pytest.mark.shared
def test_every_attesting_poem_is_read_line_for_line_and_scores_high(shared: Path, critic: Critic) -> None:
    corpus = json.loads((shared / "data" / "quan-song-ci" / "quan_song_ci.dev.json").read_text(encoding="utf-8"))
    found: dict[tuple[str, str, str], list[str]] = {}
    for rec in corpus:
        text = "\n".join(rec["paragraphs"])
        first = next(x for x in re.split(r"[，。、？！；：\n]", text) if x)
        found.setdefault((rec["author"], rec["rhythmic"], first), []).append(text)
    free = lenient(critic)
    by_tune: dict[str, list[dict]] = {}
    for form in FORMS:
        by_tune.setdefault(form["tune"], []).append(form)
    n = 0
    for tune, forms in by_tune.items():
        for form, variant in zip(forms, _added(critic, tune)):
            for poem in form["poems"]:
                texts = found.get((poem["poet"], poem["title"], poem["first_line"]))
                assert texts and len(texts) == 1, f"{tune} {poem}: not quoted exactly from the dev 全宋词"
                assert free.score(tune, texts[0], variant=variant.id).structure == 1.0, (tune, variant.id, poem)
                result = critic.score(tune, texts[0], variant=variant.id)
                assert result.conformity >= 0.86, (tune, variant.id, poem, result.conformity)
                assert critic.score(tune, texts[0]).conformity >= _cipu_best(critic, tune, texts[0])
                n += 1
    assert n == 123


def test_quoted_poems_fit_their_song_form(critic: Critic) -> None:
    r = critic.score("好事近", HAOSHIJIN)
    assert (r.variant, r.conformity, r.structure) == ("又一体3", 1.0, 1.0)
    assert _cipu_best(critic, "好事近", HAOSHIJIN) == pytest.approx(0.95)
    r = critic.score("法驾导引", FAJIA)
    assert (r.variant, r.structure, r.rhyme) == ("又一体1", 1.0, 1.0)
    assert r.conformity == pytest.approx(0.985)
    assert r.tonal == pytest.approx(0.95)
    assert _cipu_best(critic, "法驾导引", FAJIA) == pytest.approx(0.6017, abs=1e-4)
    r = critic.score("瑞鹤仙", RUIHEXIAN)
    assert (r.variant, r.structure, r.rhyme) == ("又一体18", 1.0, 1.0)
    assert r.conformity == pytest.approx(0.99706, abs=1e-5)
    assert _cipu_best(critic, "瑞鹤仙", RUIHEXIAN) == pytest.approx(0.9648, abs=1e-4)
