"""The judge's rubric, prompt and reply parser against values written out by hand.

Every expected value here is a literal worked out from the rubric as the paper states it (three
dimensions rated as whole numbers 1 to 5) and from the reply formats the parser documents: the
ratings a reader takes from each reply, the reason it carries, and the error message it gets
(``{what is wrong}: {the first 80 characters of the reply, repr}``). None is read back from
``poetone.judge``. Issue 17's two findings are pinned here: a 5.5 rating and ``"4/10"`` are no
ratings.
"""

from __future__ import annotations

import hashlib

import pytest

from poetone import judge


def ratings(reply: str) -> tuple[float, float, float]:
    j = judge.parse_judgment(reply)
    assert j.valid, j.error
    return j.scores["fluency"], j.scores["coherence"], j.scores["yijing"]


# --- the rubric and the prompt, as written -------------------------------------------------------

#: The fluency block of the rubric, character for character (definition, then levels 1 to 5).
FLUENCY_BLOCK = [
    "【流畅】语言是否通顺自然、合乎古汉语诗词的表达习惯",
    "  1分：语句不通，字词堆砌或生造，读来难以成句。",
    "  2分：多处拗口或搭配不当，需要费力才能读懂。",
    "  3分：大体通顺，个别词句生硬或凑字凑韵。",
    "  4分：通顺自然，用语妥帖，偶有小疵。",
    "  5分：语言精炼自然，字字妥帖，如出宋人之手。",
]


def test_the_rubric_is_three_blocks_of_a_definition_and_five_numbered_levels() -> None:
    lines = judge.rubric().split("\n")
    assert len(lines) == 18  # 3 dimensions x (1 definition + 5 levels), one per line
    assert lines[:6] == FLUENCY_BLOCK
    assert lines[6] == "【连贯】全词是否围绕主题、层次分明、前后连贯"
    assert lines[7] == "  1分：句与句之间毫无关联，看不出主题。"
    assert lines[12] == "【意境】意象是否鲜明、情景是否交融、是否有言外之意"
    assert lines[17] == "  5分：意境深远，情景交融，含蓄蕴藉，耐人回味。"
    assert [line[:5] for line in lines[13:18]] == ["  1分：", "  2分：", "  3分：", "  4分：", "  5分："]


def test_the_prompt_names_the_cipai_and_theme_holds_the_rubric_and_the_stripped_poem() -> None:
    prompt = judge.judge_prompt("浣溪沙", "哲理", "\n  一曲新词酒一杯  \n")
    assert prompt.startswith("你是一位研究宋词的学者，请评价下面这首《浣溪沙》（主题：哲理）。")
    assert "评分标准（每项1至5分，只能给整数）：\n【流畅】语言是否通顺自然" in prompt
    assert "\n".join(FLUENCY_BLOCK) in prompt
    assert "  5分：意境深远，情景交融，含蓄蕴藉，耐人回味。\n\n【待评作品】\n一曲新词酒一杯\n\n" in prompt
    # the doubled braces of the template are single braces in the prompt
    assert prompt.endswith('格式如下：\n{"流畅": 整数, "连贯": 整数, "意境": 整数, "理由": "一两句话"}')


def test_the_rubric_hash_is_sha256_of_version_instructions_rubric_and_retry_message() -> None:
    # short_sha256's definition (poetone/_hash.py): the first 12 hex digits of the SHA-256 of the
    # parts in order, as UTF-8. Computed here with hashlib from the four parts.
    parts = judge.RUBRIC_VERSION + judge._INSTRUCTIONS + judge.rubric() + judge.RETRY_MESSAGE
    assert judge.rubric_hash() == hashlib.sha256(parts.encode("utf-8")).hexdigest()[:12]


@pytest.mark.parametrize("name", ["RUBRIC_VERSION", "_INSTRUCTIONS", "RETRY_MESSAGE"])
def test_the_rubric_hash_changes_with_each_part(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before = judge.rubric_hash()
    monkeypatch.setattr(judge, name, getattr(judge, name) + "。")
    assert judge.rubric_hash() != before


def test_the_rubric_hash_changes_with_the_rubric(monkeypatch: pytest.MonkeyPatch) -> None:
    before = judge.rubric_hash()
    levels = dict(judge._LEVELS)
    levels["yijing"] = (*levels["yijing"][:4], "意境深远。")
    monkeypatch.setattr(judge, "_LEVELS", levels)
    assert judge.rubric_hash() != before


# --- issue 17's findings --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (
            '{"流畅": 5.5, "连贯": 4, "意境": 4}',
            """流畅 is 5.5, not an integer from 1 to 5: '{"流畅": 5.5, "连贯": 4, "意境": 4}'""",
        ),
        (
            '{"流畅": "5.5", "连贯": 4, "意境": 4}',
            """流畅 is '5.5', not an integer from 1 to 5: '{"流畅": "5.5", "连贯": 4, "意境": 4}'""",
        ),
        (
            '{"流畅": "4/10", "连贯": 4, "意境": 4}',
            """流畅 is '4/10', not an integer from 1 to 5: '{"流畅": "4/10", "连贯": 4, "意境": 4}'""",
        ),
        (
            '{"流畅": 4, "连贯": "4/10", "意境": 4}',
            """连贯 is '4/10', not an integer from 1 to 5: '{"流畅": 4, "连贯": "4/10", "意境": 4}'""",
        ),
        (
            "流畅：5.5分，连贯：4分，意境：4分",
            "no single integer 1–5 for 流畅 in the reply (流畅:5.5分,连): '流畅：5.5分，连贯：4分，意境：4分'",
        ),
        (
            "流畅：4/10，连贯：4，意境：4",
            "no single integer 1–5 for 流畅 in the reply (流畅:4/10): '流畅：4/10，连贯：4，意境：4'",
        ),
    ],
)
def test_five_and_a_half_and_four_out_of_ten_are_no_ratings(reply: str, error: str) -> None:
    j = judge.parse_judgment(reply)
    assert not j.valid and j.scores == {} and j.reason == ""
    assert j.error == error


# --- values the parser reads ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"流畅": "四分", "连贯": "三", "意境": "五分"}', (4, 3, 5)),  # Chinese numerals as JSON strings
        ('{"流畅": "两分", "连贯": "一", "意境": "二"}', (2, 1, 2)),
        ('{"流畅": "4/5", "连贯": "3 / 5 分", "意境": " 2分 "}', (4, 3, 2)),
        ('{"流畅": 4.0, "连贯": "5.0", "意境": "１"}', (4, 5, 1)),
        ('{" Fluency ": 2, "COHERENCE": 1, "Poetic Quality": 5}', (2, 1, 5)),  # keys stripped, any case
        ('{"scores": {"通顺": 3, "連貫": 4, "诗意": 2}}', (3, 4, 2)),  # aliases, nested
    ],
)
def test_json_values_the_parser_reads(reply: str, expected: tuple[int, int, int]) -> None:
    assert ratings(reply) == expected


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ('{"流畅": "−3", "连贯": 3, "意境": 3}', "流畅 is '−3', not an integer from 1 to 5"),  # U+2212 minus
        ('{"流畅": "六", "连贯": 3, "意境": 3}', "流畅 is '六', not an integer from 1 to 5"),
        ('{"流畅": "十分", "连贯": 3, "意境": 3}', "流畅 is '十分', not an integer from 1 to 5"),
        ('{"流畅": null, "连贯": 3, "意境": 3}', "流畅 is None, not an integer from 1 to 5"),
        ('{"流畅": [4], "连贯": 3, "意境": 3}', "流畅 is [4], not an integer from 1 to 5"),
        ('{"流畅": 3, "连贯": "好", "意境": 3}', "连贯 is '好', not an integer from 1 to 5"),
        ('{"流畅": 4, "意境": 5}', "no 连贯 in the JSON rating"),
        ('{"连贯": 4, "意境": 5}', "no 流畅 in the JSON rating"),
    ],
)
def test_json_values_the_parser_refuses_with_what_is_wrong(reply: str, error: str) -> None:
    j = judge.parse_judgment(reply)
    assert not j.valid and j.scores == {}
    assert j.error == f"{error}: '{reply}'"


# --- the reason -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ('{"流畅": 4, "连贯": 5, "意境": 3, "理由": "好"}', "好"),
        ('{"流畅": 4, "连贯": 5, "意境": 3, "reason": "fine"}', "fine"),
        ('{"流畅": 4, "连贯": 5, "意境": 3, "explanation": "clear"}', "clear"),
        ('{"流畅": 4, "连贯": 5, "意境": 3, "评语": "尚可"}', "尚可"),
        ('{"流畅": 4, "连贯": 5, "意境": 3}', ""),
        ('{"流畅": 4, "连贯": 5, "意境": 3, "理由": 3, "reason": "fine"}', "fine"),  # not a string: next key
        ('{"流畅": 4, "连贯": 5, "意境": 3, "reason": "second", "理由": "first"}', "first"),  # 理由 first
        ('{"Fluency": 4, "Coherence": 5, "Poetic Quality": 3, "reason": "ok"}', "ok"),
        ('评分如下{见下}：{"流畅": 4, "连贯": 5, "意境": 3, "理由": "好"}', "好"),  # a brace that is no JSON
        ('{"流畅": 4, "连贯": 5, "意境": 3, "理由": "甲"} 即 {"流畅": 4, "连贯": 5, "意境": 3, "理由": "乙"}', "甲"),
        ("流畅：4分，连贯：5分，意境：3分。理由：好", ""),  # a text reply has no reason field
    ],
)
def test_the_reason_comes_from_the_first_rated_json_object(reply: str, reason: str) -> None:
    j = judge.parse_judgment(reply)
    assert j.valid, j.error
    assert (j.scores["fluency"], j.scores["coherence"], j.scores["yijing"]) == (4, 5, 3)
    assert j.reason == reason


# --- the error messages of text replies -----------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ("", "no 1–5 rating for 流畅 in the reply: ''"),
        (None, "no 1–5 rating for 流畅 in the reply: ''"),
        ("这首词很好。", "no 1–5 rating for 流畅 in the reply: '这首词很好。'"),
        ("流畅：4分，意境：3分", "no 1–5 rating for 连贯 in the reply: '流畅：4分，意境：3分'"),
        ("流畅：4分，连贯：3分", "no 1–5 rating for 意境 in the reply: '流畅：4分，连贯：3分'"),
        (
            "流畅：4分，连贯：3分，意境：4分。复评：流畅：2分",
            "no single integer 1–5 for 流畅 in the reply (流畅:4分,连, 流畅:2分): '流畅：4分，连贯：3分，意境：4分。复评：流畅：2分'",
        ),
        (
            "流畅：4分，连贯：10分，意境：4分",
            "no single integer 1–5 for 连贯 in the reply (连贯:10分,意): '流畅：4分，连贯：10分，意境：4分'",
        ),
        (
            "流畅：3分\n【流畅】1分：不通；2分：拗口；3分：尚可；4分：通顺",
            "the reply quotes the rubric and gives no JSON rating: '流畅：3分\\n【流畅】1分：不通；2分：拗口；3分：尚可；4分：通顺'",
        ),
        (
            '{"流畅": 4, "连贯": 3, "意境": 3} 改为 {"流畅": 5, "连贯": 3, "意境": 3}',
            """2 JSON ratings that disagree: '{"流畅": 4, "连贯": 3, "意境": 3} 改为 {"流畅": 5, "连贯": 3, "意境": 3}'""",
        ),
    ],
)
def test_error_messages_say_what_is_wrong_and_quote_the_reply(reply: str | None, error: str) -> None:
    j = judge.parse_judgment(reply)  # type: ignore[arg-type]  # None: a grader that returned nothing
    assert not j.valid and j.scores == {} and j.reason == ""
    assert j.error == error


def test_average_of_three_graders_by_hand() -> None:
    # fluency (4 + 2 + 3) / 3 = 3, coherence (5 + 4 + 3) / 3 = 4, yijing (3 + 3 + 4) / 3 = 10/3
    js = [
        judge.Judgment(scores={"fluency": 4.0, "coherence": 5.0, "yijing": 3.0}),
        judge.Judgment(scores={"fluency": 2.0, "coherence": 4.0, "yijing": 3.0}),
        judge.Judgment(scores={"fluency": 3.0, "coherence": 3.0, "yijing": 4.0}),
        judge.Judgment(error="unparseable"),
    ]
    assert judge.average(js) == {"fluency": 3.0, "coherence": 4.0, "yijing": pytest.approx(10 / 3)}
    assert judge.average([]) == {"fluency": None, "coherence": None, "yijing": None}
