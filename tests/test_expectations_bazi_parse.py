"""poetone.bazi.parse against the answer rule written out by hand (issue 17).

The rule (BaZi2500, arXiv 2610.05682, and the module's doc): the answer is one letter A–D; an
empty, letterless or two-letter reply is invalid and counts as wrong. Every expected value below is
the rule applied by hand to the literal reply, not a value read back from the parser: the normalised
text is written out character by character, and the reply's letters are counted by eye.
"""

from __future__ import annotations

import pytest

from poetone.bazi.parse import LETTERS, normalise, parse_answer, score_reply

# ---------------------------------------------------------------------------- normalise


def test_normalise_of_an_empty_reply_is_empty() -> None:
    # nothing in, nothing out: "" stays "" (not a placeholder that a later step must recognise)
    assert normalise("") == ""


def test_normalise_of_an_unclosed_think_block_is_empty() -> None:
    # "an unclosed <think> leaves no answer": the normalised reply is the empty string itself
    assert normalise("答案是 B<think>再想想") == ""
    assert normalise("<thinking>B") == ""


def test_normalise_puts_one_space_where_a_closed_block_was() -> None:
    # "甲<think>…</think>乙": the block becomes one blank, so the text on either side stays apart
    assert normalise("甲<think>想一想</think>乙") == "甲 乙"
    # NFKC: full-width Ｂ and ：  are ASCII B and :, and the Markdown ** is dropped
    assert normalise("**答案：Ｂ**") == "答案:B"


def test_a_letter_right_before_a_reasoning_block_is_still_standalone() -> None:
    # "B" then a closed block: the block becomes a blank, so B has no Latin letter beside it
    assert parse_answer("B<think>甲子纳音是海中金</think>") == "B"
    assert parse_answer("<think>甲子纳音是海中金</think>C") == "C"
    assert score_reply("A<think>想</think>", "A") == {"parsed": "A", "invalid": False, "correct": True}


# ---------------------------------------------------------------------------- boundaries


def test_one_distinct_letter_however_often_it_stands_is_one_answer() -> None:
    # the count is of distinct letters: one letter written twice is one answer, two letters are none
    assert parse_answer("B。所以选 B") == "B"
    assert parse_answer("B。所以选 C") is None


@pytest.mark.parametrize(("reply", "letter"), [("A", "A"), ("D", "D")])
def test_the_ends_of_the_letter_range_are_answers(reply: str, letter: str) -> None:
    # A and D are the first and last of the four options
    assert parse_answer(reply) == letter


@pytest.mark.parametrize("reply", ["E", "Z", "e"])
def test_letters_past_the_range_are_not_answers(reply: str) -> None:
    assert parse_answer(reply) is None


@pytest.mark.parametrize(("reply", "letter"), [("a", "A"), ("(d)", "D"), ("[c]", "C"), ("b.", "B"), ("c。", "C")])
def test_a_bare_lower_case_letter_is_an_answer(reply: str, letter: str) -> None:
    assert parse_answer(reply) == letter


@pytest.mark.parametrize("reply", ["ab", "a b", "选b", "b or c", "b).", "((b))"])
def test_a_lower_case_letter_inside_text_is_not_an_answer(reply: str) -> None:
    # only a reply that is nothing but one lower-case letter (with one bracket pair or one stop) counts
    assert parse_answer(reply) is None


def test_a_capital_beside_a_digit_or_a_latin_letter_is_not_standalone() -> None:
    assert parse_answer("B2") is None
    assert parse_answer("2B") is None
    assert parse_answer("Bx") is None
    assert parse_answer("选B2或C") == "C"  # B2 is not a letter answer, C is


def test_score_reply_wrong_and_invalid_are_both_not_correct() -> None:
    assert score_reply("D", "A") == {"parsed": "D", "invalid": False, "correct": False}
    assert score_reply("", "A") == {"parsed": None, "invalid": True, "correct": False}
    assert score_reply(None, "A") == {"parsed": None, "invalid": True, "correct": False}


def test_the_letters_are_the_four_options() -> None:
    assert LETTERS == "ABCD"
