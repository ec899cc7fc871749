"""The human reference: what a Song master "answers" to each prompt of the eval set.

Scoring real poems through the same prompts, extraction and critic as a model gives the ceiling
every model is compared to, and needs no weights or network. The answer for a prompt is the
corpus poem of its cipai and theme; one-shot prompts show another theme's poem as the example,
so the answer is never the example; completion gets the 下阕 of another corpus poem of the same
cipai (the poet's own 下阕 would be a copy of what the prompt withholds).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from poetone import corpus
from poetone.critic import Critic
from poetone.songci import COPY_THRESHOLD, SongciPrompt, build_eval_set, copy_overlap, split_stanzas


@lru_cache(maxsize=1)
def _prompts_by_user_message() -> dict[str, SongciPrompt]:
    return {p.user: p for p in build_eval_set()}


def reference_answer(prompt: SongciPrompt | dict[str, Any]) -> str:
    """The authentic answer to one prompt of the eval set."""
    p = prompt if isinstance(prompt, dict) else prompt.as_record()
    slot = p["id"].split("-", 1)[1]  # {strategy}-{slug}-{theme} -> {slug}-{theme}
    records = corpus.records_by_id()
    if slot not in records:
        raise ValueError(f"prompt {p['id']!r} names no corpus slot {slot!r}")
    if p["strategy"] != "completion":
        return records[slot]["text"]
    return _other_lower(slot, p.get("original_lower", ""))


def _other_lower(slot: str, original_lower: str) -> str:
    """The 下阕 of the next poem of the same cipai (theme order, wrapping) that is not a copy."""
    slug, theme = slot.split("-", 1)
    themes = list(corpus.THEMES)
    start = themes.index(theme)
    critic = _critic()
    for step in range(1, len(themes)):
        other = corpus.records_by_id()[f"{slug}-{themes[(start + step) % len(themes)]}"]
        _, lower = split_stanzas(other["text"], critic, other["cipai"], other.get("variant"))
        if copy_overlap(lower, original_lower) < COPY_THRESHOLD:
            return lower
    raise ValueError(f"no other poem of {slug} has a 下阕 unlike the one withheld in {slot}")


@lru_cache(maxsize=1)
def _critic() -> Critic:
    return Critic()


_CIPAI_IN_PROMPT = re.compile(r"《([^》]+)》")
_THEME_IN_PROMPT = re.compile(r"「([^」]+)」")


def _tune_example(name: str) -> str:
    """The 词谱's example poem of a tune beyond the corpus (the long-tail track's), or ``""``."""
    from poetone import longtail
    from poetone.metadata import UnknownCipaiError

    try:
        canonical = _critic().registry.resolve(name)
    except UnknownCipaiError:
        return ""
    return longtail.reference_answers().get(canonical, "")


def answer_for_message(user_message: str) -> str:
    """The reference answer to a user message of the eval set.

    Prompts are matched exactly; a reworded prompt that still names a corpus cipai (《…》) and
    theme label (「…」) gets that slot's poem, and a prompt naming a tune of the long-tail track
    (poetone.longtail) the 词谱's example poem of its 正体. Anything else: ValueError.
    """
    prompt = _prompts_by_user_message().get(user_message.strip()) or _prompts_by_user_message().get(user_message)
    if prompt is not None:
        return reference_answer(prompt)
    cipai_m, theme_m = _CIPAI_IN_PROMPT.search(user_message), _THEME_IN_PROMPT.search(user_message)
    labels = {label: key for key, label in corpus.THEMES.items()}
    if cipai_m and theme_m and theme_m.group(1) in labels:
        try:
            name: str | None = corpus.resolve_cipai(cipai_m.group(1))
        except (ValueError, KeyError):  # UnknownCipaiError is a KeyError
            name = None
        if name is not None:
            return corpus.records_by_id()[f"{corpus.SLUGS[name]}-{labels[theme_m.group(1)]}"]["text"]
    example = _tune_example(cipai_m.group(1)) if cipai_m else ""
    if example:
        return example
    raise ValueError(
        "poetone/reference answers only the Songci prompts of poetone's eval set (a 《cipai》 and a 「theme」 "
        f"from the corpus); got: {user_message[:60]!r}…"
    )
