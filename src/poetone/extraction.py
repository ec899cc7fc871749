"""Find the poem in a model's raw answer.

Models wrap poems in reasoning (``<think>``), markdown, HTML, JSON, titles, author lines, labels,
chat preambles, notes and appreciation, and sprinkle invisible characters and emoji. We keep only
the poem, and we never cut inside it: a line is dropped for what it *is* (a title, a label, prose,
pinyin), never for a word it contains (the official PoeTone cleaner cut 念奴娇 at 多情应笑我
because it stopped at any line holding 我 or 你), and never for a character that carries no verse.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import regex

from poetone._chars import GARBLED, GARBLED_RE, LACUNA, VERSE

# Characters that are neither verse nor a clause mark, removed before anything else so that they
# never make a verse line look like prose: format characters (BOM, zero-width space, joiners, word
# joiner, soft hyphen, bidi marks: Cf), combining marks and variation selectors (Mn, Me), emoji and
# pictographs (with their modifiers, flags, and the symbol and dingbat blocks: ❀ ★ ♪), and the control
# characters other than tab and line breaks (NUL, the information separators \x1c-\x1f, C1), lone
# surrogates (a broken decoding), and the 66 noncharacters (U+FDD0-FDEF, U+FFFE, U+10FFFF, …: never
# text). Unassigned code points in general stay: a Han character newer than the Unicode tables is one.
# ``regex`` knows the Unicode properties; removing one never joins two clauses or cuts one.
_NO_VERSE_CHARS = regex.compile(
    r"[\p{Cf}\p{Cs}\p{Mn}\p{Me}\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u2600-\u27bf"
    r"\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\p{Noncharacter_Code_Point}]+"
)
# Characters that are certainly not among those (ASCII, Latin letters, CJK and fullwidth punctuation, verse):
# a text of these alone skips the slower Unicode-property scan.
_ORDINARY = re.compile(rf"[\t\n\x20-\x7e\u00b7\u00c0-\u024f\u2010-\u2027\u3000-\u3029\uff01-\uff5e{VERSE}]*")
# Every other way of breaking a line becomes "\n", so lines are split on "\n" alone.
_LINE_BREAK = re.compile(r"\r\n?|[\x0b\x0c\x85\u2028\u2029]|<br\s*/?>", re.I)
# HTML around the poem: block tags break the line, other tags (<b>, <poem>, <answer>) are dropped.
_BLOCK_TAG = re.compile(r"</?(?:p|div|li|ul|ol|h[1-6]|tr|td|table|blockquote|pre|section|article)\b[^<>\n]*>", re.I)
_OTHER_TAG = re.compile(r"</?[A-Za-z][\w-]{0,30}(?:\s[^<>\n]*)?/?>")
# A JSON answer: the poem is under one of these keys (case ignored), first found first.
_POEM_KEYS = (
    "poem", "ci", "text", "content", "poem_text", "ci_text", "body", "lyrics", "verse", "answer", "output",
    "response", "result", "词", "词作", "正文", "全文", "全词", "内容", "作品", "诗词",
)  # fmt: skip
_JSON = json.JSONDecoder(strict=False)  # strict=False: raw newlines inside a string, as models write them
_JSON_START = re.compile(r"[{\[]")
_JSON_TRIES = 4
_JSON_DEPTH = 8

_THINK_CLOSED = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.S | re.I)
_THINK_OPEN = re.compile(r"<think(?:ing)?>.*", re.S | re.I)
_THINK_TAIL = re.compile(r"^.*?</think(?:ing)?>", re.S | re.I)
_CODE_FENCE = re.compile(r"^\s*```.*$", re.M)
_MARKDOWN = re.compile(r"[*_`#>~|]+")
_LIST_MARK = re.compile(r"^\s*(?:[-+•·・]\s+|\d+[.)、]\s*|[（(]?[一二三四五六七八九十]+[)）、.]\s*)")
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
# What the three repairs above look for: a text without any of these needs none of them (most answers).
_TO_REPAIR = re.compile(f"[{GARBLED}\u00c0-\u024f（(]")
_LATIN = re.compile(r"[A-Za-zāáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜü]")
_CLAUSE_SPLIT = re.compile(r"[，。？！；：、,.?!;:\s]+")
_QUOTES = re.compile(r"[“”‘’\"'「」『』]")
_TITLE_LINE = re.compile(r"^[《〈【\[].*[》〉】\]]$")
_TITLE_LINE_ANYWHERE = re.compile(r"^\s*[《〈].*[》〉][\s。.]*$", re.M)
_HEADER = re.compile(r"^\s*#{1,6}\s")
_PREAMBLE = re.compile(r"[：:]\s*$")
# A label whose value is the poem (词作：一曲新词…) and one whose value is not (词牌：浣溪沙, 题目：春恨).
_LABEL = re.compile(
    r"^(?:词作|作品|正文|全词|原词|词|新作|创作|成品|最终作品|最终词作|下阕续写|续写|上阕|下阕|上片|下片|前阕|后阕|前段|后段"
    r"|第[一二]阕|第[一二]片)[\s]*[：:]\s*"
)
_META_LABEL = re.compile(
    r"^(?:词牌名?|曲牌|调名|题目|标题|副标题|题|主题|作者|朝代|体裁|韵部|用韵|字数"
    r"|title|tune|cipai|theme|topic|author|poet|subject)\s*[：:]",
    re.I,
)
# A heading at the start of a line, the poem following on the same line: 《浣溪沙》一曲新词…
_HEADING = re.compile(r"^[ \t\u3000]*[《〈【]([^《》〈〉【】\n]{1,30})[》〉】][ \t\u3000]*(?:[：:][ \t\u3000]*)?", re.M)
_SECTION_LABEL = re.compile(r"^(?:上阕|下阕|上片|下片|前阕|后阕|前段|后段|第[一二]阕|第[一二]片)$")
_AUTHOR_LINE = re.compile(
    r"^(?:[—–-]{1,2}\s*\S{1,8}|[（(]?(?:宋|唐|五代|南宋|北宋|元|明|清)\s*[·・.]\s*\S{1,6}[)）]?|作者[：:].*)$"
)
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
# A chat preamble before a colon on the poem's own line (好的，这是我写的浣溪沙：一曲新词…, Here is my ci: …):
# words that introduce a poem, and those that introduce an analysis or a translation instead.
_INTRO_WORDS = re.compile(r"这是|如下|我(?:写|作|填|创作)|一首|一阕|一阙|为你|给你|请看|请欣赏")
_NOT_INTRO_WORDS = re.compile(
    r"平仄|押韵|韵脚|韵部|句式|仄韵|平韵|韵律|注释|注解|赏析|鉴赏|解析|解读|译文|翻译|创作背景|创作思路|分析|思路"
)
_INTRO_COLON = re.compile(r"[：:]")
_CLAUSE_MARK = re.compile(r"[，。？！；、,.?!;]")
_TONE_PATTERN = re.compile(r"[平仄中○●◐⊙，。？！；、,.?!;\s]+")  # 中仄中平中仄平，…: a form, not a poem
_MAX_CLAUSE = 12
_MIN_HAN = 4
# A text that is nothing but verse: clauses of 1-12 characters between clause marks, one or more lines.
_VERSE_LINE = rf"[{_HAN_CLASS}]{{1,{_MAX_CLAUSE}}}(?:[，。？！；、,.?!; \t\u3000]+[{_HAN_CLASS}]{{1,{_MAX_CLAUSE}}})*[，。？！；、,.?!; \t\u3000]*"
_PLAIN_VERSE = re.compile(rf"{_VERSE_LINE}(?:\n{_VERSE_LINE})*")
# A line of verse once its quotes are gone: clauses of 1-12 verse characters between the marks
# _CLAUSE_SPLIT splits at (what _is_poem_line asks of every clause).
_POEM_LINE_BODY = re.compile(
    rf"[，。？！；：、,.?!;:\s]*[{_HAN_CLASS}]{{1,{_MAX_CLAUSE}}}(?:[，。？！；：、,.?!;:\s]+[{_HAN_CLASS}]{{1,{_MAX_CLAUSE}}})*[，。？！；：、,.?!;:\s]*"
)
# At least _MIN_HAN verse characters (in a text already known to be plain verse): stops at the fourth.
_ENOUGH_HAN = re.compile(rf"(?:[^{_HAN_CLASS}]*[{_HAN_CLASS}]){{{_MIN_HAN}}}")


@dataclass(frozen=True, slots=True)
class Extraction:
    """The poem found (``""`` when none) and why, for the log."""

    poem: str
    valid: bool
    reason: str = ""
    #: the poem holds nothing but verse characters and clause marks (scorers may skip cleaning)
    clean: bool = False


def _strip_reasoning(text: str) -> str:
    if "<" not in text:  # no tag at all (most answers): nothing to strip
        return text
    text = _THINK_CLOSED.sub("\n", text)
    if re.search(r"</think(?:ing)?>", text, re.I):
        text = _THINK_TAIL.sub("\n", text)
    return _THINK_OPEN.sub("\n", text)


def _is_poem_line(line: str) -> bool:
    """Verse: no Latin, no prose or analysis words, and (quotes aside) clauses of 1-12 verse
    characters between clause marks (one regex, where splitting and counting cost a call a clause)."""
    if _LATIN.search(line) or _PROSE_WORDS.search(line) or _ANALYSIS_WORDS.search(line):
        return False
    return _POEM_LINE_BODY.fullmatch(_QUOTES.sub("", line)) is not None


def _clean_line(line: str) -> str:
    line = _MARKDOWN.sub("", line).strip()
    line = _LIST_MARK.sub("", line).strip()
    # 《》 inside a line quote a title within the poem (作《伊凉》): keep the words, drop the marks.
    return line.replace("《", "").replace("》", "").replace("〈", "").replace("〉", "")


def extract_poem(text: str, cipai: str = "") -> Extraction:
    """Return the poem in ``text``: the largest block of verse lines, stanza breaks kept as newlines."""
    if not isinstance(text, str) or not text.strip():
        return Extraction("", False, "empty output")
    found = _bare_poem(text, cipai)  # the common case first, untouched: three C-level scans
    if found is not None:
        return found
    normal = _normalize(text)
    if not normal.strip():
        return Extraction("", False, "no poem found (only invisible characters, emoji or controls)")
    found = _bare_poem(normal, cipai) if normal != text else None
    return found or _wrapped_poem(normal, cipai)


def _normalize(text: str) -> str:
    """One kind of line break, and no character that carries no verse (invisibles, emoji, controls)."""
    text = _LINE_BREAK.sub("\n", text)
    return text if _ORDINARY.fullmatch(text) else _NO_VERSE_CHARS.sub("", text)


def _strip_headings(text: str, cipai: str) -> str:
    """Drop a 《浣溪沙》 or 《浣溪沙·春恨》 heading at the start of a line; a quoted title (《水调》数声) stays."""

    def heading(m: re.Match[str]) -> str:
        name = m.group(1).strip()
        named = bool(cipai) and (name == cipai or (name.startswith(cipai) and name[len(cipai)] in "·・. ：:"))
        return "" if named or "·" in name or "・" in name else m.group(0)

    return _HEADING.sub(heading, text)


def _bare_poem(text: str, cipai: str) -> Extraction | None:
    """The text when it is nothing but verse (``clean``); None when it needs the line-by-line reading."""
    plain = _repaired(text.strip())
    if "《" in plain:
        plain = _strip_headings(plain, cipai).strip()
        # a title quoted inside a verse line (作《伊凉》) keeps its words; a title line is no verse
        plain = "" if _TITLE_LINE_ANYWHERE.search(plain) else plain.replace("《", "").replace("》", "")
    first = plain.split("\n", 1)[0].strip()
    if (
        plain
        and _PLAIN_VERSE.fullmatch(plain)
        and not _NOT_VERSE_WORDS.search(plain)
        and not (cipai and (first == cipai or first.startswith(cipai)))
    ):
        # plain verse has at least one clause; is it long enough to be a poem?
        if _ENOUGH_HAN.match(plain):
            return Extraction(plain, True, "", clean=True)
        return _verdict(plain.split("\n"))
    return None


def _repaired(text: str) -> str:
    """Garbled characters and stray accented letters as lacunae, editors' bracketed notes dropped."""
    if not _TO_REPAIR.search(text):
        return text
    return _BRACKETED.sub("", _STRAY_LATIN.sub(LACUNA, GARBLED_RE.sub(LACUNA, text)))


def _json_texts(text: str) -> list[str]:
    """The strings of a JSON answer (``{"poem": …}``, a list of lines, fenced or not) that may be its poem."""
    for n, start in enumerate(_JSON_START.finditer(text)):
        if n == _JSON_TRIES:
            break
        try:
            value, _ = _JSON.raw_decode(text, start.start())
        except (ValueError, RecursionError):  # not JSON, or nested deeper than the decoder goes
            continue
        if isinstance(value, dict | list) and (texts := [t for t in _texts_of(value) if t.strip()]):
            return texts[:_JSON_TRIES]
    return []


def _texts_of(value: object, depth: int = 0) -> list[str]:
    """Best first: the value of a poem key, then the other strings, longest first; a list of lines is one text."""
    if isinstance(value, str):
        return [value]
    if depth == _JSON_DEPTH:
        return []  # no model nests its poem this deep
    if isinstance(value, list):
        if all(isinstance(v, str | list) for v in value):
            return ["\n".join(v if isinstance(v, str) else next(iter(_texts_of(v, depth + 1)), "") for v in value)]
        return [t for v in value for t in _texts_of(v, depth + 1)]
    if isinstance(value, dict):
        keyed = {str(k).strip().lower(): v for k, v in value.items()}
        first = [t for key in _POEM_KEYS if key in keyed for t in _texts_of(keyed[key], depth + 1)]
        rest = [t for key, v in keyed.items() if key not in _POEM_KEYS for t in _texts_of(v, depth + 1)]
        return first + sorted(rest, key=len, reverse=True)
    return []


def _after_intro(line: str, cipai: str) -> str:
    """The verse after a chat preamble on the same line (好的，这是我写的浣溪沙：…), or the line itself."""
    colon = _INTRO_COLON.search(line)
    if colon is None:
        return line
    head, tail = line[: colon.start()], line[colon.end() :].strip()
    if not _CLAUSE_MARK.search(tail) or _NOT_INTRO_WORDS.search(head) or _TONE_PATTERN.fullmatch(tail):
        return line
    intro = not head.strip() or _PROSE_WORDS.search(head) or _LATIN.search(head) or _INTRO_WORDS.search(head)
    if (intro or (cipai and cipai in head)) and _is_poem_line(_clean_line(tail)):
        return tail
    return line


def _wrapped_poem(text: str, cipai: str, depth: int = 0) -> Extraction:
    """Read a wrapped answer line by line: every line that is verse, in blocks; the largest block wins."""
    text = _strip_reasoning(text)
    if depth < 2 and ("{" in text or "[" in text):
        for inner in map(_normalize, _json_texts(text)):
            found = _bare_poem(inner, cipai) or _wrapped_poem(inner, cipai, depth + 1)
            if found.valid:
                return found
        # no poem in it: the answer is read as text, a JSON-looking fragment loses nothing
    if "<" in text:
        text = _OTHER_TAG.sub("", _BLOCK_TAG.sub("\n", text))
    text = _repaired(_CODE_FENCE.sub("", text))
    if "《" in text or "〈" in text or "【" in text:
        text = _strip_headings(text, cipai)
    blocks: list[list[str]] = [[]]
    for raw in text.split("\n"):
        stripped = _MARKDOWN.sub("", raw).strip()
        if not stripped or _HEADER.match(raw):
            continue  # blank lines separate stanzas; a markdown header is a title
        if not _HAN.search(stripped):
            continue  # pinyin or English between verse lines: dropped, the poem goes on
        if _NOTES.match(stripped):
            blocks.append([])  # a notes or analysis section: nothing of it is verse
            continue
        if _META_LABEL.match(stripped):
            continue  # 词牌：浣溪沙, 题目：春恨: about the poem, not of it
        stripped = _after_intro(stripped, cipai)
        if _TITLE_LINE.match(stripped) or _AUTHOR_LINE.match(stripped) or _SECTION_LABEL.match(stripped):
            continue
        if cipai and stripped.startswith(cipai):
            named = re.match(rf"{re.escape(cipai)}\s*[·・.：:\s]", stripped)
            if stripped == cipai or named:
                rest = stripped[named.end() :].strip() if named else ""
                if not (_CLAUSE_MARK.search(rest) and _is_poem_line(_clean_line(rest))):
                    continue  # 浣溪沙·春恨 is a title; 浣溪沙 一曲新词酒一杯，… keeps its verse
                stripped = rest
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
    found = [b for b in blocks if b]
    if len(found) > 1:  # the largest block wins, the later of two equal ones
        sizes = [(sum(len(_HAN.findall(ln)) for ln in b), i) for i, b in enumerate(blocks)]
        return _verdict(blocks[max(sizes)[1]])
    return _verdict(found[0] if found else [])  # a block's every line holds verse: one block is the largest


def _verdict(lines: list[str]) -> Extraction:
    # the characters of its clauses (what is left once the marks are gone); _MIN_HAN of them make
    # at least one clause
    han = len(_CLAUSE_SPLIT.sub("", "".join(lines)))
    if han < _MIN_HAN:
        return Extraction("", False, "no poem found" if not lines else f"too short to be a poem ({han} characters)")
    return Extraction("\n".join(lines), True)
