"""Find the poem in a model's raw answer.

Models wrap poems in reasoning (``<think>``), markdown, titles, author lines, labels, notes and
appreciation. We keep only the poem, and we never cut inside it: a line is dropped for what it
*is* (a title, a label, prose, pinyin), never for a word it contains (the official PoeTone cleaner
cut 念奴娇 at 多情应笑我 because it stopped at any line holding 我 or 你).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from poetone._chars import GARBLED, GARBLED_RE, LACUNA, VERSE

_THINK_CLOSED = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.S | re.I)
_THINK_OPEN = re.compile(r"<think(?:ing)?>.*", re.S | re.I)
_THINK_TAIL = re.compile(r"^.*?</think(?:ing)?>", re.S | re.I)
_CODE_FENCE = re.compile(r"^\s*```.*$", re.M)
_MARKDOWN = re.compile(r"[*_`#>~|]+")
_LIST_MARK = re.compile(r"^\s*(?:[-+•]\s+|\d+[.)、]\s*|[（(]?[一二三四五六七八九十]+[)）、.]\s*)")
# Verse characters: Han, the lacuna □, and characters garbled in transmission (kana, box drawing,
# U+FFFD, private use), which stand for a lost Han character in old editions.
_HAN_CLASS = VERSE + GARBLED
_HAN = re.compile(f"[{_HAN_CLASS}]")
# An editor's or a model's note in brackets inside the text: （和陈漕使仙湖韵）, （下缺）, (注：…).
_BRACKETED = re.compile(r"（[^（）\n]{0,40}）|\([^()\n]{0,40}\)")
#: One or two accented Latin letters between two Han characters (回ò绎): mojibake standing for a
#: lost character, kept as a lacuna so the line stays in the poem. Pinyin lines are not touched:
#: their letters are never flanked by Han on both sides.
_STRAY_LATIN = re.compile(f"(?<=[{_HAN_CLASS}])[\u00c0-\u024f]{{1,2}}(?=[{_HAN_CLASS}])")
_LATIN = re.compile(r"[A-Za-zāáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜü]")
_CLAUSE_SPLIT = re.compile(r"[，。？！；：、,.?!;:\s]+")
_TITLE_LINE = re.compile(r"^[《〈【\[].*[》〉】\]]$")
_TITLE_LINE_ANYWHERE = re.compile(r"^\s*[《〈].*[》〉][\s。.]*$", re.M)
_HEADER = re.compile(r"^\s*#{1,6}\s")
_PREAMBLE = re.compile(r"[：:]\s*$")
_LABEL = re.compile(
    r"^(?:词作|作品|正文|全词|原词|词|新作|创作|成品|最终作品|最终词作|下阕续写|续写|上阕|下阕|上片|下片|前阕|后阕|前段|后段"
    r"|第[一二]阕|第[一二]片|词牌|词牌名|题目|标题|题|主题|作者)[\s]*[：:]\s*"
)
_SECTION_LABEL = re.compile(r"^(?:上阕|下阕|上片|下片|前阕|后阕|前段|后段|第[一二]阕|第[一二]片)$")
_AUTHOR_LINE = re.compile(r"^(?:[—–-]{1,2}\s*\S{1,8}|[（(]?(?:宋|唐|五代|南宋|北宋|元|明|清)\s*[·・.]\s*\S{1,6}[)）]?|作者[：:].*)$")
_NOTES = re.compile(
    r"^(?:【\s*)?(?:注|注释|注解|註|赏析|鉴赏|解析|解读|说明|简析|译文|白话译文|翻译|创作背景|创作思路|创作说明|写作思路"
    r"|分析|格律分析|平仄分析|韵脚|押韵|思路|附注|备注|按|Note|Notes|Analysis|Explanation|Translation)"
    r"\s*(?:】|[：:]|\d|$)",
    re.I,
)
_ANALYSIS_WORDS = re.compile(
    r"平仄|押韵|韵脚|韵部|格律|词牌|句式|仄韵|平韵|韵律|上阕|下阕|上片|下片|本词|这首|以下"
    r"|注释|注解|赏析|鉴赏|解析|解读|译文|翻译|创作背景|创作思路"
)
# Words of a modern answer, never of a Song poem (您 is a modern character).
_PROSE_WORDS = re.compile(
    r"抱歉|对不起|作为一个|人工智能|语言模型|我无法为|无法完成|希望你喜欢|您|帮忙|其他问题"
    r"|好的|下面是|以下是|这是一首|为你创作|创作了|仿作|原创|吧|话题"
)
_NOT_VERSE_WORDS = re.compile(f"{_PROSE_WORDS.pattern}|{_ANALYSIS_WORDS.pattern}")
_MARK_CHARS = "，。？！；、,.?!; \t\u3000\n"
_MAX_CLAUSE = 12
_MIN_CLAUSES = 1
_MIN_HAN = 4
# A text that is nothing but verse: clauses of 1-12 characters between clause marks, one or more lines.
_VERSE_LINE = rf"[{_HAN_CLASS}]{{1,{_MAX_CLAUSE}}}(?:[，。？！；、,.?!; \t\u3000]+[{_HAN_CLASS}]{{1,{_MAX_CLAUSE}}})*[，。？！；、,.?!; \t\u3000]*"
_PLAIN_VERSE = re.compile(rf"{_VERSE_LINE}(?:\n{_VERSE_LINE})*")


@dataclass(frozen=True, slots=True)
class Extraction:
    """The poem found (``""`` when none) and why, for the log."""

    poem: str
    valid: bool
    reason: str = ""
    #: the poem holds nothing but verse characters and clause marks (scorers may skip cleaning)
    clean: bool = False


def _strip_reasoning(text: str) -> str:
    text = _THINK_CLOSED.sub("\n", text)
    if re.search(r"</think(?:ing)?>", text, re.I):
        text = _THINK_TAIL.sub("\n", text)
    return _THINK_OPEN.sub("\n", text)


def _is_poem_line(line: str) -> bool:
    if _LATIN.search(line) or _PROSE_WORDS.search(line) or _ANALYSIS_WORDS.search(line):
        return False
    body = re.sub(r"[“”‘’\"'「」『』]", "", line)
    clauses = [c for c in _CLAUSE_SPLIT.split(body) if c]
    if not clauses:
        return False
    for c in clauses:
        han = len(_HAN.findall(c))
        if han == 0 or han != len(c) or han > _MAX_CLAUSE:
            return False
    return True


def _clean_line(line: str) -> str:
    line = _MARKDOWN.sub("", line).strip()
    line = _LIST_MARK.sub("", line).strip()
    # 《》 inside a line quote a title within the poem (作《伊凉》): keep the words, drop the marks.
    return line.replace("《", "").replace("》", "").replace("〈", "").replace("〉", "")


def extract_poem(text: str, cipai: str = "") -> Extraction:
    """Return the poem in ``text``: the largest block of verse lines, stanza breaks kept as newlines."""
    if not isinstance(text, str) or not text.strip():
        return Extraction("", False, "empty output")
    plain = _BRACKETED.sub("", _STRAY_LATIN.sub(LACUNA, GARBLED_RE.sub(LACUNA, text.strip())))
    if "《" in plain:
        # a title quoted inside a verse line (作《伊凉》) keeps its words; a title line is no verse
        plain = "" if _TITLE_LINE_ANYWHERE.search(plain) else plain.replace("《", "").replace("》", "")
    first = plain.split("\n", 1)[0].strip()
    if (
        plain
        and _PLAIN_VERSE.fullmatch(plain)
        and not _NOT_VERSE_WORDS.search(plain)
        and not (cipai and (first == cipai or first.startswith(cipai)))
    ):
        # The common case, a bare poem: checked in three C-level scans, no per-line work.
        marks = sum(plain.count(m) for m in _MARK_CHARS)
        if marks >= _MIN_CLAUSES - 1 and len(plain) - marks >= _MIN_HAN:
            return Extraction(plain, True, "", clean=True)
        return _verdict(plain.splitlines())
    text = _BRACKETED.sub("", _STRAY_LATIN.sub(LACUNA, GARBLED_RE.sub(LACUNA, _CODE_FENCE.sub("", _strip_reasoning(text)))))
    blocks: list[list[str]] = [[]]
    for raw in text.splitlines():
        stripped = _MARKDOWN.sub("", raw).strip()
        if not stripped or _HEADER.match(raw):
            continue  # blank lines separate stanzas; a markdown header is a title
        if not _HAN.search(stripped):
            continue  # pinyin or English between verse lines: dropped, the poem goes on
        if _NOTES.match(stripped):
            blocks.append([])  # a notes or analysis section: nothing of it is verse
            continue
        if _TITLE_LINE.match(stripped) or _AUTHOR_LINE.match(stripped) or _SECTION_LABEL.match(stripped):
            continue
        if cipai and (stripped == cipai or re.match(rf"^{re.escape(cipai)}\s*[·・.：:\s]", stripped)):
            continue
        if _PREAMBLE.search(stripped) and not _LABEL.match(stripped):
            if blocks[-1]:
                blocks.append([])
            continue  # "下面是我创作的浣溪沙：" introduces the poem and is not part of it
        line = _clean_line(_LABEL.sub("", stripped))
        if not line:
            continue
        if _is_poem_line(line):
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    sizes = [(sum(len(_HAN.findall(ln)) for ln in b), i) for i, b in enumerate(blocks)]
    return _verdict(blocks[max(sizes)[1]])


def _verdict(lines: list[str]) -> Extraction:
    clauses = [c for ln in lines for c in _CLAUSE_SPLIT.split(ln) if c]
    han = sum(len(c) for c in clauses)
    if len(clauses) < _MIN_CLAUSES or han < _MIN_HAN:
        return Extraction("", False, "no poem found" if not lines else f"too short to be a poem ({han} characters)")
    return Extraction("\n".join(lines), True)
