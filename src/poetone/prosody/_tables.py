"""Lazy, cached readers for the generated TSV tables in ``data/``.

Kept apart from the API so that importing ``poetone.prosody`` costs nothing:
files are read on first use only, once per process.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

TONES_FILE = "tones.tsv"


def _read(name: str) -> list[str]:
    return (files(__package__) / "data" / name).read_text(encoding="utf-8").splitlines()


@cache
def tones() -> dict[str, dict[str, int]]:
    """tone system -> (char -> tone mask); one pass over tones.tsv for both systems."""
    classical: dict[str, int] = {}
    modern: dict[str, int] = {}
    for line in _read(TONES_FILE):
        if line.startswith("#"):
            continue
        char, cl, mo = line.split("\t")
        if cl != "0":
            classical[char] = int(cl)
        if mo != "0":
            modern[char] = int(mo)
    return {"classical": classical, "modern": modern}


def _mask(indices: str) -> int:
    mask = 0
    if indices:
        for i in indices.split(","):
            mask |= 1 << int(i)
    return mask


@cache
def rhymes(system: str) -> tuple[tuple[str, ...], dict[str, tuple[int, int]]]:
    """(group names, char -> (平 mask, 仄 mask)) from rhymes-<system>.tsv."""
    names: tuple[str, ...] = ()
    table: dict[str, tuple[int, int]] = {}
    for line in _read(f"rhymes-{system}.tsv"):
        if line.startswith("#groups\t"):
            names = tuple(line.split("\t")[1:])
        elif not line.startswith("#"):
            char, ping, ze = line.split("\t")
            table[char] = (_mask(ping), _mask(ze))
    return names, table
