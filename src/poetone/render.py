"""Diagnostics and the text rendering of a critic result, in the field's convention.

○ 平, ● 仄, ◐ either (中); a fault is marked ✗ under its position with what was found.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from poetone import prosody
from poetone.critic import largest_group

if TYPE_CHECKING:
    from poetone.critic import Critic, CriticResult

SYMBOL = {"平": "○", "仄": "●", "中": "◐"}
_CLASS = {prosody.TONE_PING: "平", prosody.TONE_ZE: "仄", prosody.TONE_EITHER: "中", 0: "?"}


def explain(critic: Critic, result: CriticResult) -> dict[str, Any]:
    variant = critic.registry[result.cipai].variant(result.variant)
    if result.stanza is not None:
        tpl = variant.stanzas[result.stanza]
        stanza_of = tuple(result.stanza for _ in tpl)
    else:
        tpl = variant.lines
        stanza_of = variant.stanza_of_line()
    tones = critic._tones
    rows: list[dict[str, Any]] = []
    for i, text in enumerate(result.lines):
        row: dict[str, Any] = {"index": i + 1, "text": text}
        if i >= len(tpl):
            row.update(expected=None, fault="superfluous line")
            rows.append(row)
            continue
        line = tpl[i]
        row.update(stanza=stanza_of[i] + 1, expected=line.spec(), expected_length=line.length, length_ok=len(text) == line.length)
        if not row["length_ok"]:
            row["fault"] = f"{len(text)} characters, the form wants {line.length}"
        elif line.repeat and i > 0 and critic.profile.check_repeats and text != result.lines[i - 1]:
            row["fault"] = "should repeat the line before it (叠)"
        if row["length_ok"]:
            chars = []
            for j, (ch, want) in enumerate(zip(text, line.tones)):
                found = _CLASS[tones.get(ch, 3 if ch == "□" else 0)]
                ok = want == "中" or found == "中" or found == want
                chars.append({"pos": j + 1, "char": ch, "expected": want, "found": found, "ok": ok})
            row["tones"] = chars
        rows.append(row)
    for i in range(len(result.lines), len(tpl)):
        rows.append({"index": i + 1, "text": "", "expected": tpl[i].spec(), "fault": "missing line"})
    rhyme_rows = _rhyme_details(critic, result, tpl)
    for r in rhyme_rows:
        rows[r.pop("line") - 1]["rhyme"] = r
    return {"valid": True, "cipai": result.cipai, "variant": result.variant, "profile": result.profile, "lines": rows}


def _rhyme_details(critic: Critic, result: CriticResult, tpl) -> list[dict[str, Any]]:
    """The rhyme check of every rhyme position, computed exactly as the score computes it."""
    system = critic.profile.rhyme_system
    names = prosody.rhyme_group_names(system)
    options = critic._rhyme_options
    positions = [i for i, line in enumerate(tpl) if line.rhymed and i < len(result.lines) and result.lines[i]]
    segments: dict[str, list[int]] = {}
    for i in positions:
        segments.setdefault(tpl[i].segment if critic.profile.rhyme_by_segment else "*", []).append(i)
    out = []
    for idxs in segments.values():
        which = [(0 if tpl[i].rhyme_tone == "平" else 1) if critic.profile.rhyme_tone_class else 2 for i in idxs]
        masks = [options.get(result.lines[i][-1], (0, 0, 0))[w] for i, w in zip(idxs, which)]
        winner_bit = largest_group(masks)[0]
        winner = names[winner_bit.bit_length() - 1] if winner_bit else None
        for i, mask in zip(idxs, masks):
            ch = result.lines[i][-1]
            out.append(
                {
                    "line": i + 1,
                    "segment": tpl[i].segment,
                    "char": ch,
                    "expected_tone": tpl[i].rhyme_tone,
                    "group": winner,
                    "found": sorted(f"{g}{t}" for g, t in prosody.rhyme_groups(ch, system)),
                    "ok": bool(mask & winner_bit),
                }
            )
    return out


def render_pattern(tones: str) -> str:
    return "".join(SYMBOL[t] for t in tones)


def render_result(result: CriticResult) -> str:
    head = (
        f"{result.cipai}"
        + (f" · {result.variant}" if result.variant else "")
        + f"  conformity {result.conformity:.3f}"
        + f" (structure {result.structure:.3f}, tonal {result.tonal:.3f}, rhyme {result.rhyme:.3f})"
        + f"  [{result.profile}]"
    )
    if not result.valid:
        return head + f"\nINVALID: {result.reason or 'no poem found'}"
    details = result.details()
    out = [head]
    stanza = None
    width = max((len(row["text"] or "（缺）") for row in details["lines"]), default=0)
    pattern_width = max((len((row.get("expected") or "").split(" ")[0]) for row in details["lines"]), default=0)
    for row in details["lines"]:
        if row.get("stanza") and row["stanza"] != stanza:
            if stanza is not None:
                out.append("")
            stanza = row["stanza"]
        expected = row.get("expected") or ""
        pattern, end = ([*expected.split(" ", 1), ""])[:2] if expected else ("", "")
        text = row["text"] or "（缺）"
        symbols = render_pattern(pattern)
        line = f"{text}{'　' * (width - len(text))}  {symbols}{'　' * (pattern_width - len(symbols))}  {end}"
        faults = []
        if row.get("fault"):
            faults.append(row["fault"])
        for c in row.get("tones", []):
            if not c["ok"]:
                faults.append(f"{c['char']}@{c['pos']} wants {c['expected']}, is {c['found']}")
        rh = row.get("rhyme")
        if rh and not rh["ok"]:
            found = "/".join(rh["found"]) or "no rhyme reading"
            faults.append(f"rhyme {rh['char']} ({found}) not in {rh['group'] or '?'}{rh['expected_tone']}")
        if faults:
            line += "  ✗ " + "; ".join(faults)
        out.append(line)
    return "\n".join(out)
