"""The ``poetone-code`` profile: a literal re-implementation of the official PoeTone scorer.

The reference test needs ../shared (the official metadata and 11,988 reference scores); the others
run on a small hand-written metadata file in the official format.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from poetone import Critic
from poetone.compat import PoetoneVariant, score_poetone_code, score_variant, split_lines

TOLERANCE = 0.01 + 1e-9  # reference scores are percent with 2 decimals


def _close(ours: float, ref: float) -> bool:
    return abs(ours * 100 - ref) <= TOLERANCE


@pytest.mark.shared
def test_reproduces_every_reference_score(shared: Path) -> None:
    folder = shared / "reference" / "poetone-official"
    cases = [
        json.loads(line)
        for line in (folder / "reference_scores.dev.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert len(cases) >= 10_000
    critic = Critic(profile="poetone-code", metadata=folder / "cipai_metadata.json", metadata_format="poetone")
    mismatches: list[str] = []
    kinds: Counter[str] = Counter()
    for case in cases:
        r = critic.score(case["cipai"], case["text"])
        ours = {"total": r.conformity, "structure": r.structure, "tonal": r.tonal, "rhyme": r.rhyme}
        kinds[case["kind"]] += 1
        bad = {k: (round(ours[k] * 100, 4), ref) for k, ref in case["ref"].items() if not _close(ours[k], ref)}
        if bad:
            mismatches.append(f"{case['id']} ({case['kind']}, {case['cipai']}): ours vs ref {bad}")
    assert not mismatches, f"{len(mismatches)} of {len(cases)} differ, e.g.\n" + "\n".join(mismatches[:20])
    assert set(kinds) >= {
        "authentic",
        "tone_flip",
        "rhyme_break",
        "char_drop",
        "line_drop",
        "wrong_cipai",
        "traditional",
        "noisy",
    }


@pytest.mark.shared
def test_official_metadata_loads_every_variant(shared: Path) -> None:
    path = shared / "reference" / "poetone-official" / "cipai_metadata.json"
    entries = json.loads(path.read_text(encoding="utf-8"))
    critic = Critic(profile="poetone-code", metadata=path, metadata_format="poetone")
    assert len(critic.registry) == 20
    assert sum(len(c.variants) for c in critic.registry.values()) == len(entries)


# --- a tiny hand-written official-format metadata -----------------------------------------------

# Two 浣溪沙 forms and one made-up form, in the official layout (patterns carry 句/韵 marks).
OFFICIAL: list[dict[str, Any]] = [
    {
        "Cipai": "浣溪沙",
        "variant": "default",
        "number_of_stanzas": 2,
        "stanza1": {
            "chars_per_line": [7, 7, 7],
            "rhyme_positions": [1, 2, 3],
            "lines": ["中仄中平中仄平韵", "中平中仄仄平平韵", "中平中仄仄平平韵"],
        },
        "stanza2": {
            "chars_per_line": [7, 7, 7],
            "rhyme_positions": [2, 3],
            "lines": ["中平中仄平平仄句", "中仄平平中仄平韵", "中平中仄仄平平韵"],
        },
        "total": {"chars_per_line": [7, 7, 7, 7, 7, 7], "rhyme_positions": [1, 2, 3, 5, 6]},
        "rhyme_type": "平韵",
    },
    {
        "Cipai": "浣溪沙",
        "variant": 1,
        "number_of_stanzas": 2,
        "stanza1": {"chars_per_line": [7, 7, 7], "rhyme_positions": [1, 2, 3], "lines": ["平平平平平平平韵"] * 3},
        "stanza2": {
            "chars_per_line": [7, 7, 7],
            "rhyme_positions": [2, 3],
            "lines": ["平平平平平平平句"] + ["平平平平平平平韵"] * 2,
        },
        "total": {"chars_per_line": [7, 7, 7, 7, 7, 7], "rhyme_positions": [1, 2, 3, 5, 6]},
        "rhyme_type": "平韵",
    },
    {
        "Cipai": "小令",
        "variant": "default",
        "number_of_stanzas": 1,
        "stanza1": {"chars_per_line": [4, 4], "rhyme_positions": [2], "lines": ["平平仄仄句", "仄仄平平韵"]},
        "total": {"chars_per_line": [4, 4], "rhyme_positions": [2]},
        "rhyme_type": "平韵",
    },
]

POEM = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？\n无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"


@pytest.fixture(scope="module")
def official_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("official") / "cipai_metadata.json"
    path.write_text(json.dumps(OFFICIAL, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def code_critic(official_file: Path) -> Critic:
    return Critic(profile="poetone-code", metadata=official_file, metadata_format="poetone")


def test_split_lines_like_the_official_code() -> None:
    # splits at newline and 。！？；，,. but not at 、 nor ：
    assert split_lines("怒发冲冠，凭栏处、潇潇雨歇。\n抬望眼：仰天长啸！") == [
        "怒发冲冠",
        "凭栏处、潇潇雨歇",
        "抬望眼：仰天长啸",
    ]
    assert split_lines("  \n，。") == []


def test_poetone_code_on_hand_written_metadata(code_critic: Critic) -> None:
    r = code_critic.score("浣溪沙", POEM)
    assert r.valid
    assert r.profile == "poetone-code"
    assert r.variant == "default"
    assert r.structure == 1.0
    # pinyin finals of 杯 台 回 来 徊: ei ai uei ai uai, so the largest group (ai) holds 2 of 5
    assert r.rhyme == pytest.approx(0.4)
    assert 0.5 < r.tonal < 1.0
    # the components are rounded to 0.01 percent, like the official script
    for x in (r.conformity, r.structure, r.tonal, r.rhyme):
        assert round(x * 10_000) == pytest.approx(x * 10_000, abs=1e-6)


def test_poetone_code_matches_score_variant(code_critic: Critic) -> None:
    variants = [PoetoneVariant.from_entry(e, i) for i, e in enumerate(OFFICIAL[:2])]
    assert variants[0].patterns[0] == "中仄中平中仄平"  # 韵 stripped
    assert variants[0].rhyme_positions == (1, 2, 3, 5, 6)
    s, t, r = score_variant(split_lines(POEM), variants[0])
    idx, total, s2, t2, r2 = score_poetone_code(POEM, variants)
    assert idx == 0
    assert (s2, t2, r2) == (round(s * 100, 2) / 100, round(t * 100, 2) / 100, round(r * 100, 2) / 100)
    assert total == round((0.4 * s + 0.3 * t + 0.3 * r) * 100, 2) / 100
    result = code_critic.score("浣溪沙", POEM)
    assert (result.conformity, result.structure, result.tonal, result.rhyme) == (total, s2, t2, r2)


def test_poetone_code_does_no_extraction(code_critic: Critic) -> None:
    bare = code_critic.score("浣溪沙", POEM)
    noisy = code_critic.score("浣溪沙", "《浣溪沙》\n" + POEM)
    assert noisy.structure < bare.structure  # the title counts as a line
    assert code_critic.extract is False


def test_poetone_code_does_not_split_at_dun(code_critic: Critic, official_file: Path) -> None:
    assert code_critic.score("小令", "春风绿水，明月照天。").structure == 1.0
    assert code_critic.score("小令", "春风绿水、明月照天。").structure == 0.0
    # the default profile, on the same metadata, splits at 、 (a 读)
    default = Critic(metadata=official_file, metadata_format="poetone")
    assert default.score("小令", "春风绿水、明月照天。").structure == 1.0


def test_poetone_code_on_bundled_metadata() -> None:
    c = Critic(profile="poetone-code")
    r = c.score("浣溪沙", POEM)
    assert r.valid
    assert r.structure == 1.0
    assert r.variant is not None and r.variant in [v.id for v in c.variants("浣溪沙")]


def test_poetone_code_render_on_hand_written_metadata(code_critic: Critic) -> None:
    out = code_critic.score("浣溪沙", POEM).render()
    assert "[poetone-code]" in out
    assert "一曲新词酒一杯" in out


def test_poetone_code_render_without_variant_fields(tmp_path: Path) -> None:
    """BUG: entries without "variant" get ids by global entry index in the registry but by
    per-cipai index in the scorer, so render()/details() look up a variant that does not exist."""
    entries = [{k: v for k, v in e.items() if k != "variant"} for e in (OFFICIAL[2], OFFICIAL[0])]
    path = tmp_path / "no_variant.json"
    path.write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
    c = Critic(profile="poetone-code", metadata=path, metadata_format="poetone")
    r = c.score("浣溪沙", POEM)
    assert r.variant in [v.id for v in c.variants("浣溪沙")]
    assert "一曲新词酒一杯" in r.render()
