"""The human reference answers and the degraded copies used to calibrate the judge."""

from __future__ import annotations

import random

import pytest

from poetone import Critic
from poetone.corpus import load_records
from poetone.degrade import degrade, replace_chars, shuffle_lines
from poetone.reference import answer_for_message, reference_answer
from poetone.songci import build_eval_set, score_answer

CRITIC = Critic()
RECORDS = load_records()


def test_every_prompt_has_an_authentic_answer_that_is_neither_the_example_nor_a_copy() -> None:
    texts = {r["text"] for r in RECORDS}
    by_id = {r["id"]: r for r in RECORDS}
    for p in build_eval_set(critic=CRITIC):
        answer = reference_answer(p)
        assert answer_for_message(p.user) == answer
        if p.strategy == "completion":
            result = score_answer(p, answer, CRITIC)
            assert result["copied"] == 0.0 and result["valid"], p.id
            assert answer not in by_id[p.id.split("-", 1)[1]]["text"]
        else:
            assert answer in texts
        if p.strategy == "one_shot":
            assert answer != by_id[p.reference_id]["text"]


def test_a_reworded_prompt_naming_cipai_and_theme_still_gets_the_slot_poem() -> None:
    answer = answer_for_message("请写一首《酹江月》，主题「怀古」。")
    assert answer.startswith("大江东去")


@pytest.mark.parametrize("message", ["写一首唐诗", "请写一首《不存在》，主题「怀古」。", "《浣溪沙》「没有的主题」"])
def test_a_message_that_is_not_a_songci_prompt_is_refused(message: str) -> None:
    with pytest.raises(ValueError, match="answers only the Songci prompts"):
        answer_for_message(message)


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_replacing_characters_keeps_the_form_and_changes_the_words(record: dict) -> None:
    original = record["text"]
    damaged = replace_chars(original, random.Random(7))
    assert len(damaged) == len(original) and damaged != original
    changed = sum(a != b for a, b in zip(original, damaged))
    assert changed >= 0.25 * sum(ch.isalpha() for ch in original)
    before, after = CRITIC.score(record["cipai"], original), CRITIC.score(record["cipai"], damaged)
    assert (after.structure, after.tonal, after.rhyme) == pytest.approx((before.structure, before.tonal, before.rhyme))


def test_shuffling_moves_clauses_and_keeps_punctuation() -> None:
    text = RECORDS[0]["text"]
    shuffled = shuffle_lines(text, random.Random(1))
    assert shuffled != text
    assert sorted(shuffled) == sorted(text)
    assert [c for c in shuffled if not c.isalpha()] == [c for c in text if not c.isalpha()]


def test_degrade_is_seeded_and_names_bad_kinds() -> None:
    text = RECORDS[5]["text"]
    assert degrade(text, "replace_chars", 3) == degrade(text, "replace_chars", 3)
    assert degrade(text, "replace_chars", 3) != degrade(text, "replace_chars", 4)
    with pytest.raises(ValueError, match="unknown degradation 'reverse'"):
        degrade(text, "reverse", 0)
