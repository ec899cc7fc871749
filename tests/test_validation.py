"""The critic's validation figures (docs/validation.md) as regression tests on ../shared.

Speed is a benchmark (benchmarks/validate_critic.py), never a test; these are quality floors.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from poetone import Critic
from poetone.validation import (
    auc,
    authentic_report,
    corpus_poems,
    coverage_report,
    is_damaged,
    is_fragment,
    load_cases,
    load_corpus,
    other_tune,
    reference_report,
)


@pytest.fixture(scope="module")
def critic() -> Critic:
    return Critic()


@pytest.mark.shared
def test_authentic_song_poems_conform(shared: Path, critic: Critic) -> None:
    poems = corpus_poems(critic, load_corpus(shared / "data/quan-song-ci/quan_song_ci.dev.json"))
    assert len(poems) > 4000
    report = authentic_report(critic, poems)
    assert report["mean"] >= 0.97
    assert report["share_at_threshold"] >= 0.90
    # per cipai over the complete poems: a fragment (下缺) keeps no credit for its lost lines
    complete = authentic_report(critic, [p for p in poems if not is_fragment(critic, p[0], p[1])])
    for name, figures in complete["per_cipai"].items():
        assert figures["mean"] >= 0.93, name


@pytest.mark.shared
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
    assert report["wrong_cipai_auc_complete"] >= 0.998


def test_auc_helper() -> None:
    assert auc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auc([0.1], [0.9]) == 0.0
    assert auc([0.5], [0.5]) == 0.5


# Poems quoted from the 全宋词 (public domain), to test how coverage sets poems apart.
SU_DINGFENGBO = "莫听穿林打叶声。何妨吟啸且徐行。竹杖芒鞋轻胜马。谁怕。一蓑烟雨任平生。料峭春风吹酒醒。微冷。山头斜照却相迎。回首向来萧瑟处。归去。也无风雨也无晴。"
FAN_YUJIAAO = "罗绮满城春欲暮。百花洲上寻芳去。浦映□花花映浦。无尽处。恍然身入桃源路。莫怪山翁聊逸豫。功名得丧归时数。莺解新声蝶解舞。天赋与。争教我辈无欢绪。"
LIU_MAN = "伫立长堤，淡荡晚风起。骤雨歇、极目萧疏，塞柳万株，掩映箭波千里。"


def test_lost_text_notes_are_damage_but_a_lacuna_is_not() -> None:
    assert is_damaged("万里汉都护。\n（下缺）") and is_damaged("最恨对面姮娥，舞霓裳掌上，（缺词文）")
    assert not is_damaged(FAN_YUJIAAO)  # □ is one lost character, scored as one
    assert not is_damaged("人有悲欢离合，月有阴晴圆缺，此事古难全。")


def test_other_tunes_printed_under_a_title(critic: Critic) -> None:
    assert other_tune(critic, "定风波", FAN_YUJIAAO, "范仲淹") == "渔家傲"  # fits another cipai exactly
    assert other_tune(critic, "定风波", LIU_MAN, "柳永") == "定风波慢"  # a homonym the cipai file names
    assert other_tune(critic, "定风波", LIU_MAN, "苏轼") is None  # the homonym is named by poet too
    assert other_tune(critic, "定风波", SU_DINGFENGBO, "苏轼") is None


def test_coverage_report_sets_apart_and_counts(critic: Critic) -> None:
    poems = [
        ("定风波", SU_DINGFENGBO, {"author": "苏轼"}),
        ("定风波", SU_DINGFENGBO.replace("谁怕。", "谁怕我。"), {"author": "无名氏"}),  # one 衬字: not covered
        ("定风波", FAN_YUJIAAO, {"author": "范仲淹"}),
        ("定风波", "子瞻书困点新茶。", {"author": "苏轼"}),
        ("定风波", SU_DINGFENGBO[:40] + "（下缺）", {"author": "无名氏"}),
    ]
    report = coverage_report(critic, poems)["定风波"]
    assert report["n"] == 5 and report["coverage"] == pytest.approx(1 / 5)
    assert report["n_complete"] == 2 and report["coverage_complete"] == pytest.approx(1 / 2)
    assert [len(report["apart"][k]) for k in ("fragment", "damaged", "other_tune")] == [1, 1, 1]
    assert report["apart"]["other_tune"][0].endswith("(渔家傲)")
    assert report["uncovered"] == ["无名氏 莫听穿林打叶声。何妨吟啸"]
    assert "正体" not in report["unused_variants"]


@pytest.mark.shared
def test_degeneracy_flags_few_authentic_poems_and_the_docs_list_them(shared: Path, critic: Critic) -> None:
    from poetone.validation import degenerate_report

    poems = corpus_poems(critic, load_corpus(shared / "data/quan-song-ci/quan_song_ci.dev.json"))
    report = degenerate_report(critic, poems)
    assert report["flagged_share"] <= 0.002
    docs = (Path(__file__).resolve().parents[1] / "docs" / "validation.md").read_text(encoding="utf-8")
    listed = [line.strip()[2:].split(":")[0] for line in docs.splitlines() if line.strip().startswith("- ") and "lost or garbled" in line]
    assert sorted(listed) == sorted(f["label"] for f in report["flagged"])


@pytest.mark.shared
def test_truncated_poems_keep_no_credit_for_what_is_missing(shared: Path, critic: Critic) -> None:
    from poetone.validation import gaming_report, truncations

    poems = corpus_poems(critic, load_corpus(shared / "data/quan-song-ci/quan_song_ci.dev.json"))
    report = gaming_report(critic, [], truncations(critic, poems))
    assert report["first_clause"]["share_at_most_0.3"] >= 0.99
    assert report["first_stanza"]["share_at_most_0.75"] >= 0.95
    assert report["first_clause"]["share_above_whole"] == 0.0
