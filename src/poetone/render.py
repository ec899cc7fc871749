"""Diagnostics and the text rendering of a critic result, in the field's convention.

○ 平, ● 仄, ◐ either (中); a fault is marked ✗ under its position with what was found.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from poetone import prosody
from poetone.critic import _positional, largest_group, tone_digit_mask

if TYPE_CHECKING:
    from poetone.critic import Critic, CriticResult

SYMBOL = {"平": "○", "仄": "●", "中": "◐"}
_CLASS = {prosody.TONE_PING: "平", prosody.TONE_ZE: "仄", prosody.TONE_EITHER: "中", 0: "?"}


def explain(critic: Critic, result: CriticResult) -> dict[str, Any]:
    """One row per line, in the poem's order, with the form's missing lines where the alignment
    puts them; ``index`` is the line's place in the form (a superfluous line: its place in the poem)."""
    variant = critic.registry[result.cipai].variant(result.variant)
    if result.stanza is not None:
        tpl = variant.stanzas[result.stanza]
        stanza_of = tuple(result.stanza for _ in tpl)
    else:
        tpl = variant.lines
        stanza_of = variant.stanza_of_line()
    tones = critic._tone_digits
    lines = result.lines
    line_of = result.line_of or _positional(len(lines), len(tpl))
    text_of = {j: lines[i] for i, j in enumerate(line_of) if j >= 0}
    rows: list[dict[str, Any]] = []
    row_of: dict[int, int] = {}  # template line -> its row
    next_line = 0  # the first template line not yet shown

    def missing_up_to(stop: int) -> None:
        nonlocal next_line
        for j in range(next_line, stop):
            if j not in text_of:
                row_of[j] = len(rows)
                rows.append({"index": j + 1, "stanza": stanza_of[j] + 1, "text": "", "expected": tpl[j].spec(), "fault": "missing line"})
                if critic.profile.count_missing:  # its characters count as unmatched in Eq. 4
                    rows[-1]["missing_characters"] = tpl[j].length
        next_line = max(next_line, stop)

    for i, (text, j) in enumerate(zip(lines, line_of)):
        if j < 0:
            rows.append({"index": i + 1, "text": text, "expected": None, "fault": "superfluous line"})
            if critic.profile.count_missing:  # its characters count as unmatched in Eq. 4
                rows[-1]["missing_characters"] = len(text)
            continue
        missing_up_to(j)
        next_line = j + 1
        line = tpl[j]
        row: dict[str, Any] = {"index": j + 1, "text": text}
        row.update(stanza=stanza_of[j] + 1, expected=line.spec(), expected_length=line.length, length_ok=len(text) == line.length)
        if not row["length_ok"]:
            row["fault"] = f"{len(text)} characters, the form wants {line.length}"
        elif line.repeat and j > 0 and critic.profile.check_repeats and text != text_of.get(j - 1):
            row["fault"] = "should repeat the line before it (叠)"
        if row["length_ok"]:
            chars = []
            for pos, (ch, want) in enumerate(zip(text, line.tones)):
                found = _CLASS[tone_digit_mask(tones, ch)]
                ok = want == "中" or found == "中" or found == want
                chars.append({"pos": pos + 1, "char": ch, "expected": want, "found": found, "ok": ok})
            row["tones"] = chars
        row_of[j] = len(rows)
        rows.append(row)
    missing_up_to(len(tpl))
    for r in _rhyme_details(critic, tpl, text_of):
        rows[row_of[r.pop("line") - 1]]["rhyme"] = r
    return {"valid": True, "cipai": result.cipai, "variant": result.variant, "profile": result.profile, "lines": rows}


def _rhyme_details(critic: Critic, tpl, text_of: dict[int, str]) -> list[dict[str, Any]]:
    """The rhyme check of every rhyme position, computed exactly as the score computes it."""
    system = critic.profile.rhyme_system
    names = prosody.rhyme_group_names(system)
    options = critic._rhyme_options
    missing: list[dict[str, Any]] = []
    positions = [j for j, line in enumerate(tpl) if line.rhymed and text_of.get(j)]
    if critic.profile.count_missing:  # a rhyme position of a line the poem lacks is a miss in Eq. 5
        for j, line in enumerate(tpl):
            if line.rhymed and j not in text_of:
                out_missing = {"line": j + 1, "segment": line.segment, "char": "", "expected_tone": line.rhyme_tone}
                missing.append({**out_missing, "group": None, "found": [], "ok": False, "missing": True})
    segments: dict[str, list[int]] = {}
    for j in positions:
        segments.setdefault(tpl[j].segment if critic.profile.rhyme_by_segment else "*", []).append(j)
    out = []
    for idxs in segments.values():
        which = [(0 if tpl[j].rhyme_tone == "平" else 1) if critic.profile.rhyme_tone_class else 2 for j in idxs]
        masks = [options.get(text_of[j][-1], (0, 0, 0))[w] for j, w in zip(idxs, which)]
        winner_bit = largest_group(masks)[0]
        winner = names[winner_bit.bit_length() - 1] if winner_bit else None
        for j, mask in zip(idxs, masks):
            ch = text_of[j][-1]
            out.append(
                {
                    "line": j + 1,
                    "segment": tpl[j].segment,
                    "char": ch,
                    "expected_tone": tpl[j].rhyme_tone,
                    "group": winner,
                    "found": sorted(f"{g}{t}" for g, t in prosody.rhyme_groups(ch, system)),
                    "ok": bool(mask & winner_bit),
                }
            )
    return out + missing


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
        if rh and not rh["ok"] and rh.get("missing"):
            pass  # the line's own fault already says it is missing
        elif rh and not rh["ok"]:
            found = "/".join(rh["found"]) or "no rhyme reading"
            faults.append(f"rhyme {rh['char']} ({found}) not in {rh['group'] or '?'}{rh['expected_tone']}")
        if faults:
            line += "  ✗ " + "; ".join(faults)
        out.append(line)
    return "\n".join(out)
