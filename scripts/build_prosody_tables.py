#!/usr/bin/env python3
"""Generate the prosody tables under src/poetone/prosody/data/.

The runtime (`poetone.prosody`) only reads these TSV files; every decision that
needs tshet-uinh (廣韻), pypinyin or OpenCC is made here, once, so that the
engine is fast and free of heavy dependencies.  See docs/prosody.md.

Usage:  python scripts/build_prosody_tables.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from importlib.metadata import version
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / "src" / "poetone" / "prosody" / "data"

PING, ZE, EITHER = 1, 2, 3

# Code-point ranges of the CJK ideographs we cover (PUA and radicals excluded).
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x3007, 0x3007),  # U+3007 IDEOGRAPHIC NUMBER ZERO
    (0x3400, 0x4DBF),  # Ext A
    (0x4E00, 0x9FFF),  # URO
    (0xF900, 0xFAFF),  # compatibility ideographs
    (0x20000, 0x323AF),  # Ext B-H and compatibility supplement
)

# --- 词林正韵 ------------------------------------------------------------------
# tshet-uinh names a rhyme by its 平聲 member for all four tones (入聲 屋 is
# 韻='東', 聲='入'), merges 真/諄, 寒/桓, 歌/戈 (split only by 呼), calls 欣 '殷',
# and keeps 灰/咍 apart.  祭 泰 夬 廢 are their own rhymes (去聲, plus a few
# stray 平/上 readings of 祭/廢).  Keys below are those tshet-uinh names.

#: 舒聲 (平上去) rhymes -> 部.  佳 and 泰 are split, see `cilin_bu`.
CILIN_SHU: dict[str, int] = {
    "東": 1, "冬": 1, "鍾": 1,
    "江": 2, "陽": 2, "唐": 2,
    "支": 3, "脂": 3, "之": 3, "微": 3, "齊": 3, "灰": 3, "祭": 3, "廢": 3,
    "魚": 4, "虞": 4, "模": 4,
    "皆": 5, "咍": 5, "夬": 5,
    "真": 6, "臻": 6, "文": 6, "殷": 6, "魂": 6, "痕": 6,
    "元": 7, "寒": 7, "刪": 7, "山": 7, "先": 7, "仙": 7,
    "蕭": 8, "宵": 8, "肴": 8, "豪": 8,
    "歌": 9,
    "麻": 10,
    "庚": 11, "耕": 11, "清": 11, "青": 11, "蒸": 11, "登": 11,
    "尤": 12, "侯": 12, "幽": 12,
    "侵": 13,
    "覃": 14, "談": 14, "鹽": 14, "添": 14, "咸": 14, "銜": 14, "嚴": 14, "凡": 14,
}  # fmt: skip

#: 入聲 rhymes, keyed by tshet-uinh's 平聲 name (comment: the 廣韻 入聲 name).
CILIN_RU: dict[str, int] = {
    "東": 15, "冬": 15, "鍾": 15,  # 屋 沃 燭
    "江": 16, "陽": 16, "唐": 16,  # 覺 藥 鐸
    "真": 17, "臻": 17, "庚": 17, "耕": 17, "清": 17, "青": 17,  # 質術 櫛 陌 麥 昔 錫
    "蒸": 17, "登": 17, "侵": 17,  # 職 德 緝
    "文": 18, "殷": 18, "元": 18, "魂": 18, "痕": 18, "寒": 18,  # 物 迄 月 沒 沒 曷末
    "刪": 18, "山": 18, "先": 18, "仙": 18, "鹽": 18, "添": 18,  # 鎋 黠 屑 薛 葉 怗
    "覃": 19, "談": 19, "嚴": 19, "咸": 19, "銜": 19, "凡": 19,  # 合 盍 業 洽 狎 乏
}  # fmt: skip

#: Modern finals that send a 佳/蟹/卦 reading to 第十部 (else 第五部).
JIA_TO_MA_FINALS = frozenset({"a", "ia", "ua"})

#: Fallback for characters with no 廣韻 reading: modern (strict) final -> 部.
CILIN_FALLBACK: dict[str, int] = {
    "ong": 1, "iong": 1,
    "ang": 2, "iang": 2, "uang": 2,
    "i": 3, "er": 3, "ei": 3, "uei": 3,
    "u": 4, "v": 4,
    "ai": 5, "uai": 5,
    "en": 6, "in": 6, "uen": 6, "vn": 6,
    "an": 7, "ian": 7, "uan": 7, "van": 7,
    "ao": 8, "iao": 8,
    "o": 9, "uo": 9, "e": 9, "io": 9, "ve": 9,
    "a": 10, "ia": 10, "ua": 10, "ie": 10, "ê": 10,
    "eng": 11, "ing": 11, "ueng": 11,
    "ou": 12, "iou": 12,
}  # fmt: skip

CHINESE_NUMERALS = "一二三四五六七八九十"


def bu_name(n: int) -> str:
    """第N部 with a Chinese numeral (1..19)."""
    tens, ones = divmod(n, 10)
    num = ("十" if tens else "") + (CHINESE_NUMERALS[ones - 1] if ones else "")
    return f"第{num}部"


CILIN_GROUPS: tuple[str, ...] = tuple(bu_name(n) for n in range(1, 20))

# --- 中华新韵 ------------------------------------------------------------------
XINYUN_FINALS: dict[str, tuple[str, ...]] = {
    "麻": ("a", "ia", "ua"),
    "波": ("o", "e", "uo", "io"),
    "皆": ("ie", "ve", "ê"),
    "开": ("ai", "uai"),
    "微": ("ei", "uei"),
    "豪": ("ao", "iao"),
    "尤": ("ou", "iou"),
    "寒": ("an", "ian", "uan", "van"),
    "文": ("en", "in", "uen", "vn"),
    "唐": ("ang", "iang", "uang"),
    "庚": ("eng", "ing", "ong", "iong", "ueng"),
    "齐": ("i", "er", "v"),
    "支": (),  # -i after zh ch sh r z c s, decided by `xinyun_group`
    "姑": ("u",),
}
XINYUN_GROUPS: tuple[str, ...] = tuple(XINYUN_FINALS)
_XINYUN_BY_FINAL = {f: g for g, fs in XINYUN_FINALS.items() for f in fs}
ZHI_INITIALS = frozenset({"zh", "ch", "sh", "r", "z", "c", "s"})


# --- pure helpers ------------------------------------------------------------
def tone_of_sheng(sheng: str) -> int:
    """廣韻 聲調 -> tone bit: only 平聲 is 平."""
    return PING if sheng == "平" else ZE


def tone_of_pinyin(tone3: str) -> int:
    """TONE3 pinyin -> tone bits; tones 1-2 are 平, 3-4 仄, neutral either."""
    digit = tone3[-1]
    if digit in "12":
        return PING
    if digit in "34":
        return ZE
    return EITHER


def cilin_bu(yun: str, sheng: str, hu: str | None, final: str | None) -> int | None:
    """The 词林正韵 部 (1..19) of one 廣韻 reading.

    佳/蟹/卦 split by the character's modern final (a/ia/ua -> 10, else 5);
    泰 splits by 呼 (合 -> 3, 開 -> 5; 唇音 without 呼 by modern final ai/uai -> 5,
    else 3).
    """
    if sheng == "入":
        return CILIN_RU.get(yun)
    if yun == "佳":
        return 10 if final in JIA_TO_MA_FINALS else 5
    if yun == "泰":
        if hu is None:
            return 5 if final in ("ai", "uai") else 3
        return 3 if hu == "合" else 5
    return CILIN_SHU.get(yun)


def xinyun_group(initial: str, final: str) -> str | None:
    """中华新韵 十四韵 group of a modern syllable (strict initial/final)."""
    if final == "i" and initial in ZHI_INITIALS:
        return "支"
    return _XINYUN_BY_FINAL.get(final)


def split_bits(groups: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """(group index, tone bits) pairs -> (mask as 平, mask as 仄)."""
    ping = ze = 0
    for index, tone in groups:
        if tone & PING:
            ping |= 1 << index
        if tone & ZE:
            ze |= 1 << index
    return ping, ze


# --- source readers (the only code touching the source packages) -------------
def in_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in CJK_RANGES)


#: Characters the 廣韻 (as tshet-uinh lists it) spells with another form (異體): the modern form
#: takes the readings of the listed one instead of falling back to Mandarin. These are the
#: common characters of the 全宋词 that otherwise have no 廣韻 reading; several are 入聲
#: (托 拆 着 匝) that Mandarin would misread as 平.
GUANGYUN_FORMS = {
    "間": "閒", "窗": "窻", "魂": "䰟", "匆": "悤", "劍": "劒", "胸": "胷", "鞍": "鞌", "裙": "裠",
    "托": "託", "拆": "坼", "着": "著", "匝": "帀", "吊": "弔", "碗": "椀", "蒂": "蔕", "溯": "遡",
    "抬": "擡", "享": "亯", "熔": "鎔", "磚": "甎", "婿": "壻", "拿": "拏", "褲": "袴",
}  # fmt: skip


#: 廣韻 readings tshet-uinh does not list for a character at all: 樣 (模樣) is 餘亮切, 去聲 漾韻
#: (the 陽 rhyme's 去聲), so 样 rhymes 仄 in 第二部 (叶梦得 点绛唇 莫学衰翁样).
EXTRA_READINGS: dict[str, list[tuple[str, str, str | None]]] = {
    "樣": [("陽", "去", "開")],
}


def read_guangyun() -> dict[str, list[tuple[str, str, str | None]]]:
    """char -> list of (韻, 聲, 呼) from tshet-uinh's 廣韻 data (plus GUANGYUN_FORMS)."""
    from tshet_uinh import 資料

    out: dict[str, list[tuple[str, str, str | None]]] = {}
    for char in 資料.m字頭檢索:
        readings = {(e.音韻地位.韻, e.音韻地位.聲, e.音韻地位.呼) for e in 資料.query字頭(char)}
        if readings:
            out[char] = sorted(readings, key=str)
    for char, listed in GUANGYUN_FORMS.items():
        if char not in out and listed in out:
            out[char] = out[listed]
    for char, readings in EXTRA_READINGS.items():
        out[char] = sorted(set(out.get(char, [])) | set(readings), key=str)
    return out


def pypinyin_chars() -> list[str]:
    """All characters pypinyin has a reading for, within CJK_RANGES."""
    from pypinyin.pinyin_dict import pinyin_dict

    return [chr(cp) for cp in sorted(pinyin_dict) if in_cjk(cp)]


def read_pinyin(chars: Iterable[str]) -> dict[str, tuple[str, str, str]]:
    """char -> (TONE3 default reading, strict initial, strict final)."""
    from pypinyin import Style, pinyin
    from pypinyin.contrib.tone_convert import to_finals, to_initials

    out: dict[str, tuple[str, str, str]] = {}
    for char in chars:
        got = pinyin(char, style=Style.TONE3, heteronym=False, errors="ignore")
        if got and got[0] and got[0][0]:
            tone3 = got[0][0]
            out[char] = (tone3, to_initials(tone3), to_finals(tone3))
    return out


def read_t2s(chars: Iterable[str]) -> dict[str, str]:
    """char -> its OpenCC t2s form, only where that differs and is one char."""
    import opencc

    conv = opencc.OpenCC("t2s")
    out = {}
    for char in chars:
        simp = conv.convert(char)
        if len(simp) == 1 and simp != char:
            out[char] = simp
    return out


# --- assembly ----------------------------------------------------------------
def script_classes(chars: Iterable[str], t2s: dict[str, str]) -> dict[str, list[str]]:
    """Union-find over char ~ t2s(char): each char -> the members of its class.

    Every member later gets the union of the class's readings, so simplified
    and traditional forms are indistinguishable.
    """
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        parent.setdefault(c, c)
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for char in chars:
        find(char)
    for trad, simp in t2s.items():
        a, b = find(trad), find(simp)
        if a != b:
            parent[max(a, b)] = min(a, b)
    members: dict[str, list[str]] = defaultdict(list)
    for char in sorted(parent):
        members[find(char)].append(char)
    return {char: members[find(char)] for char in parent}


def class_entries(
    members: list[str],
    gy: dict[str, list[tuple[str, str, str | None]]],
    py: dict[str, tuple[str, str, str]],
    pf_index: dict[str, int],
) -> tuple[tuple[int, int], dict[str, tuple[int, int]]]:
    """(classical, modern) tone masks and rhyme masks per system for one class."""
    modern = 0
    classical = 0
    cilin: set[tuple[int, int]] = set()
    pfinal: set[tuple[int, int]] = set()
    xinyun: set[tuple[int, int]] = set()
    for m in members:
        reading = py.get(m)
        final = reading[2] if reading else None
        if reading:
            tone = tone_of_pinyin(reading[0])
            modern |= tone
            if final in pf_index:
                pfinal.add((pf_index[final], tone))
            group = xinyun_group(reading[1], final) if final else None
            if group:
                xinyun.add((XINYUN_GROUPS.index(group), tone))
        for yun, sheng, hu in gy.get(m, ()):
            tone = tone_of_sheng(sheng)
            classical |= tone
            bu = cilin_bu(yun, sheng, hu, final)
            if bu:
                cilin.add((bu - 1, tone))
    if not classical:  # nothing in the 廣韻: modern approximation
        classical = modern
        for m in members:
            reading = py.get(m)
            bu = CILIN_FALLBACK.get(reading[2]) if reading else None
            if bu:
                cilin.add((bu - 1, tone_of_pinyin(reading[0])))
    rhymes = {
        "cilin": split_bits(cilin),
        "pinyin-final": split_bits(pfinal),
        "xinyun": split_bits(xinyun),
    }
    return (classical, modern), rhymes


#: (display name, distribution name) of the sources recorded in each header.
SOURCES = (("tshet-uinh", "tshet-uinh"), ("pypinyin", "pypinyin"), ("OpenCC", "opencc"))


def header(what: str) -> list[str]:
    """First line of every table: what it is and the exact source versions."""
    sources = ", ".join(f"{name} {version(dist)}" for name, dist in SOURCES)
    return [
        f"# poetone prosody {what}; generated by scripts/build_prosody_tables.py from {sources}",
    ]


def bit_indices(mask: int) -> str:
    return ",".join(str(i) for i in range(mask.bit_length()) if mask >> i & 1)


def render_tones(tones: dict[str, tuple[int, int]]) -> str:
    lines = header("tones")
    lines.append("# char\tclassical\tmodern  (0 none, 1 平, 2 仄, 3 either)")
    lines += [f"{c}\t{cl}\t{mo}" for c, (cl, mo) in sorted(tones.items()) if cl or mo]
    return "\n".join(lines) + "\n"


def render_rhymes(system: str, names: tuple[str, ...], rows: dict[str, tuple[int, int]]) -> str:
    lines = header(f"rhymes, system {system}")
    lines.append("#groups\t" + "\t".join(names))
    lines.append("# char\tgroup indices as 平\tgroup indices as 仄  (index into #groups)")
    lines += [f"{c}\t{bit_indices(p)}\t{bit_indices(z)}" for c, (p, z) in sorted(rows.items()) if p or z]
    return "\n".join(lines) + "\n"


def build_tables() -> dict[str, str]:
    """File name -> full text of every generated table (deterministic)."""
    gy = read_guangyun()
    base = set(gy) | set(pypinyin_chars())
    t2s = read_t2s(sorted(base))
    universe = sorted(base | set(t2s.values()))
    py = read_pinyin(universe)
    pf_groups = tuple(sorted({f for _, _, f in py.values() if f}))
    pf_index = {f: i for i, f in enumerate(pf_groups)}
    classes = script_classes(universe, t2s)

    tones: dict[str, tuple[int, int]] = {}
    rhymes: dict[str, dict[str, tuple[int, int]]] = defaultdict(dict)
    done: dict[str, tuple[tuple[int, int], dict[str, tuple[int, int]]]] = {}
    for char in universe:
        members = classes[char]
        key = members[0]
        if key not in done:
            done[key] = class_entries(members, gy, py, pf_index)
        tone_pair, rhyme_rows = done[key]
        tones[char] = tone_pair
        for system, masks in rhyme_rows.items():
            rhymes[system][char] = masks

    names = {"cilin": CILIN_GROUPS, "pinyin-final": pf_groups, "xinyun": XINYUN_GROUPS}
    out = {"tones.tsv": render_tones(tones)}
    for system, group_names in names.items():
        out[f"rhymes-{system}.tsv"] = render_rhymes(system, group_names, rhymes[system])
    return out


def iter_changes(tables: dict[str, str]) -> Iterator[str]:
    for name, text in sorted(tables.items()):
        path = DATA_DIR / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            yield name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if shipped tables are stale")
    args = parser.parse_args(argv)
    tables = build_tables()
    stale = list(iter_changes(tables))
    if args.check:
        for name in stale:
            print(f"stale: {name}", file=sys.stderr)
        return 1 if stale else 0
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    for name, text in sorted(tables.items()):
        (DATA_DIR / name).write_text(text, encoding="utf-8", newline="\n")
        print(f"{name}: {len(text.encode('utf-8')):,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
