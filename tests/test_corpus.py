"""The canonical corpus: layout, themes, substitutions, authenticity against the 全宋词, scores, loaders."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from poetone import Critic, corpus
from poetone.corpus import CIPAI, SLUGS, THEMES, CorpusError

QSC = Path("data") / "quan-song-ci" / "quan_song_ci.dev.json"
ANTHOLOGY = Path("data") / "quan-song-ci" / "宋词三百首.json"
_NOT_HAN = re.compile(r"[^\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f□]")


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return corpus.load_records()


@pytest.fixture(scope="module")
def quan_song_ci(shared: Path) -> dict[str, list[dict[str, Any]]]:
    """Joined paragraphs -> the 全宋词 entries printing exactly that text."""
    index: dict[str, list[dict[str, Any]]] = {}
    for entry in json.loads((shared / QSC).read_text(encoding="utf-8")):
        index.setdefault("".join(entry["paragraphs"]), []).append(entry)
    return index


def _slug(cipai: str) -> str:
    return SLUGS[cipai]


def _slot(record: dict[str, Any]) -> str:
    return record["id"].split("-", 1)[1]


def _verse(text: str) -> str:
    return _NOT_HAN.sub("", text)


# -- layout ---------------------------------------------------------------------------------


def test_120_records_6_per_cipai_in_order(records):
    assert len(records) == 120
    assert Counter(r["cipai"] for r in records) == dict.fromkeys(CIPAI, 6)
    expected = [f"{_slug(c)}-{t}" for c in CIPAI for t in THEMES]
    assert [r["id"] for r in records] == expected  # sorted by cipai, then theme slot


def test_ids_unique_and_stable_format(records):
    ids = [r["id"] for r in records]
    assert len(set(ids)) == len(ids)
    for r in records:
        assert re.fullmatch(r"[a-z]+-[a-z_]+", r["id"]), r["id"]
        assert r["id"] == f"{_slug(r['cipai'])}-{_slot(r)}"


def test_every_field_present_and_typed(records):
    for r in records:
        assert list(r) == list(corpus.FIELDS)
        assert r["theme_label"] == THEMES[r["theme"]]
        assert r["source"].startswith("全宋词 (chinese-poetry quan_song_ci)")
        assert r["substitution"] is None or r["substitution"].strip()
        assert "\n" not in r["theme_note"] and r["theme_note"].strip()


def test_each_theme_at_least_15_times(records):
    counts = Counter(r["theme"] for r in records)
    assert set(counts) == set(THEMES)
    assert min(counts.values()) >= 15, counts


def test_no_duplicate_texts(records):
    texts = [_verse(r["text"]) for r in records]
    assert len(set(texts)) == len(texts)
    heads = [(r["poet"], _verse(r["text"])[:12]) for r in records]
    assert len(set(heads)) == len(heads)


def test_title_is_first_clause(records):
    for r in records:
        assert r["text"].startswith(r["title"]), r["id"]
        assert not re.search(r"[，。？！；：、\n]", r["title"]), r["id"]


# -- substitutions --------------------------------------------------------------------------


def test_substitutions_recorded_where_a_theme_is_not_native(records):
    for cipai in CIPAI:
        rows = [r for r in records if r["cipai"] == cipai]
        native = {r["theme"] for r in rows if r["substitution"] is None}
        for r in rows:
            if r["theme"] == _slot(r):
                assert r["substitution"] is None, f"{r['id']}: substitution recorded but the poem fits its slot"
            else:
                assert r["substitution"], f"{r['id']}: theme differs from the slot and no substitution is recorded"
                assert _slot(r) in r["substitution"], r["id"]
                assert _slot(r) not in native, f"{r['id']}: the cipai already has a native {_slot(r)} poem"
        missing = set(THEMES) - native
        assert len(missing) == sum(r["substitution"] is not None for r in rows), cipai


def test_chaitoufeng_substitutions(records):
    """钗头凤 has 8 poems in the 全宋词, all love, parting or spring: three slots are stand-ins."""
    subs = [r for r in records if r["cipai"] == "钗头凤" and r["substitution"]]
    assert {_slot(r) for r in subs} == {"patriotism_heroism", "history_nostalgia", "philosophical_reflection"}


# -- authenticity ---------------------------------------------------------------------------


def test_every_text_is_quoted_exactly_from_the_quan_song_ci(records, quan_song_ci, critic: Critic):
    for r in records:
        joined = r["text"].replace("\n", "")
        entries = quan_song_ci.get(joined)
        assert entries, f"{r['id']}: text not found verbatim in the 全宋词"
        matches = [
            e for e in entries if e["author"] == r["poet"] and critic.registry.resolve(e["rhythmic"]) == r["cipai"]
        ]
        assert matches, (
            f"{r['id']}: found, but not as a {r['cipai']} of {r['poet']}: {[(e['author'], e['rhythmic']) for e in entries]}"
        )


def test_stanza_breaks_follow_the_variant(records, quan_song_ci, critic: Critic):
    for r in records:
        stanzas = r["text"].split("\n")
        variant = critic.registry[r["cipai"]].variant(r["variant"])
        assert len(stanzas) == len(variant.stanzas), r["id"]
        result = critic.score(r["cipai"], r["text"], variant=r["variant"])
        first = len(variant.stanzas[0])
        assert "".join(result.lines[:first]) == _verse(stanzas[0]), r["id"]
        # a break falls between two of the edition's sentences, never inside one
        paragraphs = quan_song_ci[r["text"].replace("\n", "")][0]["paragraphs"]
        prefixes = {"".join(paragraphs[:k]) for k in range(len(paragraphs) + 1)}
        assert stanzas[0] in prefixes, r["id"]


def test_anthology_tag(records, shared: Path):
    """The anthology prints some characters differently (梦後 for 梦后): compare in simplified script."""
    t2s = pytest.importorskip("opencc").OpenCC("t2s").convert
    anthology = json.loads((shared / ANTHOLOGY).read_text(encoding="utf-8"))
    heads = {(e["author"], t2s(_verse("".join(e["paragraphs"])))[:8]) for e in anthology}
    for r in records:
        listed = (r["poet"], t2s(_verse(r["text"]))[:8]) in heads
        assert listed == ("宋词三百首" in r["source"]), r["id"]


# -- scores ---------------------------------------------------------------------------------


def test_every_poem_scores_at_least_0_9_on_its_recorded_variant(records, critic: Critic):
    for r in records:
        ids = [v.id for v in critic.registry[r["cipai"]].variants]
        assert r["variant"] in ids, f"{r['id']}: variant {r['variant']!r} not in {ids}"
        best = critic.score(r["cipai"], r["text"])
        assert best.valid and best.conformity >= 0.9, (r["id"], best.as_dict())
        own = critic.score(r["cipai"], r["text"], variant=r["variant"])
        assert own.conformity >= 0.9, (r["id"], own.as_dict())


# -- loaders --------------------------------------------------------------------------------


def test_load_returns_a_dataset_with_the_fields():
    datasets = pytest.importorskip("datasets")
    ds = corpus.load()
    assert isinstance(ds, datasets.Dataset)
    assert ds.column_names == list(corpus.FIELDS)
    assert len(ds) == 120


def test_load_filters_by_cipai_and_theme(records):
    assert set(corpus.load(cipai="念奴娇")["cipai"]) == {"念奴娇"}
    assert len(corpus.load(cipai="酹江月")) == 6  # an alias
    history = corpus.load(theme="history_nostalgia")
    assert len(history) == sum(r["theme"] == "history_nostalgia" for r in records)
    assert set(history["theme"]) == {"history_nostalgia"}
    assert len(corpus.load(theme="怀古")) == len(history)  # by label
    both = corpus.load(cipai="钗头凤", theme="love_longing")
    assert len(both) == 4 and set(both["cipai"]) == {"钗头凤"}
    assert len(corpus.load(cipai="钗头凤", theme="patriotism_heroism")) == 0


def test_load_rejects_unknown_filters():
    with pytest.raises(ValueError, match="unknown theme"):
        corpus.load(theme="war")
    with pytest.raises(KeyError):
        corpus.load(cipai="不是词牌")


def test_write_jsonl_round_trip(tmp_path, records):
    out = corpus.write_jsonl(tmp_path / "corpus.jsonl")
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == records
    assert "\\u" not in lines[0]  # Chinese written as is


def test_broken_lines_are_named():
    good = json.dumps(corpus.load_records()[0], ensure_ascii=False)
    with pytest.raises(CorpusError, match="x line 2: not valid JSON"):
        corpus._parse([good, "{oops"], "x")
    with pytest.raises(CorpusError, match="x line 1: missing field 'poet'"):
        corpus._parse([json.dumps({k: v for k, v in json.loads(good).items() if k != "poet"})], "x")
    with pytest.raises(CorpusError, match="x line 2: duplicate id"):
        corpus._parse([good, good], "x")
    bad_theme = json.loads(good) | {"theme": "war"}
    with pytest.raises(CorpusError, match="theme 'war'"):
        corpus._parse([json.dumps(bad_theme, ensure_ascii=False)], "x")
    unrecorded = json.loads(good) | {"theme": "sorrow_grief", "theme_label": THEMES["sorrow_grief"]}
    with pytest.raises(CorpusError, match="no substitution is recorded"):
        corpus._parse([json.dumps(unrecorded, ensure_ascii=False)], "x")


# -- the Hugging Face dataset ----------------------------------------------------------------


def test_hf_folder_loads_back_with_datasets_and_has_a_hub_card(tmp_path, records, monkeypatch):
    import datasets
    import yaml

    from poetone.cli import main as cli_main

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "songci-corpus"
    assert cli_main(["corpus", "--hf", str(out)]) == 0
    loaded = datasets.load_dataset(str(out))
    assert list(loaded) == ["train"]
    assert loaded["train"].to_list() == records  # every field, every row, nulls kept
    assert loaded["train"].features == corpus.load().features

    card = (out / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n")
    header = yaml.safe_load(card.split("---\n")[1])
    assert header["license"] == "mit" and "zh" in header["language"]
    assert header["task_categories"] and header["size_categories"] == ["n<1K"]
    assert header["configs"] == [
        {"config_name": "default", "data_files": [{"split": "train", "path": "data/train.jsonl"}]}
    ]
    assert [f["name"] for f in header["dataset_info"]["features"]] == list(corpus.FIELDS)
    assert header["dataset_info"]["splits"][0]["num_examples"] == 120
    body = card.split("---\n", 2)[2]
    for section in (
        "## Dataset structure",
        "## Themes",
        "## Source and selection",
        "## How it was verified",
        "## Licence",
    ):
        assert section in body, section
    assert "$" not in body  # every placeholder filled
    for key, label in THEMES.items():
        n = sum(r["theme"] == key for r in records)
        assert f"| `{key}` | {label} | {n} |" in body
    for name in corpus.FIELDS:
        assert f"| `{name}` |" in body, name
    card_data = datasets.load_dataset_builder(str(out)).info  # the Hub's reader takes the header too
    assert card_data.splits["train"].num_examples == 120


def test_hf_refuses_a_folder_that_holds_something(tmp_path, capsys):
    from poetone.cli import main as cli_main

    (tmp_path / "mine.txt").write_text("keep me", encoding="utf-8")
    assert cli_main(["corpus", "--hf", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "mine.txt").read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]
    with pytest.raises(ValueError, match="is a file"):
        corpus.write_hf(tmp_path / "mine.txt")
    assert corpus.write_hf(tmp_path / "empty") == tmp_path / "empty"  # a new folder is fine
