"""lm-evaluation-harness glue for the Songci tasks: the eval set in, the critic's scores out.

Everything of substance lives in ``poetone.songci``; this module only adapts shapes. Options come
through ``--metadata``: ``profile`` (critic profile, default ``default``), ``cipai`` and ``theme``
(filters, a name or a comma-separated list).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import datasets

from poetone import prompts
from poetone.critic import Critic
from poetone.options import parse_names
from poetone.songci import build_eval_set, require_scorable, score_answer

METRICS = ("conformity", "structure", "tonal", "rhyme", "invalid")


def generation_kwargs(strategy: str) -> dict[str, Any]:
    """lm-eval's ``generation_kwargs`` for a strategy, from ``poetone.prompts.GENERATION``: the
    settings the Inspect tasks use too. Sampled, and no stop sequence but the model's end of text."""
    g = prompts.GENERATION[strategy]
    return {
        "until": [],
        "do_sample": True,
        "temperature": g.temperature,
        "top_p": g.top_p,
        "max_gen_toks": g.max_tokens,
    }


# Read by each task's YAML as ``generation_kwargs: !function utils.<name>`` (lm-eval's loader
# resolves any module attribute there), so the numbers live in one place.
generation_zero_shot = generation_kwargs("zero_shot")
generation_one_shot = generation_kwargs("one_shot")
generation_completion = generation_kwargs("completion")
generation_instruction = generation_kwargs("instruction")
generation_cot = generation_kwargs("cot")
generation_longtail = generation_kwargs("longtail")


@cache
def _critic(profile: str) -> Critic:
    return Critic(profile=profile)


def load_songci(
    strategy: str, profile: str = "default", cipai: Any = None, theme: Any = None, **_: Any
) -> datasets.DatasetDict:
    """The eval set of one strategy as a ``test`` split; each doc carries the critic profile."""
    require_scorable([strategy], profile)
    critic = _critic(profile)
    prompts = build_eval_set([strategy], cipai=parse_names(cipai), theme=parse_names(theme, "theme"), critic=critic)
    rows = [{**p.as_record(), "profile": profile} for p in prompts]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def load_longtail(profile: str = "default", band: Any = None, **_: Any) -> datasets.DatasetDict:
    """The long-tail track (poetone.longtail) as a ``test`` split: 380 tunes beyond the 20."""
    from poetone import longtail

    rows = [{**p.as_record(), "profile": profile} for p in longtail.build_longtail_set(parse_names(band, "band"), _critic(profile))]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def band_metric(band: str) -> str:
    """The long-tail track's metric of one frequency band: ``conformity_21_50`` for ``21-50``."""
    return "conformity_" + band.replace("-", "_")


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """Score the generation. The extracted poem, the variant and the critic's diagnostics are added
    to ``doc`` under ``poetone`` so that ``--log_samples`` keeps them with the sample."""
    scored = score_answer(doc, results[0] if results else "", _critic(doc.get("profile", "default")))
    doc["poetone"] = {k: v for k, v in scored.items() if k not in METRICS}
    metrics = {k: float(scored[k]) for k in METRICS}
    if doc["strategy"] == "completion":
        metrics["copy_rate"] = float(scored["copied"])
    if doc.get("band"):  # the long-tail track: each sample also counts in its band's mean
        metrics[band_metric(doc["band"])] = metrics["conformity"]
    return metrics
