"""Reading the answer letter out of a model's reply.

The paper's rule: the answer is one letter A–D; an invalid or empty answer is wrong. We accept the
usual wrappings of one letter ("答案：B", "(B)", "B.", "选B", "**B**", full-width "Ｂ", "B. 海中金")
and nothing else: a reply is valid when, after normalisation, exactly one distinct capital letter
A–D stands alone in it (not inside a Latin word). Two different letters ("A或B", "AB"), no
letter ("海中金"), or an empty reply are invalid, and invalid counts as wrong. Reasoning in
``<think>…</think>`` or ``<thinking>…</thinking>`` is dropped first, and so is everything before
an orphan ``</think>`` (Qwen3's and DeepSeek-R1's chat templates open the block in the prompt, so
the reply holds only its end); an unclosed ``<think>`` leaves no answer.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

LETTERS = "ABCD"

_THINK = re.compile(r"<(think|thinking)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
_MARKUP = re.compile(r"[*_`#>~]")
#: A capital A–D with no Latin letter (or digit) on either side: "B", "(B)", "选B", "B." — not "Answer".
_STANDALONE = re.compile(r"(?<![A-Za-z0-9])([A-D])(?![A-Za-z0-9])")
_BARE_LOWER = re.compile(r"^[(\[]?([a-d])[)\].。:]?$")


def normalise(text: str) -> str:
    """NFKC (full-width letters and punctuation to ASCII), reasoning and Markdown emphasis removed."""
    text = unicodedata.normalize("NFKC", text or "")
    text = _THINK.sub(" ", text)
    if closes := list(_THINK_CLOSE.finditer(text)):  # the end of a block opened by the chat template
        text = text[closes[-1].end() :]
    if _THINK_OPEN.search(text):  # reasoning that never ended: no answer given
        return ""
    return _MARKUP.sub("", text).strip()


def parse_answer(text: str | None) -> str | None:
    """The answer letter, or None when the reply is invalid (no letter, several, empty)."""
    clean = normalise(text or "")
    if not clean:
        return None
    letters = set(_STANDALONE.findall(clean))
    if len(letters) == 1:
        return letters.pop()
    if not letters and (bare := _BARE_LOWER.match(clean)):  # a bare "b" is still one letter
        return bare.group(1).upper()
    return None


def score_reply(reply: str | None, key: str) -> dict[str, Any]:
    """Correct / invalid of one reply against the key letter; invalid is wrong."""
    parsed = parse_answer(reply)
    return {"parsed": parsed, "invalid": parsed is None, "correct": parsed is not None and parsed == key}
