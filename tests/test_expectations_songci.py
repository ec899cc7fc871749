"""The scoring of one answer against values worked out by hand, and its thresholds on both sides.

Scores are computed here from the formula (structure 0.4, tonal 0.3, rhyme 0.3; tonal = share of
the 44 characters of 菩萨蛮 whose tone fits), not read back from the critic; the copy threshold
(``COPY_THRESHOLD = 0.5``, compared with ``>=``) is tested at exactly 0.5 and one character below.
"""

from __future__ import annotations

import pytest
from homonym_poems import HECHONGTIAN_OUYANG

from poetone import Critic, prompts
from poetone.songci import (
    COPY_THRESHOLD,
    build_eval_set,
    copy_overlap,
    read_answer,
    render_rules,
    score_answer,
    split_stanzas,
    strip_given_upper,
)

CRITIC = Critic()
#: 辛弃疾's 菩萨蛮 (书江西造口壁), conforming in every character.
XIN = "郁孤台下清江水。中间多少行人泪。西北是长安。可怜无数山。\n青山遮不住。毕竟江流去。江晚正愁予。山深闻鹧鸪。"
#: 晏殊's 浣溪沙, conforming in every character.
YAN_UPPER = "一向年光有限身。等闲离别易消魂。酒筵歌席莫辞频。"
YAN_LOWER = "满目山河空念远，落花风雨更伤春。不如怜取眼前人。"


def zero_shot(cipai: str) -> dict:
    return {"strategy": "zero_shot", "cipai": cipai, "prompt_version": "pv", "prompt_hash": "ph"}


def test_a_conforming_poem_scores_one_and_reports_every_field() -> None:
    out = score_answer(zero_shot("菩萨蛮"), XIN, CRITIC, diagnostics=False)
    assert out == {
        "conformity": 1.0,
        "structure": 1.0,
        "tonal": 1.0,
        "rhyme": 1.0,
        "invalid": 0.0,
        "valid": True,
        "poem": XIN,
        "variant": "正体",
        "scored_cipai": "菩萨蛮",
        "reason": "",
        "profile": "default",
        "prompt_version": "pv",
        "prompt_hash": "ph",
    }


def test_a_title_two_tunes_bear_reports_the_tune_its_variant_is_of() -> None:
    # asked for a 鹤冲天, 欧阳修's poem follows 喜迁莺 (又名鹤冲天): the log says whose 正体 it matched
    out = score_answer(zero_shot("鹤冲天"), HECHONGTIAN_OUYANG, CRITIC, diagnostics=False)
    assert (out["scored_cipai"], out["structure"], out["valid"]) == ("喜迁莺", 1.0, True)
    assert out["variant"] in {v.id for v in CRITIC.registry["喜迁莺"].variants}


def test_pusaman_with_one_tone_fault_by_hand() -> None:
    # 清 (平) -> 碧 (入, 仄) at the 5th character of line 1, where 中平中仄平平仄 asks 平:
    # structure 1, tonal 43/44, rhyme 1 (水 still ends the line): 0.4·1 + 0.3·43/44 + 0.3·1
    out = score_answer(zero_shot("菩萨蛮"), XIN.replace("清", "碧", 1), CRITIC, diagnostics=False)
    assert out["tonal"] == pytest.approx(43 / 44, abs=1e-12)
    assert out["conformity"] == pytest.approx(0.4 * 1 + 0.3 * 43 / 44 + 0.3 * 1, abs=1e-12)
    assert (out["structure"], out["rhyme"]) == (1.0, 1.0)


def test_diagnostics_are_added_only_when_asked() -> None:
    plain = score_answer(zero_shot("菩萨蛮"), XIN, CRITIC, diagnostics=False)
    full = score_answer(zero_shot("菩萨蛮"), XIN, CRITIC)
    assert "rendering" not in plain and "details" not in plain
    assert full["rendering"] and full["details"]
    assert {k: full[k] for k in plain} == plain


def test_an_answer_without_a_poem_is_invalid_and_scores_zero() -> None:
    out = score_answer(zero_shot("菩萨蛮"), "好的。", CRITIC)
    assert {
        k: out[k] for k in ("conformity", "structure", "tonal", "rhyme", "invalid", "valid", "poem", "variant")
    } == {
        "conformity": 0.0,
        "structure": 0.0,
        "tonal": 0.0,
        "rhyme": 0.0,
        "invalid": 1.0,
        "valid": False,
        "poem": "",
        "variant": None,
    }
    assert out["reason"] and "rendering" not in out
    assert score_answer(zero_shot("菩萨蛮"), None, CRITIC)["invalid"] == 1.0  # type: ignore[arg-type]


def test_prompt_version_and_hash_default_when_the_record_lacks_them() -> None:
    out = score_answer({"strategy": "zero_shot", "cipai": "菩萨蛮"}, XIN, CRITIC)
    assert (out["prompt_version"], out["prompt_hash"]) == (prompts.PROMPT_VERSION, "")


def test_the_cipai_of_the_prompt_guides_extraction() -> None:
    # two verse blocks: a 浣溪沙 heading names the tune, the prompt's cipai picks the poem that fits it
    answer = f"《菩萨蛮》\n{XIN}"
    extraction, overlap = read_answer(zero_shot("菩萨蛮"), answer)
    assert extraction.valid and extraction.poem == XIN and overlap == 0.0


# --- completion --------------------------------------------------------------------------

ORIGINAL = "自在飞花轻似梦，无边丝雨细如愁。"  # 14 characters


def completion(original_lower: str = ORIGINAL) -> dict:
    return {"strategy": "completion", "cipai": "浣溪沙", "upper": YAN_UPPER, "original_lower": original_lower}


def test_copy_threshold_is_inclusive_at_one_half() -> None:
    assert COPY_THRESHOLD == 0.5
    # 自在飞花轻似梦 is 7 of the original's 14 characters: exactly 0.5, which counts as copying
    at = "自在飞花轻似梦，一尊浊酒戍楼东。酒阑挥泪向悲风。"
    assert copy_overlap(at, ORIGINAL) == 7 / 14
    out = score_answer(completion(), at, CRITIC, diagnostics=False)
    assert (out["copied"], out["copy_overlap"], out["conformity"], out["valid"]) == (1.0, 0.5, 0.0, True)
    # one character fewer (睡 for 梦): 6 of 14, not copying, scored
    below = at.replace("梦", "睡")
    out = score_answer(completion(), below, CRITIC, diagnostics=False)
    assert (out["copied"], out["copy_overlap"]) == (0.0, round(6 / 14, 4))
    assert out["conformity"] > 0.9


def test_copy_overlap_is_a_multiset_share_of_the_original() -> None:
    assert copy_overlap("花花花", "花草") == 1 / 2  # 花 counted once, as often as the original has it
    assert copy_overlap("花草", "花花草草") == 2 / 4
    assert copy_overlap("，。", "") == 0.0  # no original: nothing can be copied
    assert copy_overlap("", "花") == 0.0


def test_a_repeated_upper_is_stripped_before_scoring_and_copy_check() -> None:
    alone = score_answer(completion(YAN_LOWER), YAN_LOWER, CRITIC, diagnostics=False)
    repeated = score_answer(completion(YAN_LOWER), YAN_UPPER + "\n" + YAN_LOWER, CRITIC, diagnostics=False)
    assert alone["poem"] == repeated["poem"] == YAN_LOWER
    assert alone["copy_overlap"] == repeated["copy_overlap"] == 1.0 and repeated["copied"] == 1.0
    own = "万里中原烽火北，一尊浊酒戍楼东。酒阑挥泪向悲风。"
    scored = score_answer(completion(YAN_LOWER), YAN_UPPER + "\n" + own, CRITIC, diagnostics=False)
    assert scored["poem"] == own and scored["copied"] == 0.0
    assert scored["conformity"] == pytest.approx(1.0)  # the 下阕 alone is scored (stanza 1)


def test_an_answer_that_only_repeats_the_upper_is_invalid() -> None:
    extraction, overlap = read_answer(completion(), YAN_UPPER)
    assert (extraction.poem, extraction.valid, overlap) == ("", False, 0.0)
    assert extraction.reason == "the answer repeats the given 上阕 and writes no 下阕"
    out = score_answer(completion(), YAN_UPPER, CRITIC)
    assert out["invalid"] == 1.0 and out["copied"] == 0.0


def test_an_invalid_completion_reports_no_overlap() -> None:
    extraction, overlap = read_answer(completion(), "")
    assert not extraction.valid and overlap == 0.0


def test_strip_given_upper_exactly() -> None:
    assert strip_given_upper("春风，又绿。明月何时", "春风又绿") == "明月何时"
    assert strip_given_upper("春风又绿，\n 明月", "春风又绿") == "明月"
    assert strip_given_upper("春风又绿明月", "春风又绿") == "明月"
    assert strip_given_upper("明月何时", "春风又绿") == "明月何时"  # not a repeat
    assert strip_given_upper("明月何时", "") == "明月何时"


# --- stanzas, rules, analysis --------------------------------------------------------------


def test_split_stanzas_by_line_and_by_clause_count() -> None:
    assert split_stanzas(YAN_UPPER + "\n" + YAN_LOWER, CRITIC, "浣溪沙") == (YAN_UPPER, YAN_LOWER)
    assert split_stanzas(YAN_UPPER + YAN_LOWER, CRITIC, "浣溪沙") == (YAN_UPPER, YAN_LOWER)
    # three lines are not two stanzas: counted by clauses
    three = YAN_UPPER + "\n" + YAN_LOWER[:8] + "\n" + YAN_LOWER[8:]
    assert split_stanzas(three, CRITIC, "浣溪沙") == (YAN_UPPER, YAN_LOWER)
    assert split_stanzas(YAN_UPPER + YAN_LOWER, CRITIC, "浣溪沙", variant="正体") == (YAN_UPPER, YAN_LOWER)


def test_split_stanzas_names_the_cipai_and_clause_count_when_it_cannot() -> None:
    with pytest.raises(
        ValueError, match=r"cannot find the 上阕 of a 浣溪沙 poem with 3 clauses in its first stanza: 一向年光"
    ):
        split_stanzas("一向年光有限身。等闲离别", CRITIC, "浣溪沙")


def test_render_rules_of_huanxisha() -> None:
    assert render_rules(CRITIC.registry["浣溪沙"].variants[0]) == "\n".join(
        [
            "上阕共3句，21字：",
            "  第1句：7字，平仄 中仄平平中仄平，押韵（韵A，平声韵）",
            "  第2句：7字，平仄 中平中仄仄平平，押韵（韵A，平声韵）",
            "  第3句：7字，平仄 中平中仄仄平平，押韵（韵A，平声韵）",
            "下阕共3句，21字：",
            "  第1句：7字，平仄 中仄中平平仄仄，不押韵",
            "  第2句：7字，平仄 中平中仄仄平平，押韵（韵A，平声韵）",
            "  第3句：7字，平仄 中平中仄仄平平，押韵（韵A，平声韵）",
        ]
    )


def test_render_rules_names_rhyme_changes_pauses_and_repeats() -> None:
    lines = render_rules(CRITIC.registry["钗头凤"].variants[0]).split("\n")
    assert "  第4句：3字，平仄 中平仄，换韵（韵B，仄声韵）" in lines
    assert "  第8句：1字，平仄 仄，逗（句中停顿，不押韵）" in lines
    assert "  第9句：1字，平仄 仄，逗（句中停顿，不押韵），叠上句" in lines


@pytest.mark.parametrize(
    ("answer", "analysis"),
    [
        ("【分析】先定韵。\n【作品】\n" + XIN, "先定韵。"),
        ("【分析】 只有分析 ", "只有分析"),
        (XIN, ""),
    ],
)
def test_cot_analysis_is_kept_and_the_poem_still_scored(answer: str, analysis: str) -> None:
    out = score_answer({"strategy": "cot", "cipai": "菩萨蛮"}, answer, CRITIC, diagnostics=False)
    assert out["analysis"] == analysis
    if answer.endswith(XIN):
        assert out["conformity"] == 1.0


# --- the eval set --------------------------------------------------------------------------


def test_one_shot_example_is_the_next_theme_wrapping_round() -> None:
    shots = build_eval_set(["one_shot"], cipai="菩萨蛮", critic=CRITIC)
    themes = [p.theme for p in shots]
    refs = [p.reference_id for p in shots]
    assert refs == [f"pusaman-{t}" for t in themes[1:] + themes[:1]]
    assert [p.id for p in shots] == [f"one_shot-pusaman-{t}" for t in themes]


def test_completion_prompts_carry_the_split_and_others_do_not() -> None:
    (done,) = build_eval_set(["completion"], cipai="浣溪沙", theme="love_longing", critic=CRITIC)
    assert (done.upper, done.original_lower, done.reference_id) == (YAN_UPPER, YAN_LOWER, "huanxisha-love_longing")
    assert YAN_UPPER in done.user
    (plain,) = build_eval_set(["zero_shot"], cipai="浣溪沙", theme="love_longing", critic=CRITIC)
    assert (plain.upper, plain.original_lower, plain.reference_id) == ("", "", "huanxisha-love_longing")
    (rules,) = build_eval_set(["instruction"], cipai="浣溪沙", theme="love_longing", critic=CRITIC)
    assert render_rules(CRITIC.registry["浣溪沙"].variants[0]) in rules.user


def test_unknown_strategy_is_named() -> None:
    with pytest.raises(ValueError, match=r"unknown strategy 'haiku'"):
        build_eval_set(["haiku"], critic=CRITIC)
