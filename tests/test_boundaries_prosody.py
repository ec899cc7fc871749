"""poetone.prosody at its edges, each on both sides (issue 17): the first and last bit of a mask,
the empty mask, a bit with and without an entry in the neighbour map, tone masks 0 / 1 / 2 / 3,
and the tables read the same under a UTF-8 and an ASCII locale."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import poetone.prosody as P
from poetone.prosody import _tables


def test_widen_of_nothing_is_nothing() -> None:
    assert P.widen(0, P.neighbour_masks("cilin")) == 0
    assert P.widen(0, {}) == 0


def test_widen_keeps_a_bit_the_map_does_not_know() -> None:
    # an invented map: bit 1 rhymes with bit 2; bits 4 and 8 are absent from it
    nb = {1: 3, 2: 3}
    assert P.widen(1, nb) == 3
    assert P.widen(2, nb) == 3
    assert P.widen(4, nb) == 4
    assert P.widen(1 | 8, nb) == 11
    assert P.widen(4 | 8, {}) == 12


def test_widen_does_not_chain_through_a_neighbour() -> None:
    # bit 1 -> {1, 2}; bit 2 -> {2, 4}: widening 1 adds 2 but not 2's own neighbour 4
    nb = {1: 3, 2: 6, 4: 4}
    assert P.widen(1, nb) == 3
    assert P.widen(2, nb) == 6
    assert P.widen(1 | 2, nb) == 7


def test_first_and_last_cilin_bits() -> None:
    nb = P.neighbour_masks("cilin")
    assert min(nb) == 1 and nb[1] == 1  # 第一部: bit 0, alone
    assert max(nb) == 1 << 18 and nb[1 << 18] == (1 << 16) | (1 << 17) | (1 << 18)  # 第十九部
    assert 1 << 19 not in nb


def test_mask_first_and_last_index() -> None:
    assert _tables._mask("0") == 1
    assert _tables._mask("18") == 1 << 18
    assert _tables._mask("0,18") == (1 << 18) + 1
    assert _tables._mask("35") == 1 << 35  # pinyin-final's 36th group


@pytest.mark.parametrize(
    ("char", "mask", "name"),
    [("a", 0, ""), ("东", 1, "平"), ("月", 2, "仄"), ("看", 3, "中")],
)
def test_every_tone_mask_value_and_its_name(char: str, mask: int, name: str) -> None:
    assert P.tone_mask(char) == mask
    assert P.tone_class(char) == name


def test_a_system_is_matched_exactly() -> None:
    assert P.tone_table("modern")["一"] == 1
    for bad in ("modern ", "Modern", "", "classic"):
        with pytest.raises(ValueError):
            P.tone_table(bad)
    assert P.rhyme_table("pinyin-final")
    for bad in ("pinyin", "pinyin_final", "CILIN"):
        with pytest.raises(ValueError):
            P.rhyme_table(bad)


def test_tables_are_read_as_utf8_whatever_the_locale() -> None:
    # in this process (UTF-8 locale) and in one whose locale encoding is ASCII (the C locale with
    # coercion and UTF-8 mode off, like a non-UTF-8 system): the files are UTF-8 either way
    assert "东\t1\t1" in _tables._read("tones.tsv")
    code = (
        "import locale\n"
        "from poetone.prosody import _tables\n"
        "assert locale.getpreferredencoding(False) != 'UTF-8'\n"
        "assert '\\u4e1c\\t1\\t1' in _tables._read('tones.tsv')\n"  # 东; the command line is ASCII
        "assert _tables._read('rhymes-cilin.tsv')[1].startswith('#groups\\t\\u7b2c\\u4e00\\u90e8')\n"  # 第一部
    )
    src = Path(__file__).resolve().parent.parent / "src"
    # the rest of the environment is kept (a mutation run tells the child which mutant is active)
    env = {**os.environ, "PYTHONPATH": str(src), "LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
