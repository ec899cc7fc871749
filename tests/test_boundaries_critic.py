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
LINES = [["中仄平平中仄平 韵A", "中平中仄仄平平 韵A", "中平中仄仄平平 韵A"], ["中仄中平平仄仄 句", "中平中仄仄平平 韵A", "中平中仄仄平平 韵A"]]
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
