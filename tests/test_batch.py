"""The critic in ``Dataset.map(..., num_proc=N)``: the same numbers as ``poetone score --jsonl``."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path
from typing import Any

import datasets
import pytest
from homonym_poems import HECHONGTIAN_OUYANG, ZHEGUTIAN_YAN

from poetone import corpus
from poetone.batch import RESULT_COLUMNS, critic_for, result_features, score_batch, score_dataset
from poetone.cli import main as cli_main
from poetone.critic import Critic
from poetone.degrade import degrade


def _rows(n: int) -> list[dict[str, Any]]:
    """Poems of every kind: authentic, shuffled, tone-kept replacements, under the wrong cipai,
    cut short, prose, empty; and rows a caller could get wrong (unknown cipai, no cipai, no text)."""
    rng = random.Random(7)
    records = corpus.load_records()
    rows: list[dict[str, Any]] = []
    while len(rows) < n:
        r = rng.choice(records)
        kind = rng.randrange(8)
        if kind == 0:
            text = r["text"]
        elif kind in (1, 2):
            text = degrade(r["text"], "shuffle_lines" if kind == 1 else "replace_chars", seed=rng.randrange(10**6))
        elif kind == 3:
            rows.append({"id": len(rows), "cipai": rng.choice(corpus.CIPAI), "text": r["text"]})
            continue
        elif kind == 4:
            text = r["text"][: rng.randrange(1, len(r["text"]))]
        elif kind == 5:
            text = rng.choice(["", "抱歉，我无法创作这首词。", "I cannot write this poem."])
        elif kind == 6:
            text = r["text"].replace("\n", "")
        else:
            bad = rng.randrange(3)
            cipai = ("不是词牌", "", r["cipai"])[bad]
            rows.append({"id": len(rows), "cipai": cipai, "text": None if bad == 2 else r["text"]})
            continue
        rows.append({"id": len(rows), "cipai": r["cipai"], "text": text})
    return rows


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return _rows(3000)


def _score_jsonl(rows: list[dict[str, Any]], folder: Path) -> list[dict[str, Any]]:
    src, dst = folder / "in.jsonl", folder / "out.jsonl"
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    cli_main(["score", "--jsonl", str(src), "--out", str(dst)])  # exits 1: some rows are bad on purpose
    return [json.loads(line) for line in dst.read_text(encoding="utf-8").splitlines()]


def test_map_with_two_processes_equals_score_jsonl(rows, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    dataset = datasets.Dataset.from_list(rows)
    scored = score_dataset(dataset, num_proc=2, batch_size=250)
    assert scored.num_rows == len(rows) and scored["id"] == list(range(len(rows)))
    expected = _score_jsonl(rows, tmp_path)
    errors = 0
    for got, want in zip(scored, expected, strict=True):
        if "error" in want:
            errors += 1
            assert got["error"] == want["error"], got["id"]
            assert all(got[k] is None for k in RESULT_COLUMNS if k != "error")
        else:
            assert got["error"] is None, (got["id"], got["error"])
            assert {k: got[k] for k in RESULT_COLUMNS[:-1]} == {k: want[k] for k in RESULT_COLUMNS[:-1]}, got["id"]
    assert errors > 100  # the bad rows are reported, and the rest of their batches scored
    kinds = {(round(c, 1), v) for c, v in zip(scored["conformity"], scored["valid"]) if c is not None}
    assert (1.0, True) in kinds and (0.0, False) in kinds and len(kinds) > 5  # a spread of scores


def test_the_same_as_a_plain_map_in_one_process(rows, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    dataset = datasets.Dataset.from_list(rows[:400]).rename_column("text", "poem")
    spelt_out = dataset.map(
        score_batch, batched=True, fn_kwargs={"text_column": "poem"}, features=result_features(dataset.features)
    )
    helper = score_dataset(dataset, text_column="poem", num_proc=2)
    assert spelt_out.to_list() == helper.to_list()


def test_a_missing_column_is_named() -> None:
    dataset = datasets.Dataset.from_list([{"cipai": "浣溪沙", "poem": "…"}])
    with pytest.raises(KeyError, match="no column 'text' to score; the dataset has"):
        score_dataset(dataset)
    with pytest.raises(KeyError, match="no column 'text'"):
        score_batch({"cipai": ["浣溪沙"]})


def test_the_critic_pickles_and_one_is_built_per_process() -> None:
    """A Critic may be shipped to workers (it pickles and scores alike afterwards); the batch
    function builds its own once per process instead."""
    critic = Critic()
    copy = pickle.loads(pickle.dumps(critic))
    for r in corpus.load_records()[:20]:
        assert copy.score(r["cipai"], r["text"]).as_dict() == critic.score(r["cipai"], r["text"]).as_dict()
    assert critic_for("default") is critic_for("default")
    assert critic_for("paper") is not critic_for("default") and critic_for("paper").profile.name == "paper"


def test_a_title_names_the_tune_it_was_scored_as() -> None:
    # 鹤冲天 titles 欧阳修's 喜迁莺 and 思佳客 is a 又名 of 鹧鸪天: ``variant`` is a variant of ``scored_cipai``
    ds = datasets.Dataset.from_dict(
        {"cipai": ["鹤冲天", "思佳客", "菩萨慢"], "text": [HECHONGTIAN_OUYANG, ZHEGUTIAN_YAN, ZHEGUTIAN_YAN]}
    )
    scored = score_dataset(ds)
    assert scored["scored_cipai"] == ["喜迁莺", "鹧鸪天", None]
    assert scored.features["scored_cipai"] == datasets.Value("string")
    assert scored["structure"][:2] == [1.0, 1.0] and "菩萨蛮" in scored["error"][2]


def test_a_bad_row_is_named_by_the_dataset_s_own_column() -> None:
    out = score_batch({"tune": ["浣溪沙", None], "poem": [None, "一曲新词酒一杯"]}, "tune", "poem")
    assert out["error"] == ["missing field 'poem' (a string)", "missing field 'tune'"]
    assert out["conformity"] == [None, None]


def test_a_field_of_the_wrong_kind_is_not_called_missing() -> None:
    out = score_batch({"cipai": [123, "", None, "浣溪沙", "浣溪沙"], "text": ["a", "a", "a", ["a"], None]})
    assert out["error"] == [
        "field 'cipai' must be a cipai name (a non-empty string), got 123",
        "field 'cipai' must be a cipai name (a non-empty string), got ''",
        "missing field 'cipai'",
        "field 'text' must be a string, got list",
        "missing field 'text' (a string)",
    ]
