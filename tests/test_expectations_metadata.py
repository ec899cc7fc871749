"""Hand-written expectations of poetone.metadata: the bundled resource read as it ships, the
generated tunes' index and files, and what the registry remembers (issue 17).

Every expected value is a literal: the 钦定词谱's own order of tunes (卷一 opens with 竹枝, 归字谣),
names written out by hand, messages quoted exactly as docs/cipai-schema.md and the module print them.
None is computed with the module under test.
"""

from __future__ import annotations

import io
import json
from importlib import resources
from pathlib import Path

import pytest

from poetone import metadata as md
from poetone.metadata import CipaiRegistry, Line, MetadataError, parse_cipai

#: the 20 curated cipai of the benchmark, in the order of their file names (Unicode code points
#: of the first character: 一 4E00, 临 4E34, 卜 535C, 声 58F0, ...), as `ls src/poetone/cipai` lists them
CURATED_IN_FILE_ORDER = (
    "一剪梅",
    "临江仙",
    "卜算子",
    "声声慢",
    "定风波",
    "念奴娇",
    "水调歌头",
    "江城子",
    "浣溪沙",
    "清平乐",
    "渔家傲",
    "满江红",
    "点绛唇",
    "破阵子",
    "菩萨蛮",
    "虞美人",
    "蝶恋花",
    "西江月",
    "钗头凤",
    "青玉案",
)


def _cipai(name: str, aliases: tuple[str, ...] = ()) -> dict:
    return {
        "name": name,
        "aliases": list(aliases),
        "variants": [{"id": "v1", "stanzas": [["平平仄 句", "仄仄平 韵A"]]}],
    }


@pytest.fixture
def cp1252_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """pathlib's default encoding made cp1252 (as on many Windows machines), which cannot read
    UTF-8 Chinese: a file read without ``encoding="utf-8"`` then fails or reads as mojibake."""
    default = io.text_encoding
    monkeypatch.setattr(
        io, "text_encoding", lambda encoding, stacklevel=2: "cp1252" if encoding is None else default(encoding)
    )


def _generated_folder(tmp_path: Path, index: dict, tunes: dict[str, str]) -> Path:
    (tmp_path / "_index.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    for name, text in tunes.items():
        (tmp_path / f"{name}.json").write_text(text, encoding="utf-8")
    return tmp_path


# --- Line --------------------------------------------------------------------------------------


def test_an_unrhymed_line_built_by_hand_prints_no_segment():
    # only 韵, 叶 and 换 take a segment letter (docs/cipai-schema.md): a 句 keeps none in its spec
    assert Line("平仄", "句", "A").spec() == "平仄 句"
    assert Line("平仄", "读", "B", repeat=True).spec() == "平仄 读 叠"
    assert Line("平仄", "叶", "B").spec() == "平仄 叶B"


# --- the bundled resource, read as it ships ----------------------------------------------------


def test_the_curated_files_are_read_in_file_name_order():
    assert tuple(md.load_cipai(generated=False)) == CURATED_IN_FILE_ORDER
    where, text = next(md._builtin_files())
    assert where == "cipai/一剪梅.json"
    assert json.loads(text)["name"] == "一剪梅"


def test_the_curated_files_are_read_as_utf8_whatever_the_platforms_default(cp1252_default):
    assert tuple(md.load_cipai(generated=False)) == CURATED_IN_FILE_ORDER


def test_the_bundled_generated_index_read_without_the_cache():
    g = md.GeneratedCipai()
    assert g.folder == resources.files("poetone") / "cipai_generated"
    # the 词谱's order (卷一: 竹枝, 归字谣, ...), not the names sorted (一七令 would come first)
    assert g.order[:2] == ("竹枝", "归字谣")
    # a traditional spelling and a short name of the index (一叢花 -> 一丛花, 一七 -> 一七令)
    assert g.names["一叢花"] == "一丛花" and g.names["一七"] == "一七令"
    assert g.homonyms["乌夜啼"] == ["乌夜啼", "相见欢"]
    assert g.tunes["一丛花"]["variants"] == 1
    tune = g.load("一丛花")
    assert (tune.name, tune.origin) == ("一丛花", "cipai_generated/一丛花.json")


def test_the_bundled_generated_index_is_read_as_utf8_whatever_the_platforms_default(cp1252_default):
    g = md.GeneratedCipai()
    assert g.order[:2] == ("竹枝", "归字谣")
    assert g.load("一丛花").name == "一丛花"


# --- a generated folder of one's own -----------------------------------------------------------


def test_the_index_order_is_kept_as_written(tmp_path):
    # 甲 is U+7532 and 乙 U+4E59: the written order 甲, 乙 is not the sorted one
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    names = {"甲": "甲", "乙": "乙"}
    written = _generated_folder(tmp_path / "a", {"names": names, "order": ["甲", "乙"]}, {})
    assert md.GeneratedCipai(written).order == ("甲", "乙")
    # no "order": the tunes sorted by code point, 乙 before 甲
    assert md.GeneratedCipai(_generated_folder(tmp_path / "b", {"names": names}, {})).order == ("乙", "甲")


def test_a_broken_index_names_the_index(tmp_path):
    (tmp_path / "_index.json").write_text("{", encoding="utf-8")
    with pytest.raises(MetadataError, match=r"^cipai_generated/_index\.json: not valid JSON \("):
        md.GeneratedCipai(tmp_path)


def test_a_generated_tune_names_its_file(tmp_path):
    folder = _generated_folder(
        tmp_path,
        {"names": {"甲乙": "甲乙", "丙丁": "丙丁"}, "order": ["甲乙", "丙丁"]},
        {"甲乙": json.dumps(_cipai("甲乙"), ensure_ascii=False), "丙丁": "{"},
    )
    g = md.GeneratedCipai(folder)
    tune = g.load("甲乙")
    assert (tune.name, tune.origin) == ("甲乙", "cipai_generated/甲乙.json")
    with pytest.raises(MetadataError, match=r"^cipai_generated/丙丁\.json: not valid JSON \("):
        g.load("丙丁")
    bad = _generated_folder(tmp_path, {"names": {"戊": "戊"}}, {"戊": json.dumps({"name": "戊", "variants": []})})
    with pytest.raises(MetadataError, match=r"^cipai_generated/戊\.json \(戊\): 'variants' is empty$"):
        md.GeneratedCipai(bad).load("戊")


def test_a_generated_tune_and_its_index_are_read_as_utf8_whatever_the_platforms_default(tmp_path, cp1252_default):
    folder = _generated_folder(
        tmp_path, {"names": {"甲乙": "甲乙"}}, {"甲乙": json.dumps(_cipai("甲乙", ("丙丁",)), ensure_ascii=False)}
    )
    g = md.GeneratedCipai(folder)
    assert g.names == {"甲乙": "甲乙"}
    assert g.load("甲乙").aliases == ("丙丁",)


# --- what the registry remembers ---------------------------------------------------------------


def _langtaosha_registry(folder: Path) -> CipaiRegistry:
    """A registry whose generated index names 浪淘沙令 and 浪淘沙慢, the bare 浪淘沙 printed for both."""
    index = {
        "names": {"浪淘沙令": "浪淘沙令", "浪淘沙慢": "浪淘沙慢", "浪淘沙": "浪淘沙令"},
        "order": ["浪淘沙令", "浪淘沙慢"],
        "homonyms": {"浪淘沙": ["浪淘沙令", "浪淘沙慢"]},
    }
    return CipaiRegistry([parse_cipai(_cipai("甲乙"), "f")], md.GeneratedCipai(_generated_folder(folder, index, {})))


def test_a_remembered_title_is_answered_without_resolving_again(tmp_path):
    reg = _langtaosha_registry(tmp_path)
    assert reg.tunes_titled("浪淘沙·北戴河") == ("浪淘沙令", "浪淘沙慢")

    def no_second_resolve(name):
        raise AssertionError(f"resolved {name!r} again")

    reg.resolve = no_second_resolve
    assert reg.tunes_titled("浪淘沙·北戴河") == ("浪淘沙令", "浪淘沙慢")


def test_a_remembered_spelling_is_not_worked_out_again():
    reg = CipaiRegistry([parse_cipai(_cipai("浣溪沙"), "f")])
    assert reg.resolve("浣溪沙·春恨") == "浣溪沙"

    def no_second_look(key):
        raise AssertionError(f"worked out {key!r} again")

    reg._head = reg._find = no_second_look
    assert reg.resolve("浣溪沙·春恨") == "浣溪沙"


def test_only_the_bare_homonym_title_names_every_tune(tmp_path):
    # 浪淘沙 is printed for 浪淘沙令 and 浪淘沙慢; 浪淘沙令 itself (no separator after 浪淘沙) is one tune
    reg = _langtaosha_registry(tmp_path)
    assert reg.tunes_titled("浪淘沙令") == ("浪淘沙令",)
    assert reg.tunes_titled("浪淘沙令·北戴河") == ("浪淘沙令",)
    assert reg.tunes_titled("浪淘沙·北戴河") == ("浪淘沙令", "浪淘沙慢")


def test_unknown_names_suggest_curated_tunes_before_generated_ones(tmp_path):
    # "浣溪" against the generated 浣溪沙 (ratio 2·2/5 = 0.8) and the curated 浣纱 (2·1/4 = 0.5):
    # the curated one is named first all the same
    folder = _generated_folder(tmp_path, {"names": {"浣溪沙": "浣溪沙"}, "order": ["浣溪沙"]}, {})
    reg = CipaiRegistry([parse_cipai(_cipai("浣纱"), "f")], md.GeneratedCipai(folder))
    with pytest.raises(md.UnknownCipaiError) as info:
        reg.resolve("浣溪")
    assert info.value.suggestions == ["浣纱", "浣溪沙"]
    assert str(info.value) == "unknown cipai '浣溪'; closest: 浣纱, 浣溪沙"


def test_without_opencc_a_name_is_looked_up_as_written(monkeypatch):
    monkeypatch.setattr(md, "_t2s", lambda: None)
    assert md._to_simplified("點絳脣") == "點絳脣"
    reg = CipaiRegistry([parse_cipai(_cipai("点绛唇"), "f")])
    with pytest.raises(md.UnknownCipaiError, match=r"^unknown cipai '點絳脣'$"):
        reg.resolve("點絳脣")


def test_the_curated_cipai_name_their_bundled_files():
    reg = md.load_cipai(generated=False)
    assert reg["浣溪沙"].origin == "cipai/浣溪沙.json"
    assert reg["一剪梅"].origin == "cipai/一剪梅.json"


def test_a_broken_bundled_file_is_named(monkeypatch):
    monkeypatch.setattr(md, "_builtin_files", lambda: iter([("cipai/坏.json", "{")]))
    with pytest.raises(MetadataError, match=r"^cipai/坏\.json: not valid JSON \("):
        md.load_cipai(generated=False)
    monkeypatch.setattr(
        md, "_builtin_files", lambda: iter([("cipai/坏.json", json.dumps({"name": "坏", "variants": []}))])
    )
    with pytest.raises(MetadataError, match=r"^cipai/坏\.json \(坏\): 'variants' is empty$"):
        md.load_cipai(generated=False)


def test_a_broken_poetone_file_is_named(tmp_path):
    bad = tmp_path / "cipai_metadata.json"
    bad.write_text("[", encoding="utf-8")
    with pytest.raises(MetadataError, match=rf"^{bad}: not valid JSON \("):
        md.load_cipai(bad, "poetone")
    bad.write_text(json.dumps({"Cipai": "甲"}), encoding="utf-8")
    with pytest.raises(MetadataError, match=rf"^{bad}: expected a list of variant entries$"):
        md.load_cipai(bad, "poetone")


def test_files_of_ones_own_are_read_as_utf8_whatever_the_platforms_default(tmp_path, cp1252_default):
    ours = tmp_path / "ours.json"
    ours.write_text(json.dumps(_cipai("甲乙", ("丙丁",)), ensure_ascii=False), encoding="utf-8")
    assert md.load_cipai(ours).resolve("丙丁") == "甲乙"
    theirs = tmp_path / "theirs.json"
    entry = {"Cipai": "浣溪沙", "stanza1": {"lines": ["平平仄仄仄平平"], "rhyme_positions": [1]}}
    theirs.write_text(json.dumps([entry], ensure_ascii=False), encoding="utf-8")
    assert list(md.load_cipai(theirs, "poetone")) == ["浣溪沙"]


# --- messages and origins written out -----------------------------------------------------------


def test_a_bad_line_message_in_full():
    with pytest.raises(MetadataError) as info:
        md.parse_line("平仄", "f line 1")
    assert str(info.value) == (
        "f line 1: bad line '平仄': expected tones of 平仄中, a space, an ending "
        "(句, 读, 韵X, 叶X, 换X with X a capital letter) and optionally ' 叠'"
    )


def test_a_variant_without_stanzas_is_named():
    data = {"name": "甲乙", "variants": [{"id": "v1"}]}
    with pytest.raises(MetadataError, match=r"^f \(甲乙\) variant 'v1': missing field 'stanzas'$"):
        parse_cipai(data, "f")


def test_the_origin_is_the_whole_file_name_whatever_it_holds():
    # a copied file "词谱 (卷一).json" holds " (" itself; a name may hold a space
    assert parse_cipai(_cipai("甲乙"), "词谱 (卷一).json").origin == "词谱 (卷一).json"
    assert parse_cipai(_cipai("甲乙"), "a (b) (c).json").origin == "a (b) (c).json"
    assert parse_cipai(_cipai("甲 乙"), "f.json").origin == "f.json"


def test_the_origin_of_a_name_holding_a_bracket():
    assert parse_cipai(_cipai("甲 (乙)"), "f.json").origin == "f.json"


def test_only_spaces_and_title_brackets_are_stripped_from_a_name():
    reg = CipaiRegistry([parse_cipai(_cipai("浣溪沙"), "f")])
    assert reg.resolve(" 〈《浣溪沙》〉\u3000") == "浣溪沙"
    for spelling in ("浣溪沙X", "X浣溪沙"):
        with pytest.raises(md.UnknownCipaiError) as info:
            reg.resolve(spelling)
        assert info.value.suggestions == ["浣溪沙"]
