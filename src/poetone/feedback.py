"""The critic's faults as a reviser would say them, in Chinese: which line, which position, what
the form wants and what the poem has. Used by the critic-guided revision solver."""

from __future__ import annotations

from typing import Any

_TONE = {"平": "平声", "仄": "仄声", "中": "可平可仄", "": "读音不明"}
_STANZA = {1: "上阕", 2: "下阕"}


def _where(row: dict[str, Any]) -> str:
    stanza = _STANZA.get(row.get("stanza") or 0, "")
    return f"第{row['index']}句" + (f"（{stanza}）" if stanza else "")


def fault_lines(details: dict[str, Any]) -> list[str]:
    """One sentence per fault in ``CriticResult.details()``; empty when the poem keeps the form."""
    out: list[str] = []
    for row in details.get("lines", []):
        text = row.get("text") or ""
        fault = row.get("fault", "")
        if fault == "missing line":
            out.append(f"{_where(row)}缺失：这里应有一句，格律为「{row['expected']}」。")
            continue
        if fault == "superfluous line":
            out.append(f"「{text}」是多出的一句：格律中没有这一句。")
            continue
        if row.get("length_ok") is False:
            out.append(f"{_where(row)}「{text}」有{len(text)}字，应为{row['expected_length']}字（格律「{row['expected']}」）。")
        elif "叠" in fault:
            out.append(f"{_where(row)}「{text}」应重复上一句（叠句）。")
        for tone in row.get("tones", []):
            if not tone["ok"]:
                out.append(
                    f"{_where(row)}第{tone['pos']}字「{tone['char']}」应为{_TONE[tone['expected']]}，实为{_TONE[tone['found']]}。"
                )
        rhyme = row.get("rhyme")
        if rhyme and not rhyme["ok"]:
            found = "、".join(rhyme["found"]) or "不在韵书中"
            want = f"{rhyme['group']}{rhyme['expected_tone']}声" if rhyme["group"] else f"与同韵各句同部的{rhyme['expected_tone']}声"
            out.append(f"{_where(row)}韵脚「{rhyme['char']}」应押{want}韵（韵{rhyme['segment']}），实为{found}。")
    return out


def revision_request(details: dict[str, Any] | None, reason: str = "", copied: bool = False, completion: bool = False) -> str:
    """The message asking for a revision: the faults, or why the answer could not be read."""
    if details is None or not details.get("valid", False):
        return (
            f"你的回答中没有找到合乎要求的词（{reason or '无法识别'}）。"
            "请重新作答，只输出词的正文，不要标题、作者、注释或任何解释。"
        )
    if copied:
        return "你的下阕与原作的下阕大量重复。请另写一个新的下阕，只输出下阕的正文。"
    faults = fault_lines(details)
    if not faults:
        return "这首词已合格律。"
    listed = "\n".join(f"{n}. {f}" for n, f in enumerate(faults, start=1))
    part = "下阕" if completion else "完整作品"
    return f"格律检查发现以下问题：\n{listed}\n请修改这些地方，保持主题和其余词句，输出修改后的{part}（只输出正文）。"
