"""The judge's parser at each threshold and tie-break, on both sides.

The thresholds, as the module documents them: a rating is one of the integers 1 to 5 (0, 6, 0.5
and 5.5 are not); "/5" may follow it, "/50" or "/10" may not; a dimension's name is at most 8
separators before its number; four distinct level labels ("1分：" … "4分：") mean the reply lays out
the scale, three do not; a Chinese numeral followed by a word character without 分 is a word (三思),
not a rating; two readings of one dimension must agree; an error quotes the first 80 characters of
the reply. Each case below sits on one side of one of these, with its expected value written out.
"""

from __future__ import annotations

import pytest

from poetone import judge


def read(reply: str) -> tuple[float, float, float] | None:
    """The three ratings, or None for an invalid judgment (which then has no scores)."""
    j = judge.parse_judgment(reply)
    if not j.valid:
        assert j.scores == {} and j.error
        return None
    return j.scores["fluency"], j.scores["coherence"], j.scores["yijing"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1", 1),
        ("5", 5),
        ("0", None),
        ("6", None),
        ("1.0", 1),
        ("5.0", 5),
        ("0.5", None),
        ("5.5", None),
        ("4.9", None),
        ('"1"', 1),
        ('"5"', 5),
        ('"0"', None),
        ('"6"', None),
        ('"5.5"', None),
        ('"+5"', 5),  # the sign is kept: +5 is 5
        ('"-1"', None),
        ("-1", None),
        ("true", None),
        ("false", None),
    ],
)
def test_json_rating_at_the_ends_of_the_scale(value: str, expected: int | None) -> None:
    reply = f'{{"流畅": {value}, "连贯": 3, "意境": 3}}'
    assert read(reply) == (None if expected is None else (expected, 3, 3))


@pytest.mark.parametrize(
    ("rating", "expected"),
    [
        ("1分", 1),
        ("5分", 5),
        ("0分", None),
        ("6分", None),
        ("5.0", 5),
        ("5.5", None),
        ("5.5分", None),
        ("0.5", None),
        ("一", 1),
        ("五分", 5),
        ("六分", None),  # no numeral past 五 is a rating
    ],
)
def test_text_rating_at_the_ends_of_the_scale(rating: str, expected: int | None) -> None:
    reply = f"流畅：{rating}，连贯：3分，意境：3分"
    assert read(reply) == (None if expected is None else (expected, 3, 3))


@pytest.mark.parametrize(
    ("rating", "expected"),
    [
        ('"4/5"', 4),
        ('"4 / 5"', 4),
        ('"4/5分"', 4),
        ('"4/50"', None),
        ('"4/5.0"', None),
        ('"4/10"', None),
        ('"4/6"', None),
    ],
)
def test_out_of_five_and_nothing_else_in_json(rating: str, expected: int | None) -> None:
    assert read(f'{{"流畅": {rating}, "连贯": 3, "意境": 3}}') == (None if expected is None else (expected, 3, 3))


@pytest.mark.parametrize(
    ("rating", "expected"),
    [
        ("4/5", 4),
        ("4 / 5分", 4),
        ("4/50", None),
        ("4/5.0", None),
        ("4/10", None),
        ("4/4", None),
        ("3-4分", None),
        ("3至4分", None),
        ("3 或 4", None),
        ("三到四分", None),
    ],
)
def test_out_of_five_and_nothing_else_in_text(rating: str, expected: int | None) -> None:
    assert read(f"流畅：{rating}，连贯：3分，意境：3分") == (None if expected is None else (expected, 3, 3))


def test_a_name_reaches_its_number_across_eight_separators_not_nine() -> None:
    assert read("流畅" + " " * 8 + "4\n连贯：3\n意境：3") == (4, 3, 3)
    j = judge.parse_judgment("流畅" + " " * 9 + "4\n连贯：3\n意境：3")
    assert not j.valid and j.error.startswith("no 1–5 rating for 流畅 in the reply: ")


def test_a_clause_break_ends_a_mention() -> None:
    assert read("流畅：4分，连贯：3分，上下阕连贯 2 处，意境：4分") is None  # "连贯 2": a second, different reading
    assert read("流畅：4分，连贯：3分，上下阕连贯，2处跳跃，意境：4分") == (4, 3, 4)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("流畅：三，连贯：3分，意境：3分", (3, 3, 3)),  # punctuation after the numeral
        ("连贯：3分，意境：3分，流畅：三", (3, 3, 3)),  # the numeral ends the reply
        ("流畅：三分好，连贯：3分，意境：3分", (3, 3, 3)),  # 分 makes it a rating even before a word
        ("流畅：三思，连贯：3分，意境：3分", None),  # a word
        ("流畅：一般，连贯：3分，意境：3分", None),
        ("流畅：3好，连贯：3分，意境：3分", (3, 3, 3)),  # an Arabic digit is a number whatever follows
    ],
)
def test_a_chinese_numeral_followed_by_a_word_character_is_a_word(reply: str, expected: tuple | None) -> None:
    assert read(reply) == expected


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        # three distinct labels: ratings with their level's name
        ("流畅：1分：不通。连贯：2分：尚可。意境：3分：平淡", (1, 2, 3)),
        ("流畅：1分：不通。连贯：1分：散乱。意境：1分：空泛。总评：1分：差", (1, 1, 1)),  # four labels, one distinct
        # four distinct labels: the reply lays out a scale, its numbers are no ratings
        ("【流畅】1分：不通；2分：拗口；3分：尚可；4分：通顺\n【连贯】1分：散乱\n【意境】1分：空泛", None),
        ("流畅：1分：不通。连贯：2分：尚可。意境：3分：平淡。另：4分：通顺", None),
    ],
)
def test_four_distinct_level_labels_are_the_scale_three_are_ratings(labels: str, expected: tuple | None) -> None:
    j = judge.parse_judgment(labels)
    if expected is None:
        assert not j.valid and j.error.startswith("the reply quotes the rubric and gives no JSON rating: ")
    else:
        assert j.valid, j.error
        assert (j.scores["fluency"], j.scores["coherence"], j.scores["yijing"]) == expected


def test_one_level_definition_quoted_is_the_rubric_but_a_json_rating_still_wins() -> None:
    quoted = "流畅：4分，通顺自然，用语妥帖，偶有小疵。连贯：4分，意境：4分"
    assert judge.parse_judgment(quoted).error.startswith("the reply quotes the rubric")
    assert read('通顺自然，用语妥帖，偶有小疵。{"流畅": 4, "连贯": 4, "意境": 4}') == (4, 4, 4)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"流畅": 4, "连贯": 3, "意境": 3} {"流畅": 4, "连贯": 3, "意境": 3}', (4, 3, 3)),
        ('{"流畅": 4, "连贯": 3, "意境": 3} {"流畅": 4.0, "连贯": "3分", "意境": "三"}', (4, 3, 3)),
        ('{"流畅": 4, "连贯": 3, "意境": 3} {"流畅": 4, "连贯": 3, "意境": 2}', None),
        ('{"流畅": 4, "连贯": 3, "意境": 3} {"流畅": 4, "连贯": 3}', None),  # the second is incomplete
        ("流畅：4分，连贯：3分，意境：3分。总之流畅：4分", (4, 3, 3)),
        ("流畅：4分，连贯：3分，意境：3分。总之流畅：5分", None),
    ],
)
def test_two_readings_of_a_dimension_must_agree(reply: str, expected: tuple | None) -> None:
    assert read(reply) == expected


def test_a_json_object_naming_a_dimension_is_the_answer_even_when_the_text_reads_otherwise() -> None:
    # the object's 6 is not read again from the text, where "流畅：4分" would be valid
    assert read('流畅：4分，连贯：3分，意境：3分 {"流畅": 6, "连贯": 3, "意境": 3}') is None
    # an object naming no dimension does not count: the text is read
    assert read('流畅：4分，连贯：3分，意境：3分 {"理由": "好"}') == (4, 3, 3)


def test_an_error_quotes_the_whole_reply_of_80_characters_and_80_of_81() -> None:
    j80 = judge.parse_judgment("好" * 80)
    assert j80.error == "no 1–5 rating for 流畅 in the reply: '" + "好" * 80 + "'"
    j81 = judge.parse_judgment("好" * 80 + "坏")
    assert j81.error == "no 1–5 rating for 流畅 in the reply: '" + "好" * 80 + "'"


LONG = "这首词" * 30  # 90 characters


@pytest.mark.parametrize(
    "reply",
    [
        '{"流畅": 6, "连贯": 3, "意境": 3, "理由": "' + LONG + '"}',  # a JSON value out of range
        '{"流畅": 4, "连贯": 3, "意境": 3} {"流畅": 5, "连贯": 3, "意境": 3}' + LONG,  # two that disagree
        "【流畅】1分：不通；2分：拗口；3分：尚可；4分：通顺" + LONG,  # the scale laid out
        "流畅：4分" + LONG,  # a dimension missing
        "流畅：4分，连贯：3分，意境：3分，流畅：2分" + LONG,  # a dimension read twice, differently
    ],
)
def test_every_error_quotes_the_first_80_characters(reply: str) -> None:
    j = judge.parse_judgment(reply)
    assert len(reply) > 81 and not j.valid
    assert j.error.endswith(": " + repr(reply[:80]))
