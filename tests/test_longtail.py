"""The long-tail track: 380 tunes beyond the benchmark's 20, by frequency band, in both frameworks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from poetone import Critic, corpus, longtail
from poetone.reference import answer_for_message

ROOT = Path(__file__).resolve().parents[1]


def test_the_tune_list_follows_its_rule() -> None:
    tunes = longtail.load_tunes()
    assert len(tunes) >= 100
    assert not {t["cipai"] for t in tunes} & set(corpus.CIPAI)
    ranks = [t["rank"] for t in tunes]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks) and max(ranks) <= 400
    bounds = {b: tuple(map(int, b.split("-"))) for b in longtail.BANDS}
    assert all(bounds[t["band"]][0] <= t["rank"] <= bounds[t["band"]][1] for t in tunes)
    assert {t["band"] for t in tunes} == set(longtail.BANDS)
    assert {"鹧鸪天", "沁园春", "贺新郎", "减字木兰花"} <= {t["cipai"] for t in tunes if t["band"] == "1-20"}
    assert all(t["example"] for t in tunes)


def test_every_tune_is_known_and_its_example_scores_as_a_poem() -> None:
    critic = Critic()
    scores = [critic.score(t["cipai"], t["example"]).conformity for t in longtail.load_tunes()]
    assert sum(scores) / len(scores) >= 0.95


def test_the_prompts_and_the_band_filter() -> None:
    prompts_ = longtail.build_longtail_set()
    assert len(prompts_) == len(longtail.load_tunes()) and len({p.id for p in prompts_}) == len(prompts_)
    p = prompts_[0]
    assert p.strategy == "longtail" and p.id == f"longtail-{p.cipai}" and f"《{p.cipai}》" in p.user and p.band == "1-20"
    assert {q.band for q in longtail.build_longtail_set("201-400")} == {"201-400"}
    with pytest.raises(ValueError, match="unknown band"):
        longtail.build_longtail_set("1-10")


def test_the_reference_model_answers_any_tune_of_the_track() -> None:
    p = next(q for q in longtail.build_longtail_set("1-20") if q.cipai == "沁园春")
    assert answer_for_message(p.user) == next(t["example"] for t in longtail.load_tunes() if t["cipai"] == "沁园春")


def test_inspect_longtail_reports_a_mean_per_band(tmp_path: Path) -> None:
    from inspect_ai import eval as inspect_eval

    from poetone.inspect_tasks import longtail as longtail_task

    (log,) = inspect_eval(longtail_task(band="1-20,21-50"), model="poetone/reference", log_dir=str(tmp_path), display="none")
    assert log.status == "success" and len(log.samples) == 34
    metrics = next(s for s in log.results.scores if s.name == "conformity").metrics
    assert {k for k in metrics if "band" in k} == {"grouped_band_1-20", "grouped_band_21-50"}
    assert metrics["mean"].value >= 0.95
    from poetone.report import build_report

    rep = build_report([tmp_path], tmp_path / "report", n_boot=200)
    bands = next(t for t in rep.tables if t.name == "by_band").rows
    assert [(r["band"], r["prompts"]) for r in bands] == [("1-20", 8), ("21-50", 26)]


def test_lm_eval_longtail_scores_each_band() -> None:
    from lm_eval.tasks import TaskManager

    from poetone.lm_eval_tasks.songci import utils

    task = TaskManager(include_path=str(ROOT / "src/poetone/lm_eval_tasks")).load_task_or_group(["songci_longtail"])["songci_longtail"]
    docs = list(task.test_docs())
    assert len(docs) == len(longtail.load_tunes())
    doc = next(d for d in docs if d["cipai"] == "沁园春")
    metrics = utils.process_results(dict(doc), [answer_for_message(doc["user"])])
    assert metrics["conformity_1_20"] == metrics["conformity"] >= 0.9
    assert task.config.generation_kwargs["max_gen_toks"] == 1024


@pytest.mark.shared
def test_the_build_script_reproduces_the_tune_list(shared: Path, tmp_path: Path) -> None:
    before = (ROOT / "src/poetone/data/longtail.json").read_bytes()
    subprocess.run([sys.executable, str(ROOT / "scripts/build_longtail.py")], check=True, capture_output=True)
    assert (ROOT / "src/poetone/data/longtail.json").read_bytes() == before
