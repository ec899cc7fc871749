"""The long-tail track: zero-shot prompts for the tunes beyond the benchmark's 20, by frequency band.

The benchmark's 20 cipai are the ones today's best models already master (docs/longtail.md); the
hundreds of other tunes of the 钦定词谱 are where models still differ. The tune list is generated
data (``data/longtail.json``, by ``scripts/build_longtail.py`` from the dev 全宋词's frequency ranks
and the 词谱): every tune ranked 1–400 outside the 20, in five bands, one prompt each on the
zero-shot template with the theme its rank picks. A report shows the mean per band, so it tells
where a model's knowledge of the forms ends.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from poetone import prompts
from poetone.songci import SongciPrompt, make_prompt

#: The track's strategy name: the zero-shot template, scored as zero-shot, reported apart.
STRATEGY = "longtail"
#: The frequency bands, by rank among the tunes of the 全宋词 (see scripts/build_longtail.py).
BANDS: tuple[str, ...] = ("1-20", "21-50", "51-100", "101-200", "201-400")


@cache
def load_tunes() -> tuple[dict[str, Any], ...]:
    """The track's tunes: cipai, rank, poems in the dev 全宋词, band, theme, the 正体's example poem."""
    text = resources.files("poetone").joinpath("data", "longtail.json").read_text(encoding="utf-8")
    return tuple(json.loads(text)["tunes"])


def _band_names(band: str | list[str] | tuple[str, ...] | None) -> set[str] | None:
    if band is None or band == "":
        return None
    wanted = {b.strip() for b in (band.split(",") if isinstance(band, str) else band) if b.strip()}
    unknown = wanted - set(BANDS)
    if unknown:
        raise ValueError(f"unknown band {sorted(unknown)}; expected some of {BANDS}")
    return wanted


def build_longtail_set(band: str | list[str] | None = None, critic: Any = None) -> list[SongciPrompt]:
    """One zero-shot prompt per tune of the track (``band`` narrows it), ids ``longtail-{cipai}``.

    Every tune must be known to ``critic``'s resource (the bundled one knows them all): a tune it
    does not know is an error naming it, never a prompt that could not be scored.
    """
    from poetone.critic import Critic

    critic = critic or Critic()
    wanted = _band_names(band)
    digest = prompts.prompt_hash()
    out = []
    for tune in load_tunes():
        if wanted is not None and tune["band"] not in wanted:
            continue
        name = critic.registry.resolve(tune["cipai"])
        out.append(
            make_prompt(
                f"longtail-{name}", STRATEGY, name, tune["theme"], digest, template="zero_shot",
                reference_id="", band=tune["band"], rank=tune["rank"],
            )
        )
    return out


def reference_answers() -> dict[str, str]:
    """The 词谱's example poem of each tune's 正体, by cipai: what ``poetone/reference`` answers."""
    return {t["cipai"]: t["example"] for t in load_tunes()}
