"""The critic's tie-break between variants, on both sides: equal fits keep the first variant,
a strictly better fit wins wherever it stands.

The forms are written here, not taken from the resource, so that the expectation does not come
from the code under test: two variants of one invented tune with the same lines, and one whose
second line asks for the other tone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from poetone import Critic

POEM = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
LINES = [
    ["中仄平平中仄平 韵A", "中平中仄仄平平 韵A", "中平中仄仄平平 韵A"],
    ["中仄中平平仄仄 句", "中平中仄仄平平 韵A", "中平中仄仄平平 韵A"],
]
# the second line with every fixed tone turned over: 晏殊's poem breaks it
OTHER = [["中仄平平中仄平 韵A", "中仄中平平仄仄 韵A", "中平中仄仄平平 韵A"], LINES[1]]


def _critic(tmp_path: Path, variants: list[tuple[str, list[list[str]]]]) -> Critic:
    path = tmp_path / "试调.json"
    body = {"name": "试调", "variants": [{"id": vid, "stanzas": st} for vid, st in variants]}
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    return Critic(metadata=path)


@pytest.mark.parametrize("order", [("甲", "乙"), ("乙", "甲")])
def test_equal_fits_keep_the_first_variant(tmp_path: Path, order: tuple[str, str]) -> None:
    critic = _critic(tmp_path, [(order[0], LINES), (order[1], LINES)])
    r = critic.score("试调", POEM)
    assert r.valid and r.conformity == pytest.approx(1.0) and r.variant == order[0]


@pytest.mark.parametrize("order", [("甲", "乙"), ("乙", "甲")])
def test_a_strictly_better_fit_wins_wherever_it_stands(tmp_path: Path, order: tuple[str, str]) -> None:
    """The form the poem follows wins from either place; the one it breaks scores lower."""
    forms = {"甲": LINES, "乙": OTHER}
    critic = _critic(tmp_path, [(vid, forms[vid]) for vid in order])
    assert critic.score("试调", POEM).variant == "甲"
    broken = critic.score("试调", POEM, variant="乙")
    assert broken.tonal < 1.0 and broken.conformity < critic.score("试调", POEM).conformity


# --- the weights' tolerance and sign; the rhyme-group tie-break ------------------------------

POEM_ZAI = POEM.replace("台", "在")  # 在 is 仄 only: tonal 41/42, rhyme 4/5, structure 1 (see test_expectations_critic)


@pytest.mark.parametrize("weights", [(0.5, 0.25, 0.25 + 5e-10), (0.5, 0.25, 0.25 - 5e-10)])
def test_weights_within_1e_9_of_one_are_accepted(weights: tuple[float, float, float]) -> None:
    # 0.5·1 + 0.25·41/42 + 0.25·4/5
    r = Critic(weights=weights).score("浣溪沙", POEM_ZAI)
    assert r.conformity == pytest.approx(0.7 + 41 / 168, abs=1e-8)


@pytest.mark.parametrize("weights", [(0.5, 0.25, 0.25 + 2e-9), (0.5, 0.25, 0.25 - 2e-9), (1.2, -0.1, -0.1)])
def test_weights_beyond_1e_9_of_one_or_negative_are_refused(weights: tuple[float, float, float]) -> None:
    with pytest.raises(ValueError, match=r"^weights must be three non-negative numbers summing to 1, got \("):
        Critic(weights=weights)


def test_a_zero_weight_is_allowed_and_drops_its_component() -> None:
    # (1, 0, 0): the conformity is the structure alone, 1.0, whatever the tone and rhyme faults
    r = Critic(weights=(1.0, 0.0, 0.0)).score("浣溪沙", POEM_ZAI)
    assert (r.conformity, r.tonal, r.rhyme) == (1.0, pytest.approx(41 / 42), pytest.approx(0.8))


def test_the_largest_rhyme_group_breaks_ties_by_the_lowest_bit() -> None:
    from poetone.critic import largest_group

    assert largest_group([0b011, 0b110]) == (0b010, 2)  # bit 1 is in both
    assert largest_group([0b100, 0b010]) == (0b010, 1)  # one each: the lower bit
    assert largest_group([0b010, 0b100]) == (0b010, 1)  # whatever the order
    assert largest_group([]) == (0, 0)


# --- the tone-pattern cache of _need: its encoding on a miss, and its size bound --------------


def test_a_tone_pattern_not_seen_before_is_encoded_two_bits_a_position(monkeypatch: pytest.MonkeyPatch) -> None:
    import poetone.critic

    monkeypatch.setattr(poetone.critic, "_NEED", {})
    # bit 2j: position j must be 平; bit 2j+1: must be 仄. 平仄中仄: bits 0, 3 and 7 = 1 + 8 + 128
    assert poetone.critic._need("平仄中仄") == 137
    assert poetone.critic._need("仄") == 2 and poetone.critic._need("中中") == 0
    assert poetone.critic._NEED == {"平仄中仄": 137, "仄": 2, "中中": 0}


def test_a_tune_of_a_fresh_tone_pattern_scores_by_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A line of seven 仄 (no 词谱 line has it), with 晏殊's 无可奈何花落去: 无 and 花 are 平 only,
    可 奈 落 去 仄, 何 either (胡歌切 平, 胡可切 上): 5 of 7. The second line 似曾相识燕归来 fits the
    正体's 中平中仄仄平平. Tonal 12/14; structure 1; rhyme 1/1: 0.4 + 0.3·6/7 + 0.3."""
    import poetone.critic

    monkeypatch.setattr(poetone.critic, "_NEED", {})
    critic = _critic(tmp_path, [("甲", [["仄仄仄仄仄仄仄 句", "中平中仄仄平平 韵A"]])])
    r = critic.score("试调", "无可奈何花落去，似曾相识燕归来。")
    assert (r.structure, r.tonal, r.rhyme) == (1.0, pytest.approx(6 / 7), 1.0)
    assert r.conformity == pytest.approx(0.7 + 1.8 / 7)


@pytest.mark.parametrize(("held", "kept"), [(65_535, True), (65_536, False)])
def test_the_tone_pattern_cache_stops_growing_at_65536(monkeypatch: pytest.MonkeyPatch, held: int, kept: bool) -> None:
    import poetone.critic

    monkeypatch.setattr(poetone.critic, "_NEED", {str(i): 0 for i in range(held)})
    assert poetone.critic._need("平仄") == 1 + 8
    assert ("平仄" in poetone.critic._NEED) is kept


# --- the tie-break when the first-listed variant is read after a better-structured one -------

# 乙: the 正体's six lines with 去年天气旧亭台 asked for the other tone at all seven places
# (去 仄, 年 天 平, 气 旧 仄, 亭 台 平 -> 平仄仄平平仄仄): structure 1, tonal 35/42 = 5/6.
YI = [[LINES[0][0], "平仄仄平平仄仄 句", LINES[0][2]], LINES[1]]
# 甲: the 正体 with an eight-character fourth line, so the poem's 无可奈何花落去 is the wrong length:
# structure 5/6, tonal 35/35 = 1 (the lines compared have no fault; every form line is read).
JIA = [LINES[0], ["中仄中平平仄仄中 句", *LINES[1][1:]]]
# 甲 with one fault more: 杯 (平) asked to be 仄. Tonal 34/35.
JIA_WORSE = [["中仄平平中仄仄 句", *LINES[0][1:]], JIA[1]]


def test_an_equal_fit_read_later_still_goes_to_the_first_listed_variant(tmp_path: Path) -> None:
    """With weights (0.5, 0.5, 0): 甲 0.5·5/6 + 0.5·1 = 11/12, 乙 0.5·1 + 0.5·5/6 = 11/12. 乙 has
    the better structure and is read first; the tie still goes to 甲, listed first."""
    path = tmp_path / "试调.json"
    body = {"name": "试调", "variants": [{"id": "甲", "stanzas": JIA}, {"id": "乙", "stanzas": YI}]}
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    r = Critic(metadata=path, weights=(0.5, 0.5, 0.0)).score("试调", POEM)
    assert (r.variant, r.structure, r.tonal) == ("甲", pytest.approx(5 / 6), 1.0)
    assert r.conformity == pytest.approx(11 / 12)


def test_a_slightly_worse_first_listed_variant_loses_to_the_better_structured_one(tmp_path: Path) -> None:
    # 甲 now 0.5·5/6 + 0.5·34/35 < 11/12: 乙 (11/12) wins
    path = tmp_path / "试调.json"
    body = {"name": "试调", "variants": [{"id": "甲", "stanzas": JIA_WORSE}, {"id": "乙", "stanzas": YI}]}
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    r = Critic(metadata=path, weights=(0.5, 0.5, 0.0)).score("试调", POEM)
    assert (r.variant, r.structure, r.tonal) == ("乙", 1.0, pytest.approx(5 / 6))
    assert r.conformity == pytest.approx(11 / 12)


def test_text_that_is_not_a_string_is_named() -> None:
    with pytest.raises(TypeError, match=r"^text must be a string, got NoneType$"):
        Critic().score("浣溪沙", None)  # type: ignore[arg-type]
