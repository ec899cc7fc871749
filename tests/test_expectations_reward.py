"""poetone.reward on a named poem whose scores are worked out by hand, not by the critic.

The poem is 晏殊《浣溪沙》("一曲新词酒一杯"), checked character by character against the 浣溪沙 form
in 龙榆生《唐宋词格律》(正体, 42 characters, 平韵):

    上阕  ⊙仄平平仄仄平(韵)  ⊙平⊙仄仄平平(韵)  ⊙平⊙仄仄平平(韵)
          一曲新词酒一杯      去年天气旧亭台      夕阳西下几时回
    下阕  ⊙仄⊙平平仄仄      ⊙平⊙仄仄平平(韵)  ⊙平⊙仄仄平平(韵)
          无可奈何花落去      似曾相识燕归来      小园香径独徘徊

(一、曲、夕、落、识、独 are 入声, so 仄.) Every fixed position keeps its tone and 杯台回来徊 all
rhyme (平水韵 上平十灰), so the poem, and its 下阕 scored as the 下阕, keep the form: reward 1.0.
An answer with no poem, with no 下阕 of its own, or copying the poet's own 下阕 scores 0.0 by the
reward's definition (module docstring).
"""

from __future__ import annotations

import pytest

from poetone.reward import _text, conformity_reward

UPPER = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？"
LOWER = "无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
POEM = UPPER + LOWER
REFUSAL = "对不起，我不会写词。"


# --- zero-shot rows: only the cipai column is required -------------------------------------------


def test_only_the_cipai_column_is_needed_and_the_defaults_are_zero_shot() -> None:
    # strategy, upper and original_lower missing: zero_shot, "" and "" for every completion
    assert conformity_reward(completions=[POEM, REFUSAL, POEM], cipai=["浣溪沙"] * 3) == [1.0, 0.0, 1.0]


def test_an_empty_batch_gives_no_rewards() -> None:
    assert conformity_reward(completions=[], cipai=[]) == []


def test_prompts_and_extra_trl_columns_are_ignored() -> None:
    got = conformity_reward(prompts=["写一首浣溪沙"], completions=[POEM], cipai=["浣溪沙"], trainer_state=object())
    assert got == [1.0]


def test_every_reward_is_a_python_float() -> None:
    got = conformity_reward(completions=[POEM, REFUSAL], cipai=["浣溪沙", "浣溪沙"])
    assert [type(x) for x in got] == [float, float]


# --- completion forms TRL passes --------------------------------------------------------------------


def test_a_conversation_is_read_from_its_last_message() -> None:
    chat = [{"role": "user", "content": "续写下阕"}, {"role": "assistant", "content": POEM}]
    refused = [{"role": "user", "content": POEM}, {"role": "assistant", "content": REFUSAL}]
    assert conformity_reward(completions=[chat, refused], cipai=["浣溪沙"] * 2) == [1.0, 0.0]


def test_a_single_message_dict_is_read_from_its_content() -> None:
    assert conformity_reward(completions=[{"role": "assistant", "content": POEM}], cipai=["浣溪沙"]) == [1.0]


@pytest.mark.parametrize(
    ("completion", "text"),
    [
        (POEM, POEM),
        ("", ""),
        ([{"role": "assistant", "content": POEM}], POEM),
        ([{"role": "assistant", "content": None}], ""),
        ([{"role": "assistant"}], ""),
        ([{"role": "assistant", "content": ""}], ""),
        ({"role": "assistant", "content": POEM}, POEM),
        ({"role": "assistant", "content": None}, ""),
        ({"role": "assistant"}, ""),
        ((({"content": "甲"}), {"content": "乙"}), "乙"),
    ],
)
def test_the_text_of_a_completion(completion: object, text: str) -> None:
    assert _text(completion) == text


def test_a_message_without_content_scores_0() -> None:
    got = conformity_reward(
        completions=[[{"role": "assistant", "content": None}], {"role": "assistant"}], cipai=["浣溪沙"] * 2
    )
    assert got == [0.0, 0.0]


@pytest.mark.parametrize(
    ("completion", "type_name"),
    [(42, "int"), ([], "list"), (["一曲新词酒一杯"], "list"), (None, "NoneType"), ((), "tuple")],
)
def test_anything_else_is_a_type_error_naming_its_type(completion: object, type_name: str) -> None:
    with pytest.raises(
        TypeError, match=rf"^a completion must be a string or a list of chat messages, got {type_name}$"
    ):
        conformity_reward(completions=[completion], cipai=["浣溪沙"])


def test_no_completions_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"^conformity_reward needs completions$"):
        conformity_reward(prompts=["x"], cipai=["浣溪沙"])


# --- completion rows: the given 上阕 and the poet's own 下阕 ----------------------------------------


def test_a_repeated_upper_is_stripped_and_the_lower_alone_is_scored() -> None:
    # 上阕 repeated, then a 下阕 that keeps the form (the 下阕 pattern above): 1.0
    row = {"cipai": ["浣溪沙"], "strategy": ["completion"], "upper": [UPPER]}
    assert conformity_reward(completions=[POEM], **row) == [1.0]
    assert conformity_reward(completions=[LOWER], **row) == [1.0]


def test_an_answer_that_only_repeats_the_upper_scores_0() -> None:
    # nothing is left once the given 上阕 is stripped: no 下阕, no poem
    row = {"cipai": ["浣溪沙"], "strategy": ["completion"], "upper": [UPPER], "original_lower": [""]}
    assert conformity_reward(completions=[UPPER], **row) == [0.0]


def test_the_upper_written_again_as_the_lower_scores_0() -> None:
    # every character of the given 上阕 reused: a copy (overlap 21/21 = 1.0)
    row = {"cipai": ["浣溪沙"], "strategy": ["completion"], "upper": [UPPER]}
    assert conformity_reward(completions=[UPPER + UPPER], **row) == [0.0]


def test_a_copy_of_the_poets_own_lower_scores_0() -> None:
    row = {"cipai": ["浣溪沙"] * 2, "strategy": ["completion"] * 2, "upper": [UPPER] * 2, "original_lower": [LOWER] * 2}
    assert conformity_reward(completions=[POEM, LOWER], **row) == [0.0, 0.0]


def test_missing_upper_and_original_lower_entries_count_as_empty() -> None:
    given = {"cipai": ["浣溪沙"] * 2, "strategy": ["completion"] * 2}
    none = conformity_reward(completions=[POEM, LOWER], upper=[None, None], original_lower=[None, None], **given)
    empty = conformity_reward(completions=[POEM, LOWER], upper=["", ""], original_lower=["", ""], **given)
    assert none == empty
    assert none[1] == 1.0  # the 下阕 alone, nothing to strip and nothing to copy
