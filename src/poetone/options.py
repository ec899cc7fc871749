"""Task options as the frameworks pass them, read alike by the Inspect and lm-eval adapters."""

from __future__ import annotations

from typing import Any


def parse_names(value: Any, what: str = "cipai") -> list[str] | None:
    """A list of names from a task option: ``-T cipai=念奴娇,水调歌头`` arrives as one string, a
    YAML list as a list, and a value YAML reads as a number or a boolean (``-T cipai=123``) as
    that, to be named like any unknown name. None or "" is no filter; a value that names nothing
    (" ", ",") is an error rather than a silent "all"."""
    if value is None or value == "":
        return None
    items = [str(v) for v in value] if isinstance(value, list | tuple | set | frozenset) else str(value).split(",")
    names = [v.strip() for v in items if v.strip()]
    if not names:
        raise ValueError(f"{what}={value!r} names no {what}: give one or more, comma-separated, or leave it out")
    return names
