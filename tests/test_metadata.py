"""The cipai resource: bundled data, the schema validator and its errors, the official PoeTone format."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from poetone import Critic
from poetone.metadata import (
    METADATA_FORMATS,
    Cipai,
    CipaiRegistry,
    Line,
    MetadataError,
    UnknownCipaiError,
    load_cipai,
    parse_cipai,
    parse_line,
    parse_poetone_metadata,
)

CIPAI_20 = [
    "浣溪沙",
    "蝶恋花",
    "念奴娇",
    "水调歌头",
    "满江红",
    "江城子",
    "声声慢",
    "虞美人",
    "一剪梅",
    "卜算子",
    "青玉案",
    "西江月",
    "临江仙",
    "定风波",
    "渔家傲",
    "钗头凤",
    "破阵子",
    "菩萨蛮",
    "清平乐",
    "点绛唇",
]
CIPAI_DIR = Path(__file__).resolve().parents[1] / "src" / "poetone" / "cipai"

GOOD: dict[str, Any] = {
    "name": "测试调",
    "aliases": ["测调", "試調"],
    "source": "手写",
    "variants": [
        {
            "id": "正体",
            "label": "双调二十字",
            "source": "手写",
            "example": {"poet": "无名", "first_line": "春风"},
            "stanzas": [
                ["中平 句", "平平仄仄平 韵A", "仄仄 读"],
                ["仄仄平平仄 换B", "平平仄仄仄 韵B", "平平仄仄仄 韵B 叠"],
            ],
        },
        {
            "id": "又一体1",
            "source": "手写",
            "example": {"poet": "无名", "first_line": "春风起"},
            "stanzas": [["中平仄 句", "平平仄仄平 韵A"]],
        },
    ],
}


@pytest.fixture(scope="module")
def registry() -> CipaiRegistry:
    return load_cipai()


def write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def broken(edit: str, value: Any) -> dict[str, Any]:
    """GOOD with one edit: ``edit`` is a path like 'variants.0.stanzas.0.1'."""
    data = copy.deepcopy(GOOD)
    *head, last = edit.split(".")
    node: Any = data
    for key in head:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


# --- the bundled resource ----------------------------------------------------------------------------


def test_twenty_bundled_cipai(registry: CipaiRegistry) -> None:
    assert len(registry) == 20
    assert sorted(registry) == sorted(CIPAI_20)
    assert sorted(p.stem for p in CIPAI_DIR.glob("*.json")) == sorted(CIPAI_20)


@pytest.mark.parametrize("name", CIPAI_20)
def test_bundled_cipai_is_valid(registry: CipaiRegistry, name: str) -> None:
    c = registry[name]
    assert isinstance(c, Cipai)
    assert c.name == name
    assert c.source.strip()
    assert c.variants
    assert c.variants[0].id == "正体"
    ids = [v.id for v in c.variants]
    assert len(ids) == len(set(ids))
    for v in c.variants:
        assert v.cipai == name
        assert v.source.strip(), f"{name} {v.id}: no source"
        assert v.example.get("poet", "").strip(), f"{name} {v.id}: no example poet"
        first = v.example.get("first_line", "")
        assert re.fullmatch(r"[\u4e00-\u9fff]+", first), f"{name} {v.id}: example first_line {first!r}"
        assert len(first) == v.lines[0].length, f"{name} {v.id}: {first!r} is not as long as the first line"
        assert any(line.rhymed for line in v.lines)
        assert v.char_count == sum(v.lengths) == sum(len(line.tones) for line in v.lines)
        for line in v.lines:
            assert set(line.tones) <= {"平", "仄", "中"}
            if line.rhymed:
                assert line.segment.isupper() and len(line.segment) == 1
                assert line.rhyme_tone in ("平", "仄")
            # the canonical spelling round-trips through the parser
            assert parse_line(line.spec(), "roundtrip") == line


@pytest.mark.parametrize("name", CIPAI_20)
def test_bundled_file_is_named_by_its_cipai(name: str) -> None:
    data = json.loads((CIPAI_DIR / f"{name}.json").read_text(encoding="utf-8"))
    assert data["name"] == name
    assert parse_cipai(data, name).name == name


def test_aliases_are_unique_and_resolve(registry: CipaiRegistry) -> None:
    seen: dict[str, str] = {}
    for c in registry.values():
        for alias in c.aliases:
            assert alias not in seen, f"{alias} is an alias of {seen.get(alias)} and {c.name}"
            assert alias not in list(registry)
            seen[alias] = c.name
            assert registry.resolve(alias) == c.name
            assert registry[alias] is c
    assert registry.resolve("酹江月") == "念奴娇"
    assert registry.resolve("一翦梅") == "一剪梅"
    assert registry.resolve("《菩萨蛮》") == "菩萨蛮"
    assert registry.resolve("  菩萨蛮  ") == "菩萨蛮"
    assert registry.resolve("念奴娇·赤壁怀古") == "念奴娇"
    assert registry.resolve("念奴娇 赤壁怀古") == "念奴娇"


def test_known_templates(registry: CipaiRegistry) -> None:
    pusa = registry["菩萨蛮"].variant("正体")
    assert pusa.lengths == (7, 7, 5, 5, 5, 5, 5, 5)
    assert [line.segment for line in pusa.lines] == list("AABBCCDD")
    assert [line.rhyme_tone for line in pusa.lines] == list("仄仄平平仄仄平平")
    assert registry["浣溪沙"].variant("正体").char_count == 42
    assert registry["念奴娇"].variants[0].char_count == 100
    chai = registry["钗头凤"].variant("正体")
    assert sum(line.repeat for line in chai.lines) == 4  # 错、错、错 and 莫、莫、莫


def test_unknown_cipai_and_variant(registry: CipaiRegistry) -> None:
    with pytest.raises(UnknownCipaiError, match="菩萨蛮"):
        registry["菩萨慢"]
    with pytest.raises(KeyError, match="又一体9"):
        registry["菩萨蛮"].variant("又一体9")


# --- parse_line ------------------------------------------------------------------------------------


def test_parse_line() -> None:
    assert parse_line("中平中仄平平仄 韵A", "w") == Line("中平中仄平平仄", "韵", "A", False)
    assert parse_line("仄 读 叠", "w") == Line("仄", "读", "", True)
    line = parse_line("中仄平平 换C 叠", "w")
    assert (line.length, line.rhymed, line.segment, line.rhyme_tone, line.repeat) == (4, True, "C", "平", True)
    assert parse_line("平仄 句", "w").rhymed is False
    assert parse_line("平仄 句", "w").rhyme_tone == ""
    assert parse_line("仄平 叶A", "w").rhymed is True


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("中平X仄 句", "bad line"),
        ("平平 韵", "needs a segment letter"),
        ("平平中 韵A", "must end in 平 or 仄"),
        ("平平 句A", "only 韵, 叶 and 换"),
        ("平平  句", "bad line"),
        ("平平", "bad line"),
        ("平平 韵a", "bad line"),
        ("", "bad line"),
    ],
)
def test_parse_line_errors(spec: str, message: str) -> None:
    with pytest.raises(MetadataError, match=message) as info:
        parse_line(spec, "FILE variant 'V' line 3")
    assert "FILE variant 'V' line 3" in str(info.value)


# --- our schema: good and bad files ---------------------------------------------------------------


def test_good_file_loads(tmp_path: Path) -> None:
    reg = load_cipai(write(tmp_path, "good.json", GOOD))
    assert list(reg) == ["测试调"]
    c = reg["测调"]
    assert c.name == "测试调"
    v = c.variant("正体")
    assert v.lengths == (2, 5, 2, 5, 5, 5)
    assert v.stanza_of_line() == (0, 0, 0, 1, 1, 1)
    assert v.lines[5].repeat
    assert c.variant("又一体1").example == {"poet": "无名", "first_line": "春风起"}


def test_folder_and_list_files_load(tmp_path: Path) -> None:
    other = copy.deepcopy(GOOD)
    other["name"], other["aliases"] = "另一调", []
    write(tmp_path, "a.json", GOOD)
    write(tmp_path, "b.json", other)
    assert sorted(load_cipai(tmp_path)) == ["另一调", "测试调"]
    single = tmp_path / "single"
    single.mkdir()
    both = write(single, "list.json", [GOOD, other])
    assert sorted(load_cipai(both)) == ["另一调", "测试调"]


def test_critic_uses_a_custom_file(tmp_path: Path) -> None:
    c = Critic(metadata=write(tmp_path, "good.json", GOOD))
    r = c.score("测调", "春风，天涯归路长。")
    assert r.cipai == "测试调"
    assert r.valid
    with pytest.raises(UnknownCipaiError):
        c.score("菩萨蛮", "平林漠漠烟如织")


@pytest.mark.parametrize(
    ("edit", "value", "needles"),
    [
        ("variants.0.stanzas.0.1", "平平X仄平 韵A", ["bad.json", "'正体'", "stanza 1 line 2", "平平X仄平"]),
        ("variants.0.stanzas.1.0", "仄仄平平仄 换", ["bad.json", "'正体'", "stanza 2 line 1", "segment letter"]),
        ("variants.1.stanzas.0.1", "平平仄仄中 韵A", ["bad.json", "'又一体1'", "stanza 1 line 2", "平 or 仄"]),
        ("variants.1.id", "正体", ["bad.json", "'正体'", "duplicate variant id"]),
        ("variants.0.stanzas", [], ["bad.json", "'正体'", "'stanzas' is empty"]),
        ("variants.1.stanzas", [[]], ["bad.json", "'又一体1'", "stanza 1", "non-empty"]),
        ("variants", [], ["bad.json", "'variants' is empty"]),
        ("variants.1.stanzas", [["中平 句"]], ["bad.json", "'又一体1'", "no rhyme position"]),
        ("variants.0.stanzas.0.0", "中平 句 叠", ["bad.json", "'正体'", "line 1", "叠"]),
        ("variants.0.stanzas.0.2", "仄仄仄 读 叠", ["bad.json", "'正体'", "line 3", "叠"]),
        ("variants.0.stanzas.0.0", 7, ["bad.json", "'正体'", "stanza 1 line 1"]),
        ("variants.0.example", "李白", ["bad.json", "'正体'", "example"]),
        ("aliases", "测调", ["bad.json", "aliases"]),
        ("homonyms", {"name": "测试慢"}, ["bad.json", "'homonyms' must be a list"]),
        ("homonyms", [{"name": "测试慢", "source": "词谱"}], ["bad.json", "homonym #1", "missing field 'poems'"]),
        ("homonyms", [{"name": "测试慢", "source": "词谱", "poems": [{"poet": "柳永"}]}], ["bad.json", "测试慢", "'poet', 'first_line'"]),
        ("name", 5, ["bad.json", "name"]),
    ],
)
def test_bad_file_names_file_variant_line(tmp_path: Path, edit: str, value: Any, needles: list[str]) -> None:
    path = write(tmp_path, "bad.json", broken(edit, value))
    with pytest.raises(MetadataError) as info:
        load_cipai(path)
    for needle in needles:
        assert needle in str(info.value), f"{needle!r} not in {info.value}"


def test_homonyms_are_read(tmp_path: Path) -> None:
    data = copy.deepcopy(GOOD)
    data["homonyms"] = [{"name": "测试慢", "source": "钦定词谱", "poems": [{"poet": "柳永", "first_line": "春风"}]}]
    (homonym,) = load_cipai(write(tmp_path, "h.json", data))["测试调"].homonyms
    assert (homonym.name, homonym.source, homonym.poems) == ("测试慢", "钦定词谱", ({"poet": "柳永", "first_line": "春风"},))
    assert load_cipai()["定风波"].homonyms[0].name == "定风波慢"


def test_missing_fields(tmp_path: Path) -> None:
    data = copy.deepcopy(GOOD)
    del data["variants"][1]["id"]
    with pytest.raises(MetadataError, match=r"variant #2: missing field 'id'"):
        load_cipai(write(tmp_path, "bad.json", data))
    data = copy.deepcopy(GOOD)
    del data["name"]
    with pytest.raises(MetadataError, match=r"bad2\.json: missing field 'name'"):
        load_cipai(write(tmp_path, "bad2.json", data))
    with pytest.raises(MetadataError, match="JSON object"):
        load_cipai(write(tmp_path, "bad3.json", "[1, 2]"))


def test_invalid_json(tmp_path: Path) -> None:
    with pytest.raises(MetadataError, match=r"broken\.json: not valid JSON"):
        load_cipai(write(tmp_path, "broken.json", '{"name": "测试调", '))


def test_invalid_json_in_folder_names_the_file(tmp_path: Path) -> None:
    write(tmp_path, "a.json", GOOD)
    write(tmp_path, "z.json", "{not json")
    with pytest.raises(MetadataError, match=r"z\.json: not valid JSON"):
        load_cipai(tmp_path)


def test_alias_clash_between_two_cipai(tmp_path: Path) -> None:
    other = copy.deepcopy(GOOD)
    other["name"], other["aliases"] = "另一调", ["测调"]
    write(tmp_path, "a.json", GOOD)
    write(tmp_path, "b.json", other)
    with pytest.raises(MetadataError) as info:
        load_cipai(tmp_path)
    for needle in ("测调", "另一调", "测试调"):
        assert needle in str(info.value)


def test_alias_clash_names_the_file(tmp_path: Path) -> None:
    """BUG (message): the alias clash names the two cipai but neither file, unlike every other error."""
    other = copy.deepcopy(GOOD)
    other["name"], other["aliases"] = "另一调", ["测调"]
    write(tmp_path, "a.json", GOOD)
    write(tmp_path, "b.json", other)
    with pytest.raises(MetadataError, match=r"b\.json"):
        load_cipai(tmp_path)


def test_alias_equal_to_another_name_and_duplicate_name(tmp_path: Path) -> None:
    other = copy.deepcopy(GOOD)
    other["name"], other["aliases"] = "另一调", ["测试调"]
    with pytest.raises(MetadataError, match="测试调"):
        load_cipai(write(tmp_path, "x.json", [GOOD, other]))
    with pytest.raises(MetadataError, match="defined twice"):
        load_cipai(write(tmp_path, "y.json", [GOOD, GOOD]))


def test_missing_path() -> None:
    with pytest.raises(FileNotFoundError, match="nowhere"):
        load_cipai("/nowhere/cipai.json")


# --- the official PoeTone format ------------------------------------------------------------------

OFFICIAL: list[dict[str, Any]] = [
    {
        "Cipai": "小令",
        "variant": "default",
        "number_of_stanzas": 2,
        "stanza1": {"chars_per_line": [5, 5], "rhyme_positions": [2], "lines": ["平平仄仄平句", "仄仄仄平中韵"]},
        "stanza2": {"chars_per_line": [5, 5], "rhyme_positions": [1, 2], "lines": ["仄仄平平仄韵", "平平仄仄平韵"]},
        "total": {"chars_per_line": [5, 5, 5, 5], "rhyme_positions": [2, 3, 4]},
        "rhyme_type": "平韵",
    },
    {
        "Cipai": "小令",
        "variant": 1,
        "number_of_stanzas": 1,
        "stanza1": {"chars_per_line": [4, 4], "rhyme_positions": [2], "lines": ["中中中中", "中仄平中"]},
        "total": {"chars_per_line": [4, 4], "rhyme_positions": [2]},
        "rhyme_type": "仄韵",
    },
    {
        "Cipai": "长调",
        "variant": "default",
        "number_of_stanzas": 1,
        "stanza1": {"chars_per_line": [3, 3], "rhyme_positions": [1, 2], "lines": ["平平仄", "仄仄平"]},
        "total": {"chars_per_line": [3, 3], "rhyme_positions": [1, 2]},
        "rhyme_type": "仄平",
    },
]


def test_official_format_loader(tmp_path: Path) -> None:
    reg = load_cipai(write(tmp_path, "official.json", OFFICIAL), "poetone")
    assert list(reg) == ["小令", "长调"]
    xl = reg["小令"]
    assert [v.id for v in xl.variants] == ["default", "1"]
    v0 = xl.variant("default")
    assert [line.tones for line in v0.lines] == ["平平仄仄平", "仄仄仄平平", "仄仄平平仄", "平平仄仄平"]
    assert [line.end for line in v0.lines] == ["句", "韵", "韵", "韵"]
    assert {line.segment for line in v0.lines if line.rhymed} == {"A"}
    assert v0.stanza_of_line() == (0, 0, 1, 1)
    # a rhyme position ending in 中 takes its tone class from rhyme_type
    v1 = xl.variant("1")
    assert [line.tones for line in v1.lines] == ["中中中中", "中仄平仄"]
    assert v1.lines[1].rhyme_tone == "仄"
    assert [line.rhymed for line in reg["长调"].variants[0].lines] == [True, True]


def test_parse_official_entries_directly() -> None:
    [c] = parse_poetone_metadata(OFFICIAL[2:], "mem")
    assert c.name == "长调"
    assert c.variants[0].lengths == (3, 3)


@pytest.mark.parametrize(
    ("entries", "needles"),
    [
        ({"Cipai": "小令"}, ["expected a list"]),
        (["not an object"], ["entry #1", "object"]),
        ([{"variant": "default", "stanza1": {"lines": ["平平"]}}], ["entry #1", "Cipai"]),
        ([OFFICIAL[0], {"Cipai": "空调", "variant": "default"}], ["entry #2", "空调", "stanza"]),
        (
            [{"Cipai": "坏调", "variant": 3, "stanza1": {"lines": ["平平", "句"]}}],
            ["坏调", "stanza1 line 2", "no tone"],
        ),
        ([{"Cipai": "坏调", "stanza1": {"rhyme_positions": [1]}}], ["坏调", "lines"]),
    ],
)
def test_official_format_errors(tmp_path: Path, entries: Any, needles: list[str]) -> None:
    path = write(tmp_path, "official.json", entries)
    with pytest.raises(MetadataError) as info:
        load_cipai(path, "poetone")
    for needle in ["official.json", *needles]:
        assert needle in str(info.value), f"{needle!r} not in {info.value}"


def test_metadata_format_errors(tmp_path: Path) -> None:
    assert METADATA_FORMATS == ("poetone-native", "poetone")
    with pytest.raises(ValueError, match="'bogus'"):
        load_cipai(None, "bogus")
    with pytest.raises(ValueError, match="'bogus'"):
        load_cipai(write(tmp_path, "good.json", GOOD), "bogus")
    with pytest.raises(ValueError, match="needs a metadata file"):
        load_cipai(None, "poetone")
    with pytest.raises(ValueError, match="needs a metadata file"):
        Critic(metadata_format="poetone")
    # a file in the other format is rejected, not misread
    with pytest.raises(MetadataError, match="expected a list"):
        load_cipai(write(tmp_path, "ours.json", GOOD), "poetone")
    with pytest.raises(MetadataError, match=r"theirs\.json\[0\]"):
        load_cipai(write(tmp_path, "theirs.json", OFFICIAL))
    # None and "poetone-native" mean the same
    assert list(load_cipai(None, "poetone-native")) == list(load_cipai())


def test_a_title_after_a_name_that_holds_a_separator_is_read_after_the_longest_name() -> None:
    # 三台（大曲） is a tune of its own; （ also begins a title (浣溪沙（春恨）), and 三台 is a tune too
    reg = load_cipai()
    assert reg.resolve("三台（大曲）・春") == "三台（大曲）"
    assert reg.resolve("三台・春") == "三台"
    assert reg.resolve("浣溪沙（春恨）") == "浣溪沙"


def test_an_unknown_name_is_named_whatever_it_holds() -> None:
    reg = load_cipai()
    with pytest.raises(UnknownCipaiError, match=r"unknown cipai '沁\\udcff'; closest: 沁园春"):
        reg.resolve("沁\udcff")  # a lone surrogate (bad bytes on the command line) reaches no converter
    with pytest.raises(UnknownCipaiError, match=r"^unknown cipai '啊{40}'… \(2000 characters\)$"):
        reg.resolve("啊" * 2000)  # a pasted text is shown in part


def test_a_folder_without_cipai_files_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "_index.json").write_text("{}", encoding="utf-8")  # an index alone is no cipai
    with pytest.raises(MetadataError, match="no cipai file"):
        load_cipai(tmp_path)
