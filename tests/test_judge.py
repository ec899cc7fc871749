"""The judge's rubric and reply parser (framework-free part)."""

from __future__ import annotations

import pytest

from poetone import judge


def test_rubric_defines_every_level_of_every_dimension() -> None:
    text = judge.rubric()
    for _, name in judge.DIMENSIONS:
        assert f"【{name}】" in text
    assert text.count("分：") == 5 * len(judge.DIMENSIONS)
    prompt = judge.judge_prompt("浣溪沙", "哲理", "一曲新词酒一杯")
    assert "《浣溪沙》" in prompt and "一曲新词酒一杯" in prompt and '"意境"' in prompt
    assert len(judge.rubric_hash()) == 12


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"流畅": 4, "连贯": 5, "意境": 3, "理由": "好"}', (4, 5, 3)),
        ('评价如下：\n```json\n{"流畅": "4分", "连贯": "５", "意境": 3.0}\n```', (4, 5, 3)),
        ('{"fluency": 2, "coherence": 1, "poetic_quality": 5}', (2, 1, 5)),
        ("｛＂流畅＂：４，＂连贯＂：４，＂意境＂：２｝", (4, 4, 2)),
        ("流畅：3分\n连贯：四分\n意境: 5", (3, 4, 5)),
        ('先说理由{"理由": "无"}，最后 {"流暢": 1, "連貫": 2, "意境": 2}', (1, 2, 2)),
    ],
)
def test_parser_reads_json_and_tolerates_the_usual_deviations(reply: str, expected: tuple[int, int, int]) -> None:
    j = judge.parse_judgment(reply)
    assert j.valid, j.error
    assert (j.scores["fluency"], j.scores["coherence"], j.scores["yijing"]) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "这首词很好。",
        '{"流畅": 4, "连贯": 5}',  # a dimension missing
        '{"流畅": 6, "连贯": 5, "意境": 3}',  # out of range
        '{"流畅": 0, "连贯": 5, "意境": 3}',
        '{"流畅": true, "连贯": 5, "意境": 3}',
        "流畅：很好，连贯：好，意境：一般",
    ],
)
def test_parser_never_guesses(reply: str) -> None:
    j = judge.parse_judgment(reply)
    assert not j.valid and not j.scores
    assert j.error


#: The rubric as a grader may echo it back, each dimension's levels on its line.
ECHOED_RUBRIC = "\n".join(
    f"【{name}】" + "；".join(f"{level}分：{text}" for level, text in enumerate(judge._LEVELS[key], start=1))
    for key, name in judge.DIMENSIONS
)


@pytest.mark.parametrize(
    "reply",
    [
        '{"流畅": 10, "连贯": 3, "意境": 3}',  # once read as 1 from the text of the object
        "流畅：10分，连贯：3分，意境：4分",
        '{"流畅": -3, "连贯": 3, "意境": 3}',
        "流畅：-3，连贯：3，意境：3",
        "流畅：3-4分，连贯：3分，意境：4分",
        "流畅：3～4分，连贯：3分，意境：4分",
        "流畅：3或4，连贯：3，意境：4",
        '{"流畅": 4.5, "连贯": 3, "意境": 3}',
        "流畅：4.5，连贯：3，意境：3",
        '{"流畅": "4/10", "连贯": 3, "意境": 3}',
        "流畅：4/10，连贯：3，意境：3",
        "流畅：一般，连贯：一般，意境：一般",  # 一般 is not 一
        ECHOED_RUBRIC,  # once read as 1 for every dimension
        "【流畅】1分：不通；2分：拗口；3分：尚可；4分：通顺；5分：精炼\n【连贯】1分：散乱\n【意境】1分：空泛",
        '{"流畅": 4, "连贯": 3, "意境": 3} 修改后：{"流畅": 5, "连贯": 3, "意境": 3}',  # two that disagree
        "流畅：4分，连贯：3分，意境：4分。复评：流畅：2分",
    ],
)
def test_parser_takes_only_the_integers_1_to_5(reply: str) -> None:
    j = judge.parse_judgment(reply)
    assert not j.valid and not j.scores, j.scores
    assert j.error


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("流畅：4/5，连贯：3分（满分5分），意境：5", (4, 3, 5)),
        ("流畅：4分：通顺自然。连贯：3分：尚可。意境：5分：深远", (4, 3, 5)),
        ("流畅：四分 连贯：三 意境：5分", (4, 3, 5)),
        ('{"流畅": 4, "连贯": 3, "意境": 3} 即 {"流畅": 4, "连贯": 3, "意境": 3}', (4, 3, 3)),
        ('{"scores": {"流畅": 2, "连贯": 3, "意境": 1}}', (2, 3, 1)),
        ("流畅：4分，连贯：3分，上下阕连贯，2处跳跃，意境：4分", (4, 3, 4)),  # a count in the reason is no rating
    ],
)
def test_parser_still_reads_whole_ratings_in_their_usual_forms(reply: str, expected: tuple[int, int, int]) -> None:
    j = judge.parse_judgment(reply)
    assert j.valid, j.error
    assert (j.scores["fluency"], j.scores["coherence"], j.scores["yijing"]) == expected


def test_average_leaves_invalid_judgments_out() -> None:
    good = judge.Judgment(scores={"fluency": 4.0, "coherence": 2.0, "yijing": 3.0})
    other = judge.Judgment(scores={"fluency": 2.0, "coherence": 4.0, "yijing": 5.0})
    bad = judge.Judgment(error="unparseable")
    assert judge.average([good, bad, other]) == {"fluency": 3.0, "coherence": 3.0, "yijing": 4.0}
    assert judge.average([bad]) == {"fluency": None, "coherence": None, "yijing": None}
