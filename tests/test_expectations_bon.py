"""poetone.bon.select, build and the hashes on hand-made candidates, with every expected number worked
out here by hand (means of two or three scores, written as literals) and every expected row, summary
line and hash input written out in full, not computed by the module.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import poetone.bon as bon
from poetone.bon import Selection, build, data_hash, format_summary, messages_hash, select
from poetone.logs import Candidate


def cand(
    epoch: int,
    conformity: float,
    *,
    model: str = "m",
    prompt: str = "p1",
    strategy: str = "zero_shot",
    valid: bool = True,
    copied: bool = False,
    source: str = "run.eval",
) -> Candidate:
    """A candidate whose every field says where it came from (structure/tonal/rhyme are distinct)."""
    return Candidate(
        source=source,
        framework="inspect",
        model=model,
        prompt_id=prompt,
        strategy=strategy,
        cipai="浣溪沙",
        theme="春",
        epoch=epoch,
        system=f"sys-{prompt}",
        user=f"user-{prompt}",
        answer=f"answer-{model}-{prompt}-{epoch}",
        poem=f"poem-{model}-{prompt}-{epoch}",
        valid=valid,
        copied=copied,
        conformity=conformity,
        structure=0.25,
        tonal=0.5,
        rhyme=0.75,
        prompt_hash=f"hash-{prompt}",
    )


def epochs(rows: list[dict]) -> list[tuple[str, str, int]]:
    return [(r["model"], r["prompt_id"], r["epoch"]) for r in rows]


# --- the training row ------------------------------------------------------------------------------


def test_the_row_of_the_best_candidate_field_by_field() -> None:
    rows, _ = select([cand(1, 0.25), cand(2, 0.75)])
    assert rows == [
        {
            "messages": [
                {"role": "system", "content": "sys-p1"},
                {"role": "user", "content": "user-p1"},
                {"role": "assistant", "content": "poem-m-p1-2"},
            ],
            "prompt_id": "p1",
            "strategy": "zero_shot",
            "cipai": "浣溪沙",
            "theme": "春",
            "model": "m",
            "epoch": 2,
            "candidates": 2,
            "conformity": 0.75,
            "structure": 0.25,
            "tonal": 0.5,
            "rhyme": 0.75,
            "prompt_hash": "hash-p1",
            "source": "run.eval",
        }
    ]


# --- groups, order, ties -----------------------------------------------------------------------------


def test_groups_are_model_and_prompt_in_first_seen_order() -> None:
    # two models answer the same prompt: two groups, never pooled
    cands = [
        cand(1, 0.5, model="b"),
        cand(1, 0.25, model="a"),
        cand(2, 0.75, model="a"),
        cand(1, 0.5, prompt="p2", model="b"),
    ]
    rows, summary = select(cands)
    assert epochs(rows) == [("b", "p1", 1), ("a", "p1", 2), ("b", "p2", 1)]
    assert [r["candidates"] for r in rows] == [1, 2, 1]
    assert [(s["model"], s["prompts"]) for s in summary] == [("a", 1), ("b", 2)]  # summary sorted by model


def test_the_first_candidate_is_the_lowest_epoch_whatever_the_file_order() -> None:
    # epochs 3, 1, 2 in the file: the first is epoch 1 (0.25), the best epoch 3 (1.0)
    _, (s,) = select([cand(3, 1.0), cand(1, 0.25), cand(2, 0.5)])
    assert (s["first_mean"], s["best_mean"], s["gain"]) == (0.25, 1.0, 0.75)


def test_a_tie_goes_to_the_earlier_epoch() -> None:
    rows, _ = select([cand(3, 0.5), cand(2, 0.5), cand(1, 0.25)])
    assert epochs(rows) == [("m", "p1", 2)]


def test_a_tie_within_one_epoch_goes_to_the_earlier_file() -> None:
    rows, _ = select([cand(1, 0.5, source="a.eval"), cand(1, 0.5, source="b.eval")])
    assert rows[0]["source"] == "a.eval"
    rows, _ = select([cand(1, 0.5, source="b.eval"), cand(1, 0.5, source="a.eval")])
    assert rows[0]["source"] == "b.eval"


def test_a_later_candidate_only_a_hair_better_wins() -> None:
    rows, _ = select([cand(1, 0.5), cand(2, 0.5 + 1e-9)])
    assert epochs(rows) == [("m", "p1", 2)]
    rows, _ = select([cand(1, 0.5 + 1e-9), cand(2, 0.5)])
    assert epochs(rows) == [("m", "p1", 1)]


def test_invalid_or_copied_candidates_never_win_however_high() -> None:
    rows, (s,) = select([cand(1, 0.9, valid=False), cand(2, 0.8, copied=True), cand(3, 0.25)])
    assert epochs(rows) == [("m", "p1", 3)]
    # the first (epoch 1) is invalid: it counts 0.0, not its 0.9
    assert (s["first_mean"], s["best_mean"], s["gain"], s["kept"], s["no_valid_candidate"]) == (0.0, 0.25, 0.25, 1, 0)


def test_a_copied_first_candidate_counts_0() -> None:
    _, (s,) = select([cand(1, 0.8, copied=True), cand(2, 0.5)])
    assert (s["first_mean"], s["best_mean"]) == (0.0, 0.5)


def test_a_prompt_with_no_eligible_candidate() -> None:
    rows, (s,) = select([cand(1, 0.9, valid=False), cand(2, 0.8, copied=True)])
    assert rows == []
    assert s == {
        "model": "m",
        "strategy": "zero_shot",
        "prompts": 1,
        "candidates_per_prompt": 2.0,
        "first_mean": 0.0,
        "best_mean": 0.0,
        "gain": 0.0,
        "kept": 0,
        "no_valid_candidate": 1,
        "below_min_score": 0,
    }


# --- the summary, worked by hand ------------------------------------------------------------------------


def test_the_summary_of_three_prompts_by_hand() -> None:
    cands = [
        # p1: first 0.25, best 0.75            (2 candidates)
        cand(1, 0.25, prompt="p1"),
        cand(2, 0.75, prompt="p1"),
        # p2: first invalid -> 0.0, best 0.5  (3 candidates)
        cand(1, 0.9, prompt="p2", valid=False),
        cand(2, 0.5, prompt="p2"),
        cand(3, 0.25, prompt="p2"),
        # p3: nothing eligible -> 0.0 and 0.0 (1 candidate)
        cand(1, 0.5, prompt="p3", copied=True),
        # another strategy of the same model: its own line
        cand(1, 1.0, prompt="c1", strategy="completion"),
    ]
    rows, summary = select(cands)
    assert epochs(rows) == [("m", "p1", 2), ("m", "p2", 2), ("m", "c1", 1)]
    # first: (0.25 + 0 + 0) / 3 = 0.083333…; best: (0.75 + 0.5 + 0) / 3 = 0.416666…; gain 1/3
    # candidates per prompt (2 + 3 + 1) / 3 = 2.0; sorted by strategy: completion < zero_shot
    assert summary == [
        {
            "model": "m",
            "strategy": "completion",
            "prompts": 1,
            "candidates_per_prompt": 1.0,
            "first_mean": 1.0,
            "best_mean": 1.0,
            "gain": 0.0,
            "kept": 1,
            "no_valid_candidate": 0,
            "below_min_score": 0,
        },
        {
            "model": "m",
            "strategy": "zero_shot",
            "prompts": 3,
            "candidates_per_prompt": 2.0,
            "first_mean": 0.083333,
            "best_mean": 0.416667,
            "gain": 0.333333,
            "kept": 2,
            "no_valid_candidate": 1,
            "below_min_score": 0,
        },
    ]


def test_candidates_per_prompt_is_a_mean_not_a_total() -> None:
    # 1 and 2 candidates: (1 + 2) / 2 = 1.5
    _, (s,) = select([cand(1, 0.5, prompt="p1"), cand(1, 0.5, prompt="p2"), cand(2, 0.5, prompt="p2")])
    assert (s["prompts"], s["candidates_per_prompt"]) == (2, 1.5)


def test_the_strategy_of_a_group_is_its_first_candidates() -> None:
    # one prompt id can only have one strategy in a real log; the group's first candidate decides
    _, summary = select([cand(2, 0.5, strategy="cot"), cand(1, 0.25, strategy="zero_shot")])
    assert [s["strategy"] for s in summary] == ["zero_shot"]


# --- min_score on both sides ----------------------------------------------------------------------------


def test_a_best_score_equal_to_min_score_is_kept() -> None:
    rows, (s,) = select([cand(1, 0.5)], min_score=0.5)
    assert len(rows) == 1 and (s["kept"], s["below_min_score"]) == (1, 0)


def test_a_best_score_below_min_score_is_dropped_and_counted() -> None:
    rows, (s,) = select([cand(1, 0.25), cand(2, 0.5 - 1e-9)], min_score=0.5)
    assert rows == []
    # dropped, but its best still counts in best_mean: (0.5 - 1e-9) rounded to 6 places is 0.5
    assert (s["kept"], s["below_min_score"], s["no_valid_candidate"], s["best_mean"]) == (0, 1, 0, 0.5)


def test_the_default_min_score_keeps_a_valid_zero() -> None:
    rows, (s,) = select([cand(1, 0.0)])
    assert len(rows) == 1 and (s["kept"], s["below_min_score"]) == (1, 0)


def test_every_prompt_with_no_eligible_candidate_is_counted() -> None:
    cands = [cand(1, 0.5, prompt="p1", valid=False), cand(1, 0.5, prompt="p2", copied=True), cand(1, 0.5, prompt="p3")]
    rows, (s,) = select(cands)
    assert epochs(rows) == [("m", "p3", 1)]
    assert (s["no_valid_candidate"], s["kept"], s["below_min_score"]) == (2, 1, 0)


def test_every_prompt_below_min_score_is_counted_and_the_next_prompt_still_selected() -> None:
    cands = [
        cand(1, 0.25, prompt="p1"),
        cand(1, 0.125, prompt="p2"),
        cand(1, 0.75, prompt="p3"),
        cand(1, 0.5, prompt="p4"),
    ]
    rows, (s,) = select(cands, min_score=0.5)
    assert epochs(rows) == [("m", "p3", 1), ("m", "p4", 1)]
    assert (s["below_min_score"], s["kept"], s["no_valid_candidate"]) == (2, 2, 0)


def test_no_candidates_no_rows_no_summary() -> None:
    assert select([]) == ([], [])


# --- hashes: the canonical JSON written out by hand -------------------------------------------------


def test_messages_hash_of_nothing_is_the_sha256_of_the_empty_string() -> None:
    # SHA-256("") (FIPS 180-2 test vector)
    assert messages_hash([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_messages_hash_is_sorted_keys_json_with_the_characters_kept() -> None:
    convs = [[{"role": "user", "content": "春"}], ({"role": "assistant", "content": "花"},)]
    canonical = '[{"content": "春", "role": "user"}][{"content": "花", "role": "assistant"}]'
    assert messages_hash(convs) == hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert messages_hash(iter(convs)) == messages_hash(convs)
    assert messages_hash(convs[::-1]) != messages_hash(convs)  # order matters


def test_data_hash_is_the_hash_of_the_rows_messages() -> None:
    rows = [
        {"messages": [{"role": "user", "content": "春"}], "epoch": 1},
        {"messages": [{"role": "assistant", "content": "花"}]},
    ]
    canonical = '[{"content": "春", "role": "user"}][{"content": "花", "role": "assistant"}]'
    assert data_hash(rows) == hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# --- the printed summary --------------------------------------------------------------------------------


def test_format_summary_written_out() -> None:
    summary = [
        {
            "model": "openai/a-very-long-model-name-that-is-cut",
            "strategy": "zero_shot",
            "prompts": 120,
            "candidates_per_prompt": 4.0,
            "first_mean": 0.5,
            "best_mean": 0.75,
            "gain": 0.25,
            "kept": 118,
        },
        {
            "model": "m",
            "strategy": "cot",
            "prompts": 3,
            "candidates_per_prompt": 2.5,
            "first_mean": 0.25,
            "best_mean": 0.125,
            "gain": -0.125,
            "kept": 0,
        },
    ]
    head = "model                        strategy     prompts     N   first    best    gain  kept"
    assert format_summary(summary).split("\n") == [
        head,
        "-" * 85,
        "openai/a-very-long-model-nam zero_shot        120   4.0  0.5000  0.7500 +0.2500   118",
        "m                            cot                3   2.5  0.2500  0.1250 -0.1250     0",
    ]
    assert len(head) == 85  # 28 + 12 + 7 + 5 + 7 + 7 + 7 + 5 columns and 7 spaces
    assert format_summary([]) == head + "\n" + "-" * 85


# --- build: what it writes -----------------------------------------------------------------------------


def test_build_writes_the_rows_the_dataset_and_the_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cands = [cand(1, 0.25, source="b.eval"), cand(2, 0.75, source="a.eval"), cand(1, 0.5, prompt="p2", source="b.eval")]
    asked: list[object] = []

    def read_candidates(paths: object) -> tuple[list[Candidate], list[str]]:
        asked.append(paths)
        return cands, ["坏.json: not a log"]

    monkeypatch.setattr(bon, "read_candidates", read_candidates)
    out = tmp_path / "new" / "out"
    got = build(["logs", "more"], out, min_score=0.6)
    assert asked == [["logs", "more"]]
    assert isinstance(got, Selection)
    assert epochs(got.rows) == [("m", "p1", 2)]  # p2's best, 0.5, is below 0.6
    assert got.errors == ["坏.json: not a log"]
    lines = (out / "train.jsonl").read_text("utf-8").splitlines()
    assert [json.loads(line) for line in lines] == got.rows
    assert '"content": "sys-p1"' in lines[0] and "浣溪沙" in lines[0]  # characters kept, not \\u-escaped
    meta = json.loads((out / "summary.json").read_text("utf-8"))
    canonical = '[{"content": "sys-p1", "role": "system"}, {"content": "user-p1", "role": "user"}, {"content": "poem-m-p1-2", "role": "assistant"}]'
    assert meta == {
        "min_score": 0.6,
        "rows": 1,
        "data_sha256": hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
        "sources": ["a.eval", "b.eval"],
        "errors": ["坏.json: not a log"],
        "summary": got.summary,
    }
    text = (out / "summary.json").read_text("utf-8")
    assert text.startswith('{\n  "min_score": 0.6,\n  "rows": 1,\n') and text.endswith("}\n")  # indented by two
    assert '"坏.json: not a log"' in text  # characters kept, not \u-escaped
    import datasets

    assert datasets.load_from_disk(str(out / "dataset")).to_list() == got.rows


def test_build_with_every_prompt_below_min_score_writes_no_dataset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bon, "read_candidates", lambda paths: ([cand(1, 0.5)], []))
    got = build(["logs"], tmp_path, min_score=0.9)
    assert got.rows == [] and got.errors == []
    assert (tmp_path / "train.jsonl").read_text("utf-8") == ""
    assert not (tmp_path / "dataset").exists()
    meta = json.loads((tmp_path / "summary.json").read_text("utf-8"))
    assert (meta["rows"], meta["data_sha256"]) == (
        0,
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    )


def test_build_with_no_candidates_names_the_paths_and_the_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bon, "read_candidates", lambda paths: ([], ["x.json: bad", "y.json: worse"]))
    with pytest.raises(ValueError, match=r"^no candidates in a, b: x\.json: bad; y\.json: worse$"):
        build(["a", Path("b")], tmp_path / "out")
    monkeypatch.setattr(bon, "read_candidates", lambda paths: ([], []))
    with pytest.raises(ValueError, match=r"^no candidates in a: no Inspect log or lm-eval samples file found$"):
        build(["a"], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_build_keeps_every_eligible_best_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # min_score defaults to 0.0: a valid 0.0 and a 0.5 are both kept
    monkeypatch.setattr(
        bon, "read_candidates", lambda paths: ([cand(1, 0.0, prompt="p1"), cand(1, 0.5, prompt="p2")], [])
    )
    got = build(["logs"], tmp_path)
    assert epochs(got.rows) == [("m", "p1", 1), ("m", "p2", 1)]
    assert json.loads((tmp_path / "summary.json").read_text("utf-8"))["min_score"] == 0.0


def test_build_writes_utf_8_whatever_the_platforms_default_encoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pathlib asks io.text_encoding for the default; on Windows it is often cp1252, which has no 浣溪沙
    import io

    default = io.text_encoding
    monkeypatch.setattr(
        io, "text_encoding", lambda encoding, stacklevel=2: "cp1252" if encoding is None else default(encoding)
    )
    monkeypatch.setattr(bon, "read_candidates", lambda paths: ([cand(1, 0.5)], ["坏.json: not a log"]))
    build(["logs"], tmp_path)
    assert "浣溪沙" in (tmp_path / "train.jsonl").read_bytes().decode("utf-8")
    assert "坏.json" in (tmp_path / "summary.json").read_bytes().decode("utf-8")
