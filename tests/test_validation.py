"""The critic's validation figures (docs/validation.md) as regression tests on ../shared.

Speed is a benchmark (benchmarks/validate_critic.py), never a test; these are quality floors.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from poetone import Critic
from poetone.validation import auc, authentic_report, corpus_poems, load_cases, load_corpus, reference_report

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def critic() -> Critic:
    return Critic()


def test_authentic_song_poems_conform(shared: Path, critic: Critic) -> None:
    poems = corpus_poems(critic, load_corpus(shared / "data/quan-song-ci/quan_song_ci.dev.json"))
    assert len(poems) > 4000
    report = authentic_report(critic, poems)
    assert report["mean"] >= 0.97
    assert report["share_at_threshold"] >= 0.90
    for name, figures in report["per_cipai"].items():
        assert figures["mean"] >= 0.93, name


def test_perturbations_lower_the_score_and_noise_does_not(shared: Path, critic: Critic) -> None:
    report = reference_report(critic, load_cases(shared / "reference/poetone-official/reference_scores.dev.jsonl"))
    assert report["n_poems"] == 1500 and report["skipped_unknown_cipai"] == 0
    lowered = report["lowered"]
    assert lowered["tone_flip"] >= 0.85
    assert lowered["rhyme_break"] >= 0.88
    assert lowered["char_drop"] >= 0.97
    assert lowered["line_drop"] >= 0.98
    assert report["mean_abs_drift"]["noisy"] <= 0.005
    assert report["mean_abs_drift"]["traditional"] <= 0.005
    # 0.995 holds without the corpus's one-line fragments; with them the measured floor is 0.99
    assert report["wrong_cipai_auc_complete"] >= 0.995
    assert report["wrong_cipai_auc"] >= 0.99


def test_auc_helper() -> None:
    assert auc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auc([0.1], [0.9]) == 0.0
    assert auc([0.5], [0.5]) == 0.5
