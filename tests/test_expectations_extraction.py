"""extract_poem on hand-made answers, every expected poem and reason written out (issue 17).

The poems are 晏殊《浣溪沙》「一曲新词酒一杯」 (two stanzas of three lines, as printed in 全宋词)
and lines of 王安石 (春风又绿江南岸，明月何时照我还) and 李煜《虞美人》 (问君能有几多愁？恰似一江春水向东流);
each answer wraps them the way a model does, and the expected extraction is the poem as printed,
typed out here, not computed by the module. The reasons are the module's documented messages.
"""

from __future__ import annotations

import json

import pytest

from poetone.extraction import Extraction, _texts_of, extract_poem

# 晏殊《浣溪沙》, 上片 and 下片 on two lines
L1 = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？"
L2 = "无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
POEM = L1 + "\n" + L2
WANG = "春风又绿江南岸，明月何时照我还。"  # 王安石《泊船瓜洲》, 14 characters


def poem_of(text: str, cipai: str = "浣溪沙") -> str:
    return extract_poem(text, cipai).poem


# --- the reasons ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", " \n\t", None])
def test_an_empty_answer_says_so(text: object) -> None:
    assert extract_poem(text, "浣溪沙") == Extraction("", False, "empty output")  # type: ignore[arg-type]


def test_only_invisible_characters_has_its_own_reason() -> None:
    want = Extraction("", False, "no poem found (only invisible characters, emoji or controls)")
    assert extract_poem("\u200b\ufeff", "浣溪沙") == want
    assert extract_poem("🌸\n\u2060", "") == want


@pytest.mark.parametrize(
    "text", ["Here is a poem.", "好的，这是我写的浣溪沙：春风又绿江南岸", "以下是白话译文：听一曲新词，饮一杯美酒。"]
)
def test_no_verse_line_at_all_is_no_poem_found(text: str) -> None:
    # English alone; a preamble whose tail has no clause mark (so it is not split off: the whole
    # line is prose); a translation after a colon (译文 is no introduction of a poem)
    assert extract_poem(text, "浣溪沙") == Extraction("", False, "no poem found")


def test_one_clause_of_four_characters_is_a_poem_on_the_line_by_line_path_too() -> None:
    # after a label line (so not the bare path): 春风又绿 is one clause of 4 characters
    assert extract_poem("题目：春恨\n春风又绿。", "浣溪沙") == Extraction("春风又绿。", True, "", clean=False)


def test_too_short_gives_the_count_of_verse_characters() -> None:
    # 春风 = 2 characters on the bare path, 春风又 = 3 on the line-by-line path (after a label line)
    assert extract_poem("春风", "浣溪沙") == Extraction("", False, "too short to be a poem (2 characters)")
    got = extract_poem("题目：春恨\n春风又。", "浣溪沙")
    assert got == Extraction("", False, "too short to be a poem (3 characters)")


# --- clean: the bare path, after a heading or a quoted title -----------------------------------------


def test_a_heading_on_its_own_line_leaves_a_clean_bare_poem() -> None:
    assert extract_poem("《浣溪沙》\n" + POEM, "浣溪沙") == Extraction(POEM, True, "", clean=True)


def test_a_title_quoted_in_a_bare_line_keeps_its_words_and_the_poem_is_clean() -> None:
    # 《伊凉》 is a tune quoted inside the verse (吹《伊凉》一曲): the marks go, the words stay
    got = extract_poem("独倚危楼，吹《伊凉》一曲，月明中。", "")
    assert got == Extraction("独倚危楼，吹伊凉一曲，月明中。", True, "", clean=True)


def test_angle_brackets_in_a_wrapped_line_are_dropped_like_book_title_marks() -> None:
    got = extract_poem("<think>草稿</think>\n独倚危楼，吹〈伊凉〉一曲，月明中。", "")
    assert got == Extraction("独倚危楼，吹伊凉一曲，月明中。", True, "", clean=False)


# --- headings naming the cipai -------------------------------------------------------------------------


@pytest.mark.parametrize("cipai", ["", "浣溪沙", "虞美人"])
def test_a_heading_with_a_katakana_middle_dot_is_dropped_whatever_the_cipai(cipai: str) -> None:
    # ・ (U+30FB) for · (U+00B7), as Japanese input methods type it: 《tune・title》 is a heading,
    # as _strip_headings and the cipai-title check in _wrapped_poem mean it to be
    assert extract_poem("《浣溪沙・春恨》" + POEM, cipai).poem == POEM
    assert extract_poem("浣溪沙・春恨\n" + POEM, cipai).poem == POEM


@pytest.mark.parametrize("heading", ["《 浣溪沙 》", "《浣溪沙 春恨》", "《浣溪沙：春恨》", "《浣溪沙.春恨》"])
def test_a_heading_naming_the_cipai_then_a_separator_is_dropped(heading: str) -> None:
    assert extract_poem(heading + POEM, "浣溪沙") == Extraction(POEM, True, "", clean=True)


def test_a_heading_naming_another_tune_is_a_quoted_title_and_stays() -> None:
    # 浣溪沙慢 is a tune of its own (not 浣溪沙 plus a title): like 《水调》数声, its words stay
    assert poem_of("《浣溪沙慢》" + POEM) == "浣溪沙慢" + POEM


def test_an_angle_bracket_heading_alone_is_stripped() -> None:
    # the only heading mark is 〈〉: the line-by-line reading still drops the heading
    assert poem_of("<think>先想平仄</think>\n〈浣溪沙〉" + POEM) == POEM


def test_a_title_line_of_the_cipai_and_a_title_in_verse_characters_is_dropped() -> None:
    # 浣溪沙 春恨 is plain verse to the bare path's eye; its first line starting with the cipai
    # sends it to the line-by-line reading, which drops the title line
    assert poem_of("浣溪沙 春恨\n" + POEM) == POEM


def test_the_cipai_then_verse_on_one_line_keeps_the_verse() -> None:
    # 浣溪沙 一曲新词酒一杯，…: the cipai goes, the 上片 stays
    assert extract_poem("浣溪沙 " + POEM, "浣溪沙") == Extraction(POEM, True, "", clean=False)


def test_after_an_invisible_character_the_cipai_line_is_still_dropped() -> None:
    # a zero-width space makes the normalised text differ from the answer; the cipai still counts
    assert poem_of("\u200b浣溪沙\n" + POEM) == POEM
    assert poem_of("\ufeff《浣溪沙》" + POEM) == POEM


def test_a_note_before_the_poem_does_not_end_the_reading() -> None:
    # 说明：… opens a notes section; the poem after it is still read
    assert poem_of("说明：步晏殊原韵。\n\n" + POEM) == POEM


@pytest.mark.parametrize("cipai", ["", "浣溪沙"])
def test_a_list_bulleted_with_a_middle_dot(cipai: str) -> None:
    assert extract_poem("· " + L1 + "\n· " + L2, cipai).poem == POEM


# --- reasoning blocks ------------------------------------------------------------------------------


def test_a_closed_think_block_inside_a_line_breaks_it_there() -> None:
    assert poem_of(L1 + "<think>想想</think>" + L2) == POEM


def test_a_closing_tag_on_the_poems_first_line() -> None:
    assert poem_of("分析平仄。</think>" + POEM) == POEM


def test_an_uppercase_closing_tag_without_an_opening_one() -> None:
    # a draft line of verse before the tag: the tag line holds no Han, so without the cut the
    # draft would join the poem's block
    assert poem_of(WANG + "\n</THINK>\n" + POEM) == POEM
    assert poem_of(WANG + "\n</Thinking>\n" + POEM) == POEM


def test_an_unclosed_think_on_the_poems_last_line() -> None:
    assert poem_of(POEM + "<think>再想想平仄") == POEM


# --- a chat preamble on the poem's own line ------------------------------------------------------------


@pytest.mark.parametrize("head", ["：", "好的：", "请看：", "Here it is: ", "新填浣溪沙："])
def test_the_preamble_before_the_colon_is_dropped(head: str) -> None:
    # nothing before the colon; a prose word (好的); an introducing word (请看); Latin; the cipai named
    assert poem_of(head + POEM) == POEM


def test_a_head_naming_the_cipai_is_kept_when_no_cipai_is_given() -> None:
    # without a cipai, 新填浣溪沙 is five verse characters like any other clause
    assert poem_of("新填浣溪沙：" + POEM, "") == "新填浣溪沙：" + POEM


def test_a_colon_inside_a_verse_line_keeps_the_head() -> None:
    # 李煜《虞美人》 punctuated with a colon after 问君: no preamble, the line is the poem
    line = "问君：能有几多愁？恰似一江春水向东流。"
    assert extract_poem(line, "虞美人") == Extraction(line, True, "", clean=False)


# --- JSON ---------------------------------------------------------------------------------------------


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def test_json_inside_a_json_string_is_read_two_levels_deep_not_three() -> None:
    two = _json({"poem": _json({"poem": POEM})})
    assert extract_poem(two, "浣溪沙") == Extraction(POEM, True, "", clean=True)
    three = _json({"poem": _json({"poem": _json({"poem": POEM})})})
    assert extract_poem(three, "浣溪沙") == Extraction("", False, "no poem found")


def test_a_bracket_that_is_no_json_does_not_stop_the_search() -> None:
    # [注] fails to decode; the object after it is still read
    assert extract_poem("[注] " + _json({"poem": POEM}), "浣溪沙") == Extraction(POEM, True, "", clean=True)


@pytest.mark.parametrize(
    "inner",
    ["浣溪沙\n" + POEM, "《浣溪沙》" + POEM, "浣溪沙：" + L1 + L2, "新填浣溪沙：" + POEM],
    ids=["cipai-line", "heading", "cipai-colon", "preamble-naming-the-cipai"],
)
def test_a_json_poem_is_read_with_the_cipai(inner: str) -> None:
    # the cipai given to extract_poem is the one the JSON string's own reading uses
    assert poem_of(_json({"poem": inner})).replace("\n", "") == L1 + L2


def test_json_is_looked_for_at_the_first_four_brackets_only() -> None:
    # [1] [2] [3] hold no text; the object is at the fourth bracket, then at the fifth
    assert poem_of("[1] [2] [3] " + _json({"poem": POEM})) == POEM
    got = extract_poem("[1] [2] [3] [4] " + _json({"poem": POEM}), "浣溪沙")
    assert got == Extraction("", False, "no poem found")


def test_other_strings_go_longest_first_not_in_code_point_order() -> None:
    # 甲 (U+7532) sorts after 一 (U+4E00), so code-point order would put the one-character 甲 first
    assert _texts_of({"a": "甲", "b": "一二三"}) == ["一二三", "甲"]
    assert _texts_of({"note": "甲", "poem": "乙", "x": "一二三"}) == ["乙", "一二三", "甲"]


def test_only_the_first_four_texts_of_a_json_answer_are_tried() -> None:
    refusals = {"poem": "抱歉", "ci": "好的", "text": "您好", "content": "对不起"}
    assert extract_poem(_json({**refusals, "body": POEM}), "浣溪沙").valid is False
    assert poem_of(_json({**dict(list(refusals.items())[:3]), "body": POEM})) == POEM


# --- blocks: which one is the poem -----------------------------------------------------------------


def test_a_preamble_line_after_a_draft_starts_a_new_block() -> None:
    assert poem_of(WANG + "\n下面是我创作的浣溪沙：\n" + POEM) == POEM


def test_a_prose_line_after_a_draft_starts_a_new_block() -> None:
    assert poem_of(WANG + "\n下面是修改后的版本。\n" + POEM) == POEM


def test_blocks_of_equal_size_the_later_wins() -> None:
    # 14 verse characters each (春风又绿江南岸 明月何时照我还 / 一曲新词酒一杯 去年天气旧亭台)
    first, last = WANG, "一曲新词酒一杯，去年天气旧亭台。"
    assert poem_of(f"{first}\n好的，再写一版。\n{last}") == last
    # one character more in the earlier block (春风又绿江南两岸): the earlier wins
    longer = "春风又绿江南两岸，明月何时照我还。"
    assert poem_of(f"{longer}\n好的，再写一版。\n{last}") == longer
