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
