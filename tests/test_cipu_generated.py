"""The cipai generated from the 钦定词谱 (issue 16): the build, the hard parts on quoted poems,
names and 同名异调, lazy loading. Tests that run the build need ../shared (couyun's data)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest
from homonym_poems import HECHONGTIAN_OUYANG, SIYUEREN_HEZHU

from poetone import Critic, load_cipai
from poetone.metadata import GENERATED_FOLDER, CipaiRegistry, Line

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "src" / "poetone" / GENERATED_FOLDER
CURATED = ROOT / "src" / "poetone" / "cipai"

# 秦观 减字木兰花: 仄 平 仄 平, four rhymes of their own (恨/问, 肠/香, 敛/展, 楼/愁)
JIANZI = "天涯旧恨，独自凄凉人不问。欲见回肠，断尽金炉小篆香。黛蛾长敛，任是春风吹不展。困倚危楼，过尽飞鸿字字愁。"
# 李清照 如梦令: 知否，知否 is a 叠句
RUMENG = "昨夜雨疏风骤，浓睡不消残酒。试问卷帘人，却道海棠依旧。知否，知否？应是绿肥红瘦。"
# 白居易 忆江南: 单调
YIJIANGNAN = "江南好，风景旧曾谙。日出江花红胜火，春来江水绿如蓝。能不忆江南？"
# 李煜 浪淘沙 (the 钦定词谱's 浪淘沙令): printed under 浪淘沙, a 单调 七言 tune of its own in the 词谱
LANGTAOSHA = "帘外雨潺潺，春意阑珊。罗衾不耐五更寒。梦里不知身是客，一晌贪欢。独自莫凭栏，无限江山。别时容易见时难。流水落花春去也，天上人间。"
# 苏轼 沁园春 「孤馆灯青」: the 钦定词谱's example; 似二陆、初来俱少年 has a 读
QINYUANCHUN = (
    "孤馆灯青，野店鸡号，旅枕梦残。渐月华收练，晨霜耿耿，云山摛锦，朝露漙漙。世路无穷，劳生有限，似此区区长鲜欢。"
    "微吟罢，凭征鞍无语，往事千端。当时共客长安。似二陆、初来俱少年。有笔头千字，胸中万卷，致君尧舜，此事何难。"
    "用舍由时，行藏在我，袖手何妨闲处看。身长健，但优游卒岁，且斗尊前。"
)


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


SLICE = ["减字木兰花", "如梦令", "忆江南", "沁园春", "戚氏", "莺啼序", "长相思", "折桂令", "撷芳词"]


@pytest.mark.shared
def test_build_is_reproducible_and_matches_the_committed_files(shared: Path, tmp_path: Path, build_cipu) -> None:
    build = build_cipu
    source = shared / "reference" / "couyun-cipu" / "cipu_all.json"
    build.build(source, tmp_path / "a", SLICE)
    build.build(source, tmp_path / "b", SLICE)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    for name in SLICE:
        if name == "撷芳词":  # the curated 钗头凤 has it: never generated
            assert not (tmp_path / "a" / f"{name}.json").exists()
            continue
        built = json.loads((tmp_path / "a" / f"{name}.json").read_text(encoding="utf-8"))
        committed = json.loads((GENERATED / f"{name}.json").read_text(encoding="utf-8"))
        assert built["variants"] == committed["variants"], f"{name}: rerun scripts/build_cipu.py"
    report = (tmp_path / "a" / "BUILD_REPORT.md").read_text(encoding="utf-8")
    assert "撷芳词: 撷芳词 is curated 钗头凤" in report


def test_licence_notice_is_kept_beside_the_data() -> None:
    notice = (GENERATED / "NOTICE").read_text(encoding="utf-8")
    assert "MIT License" in notice and "Copyright (c) 2026 hulbji" in notice and "couyun" in notice


def test_curated_cipai_win(critic: Critic) -> None:
    curated = {}
    for f in CURATED.glob("*.json"):
        data = json.loads(f.read_text(encoding="utf-8"))
        for key in (data["name"], *data.get("aliases", [])):
            curated[key] = data["name"]
        assert not (GENERATED / f.name).exists()
    index = json.loads((GENERATED / "_index.json").read_text(encoding="utf-8"))
    assert not set(index["names"]) & set(curated)
    assert critic.resolve("撷芳词") == "钗头凤" and critic.registry.is_curated("撷芳词")
    assert sorted(critic.registry) == sorted({v for v in curated.values()})  # iteration: the curated 20
    assert len(critic.registry.all_names()) > 790


def test_every_variant_records_its_source_and_example(critic: Critic) -> None:
    for name in ("沁园春", "减字木兰花", "莺啼序"):
        for v in critic.registry[name].variants:
            # the 词谱's forms, or a form Song poets used that it lacks (scripts/cipu_song_forms.json)
            assert v.source.startswith(("钦定词谱", "龙榆生", "全宋词 ")), v.source
            assert v.example.get("first_line"), v


def test_generated_tunes_load_on_first_use_only() -> None:
    registry = load_cipai()
    assert registry._loaded == {}
    assert "沁园春" in registry and registry._loaded == {}  # resolving reads no tune file
    registry["沁园春"]
    assert list(registry._loaded) == ["沁园春"]


def test_qinyuanchun_is_known_and_its_example_scores_whole(critic: Critic) -> None:
    r = critic.score("沁园春", QINYUANCHUN)
    assert r.valid and r.structure == 1.0 and r.conformity >= 0.95, r.as_dict()
    assert "初来俱少年" in r.lines and "似二陆" in r.lines  # the 读 splits the clause


def _one_segment(registry: CipaiRegistry, name: str, tmp_path: Path) -> Path:
    """The cipai with every rhyme in one segment: the naive conversion."""
    c = registry[name]
    variants = []
    for v in c.variants:
        stanzas = [
            [dataclasses.replace(ln, end="韵", segment="A").spec() if ln.rhymed else ln.spec() for ln in st]
            for st in v.stanzas
        ]
        variants.append({"id": v.id, "stanzas": stanzas})
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"name": name, "variants": variants}, ensure_ascii=False), encoding="utf-8")
    return path


def test_jianzi_mulanhua_changes_rhyme_four_times(critic: Critic, tmp_path: Path) -> None:
    v = critic.registry["减字木兰花"].variant("正体")
    assert [ln.segment for ln in v.lines if ln.rhymed] == list("AABBCCDD")
    r = critic.score("减字木兰花", JIANZI)
    assert r.conformity >= 0.97 and r.rhyme == 1.0, r.as_dict()
    naive = Critic(metadata=_one_segment(critic.registry, "减字木兰花", tmp_path)).score("减字木兰花", JIANZI)
    assert naive.rhyme < 0.5 < r.rhyme


def test_repeated_clause_and_repeated_rhyme_word(critic: Critic) -> None:
    rumeng = critic.registry["如梦令"].variant("正体").lines
    assert [ln.repeat for ln in rumeng].count(True) == 1 and rumeng[5].repeat and rumeng[5].length == 2
    assert critic.score("如梦令", RUMENG).structure == 1.0
    broken = critic.score("如梦令", RUMENG.replace("知否，知否", "知否，谁知"), variant="正体")
    assert broken.structure < 1.0
    # 长相思's 叠 repeats the rhyme word only (汴水流。泗水流。): not a repeated clause
    assert not any(ln.repeat for v in critic.registry["长相思"].variants[:1] for ln in v.lines)
    r = critic.score(
        "长相思", "汴水流，泗水流，流到瓜州古渡头。吴山点点愁。思悠悠，恨悠悠，恨到归时方始休。月明人倚楼。"
    )
    assert r.structure == 1.0 and r.conformity >= 0.95, r.as_dict()


def test_xie_rhyme_and_a_rhyme_position_marked_zhong(critic: Critic) -> None:
    # 折桂令's 叶 position is 中 in the 词谱 and its example's character (当) has both tones
    lines = critic.registry["折桂令"].variant("正体").lines
    xie = [ln for ln in lines if ln.end == "叶"]
    assert len(xie) == 1 and xie[0].tones[-1] == "仄"
    assert all(ln.tones[-1] in "平仄" for ln in lines if ln.rhymed)
    assert Line("平平仄仄", "叶", "A").rhyme_tone == "仄"


def test_single_stanza_and_three_and_four_section_tunes(critic: Critic) -> None:
    assert len(critic.registry["忆江南"].variant("正体").stanzas) == 1
    assert critic.score("忆江南", YIJIANGNAN).conformity >= 0.97
    assert len(critic.registry["沁园春"].variant("正体").stanzas) == 2
    # 戚氏 (三段) and 莺啼序 (四段): the data marks no 段 and their 段 do not end alike, so the
    # forms are one stanza (docs/cipai-schema.md); they load and score their 词谱 examples whole
    for name in ("戚氏", "莺啼序"):
        v = critic.registry[name].variant("正体")
        assert len(v.stanzas) == 1 and "分段未能推定" in v.label
        assert v.char_count >= 200


def test_homonym_title_scores_against_the_tune_the_poem_follows(critic: Critic) -> None:
    assert critic.registry.tunes_titled("浪淘沙")[:1] == ("浪淘沙",)
    assert "浪淘沙令" in critic.registry.tunes_titled("浪淘沙·怀旧")
    r = critic.score("浪淘沙", LANGTAOSHA)
    assert r.cipai == "浪淘沙令" and r.conformity >= 0.95, r.as_dict()
    assert critic.score("浪淘沙", LANGTAOSHA, variant="正体").cipai == "浪淘沙"  # a variant asked for: that tune only


def test_a_homonym_titles_second_stanza_is_that_of_a_tune_that_has_one(critic: Critic) -> None:
    # 浪淘沙 itself (the 钦定词谱's 单调 28字) has one stanza; the title also names 浪淘沙令, whose 下阕 李煜's is
    assert max(len(v.stanzas) for v in critic.registry["浪淘沙"].variants) == 1
    lower = LANGTAOSHA[LANGTAOSHA.index("独自") :]
    r = critic.score("浪淘沙", lower, stanza=1)
    assert (r.cipai, r.stanza, r.structure, r.valid) == ("浪淘沙令", 1, 1.0, True), r.as_dict()
    with pytest.raises(ValueError, match="stanza must be an index below 1 for '浪淘沙'"):
        critic.score("浪淘沙", lower, stanza=1, variant="正体")  # a variant asked for: that tune only
    with pytest.raises(ValueError, match="below 2"):
        critic.score("浪淘沙", lower, stanza=2)


@pytest.mark.parametrize(
    ("title", "text", "tune"), [("思越人", SIYUEREN_HEZHU, "鹧鸪天"), ("鹤冲天", HECHONGTIAN_OUYANG, "喜迁莺")]
)
def test_a_title_two_tunes_bear_keeps_the_tune_the_poem_follows(
    critic: Critic, title: str, text: str, tune: str
) -> None:
    assert critic.registry.tunes_titled(title) == (title, tune)  # its own tune first
    assert critic.score(title, text, variant="正体").conformity < 0.6  # the tune of the name does not fit
    r = critic.score(title, text)
    assert r.cipai == tune and r.structure == 1.0 and r.conformity >= 0.95, r.as_dict()


# 万俟咏's 三台, as the 全宋词 prints it (title 三台): the 词谱's 三台（大曲）, not its 24-character 单调 三台
SANTAI_MOQIYONG = (
    "见梨花初带夜月，海棠半含朝雨。内苑春、不禁过青门，御沟涨、潜通南浦。东风静、细柳垂金缕。望凤阙、非烟非雾。"
    "好时代、朝野多欢，遍九陌、太平箫鼓。乍莺儿百啭断续，燕子飞来飞去。近绿水、台榭映秋千，斗草聚、双双游女。"
    "饧香更、酒冷踏青路。会暗识、夭桃朱户。向晚骤、宝马雕鞍，醉襟惹、乱花飞絮。正轻寒轻暖漏永，半阴半晴云暮。"
    "禁火天、已是试新妆，岁华到、三分佳处。清明看、汉宫传蜡炬。散翠烟、飞入槐府。敛兵卫、阊阖门开，住传宣、又还休务。"
)


def test_a_bare_name_is_also_the_tune_the_cipu_tells_apart_by_a_note(critic: Critic) -> None:
    assert critic.registry.tunes_titled("三台") == ("三台", "三台（大曲）")
    r = critic.score("三台", SANTAI_MOQIYONG)
    assert r.cipai == "三台（大曲）" and r.conformity >= 0.95, r.as_dict()
    assert critic.score("三台", SANTAI_MOQIYONG, variant="正体").conformity < 0.3  # the 单调 三台 itself


@pytest.mark.parametrize("spelling", ["鹤沖天", "鶴冲天", "鶴沖天", "鹤沖天·梅"])
def test_a_homonym_title_in_mixed_scripts_names_both_tunes(critic: Critic, spelling: str) -> None:
    # one character traditional, as OCR and IME output mix them: read as resolve() reads it
    assert critic.registry.tunes_titled(spelling) == ("鹤冲天", "喜迁莺")
    assert critic.score(spelling, HECHONGTIAN_OUYANG).cipai == "喜迁莺"


def test_a_tunes_traditional_name_is_the_tune_before_another_tunes_alias(critic: Critic) -> None:
    # 鶴沖天 is 鹤冲天 written traditionally, and also 喜迁莺's 又名 鹤冲天 written so: the tune's own
    # name comes first, as for the simplified title (and 烏夜啼 as 乌夜啼)
    assert critic.resolve("鶴沖天") == critic.resolve("鹤冲天") == "鹤冲天"
    assert critic.registry.tunes_titled("烏夜啼") == critic.registry.tunes_titled("乌夜啼") == ("乌夜啼", "相见欢")


def test_quan_song_ci_titles_resolve_as_aliases(critic: Critic) -> None:
    for title, tune in (
        ("醉落魄", "一斛珠"),
        ("思佳客", "鹧鸪天"),
        ("贺新凉", "贺新郎"),
        ("沁園春", "沁园春"),
        ("南柯子", "南歌子"),
    ):
        assert critic.resolve(title) == tune


@pytest.mark.shared
def test_ninety_percent_of_dev_titles_resolve(shared: Path, critic: Critic) -> None:
    from poetone.validation import title_resolution

    corpus = json.loads((shared / "data" / "quan-song-ci" / "quan_song_ci.dev.json").read_text(encoding="utf-8"))
    figures = title_resolution(critic, corpus)
    assert figures["share"] >= 0.90, list(figures["unresolved"].items())[:20]
    assert figures["share_curated"] < 0.40
