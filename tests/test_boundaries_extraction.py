"""Extraction at its thresholds, on both sides, and the JSON reading order written out.

``_MIN_HAN = 4``: four characters are a poem, three are not. ``_MAX_CLAUSE = 12``: a clause of
twelve characters is verse, thirteen is prose. ``_JSON_DEPTH = 8``: a poem nested seven levels
deep is found, nine levels deep is not. In a JSON object the poem keys come first, then the other
strings longest first.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from poetone._chars import GARBLED_RE, LACUNA
from poetone.extraction import (
    _BRACKETED,
    _ENOUGH_HAN,
    _JSON_DEPTH,
    _MAX_CLAUSE,
    _MIN_HAN,
    _STRAY_LATIN,
    _repaired,
    _texts_of,
    extract_poem,
)


def test_the_constants_are_the_ones_documented_here() -> None:
    assert (_MIN_HAN, _MAX_CLAUSE, _JSON_DEPTH) == (4, 12, 8)


def test_four_characters_are_a_poem_three_are_not() -> None:
    assert extract_poem("春风又绿。").poem == "春风又绿。"
    got = extract_poem("春风又。")
    assert (got.poem, got.valid, got.reason) == ("", False, "too short to be a poem (3 characters)")


def test_a_twelve_character_clause_is_verse_thirteen_is_not() -> None:
    twelve = "春风又绿江南岸明月何时照。"
    assert len(twelve) - 1 == 12 and extract_poem(twelve).poem == twelve
    thirteen = "春风又绿江南岸明月何时照我。"
    assert not extract_poem(thirteen).valid


def test_a_list_of_lines_is_one_text() -> None:
    assert _texts_of(["春风又绿江南岸", "明月何时照我还"]) == ["春风又绿江南岸\n明月何时照我还"]
    # a nested list of lines inside a list of lines: its lines joined, as one line of the outer text
    assert _texts_of(["春风", ["又绿", "江南"]]) == ["春风\n又绿\n江南"]
    assert _texts_of(["春风", []]) == ["春风\n"]


def test_a_list_of_objects_gives_their_texts_in_order() -> None:
    assert _texts_of([{"poem": "甲"}, {"poem": "乙"}]) == ["甲", "乙"]


def test_poem_keys_first_then_other_strings_longest_first() -> None:
    value = {"note": "短注", "title": "长长的标题文字", "Poem ": "春风又绿江南岸", "x": 3}
    # "Poem " is a poem key once stripped and lower-cased
    assert _texts_of(value) == ["春风又绿江南岸", "长长的标题文字", "短注"]
    assert _texts_of({"a": "一", "b": "一二三", "c": "一二"}) == ["一二三", "一二", "一"]


def test_poem_keys_in_their_declared_order() -> None:
    assert _texts_of({"text": "乙", "poem": "甲"}) == ["甲", "乙"]


def _nested(levels: int) -> object:
    value: object = "春风又绿江南岸。明月何时照我还。"
    for _ in range(levels):
        value = {"data": value}
    return value


def test_json_depth_limit_on_both_sides() -> None:
    # _texts_of(value, 0) reads dicts at depths 0..7; the string itself sits one level deeper
    assert _texts_of(_nested(_JSON_DEPTH)) == ["春风又绿江南岸。明月何时照我还。"]
    assert _texts_of(_nested(_JSON_DEPTH + 1)) == []
    assert _texts_of([["春风"]], _JSON_DEPTH - 1) == [""]  # depth is carried into lists of lines too
    assert _texts_of([["春风"]], _JSON_DEPTH - 2) == ["春风"]
    assert _texts_of([{"poem": "春风"}], _JSON_DEPTH - 1) == []
    assert _texts_of({"poem": {"poem": "春风"}}, _JSON_DEPTH - 1) == []
    assert _texts_of({"poem": {"poem": "春风"}}, _JSON_DEPTH - 2) == ["春风"]
    assert _texts_of({"x": {"x": "春风"}}, _JSON_DEPTH - 1) == []
    assert _texts_of({"x": {"x": "春风"}}, _JSON_DEPTH - 2) == ["春风"]
    assert _texts_of({"poem": "春风"}, _JSON_DEPTH - 1) == ["春风"]


def test_json_answer_nested_within_the_limit_is_found() -> None:
    answer = json.dumps(_nested(3), ensure_ascii=False)
    assert extract_poem(answer).poem == "春风又绿江南岸。明月何时照我还。"


@pytest.mark.parametrize("other", [None, 3, 2.5, True])
def test_non_text_json_values_give_nothing(other: object) -> None:
    assert _texts_of(other) == []


_REPAIR_ALPHABET = "春风又绿江南岸□，。（）()《》ァ─\ufffd\ue000жòé abc\n"


@given(st.text(alphabet=_REPAIR_ALPHABET, max_size=40))
@example("春ò风").via("a stray accented letter")
@example("春ァ风").via("a garbled character")
@example("春（注）风").via("a bracketed note")
@settings(max_examples=400, deadline=None)
def test_the_repair_precheck_never_skips_a_repair(text: str) -> None:
    """``_repaired`` skips the three substitutions when none of their characters is present:
    it must give what the substitutions give, on any text."""
    full = _BRACKETED.sub("", _STRAY_LATIN.sub(LACUNA, GARBLED_RE.sub(LACUNA, text)))
    assert _repaired(text) == full


@given(st.text(alphabet="春风又绿，。 \n", max_size=20))
@settings(max_examples=400, deadline=None)
def test_four_verse_characters_by_regex_as_by_counting(text: str) -> None:
    assert bool(_ENOUGH_HAN.match(text)) == (sum(ch in "春风又绿" for ch in text) >= _MIN_HAN)


def test_noncharacters_are_dropped_and_the_poem_kept() -> None:
    """U+FDD0-FDEF and U+xFFFE/xFFFF are never text (a broken encoder's or a fuzzer's): they go
    like invisible characters, and the poem around them stays whole; a private-use character
    (a lost character in old editions) is still a lacuna."""
    poem = "一曲新词酒一杯，去年天气旧亭台。"
    assert extract_poem("\U0010ffff" + poem[:8] + "\ufdd0" + poem[8:] + "\ufffe").poem == poem
    assert extract_poem("\ufdef\U0001fffe").valid is False
    assert extract_poem(poem[:3] + "\ue000" + poem[4:]).poem == poem[:3] + LACUNA + poem[4:]


# --- the length limits of the regexes, on both sides ------------------------------------------------
# 晏殊《浣溪沙》, its 上片 and 下片; each limit below is the one written in the regex it names.
_L1 = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？"
_L2 = "无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
_POEM = _L1 + "\n" + _L2


def test_a_bracketed_note_of_forty_characters_is_dropped_forty_one_is_not() -> None:
    # _BRACKETED: （…） of 0-40 characters is an editor's note; a longer bracket is no note, and
    # the line holding it is then no verse
    line = "一曲新词酒一杯，去年天气旧亭台。"
    got = extract_poem("一曲新词酒一杯（" + "注" * 40 + "），去年天气旧亭台。", "")
    assert (got.poem, got.valid, got.clean) == (line, True, True)
    assert extract_poem("一曲新词酒一杯（" + "注" * 41 + "），去年天气旧亭台。", "").valid is False


def test_two_stray_accented_letters_are_a_lacuna_three_are_not() -> None:
    # _STRAY_LATIN: one or two accented letters between two Han characters stand for a lost one
    assert extract_poem("一曲新词酒ò杯，去年天气旧亭台。", "").poem == "一曲新词酒□杯，去年天气旧亭台。"
    assert extract_poem("一曲新词酒òé杯，去年天气旧亭台。", "").poem == "一曲新词酒□杯，去年天气旧亭台。"
    assert extract_poem("一曲新词酒òéè杯，去年天气旧亭台。", "").valid is False


def test_a_heading_of_thirty_characters_is_dropped_thirty_one_is_not() -> None:
    # _HEADING: 《…》 of 1-30 characters at the start of a line; a longer one is no heading, so
    # the line it opens is no verse and only the 下片 is left
    assert extract_poem("《" + "春" * 29 + "·》" + _POEM, "浣溪沙").poem == _POEM
    assert extract_poem("《" + "春" * 30 + "·》" + _POEM, "浣溪沙").poem == _L2


def test_a_tag_name_of_thirty_one_letters_is_dropped_thirty_two_is_not() -> None:
    # _OTHER_TAG: a letter then 0-30 word characters; a longer <...> is no tag and its line no verse
    assert extract_poem("<" + "a" * 31 + ">" + _POEM, "浣溪沙").poem == _POEM
    assert extract_poem("<" + "a" * 32 + ">" + _POEM, "浣溪沙").poem == _L2


def test_a_markdown_header_has_one_to_six_hashes() -> None:
    # _HEADER: "###### 春恨" is a header (a title, dropped); "####### 春恨" is no header in
    # markdown (CommonMark reads it as a paragraph), so 春恨 is read as a line of verse
    assert extract_poem("###### 春恨\n" + _POEM, "浣溪沙").poem == _POEM
    assert extract_poem("####### 春恨\n" + _POEM, "浣溪沙").poem == "春恨\n" + _POEM
