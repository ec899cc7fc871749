"""Boundaries and hand-written expectations of poetone.metadata (issue 17).

Every expected value is a literal written out from the schema (docs/cipai-schema.md) or worked
by hand from the line specs below, not computed with the module under test.
"""

from __future__ import annotations

import json

import pytest

from poetone import metadata as md
from poetone.metadata import (
    Cipai,
    CipaiRegistry,
    Line,
    MetadataError,
    UnknownCipaiError,
    Variant,
    parse_cipai,
    parse_line,
    parse_poetone_metadata,
)


def _cipai(name="甲乙", aliases=(), stanzas=(("平平仄 句", "仄仄平 韵A"),), **extra):
    data = {"name": name, "aliases": list(aliases), "variants": [{"id": "v1", "stanzas": [list(s) for s in stanzas]}]}
    data.update(extra)
    return data


# --- parse_line -------------------------------------------------------------------------------


def test_parse_line_reads_every_field():
    # "仄仄平 韵A 叠": tones 仄仄平, ending 韵, segment A, repeated (schema: docs/cipai-schema.md)
    line = parse_line("  仄仄平 韵A 叠  ", "w")
    assert (line.tones, line.end, line.segment, line.repeat) == ("仄仄平", "韵", "A", True)
    assert line.length == 3 and line.rhymed and line.rhyme_tone == "平"
    assert line.spec() == "仄仄平 韵A 叠"
    plain = parse_line("平中仄 句", "w")
    assert (plain.segment, plain.repeat, plain.rhymed, plain.rhyme_tone) == ("", False, False, "")
    assert plain.spec() == "平中仄 句"


@pytest.mark.parametrize("end", ["韵", "叶", "换"])
def test_every_rhymed_ending_needs_a_segment(end):
    assert parse_line(f"平仄 {end}B", "w").rhymed
    with pytest.raises(MetadataError, match=rf"^w: rhymed line '平仄 {end}' needs a segment letter, e.g. {end}A$"):
        parse_line(f"平仄 {end}", "w")


@pytest.mark.parametrize("end", ["句", "读"])
def test_unrhymed_endings_take_no_segment(end):
    assert not parse_line(f"平仄 {end}", "w").rhymed
    with pytest.raises(MetadataError, match=rf"^w: line '平仄 {end}A': only 韵, 叶 and 换 take a segment letter$"):
        parse_line(f"平仄 {end}A", "w")


def test_rhymed_line_ending_in_zhong_is_refused_but_zhong_elsewhere_is_fine():
    assert parse_line("中仄 韵A", "w").tones == "中仄"
    assert parse_line("仄中 句", "w").tones == "仄中"
    with pytest.raises(MetadataError, match=r"^w: rhymed line '仄中 韵A' must end in 平 or 仄"):
        parse_line("仄中 韵A", "w")


@pytest.mark.parametrize("spec", ["平仄", "平仄 韵a", "平仄 韵AB", "平x 句", "平仄  句", 12, None, "平仄 句 叠叠"])
def test_bad_lines_are_refused_with_the_place(spec):
    with pytest.raises(MetadataError, match=r"^here: bad line .*expected tones of 平仄中"):
        parse_line(spec, "here")


# --- parse_cipai ------------------------------------------------------------------------------


def test_parse_cipai_builds_the_model_with_every_field():
    data = _cipai(
        aliases=["丙丁"],
        stanzas=(("平平仄 句", "仄仄平 韵A"), ("平平仄 读", "平平仄 叶B 叠")),
        source="词谱",
        note="n",
    )
    data["variants"][0].update(label="正体", source="卷一", example={"poet": "某", "first_line": "一二三"})
    c = parse_cipai(data, "f.json")
    assert (c.name, c.aliases, c.source, c.note, c.origin, c.homonyms) == ("甲乙", ("丙丁",), "词谱", "n", "f.json", ())
    (v,) = c.variants
    assert (v.cipai, v.id, v.label, v.source, dict(v.example)) == (
        "甲乙",
        "v1",
        "正体",
        "卷一",
        {"poet": "某", "first_line": "一二三"},
    )
    # 3 + 3 + 3 + 3 characters; stanza of each line 0 0 1 1
    assert v.lengths == (3, 3, 3, 3) and v.char_count == 12
    assert v.stanza_of_line() == (0, 0, 1, 1)
    assert [ln.spec() for ln in v.lines] == ["平平仄 句", "仄仄平 韵A", "平平仄 读", "平平仄 叶B 叠"]
    assert c.variant("v1") is v
    with pytest.raises(KeyError, match=r"cipai '甲乙' has no variant 'v2'; it has \['v1'\]"):
        c.variant("v2")


def test_defaults_of_optional_fields():
    data = _cipai()
    del data["aliases"]
    c = parse_cipai(data, "f")
    assert (c.aliases, c.source, c.note, c.homonyms) == ((), "", "", ())
    v = c.variants[0]
    assert (v.label, v.source, dict(v.example)) == ("", "", {})


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: [], r"^f: a cipai must be a JSON object$"),
        (lambda d: {k: v for k, v in d.items() if k != "name"}, r"^f: missing field 'name'$"),
        (lambda d: {**d, "name": 3}, r"^f: field 'name' must be str, got int$"),
        (lambda d: {**d, "aliases": "丙"}, r"^f \(甲乙\): 'aliases' must be a list of strings$"),
        (lambda d: {**d, "aliases": ["丙", 1]}, r"^f \(甲乙\): 'aliases' must be a list of strings$"),
        (lambda d: {**d, "variants": []}, r"^f \(甲乙\): 'variants' is empty$"),
        (lambda d: {**d, "variants": {}}, r"^f \(甲乙\): field 'variants' must be list, got dict$"),
        (
            lambda d: {**d, "variants": [d["variants"][0], 5]},
            r"^f \(甲乙\) variant #2: a variant must be a JSON object$",
        ),
        (lambda d: {**d, "variants": [{"stanzas": []}]}, r"^f \(甲乙\) variant #1: missing field 'id'$"),
        (lambda d: {**d, "variants": [d["variants"][0]] * 2}, r"^f \(甲乙\) variant 'v1': duplicate variant id$"),
        (lambda d: {**d, "variants": [{"id": "v1", "stanzas": []}]}, r"^f \(甲乙\) variant 'v1': 'stanzas' is empty$"),
        (
            lambda d: {**d, "variants": [{"id": "v1", "stanzas": [["仄仄平 韵A"], []]}]},
            r"^f \(甲乙\) variant 'v1' stanza 2: must be a non-empty list of lines$",
        ),
        (
            lambda d: {**d, "variants": [{"id": "v1", "stanzas": [["仄仄平 韵A"], "平 句"]}]},
            r"^f \(甲乙\) variant 'v1' stanza 2: must be a non-empty list of lines$",
        ),
        (
            lambda d: {**d, "variants": [{"id": "v1", "stanzas": [["仄仄平 韵A", "bad"]]}]},
            r"^f \(甲乙\) variant 'v1' stanza 1 line 2: bad line 'bad'",
        ),
        (
            lambda d: {**d, "variants": [{"id": "v1", "stanzas": [["仄仄平 句", "平 读"]]}]},
            r"^f \(甲乙\) variant 'v1': no rhyme position$",
        ),
        (
            lambda d: {**d, "variants": [{"id": "v1", "stanzas": [["仄仄平 韵A 叠"]]}]},
            r"^f \(甲乙\) variant 'v1' line 1: 叠 repeats the previous line, which must have the same length$",
        ),
        (
            lambda d: {**d, "variants": [{"id": "v1", "stanzas": [["仄仄 句", "仄仄平 韵A 叠"]]}]},
            r"^f \(甲乙\) variant 'v1' line 2: 叠 repeats the previous line",
        ),
        (
            lambda d: {**d, "variants": [{"id": "v1", "stanzas": [["仄仄平 韵A"]], "example": []}]},
            r"^f \(甲乙\) variant 'v1': 'example' must be an object with 'poet' and 'first_line'$",
        ),
    ],
)
def test_parse_cipai_errors_name_the_place(mutate, message):
    with pytest.raises(MetadataError, match=message):
        parse_cipai(mutate(_cipai()), "f")


def test_repeat_of_a_line_of_the_same_length_across_a_stanza_is_accepted():
    c = parse_cipai(_cipai(stanzas=(("仄仄平 韵A",), ("平平仄 句 叠", "仄平平 韵A"))), "f")
    assert [ln.repeat for ln in c.variants[0].lines] == [False, True, False]


def test_parse_cipai_default_where():
    with pytest.raises(MetadataError, match=r"^<cipai>: a cipai must be a JSON object$"):
        parse_cipai(None)


def test_homonyms_are_read_and_checked():
    poems = [{"poet": "柳永", "first_line": "自春来"}]
    c = parse_cipai(_cipai(homonyms=[{"name": "定风波慢", "source": "全宋词", "poems": poems}]), "f")
    (h,) = c.homonyms
    assert (h.name, h.source, tuple(dict(p) for p in h.poems)) == (
        "定风波慢",
        "全宋词",
        ({"poet": "柳永", "first_line": "自春来"},),
    )
    bad = [
        ({}, r"^f \(甲乙\): 'homonyms' must be a list of objects$"),
        ([1], r"^f \(甲乙\) homonym #1: must be an object with 'name', 'source' and 'poems'$"),
        ([{"source": "s", "poems": poems}], r"^f \(甲乙\) homonym #1: missing field 'name'$"),
        ([{"name": "x", "poems": poems}], r"^f \(甲乙\) homonym #1: missing field 'source'$"),
        ([{"name": "x", "source": "s"}], r"^f \(甲乙\) homonym #1: missing field 'poems'$"),
        (
            [{"name": "x", "source": "s", "poems": []}],
            r"^f \(甲乙\) homonym #1 \(x\): 'poems' must be a non-empty list",
        ),
        ([{"name": "x", "source": "s", "poems": [{"poet": "a"}]}], r"homonym #1 \(x\): 'poems'"),
        ([{"name": "x", "source": "s", "poems": [{"first_line": "a"}]}], r"homonym #1 \(x\): 'poems'"),
        ([{"name": "x", "source": "s", "poems": [{"poet": 1, "first_line": "a"}]}], r"homonym #1 \(x\): 'poems'"),
        ([{"name": "x", "source": "s", "poems": ["a"]}], r"homonym #1 \(x\): 'poems'"),
        ([{"name": "x", "source": "s", "poems": poems}, 2], r"^f \(甲乙\) homonym #2: must be an object"),
    ]
    for homonyms, message in bad:
        with pytest.raises(MetadataError, match=message):
            parse_cipai(_cipai(homonyms=homonyms), "f")


# --- the official PoeTone format --------------------------------------------------------------


def test_poetone_format_rhyme_positions_and_zhong_rhyme_tone():
    entries = [
        {
            "Cipai": "甲",
            "rhyme_type": "平韵",
            "stanza1": {"lines": ["平平中（韵）", "仄仄平平"], "rhyme_positions": [1]},
            "stanza2": {"lines": ["仄仄中"], "rhyme_positions": [1]},
        },
        {"Cipai": "甲", "variant": "b", "rhyme_type": "仄韵", "stanza1": {"lines": ["平中"], "rhyme_positions": [1]}},
        {"Cipai": "乙", "stanza1": {"lines": ["平中", "仄平"], "rhyme_positions": [2]}},
    ]
    jia, yi = parse_poetone_metadata(entries, "p.json")
    assert (jia.name, jia.source, jia.origin) == ("甲", "PoeTone cipai_metadata.json", "p.json")
    v0, vb = jia.variants
    assert (v0.cipai, vb.cipai, yi.variants[0].cipai) == ("甲", "甲", "乙")
    # 中 at a rhyme position takes the tone of rhyme_type: 平韵 -> 平, otherwise 仄
    assert [ln.spec() for ln in v0.lines] == ["平平平 韵A", "仄仄平平 句", "仄仄平 韵A"]
    assert v0.stanza_of_line() == (0, 0, 1)
    assert (v0.id, vb.id, v0.source) == ("0", "b", "PoeTone cipai_metadata.json")
    assert [ln.spec() for ln in vb.lines] == ["平仄 韵A"]
    # no rhyme_type: 中 becomes 仄; an unnamed first variant of 乙 is "0"
    assert yi.variants[0].id == "0"
    assert [ln.spec() for ln in yi.variants[0].lines] == ["平中 句", "仄平 韵A"]


def test_poetone_format_unnamed_variants_are_numbered_within_their_cipai():
    e = {"Cipai": "甲", "stanza1": {"lines": ["平仄"], "rhyme_positions": [1]}}
    (c,) = parse_poetone_metadata([e, e, e])
    assert [v.id for v in c.variants] == ["0", "1", "2"]
    assert c.origin == "<poetone metadata>"


def test_poetone_format_stanzas_in_order_and_other_keys_ignored():
    e = {
        "Cipai": "甲",
        "stanza2": {"lines": ["仄仄"]},
        "stanza1": {"lines": ["平平"], "rhyme_positions": [1]},
        "stanza": {"lines": ["x"]},
        "stanza1x": {"lines": ["x"]},
    }
    (c,) = parse_poetone_metadata([e])
    assert [ln.spec() for ln in c.variants[0].lines] == ["平平 韵A", "仄仄 句"]


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({}, r"^<poetone metadata>: expected a list of variant entries$"),
        ([1], r"^<poetone metadata> entry #1: must be an object$"),
        ([{"stanza1": {}}], r"^<poetone metadata> entry #1: missing field 'Cipai'$"),
        ([{"Cipai": "甲"}], r"^<poetone metadata> entry #1 \(甲 variant 0\): no stanza1/stanza2 fields$"),
        (
            [{"Cipai": "甲", "variant": "v", "stanza1": []}],
            r"^<poetone metadata> entry #1 \(甲 variant v\): field 'stanza1' must be dict",
        ),
        (
            [{"Cipai": "甲", "stanza1": {}}],
            r"^<poetone metadata> entry #1 \(甲 variant 0\) stanza1: missing field 'lines'$",
        ),
        (
            [{"Cipai": "甲", "stanza1": {"lines": ["平", "（）"]}}],
            r"^<poetone metadata> entry #1 \(甲 variant 0\) stanza1 line 2: no tone characters in '（）'$",
        ),
    ],
)
def test_poetone_format_errors(entries, message):
    with pytest.raises(MetadataError, match=message):
        parse_poetone_metadata(entries)


# --- loading ----------------------------------------------------------------------------------


def test_load_cipai_formats_and_paths(tmp_path):
    with pytest.raises(
        ValueError, match=r"^unknown metadata_format 'x'; expected one of \('poetone-native', 'poetone'\)$"
    ):
        md.load_cipai(metadata_format="x")
    with pytest.raises(ValueError, match=r"^metadata_format='poetone' needs a metadata file path$"):
        md.load_cipai(metadata_format="poetone")
    missing = tmp_path / "none.json"
    with pytest.raises(FileNotFoundError, match="does not exist"):
        md.load_cipai(missing)
    one = tmp_path / "one.json"
    one.write_text(json.dumps(_cipai(name="甲乙")), encoding="utf-8")
    reg = md.load_cipai(one)
    assert list(reg) == ["甲乙"] and reg["甲乙"].origin == str(one)
    many = tmp_path / "many.json"
    many.write_text(json.dumps([_cipai(name="丙丁"), _cipai(name="戊己")]), encoding="utf-8")
    reg = md.load_cipai(many)
    assert list(reg) == ["丙丁", "戊己"] and reg["戊己"].origin == f"{many}[1]"
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "b.json").write_text(json.dumps(_cipai(name="庚辛")), encoding="utf-8")
    (folder / "a.json").write_text(json.dumps(_cipai(name="壬癸")), encoding="utf-8")
    (folder / "c.txt").write_text("not json", encoding="utf-8")
    assert list(md.load_cipai(folder)) == ["壬癸", "庚辛"]
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(MetadataError, match=rf"^{bad}: not valid JSON \("):
        md.load_cipai(bad)
    pt = tmp_path / "pt.json"
    pt.write_text(
        json.dumps([{"Cipai": "甲", "stanza1": {"lines": ["平仄"], "rhyme_positions": [1]}}]), encoding="utf-8"
    )
    reg = md.load_cipai(pt, "poetone")
    assert list(reg) == ["甲"] and reg["甲"].origin == str(pt)


def test_bundled_resource_curated_and_generated():
    reg = md.load_cipai(generated=False)
    assert "浣溪沙" in reg and reg.is_curated("浣溪沙")
    assert reg.all_names() == tuple(reg)
    full = md.load_cipai()
    assert len(full.all_names()) > len(full)
    assert tuple(full) == tuple(reg)


def test_generated_cipai_reads_its_index_and_checks_the_name(tmp_path):
    (tmp_path / "_index.json").write_text(
        json.dumps({"names": {"甲乙": "甲乙", "甲乙令": "甲乙"}, "tunes": {"甲乙": {}}, "homonyms": {}}),
        encoding="utf-8",
    )
    (tmp_path / "甲乙.json").write_text(json.dumps(_cipai(name="丙丁")), encoding="utf-8")
    g = md.GeneratedCipai(tmp_path)
    assert g.names == {"甲乙": "甲乙", "甲乙令": "甲乙"} and g.order == ("甲乙",) and g.tunes == {"甲乙": {}}
    with pytest.raises(MetadataError, match=r"^cipai_generated/甲乙.json: holds '丙丁', the index says '甲乙'$"):
        g.load("甲乙")
    empty = md.GeneratedCipai(tmp_path / "none")
    assert (empty.names, empty.order, empty.tunes, empty.homonyms) == ({}, (), {}, {})


# --- the registry -----------------------------------------------------------------------------


def _reg(*cipai):
    return CipaiRegistry([parse_cipai(c, f"f{i}") for i, c in enumerate(cipai)])


def test_registry_refuses_duplicates_and_shared_aliases():
    with pytest.raises(MetadataError, match=r"^cipai '甲乙' is defined twice \(f0, f1\)$"):
        _reg(_cipai(name="甲乙"), _cipai(name="甲乙"))
    with pytest.raises(
        MetadataError, match=r"^f1: alias '甲乙' of '丙丁' is already a name or alias of '甲乙' \(f0\)$"
    ):
        _reg(_cipai(name="甲乙"), _cipai(name="丙丁", aliases=["甲乙"]))


def test_resolve_names_aliases_and_titles():
    reg = _reg(_cipai(name="浣溪沙", aliases=["小庭花"]), _cipai(name="浣溪沙慢"))
    assert reg.resolve("《浣溪沙》") == "浣溪沙"
    assert reg.resolve(" 小庭花 ") == "浣溪沙"
    assert reg["小庭花"].name == "浣溪沙"
    assert reg.resolve("浣溪沙慢") == "浣溪沙慢"
    for sep in "・·•‧ \u3000(（":
        assert reg.resolve(f"浣溪沙{sep}春恨") == "浣溪沙"
    # no separator after the name: not a title
    with pytest.raises(UnknownCipaiError):
        reg.resolve("浣溪沙春恨")
    assert "浣溪沙 春恨" in reg and 42 not in reg and "清平乐" not in reg
    assert reg.tunes_titled("浣溪沙") == ("浣溪沙",)
    assert len(reg) == 2 and list(reg) == ["浣溪沙", "浣溪沙慢"]


def test_a_name_exactly_as_long_as_the_key_is_not_a_title_head():
    # key "甲乙" has length 2 and a name of length 2: no position 2 to hold a separator
    reg = _reg(_cipai(name="甲乙"), _cipai(name="甲"))
    assert reg._head("甲乙") is None
    assert reg._head("甲 乙") == "甲"
    assert reg._head("甲乙 丙") == "甲乙"


def test_traditional_script_resolves():
    reg = _reg(_cipai(name="点绛唇"), _cipai(name="蝶恋花", aliases=["鹊踏枝"]))
    assert reg.resolve("點絳脣") == "点绛唇"
    assert reg.resolve("鵲踏枝") == "蝶恋花"
    assert reg.resolve("點絳脣·春愁") == "点绛唇"


def test_unknown_names_suggest_the_closest_curated_first_at_most_three():
    reg = _reg(*(_cipai(name=n) for n in ["浣溪沙", "浣溪纱", "浣沙溪", "溪沙浣", "完全不同"]))
    with pytest.raises(UnknownCipaiError) as info:
        reg.resolve("浣溪")
    assert info.value.name == "浣溪"
    assert len(info.value.suggestions) == 3
    # 浣溪沙 and 浣溪纱 share 浣溪 (ratio 2*2/5 = 0.8), 浣沙溪 and 溪沙浣 one character each (0.4)
    assert set(info.value.suggestions[:2]) == {"浣溪沙", "浣溪纱"}
    assert info.value.suggestions[2] in {"浣沙溪", "溪沙浣"}
    assert str(info.value).startswith("unknown cipai '浣溪'; closest: 浣溪")
    with pytest.raises(UnknownCipaiError) as none:
        reg.resolve("zzzz")
    assert none.value.suggestions == [] and str(none.value) == "unknown cipai 'zzzz'"


def test_unknown_error_message():
    err = UnknownCipaiError("x", ["a", "b"])
    assert str(err) == "unknown cipai 'x'; closest: a, b" and err.suggestions == ["a", "b"]
    assert isinstance(err, KeyError)


def test_spellings_cache_keeps_short_keys_and_is_bounded(monkeypatch):
    reg = _reg(_cipai(name="甲乙"))
    sixty_four = "甲乙 " + "丙" * 61
    assert len(sixty_four) == 64
    reg.resolve(sixty_four)
    assert reg._spellings[sixty_four] == "甲乙"
    sixty_five = sixty_four + "丁"
    reg.resolve(sixty_five)
    assert sixty_five not in reg._spellings
    monkeypatch.setattr(md, "SPELLINGS_KEPT", 2)
    reg = _reg(_cipai(name="甲乙"))
    reg.resolve("甲乙 一")
    reg.resolve("甲乙 二")
    assert len(reg._spellings) == 2
    reg.resolve("甲乙 三")
    assert list(reg._spellings) == ["甲乙 三"]
    # a remembered miss raises again
    with pytest.raises(UnknownCipaiError):
        reg.resolve("zz")
    with pytest.raises(UnknownCipaiError):
        reg.resolve("zz")


def _with_homonyms(tmp_path, monkeypatch=None):
    index = {
        "names": {"浪淘沙令": "浪淘沙令", "浪淘沙慢": "浪淘沙慢", "浪淘沙": "浪淘沙令", "别名": "浪淘沙慢"},
        "order": ["浪淘沙令", "浪淘沙慢", "甲乙"],
        "homonyms": {"浪淘沙": ["浪淘沙令", "浪淘沙慢", "无此调"]},
    }
    (tmp_path / "_index.json").write_text(json.dumps(index), encoding="utf-8")
    for n in ("浪淘沙令", "浪淘沙慢"):
        (tmp_path / f"{n}.json").write_text(json.dumps(_cipai(name=n)), encoding="utf-8")
    g = md.GeneratedCipai(tmp_path)
    curated = [parse_cipai(_cipai(name="甲乙"), "f")]
    return CipaiRegistry(curated, g)


def test_generated_tunes_resolve_load_and_titles_name_every_homonym(tmp_path, monkeypatch):
    reg = _with_homonyms(tmp_path)
    assert reg.all_names() == ("甲乙", "浪淘沙令", "浪淘沙慢")
    assert list(reg) == ["甲乙"] and len(reg) == 1
    assert reg.resolve("浪淘沙") == "浪淘沙令" and not reg.is_curated("浪淘沙") and reg.is_curated("甲乙")
    c = reg["浪淘沙"]
    assert c.name == "浪淘沙令" and reg["浪淘沙令"] is c
    assert reg["别名"].name == "浪淘沙慢"
    assert reg.tunes_titled("浪淘沙") == ("浪淘沙令", "浪淘沙慢")
    assert reg.tunes_titled("浪淘沙·北戴河") == ("浪淘沙令", "浪淘沙慢")
    assert reg.tunes_titled("浪淘沙·北戴河") == ("浪淘沙令", "浪淘沙慢")  # remembered
    assert reg.tunes_titled("浪淘沙慢") == ("浪淘沙慢",)
    assert reg.tunes_titled("甲乙") == ("甲乙",)
    long_title = "浪淘沙 " + "北" * 60
    assert len(long_title) == 64
    assert reg.tunes_titled(long_title) == ("浪淘沙令", "浪淘沙慢")
    assert long_title in reg._titled
    longer = long_title + "北"
    assert reg.tunes_titled(longer) == ("浪淘沙令", "浪淘沙慢")
    assert longer not in reg._titled
    monkeypatch.setattr(md, "SPELLINGS_KEPT", 1)
    reg._titled.clear()
    reg.tunes_titled("浪淘沙")
    reg.tunes_titled("甲乙")
    assert list(reg._titled) == ["甲乙"]


def test_a_curated_name_beats_a_generated_one(tmp_path):
    index = {"names": {"甲乙": "甲乙", "丙": "丙"}, "order": ["甲乙", "丙"], "homonyms": {"甲乙": ["丙"]}}
    (tmp_path / "_index.json").write_text(json.dumps(index), encoding="utf-8")
    reg = CipaiRegistry([parse_cipai(_cipai(name="甲乙", aliases=["丙"]), "f")], md.GeneratedCipai(tmp_path))
    assert reg.all_names() == ("甲乙", "丙")  # 丙 is listed, but the curated alias 丙 wins
    assert reg.resolve("丙") == "甲乙"
    assert reg.tunes_titled("甲乙") == ("甲乙",)  # the curated title has no homonym table


def test_dataclass_models_direct():
    v = Variant(cipai="c", id="i", stanzas=((Line("平仄", "韵", "A"),), (Line("仄", "句"),)))
    assert v.lengths == (2, 1) and v.char_count == 3 and v.stanza_of_line() == (0, 1)
    c = Cipai(name="c", variants=(v,))
    assert c.variant("i") is v


# --- the suggestions of an unknown name: six close spellings, ratio 0.3 at least ----------------


def test_suggestions_look_at_the_six_closest_spellings():
    # "浣溪" against 浣溪沙 (2·2/5 = 0.8), 浣溪沙一 … (2·2/6 = 0.667 each) and 浣纱 (2·1/4 = 0.5)
    five = _reg(_cipai(name="浣溪沙", aliases=["浣溪沙一", "浣溪沙二", "浣溪沙三", "浣溪沙四"]), _cipai(name="浣纱"))
    with pytest.raises(UnknownCipaiError) as info:
        five.resolve("浣溪")
    assert info.value.suggestions == ["浣溪沙", "浣纱"]  # 浣纱 is the sixth closest spelling
    six = _reg(
        _cipai(name="浣溪沙", aliases=["浣溪沙一", "浣溪沙二", "浣溪沙三", "浣溪沙四", "浣溪沙五"]), _cipai(name="浣纱")
    )
    with pytest.raises(UnknownCipaiError) as info:
        six.resolve("浣溪")
    assert info.value.suggestions == ["浣溪沙"]  # 浣纱 is the seventh


def test_suggestions_need_a_ratio_of_at_least_0_3():
    # "甲乙丙" shares 3 characters with a 17-character name: 2·3/(3 + 17) = 0.3, kept;
    # with an 18-character one 2·3/21 = 0.286, dropped
    at = "甲乙丙子丑寅卯辰巳午未申酉戌亥天地"
    below = at + "人"
    assert (len(at), len(below)) == (17, 18)
    with pytest.raises(UnknownCipaiError) as info:
        _reg(_cipai(name=at)).resolve("甲乙丙")
    assert info.value.suggestions == [at]
    with pytest.raises(UnknownCipaiError) as info:
        _reg(_cipai(name=below)).resolve("甲乙丙")
    assert info.value.suggestions == []
