"""extract_poem: find the poem in a model's raw answer, never cut inside it."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from pypinyin import Style, lazy_pinyin

from poetone import Critic
from poetone.corpus import load_records
from poetone.extraction import Extraction, extract_poem

POEM = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？\n无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
CHIBI = (
    "大江东去，浪淘尽，千古风流人物。\n故垒西边，人道是，三国周郎赤壁。\n乱石穿空，惊涛拍岸，卷起千堆雪。\n"
    "江山如画，一时多少豪杰。\n遥想公瑾当年，小乔初嫁了，雄姿英发。\n羽扇纶巾，谈笑间，樯橹灰飞烟灭。\n"
    "故国神游，多情应笑我，早生华发。\n人生如梦，一尊还酹江月。"
)


def verse(text: str) -> str:
    """The poem with layout removed, to compare extractions that may differ only in line breaks."""
    return "".join(text.split())


def extracted(text: str, cipai: str = "浣溪沙") -> str:
    ex = extract_poem(text, cipai)
    assert ex.valid, ex.reason
    return ex.poem


def test_bare_poem_is_returned_as_is() -> None:
    ex = extract_poem(POEM, "浣溪沙")
    assert ex == Extraction(POEM, True, "", clean=True)


def test_surrounding_whitespace_is_stripped() -> None:
    assert extracted("\n\n  " + POEM + "  \n") == POEM


# --- reasoning blocks -----------------------------------------------------------------------------


def test_closed_think_block_is_dropped() -> None:
    text = "<think>用户要我写浣溪沙。先想平仄，再想韵脚。\n我写春愁。</think>\n" + POEM
    assert extracted(text) == POEM


def test_thinking_tag_variant_is_dropped() -> None:
    assert extracted("<thinking>想一想</thinking>\n" + POEM) == POEM


def test_unclosed_think_after_poem_is_dropped() -> None:
    assert extracted(POEM + "\n<think>我再检查一下平仄，第一句") == POEM


def test_unclosed_think_alone_is_invalid() -> None:
    ex = extract_poem("<think>我想想平仄，先写一句春风又绿江南岸", "浣溪沙")
    assert not ex.valid
    assert ex.poem == ""


def test_closing_think_without_opening_drops_what_precedes() -> None:
    text = "首先分析格律，上阕三句，皆押平韵。\n春风又绿江南岸，明月何时照我还。\n</think>\n" + POEM
    assert extracted(text) == POEM


def test_uppercase_think_tags() -> None:
    assert extracted("<THINK>平仄</THINK>\n" + POEM) == POEM


# --- markdown, titles, authors, labels -------------------------------------------------------------


def test_markdown_bold_headers_and_code_fence() -> None:
    text = "# 浣溪沙\n\n**一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？**\n\n**无可奈何花落去，似曾相识燕归来。小园香径独徘徊。**"
    assert extracted(text) == POEM
    assert extracted("```\n" + POEM + "\n```") == POEM
    assert extracted("```text\n" + POEM + "\n```\n") == POEM
    assert extracted("> " + POEM.replace("\n", "\n> ")) == POEM


@pytest.mark.parametrize("header", ["## 春恨", "### 词作", "# 新作"], ids=["h2-title", "h3-label", "h1-label"])
def test_markdown_header_line_is_dropped(header: str) -> None:
    """BUG: a markdown header of Han characters is kept as the poem's first line."""
    assert extracted(f"{header}\n\n{POEM}") == POEM


def test_markdown_list_marks() -> None:
    text = "- 一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？\n- 无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
    assert extracted(text) == POEM


@pytest.mark.parametrize(
    "title", ["《浣溪沙》", "《浣溪沙·春恨》", "《春恨》", "【浣溪沙】", "浣溪沙·春恨", "浣溪沙 春恨", "浣溪沙"]
)
def test_title_line_with_blank_line_is_dropped(title: str) -> None:
    assert extracted(f"{title}\n\n{POEM}") == POEM


@pytest.mark.parametrize(
    "title", ["《浣溪沙》", "《春恨》", "浣溪沙"], ids=["book-title-cipai", "book-title-theme", "bare-cipai"]
)
def test_title_line_directly_above_the_poem_is_dropped(title: str) -> None:
    """BUG: without a blank line the fast path (bare verse) strips 《》 and keeps the title as verse."""
    assert extracted(f"{title}\n{POEM}") == POEM


def test_cipai_title_line_directly_above_is_dropped() -> None:
    assert extracted("浣溪沙·春恨\n" + POEM) == POEM
    assert extracted("《浣溪沙·春恨》\n" + POEM) == POEM


@pytest.mark.parametrize("author", ["宋·晏殊", "（宋）·晏殊", "——晏殊", "—— 晏殊", "作者：晏殊", "-- 晏殊"])
def test_author_lines_are_dropped(author: str) -> None:
    assert extracted(f"{author}\n{POEM}") == POEM
    assert extracted(f"{POEM}\n{author}") == POEM


def test_author_line_of_su_shi() -> None:
    for author in ("宋·苏轼", "——苏轼", "作者：苏轼"):
        assert extracted(f"《念奴娇·赤壁怀古》\n{author}\n\n{CHIBI}", "念奴娇") == CHIBI


@pytest.mark.parametrize("label", ["词作：", "作品：", "正文：", "全词："])
def test_label_on_its_own_line_or_inline(label: str) -> None:
    assert extracted(f"{label}\n{POEM}") == POEM
    assert extracted(label + POEM) == POEM


def test_stanza_labels() -> None:
    text = (
        "上阕：一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？\n下阕：无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
    )
    assert extracted(text) == POEM
    text = (
        "上阕\n一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？\n下阕\n无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
    )
    assert extracted(text) == POEM
    text = "上片：\n一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？\n下片：\n无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
    assert extracted(text) == POEM


# --- notes, appreciation, analysis ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "tail",
    [
        "注：亭台，指园中亭阁。\n徘徊，来回走动。",
        "注释：\n1. 亭台：园中亭阁。\n2. 徘徊：来回走动。",
        "赏析\n此词上片写景，下片抒情。\n花落燕归，时光流转，物是人非。",
        "【赏析】\n花落燕归，时光流转。",
        "解析：\n这首词通过对景物的描写，表达了惜春之情。",
        "译文：\n听一曲新词，饮一杯美酒。",
        "创作思路：春日感怀，由酒及花。",
    ],
)
def test_notes_and_appreciation_are_dropped(tail: str) -> None:
    assert extracted(f"{POEM}\n\n{tail}") == POEM
    assert extracted(f"{POEM}\n{tail}") == POEM


def test_appreciation_in_verse_like_clauses_is_dropped() -> None:
    # short clauses of pure Han after a 赏析 header look like verse; they belong to the notes
    text = POEM + "\n\n赏析\n花落燕归，时光流转，物是人非，惆怅无限。\n小园独步，情思绵绵。"
    assert extracted(text) == POEM


def test_chain_of_thought_then_poem() -> None:
    text = (
        "好的，我先分析浣溪沙的格律：双调四十二字，上片三句三平韵，下片三句两平韵。\n"
        "平仄：中仄中平中仄平，中平中仄仄平平。\n"
        "韵脚选第三部：杯、台、回、来、徊。\n\n" + POEM + "\n\n"
        "这首词上片写景，下片抒情，符合格律。"
    )
    assert extracted(text) == POEM


def test_chain_of_thought_in_think_then_poem() -> None:
    text = (
        "<think>\n浣溪沙的格律是：上片三句，句句押韵。\n第一句平仄：中仄中平中仄平。\n"
        "我想写春天。先写酒，再写花。\n</think>\n\n" + POEM
    )
    assert extracted(text) == POEM


@pytest.mark.parametrize(
    "intro", ["好的，下面是我创作的浣溪沙：", "好的，这是一首浣溪沙。"], ids=["colon", "full-stop"]
)
def test_preamble_sentence_is_dropped(intro: str) -> None:
    """BUG: a model's one-line preamble made of Han clauses is kept as the poem's first line."""
    assert extracted(f"{intro}\n\n{POEM}") == POEM


def test_pinyin_and_english_lines_are_dropped() -> None:
    text = (
        "Here is a ci poem to the tune Huan Xi Sha:\n"
        "yī qǔ xīn cí jiǔ yī bēi\n" + POEM + "\nA new song, a cup of wine.\nI hope you enjoy it."
    )
    assert extracted(text) == POEM


def test_interleaved_pinyin_lines_are_dropped() -> None:
    """BUG: a pinyin line under each verse line splits the poem; only its largest part is kept."""
    lines = POEM.split("\n")
    text = f"{lines[0]}\nyī qǔ xīn cí jiǔ yī bēi\n{lines[1]}\nwú kě nài hé huā luò qù"
    assert verse(extracted(text)) == verse(POEM)


# --- never cut inside the poem ------------------------------------------------------------------------


def test_a_stray_accented_letter_inside_a_line_is_a_lacuna_and_the_line_stays() -> None:
    # 全宋词, 华岳 渔家傲: 回ò绎 (mojibake for a lost character); before, the line split the poem
    text = "昨夜寿星朝北极。牵牛织女排筵席。闻有谪仙先一夕。方知得。凮流倬底人生日。\n慷慨英雄当路识。鹗书已凝循京秩。试问遐龄谁与敌。回ò绎。撇头添个长长十。"
    e = extract_poem(text, "渔家傲")
    assert e.valid and e.poem.endswith("回□绎。撇头添个长长十。") and e.poem.startswith("昨夜寿星")
    noisy = "好的：\n\n" + text.replace("\n", "\n\n") + "\n\n希望你喜欢。"
    assert extract_poem(noisy, "渔家傲").poem.replace("\n", "") == e.poem.replace("\n", "")
    pinyin = "春风又绿江南岸，\nchūn fēng yòu lǜ jiāng nán àn\n明月何时照我还。"
    assert extract_poem(pinyin).poem == "春风又绿江南岸，\n明月何时照我还。"  # pinyin untouched: dropped


def test_line_with_wo_is_kept() -> None:
    ex = extracted(CHIBI, "念奴娇")
    assert ex == CHIBI
    assert "多情应笑我，早生华发。" in ex
    assert ex.endswith("一尊还酹江月。")


def test_line_with_wo_is_kept_in_noisy_answer() -> None:
    text = "<think>写念奴娇</think>\n# 念奴娇·赤壁怀古\n\n" + CHIBI + "\n\n注：周郎，指周瑜。"
    assert extracted(text, "念奴娇") == CHIBI


def test_line_with_ni_is_kept() -> None:
    poem = "我问你何时归去，你说春风又绿江南。\n此去经年，应是良辰好景虚设。"
    assert extracted(poem, "") == poem
    assert extracted("《无题》\n\n" + poem + "\n\n注：良辰，美好的时光。", "") == poem


def test_theme_like_words_inside_verse_are_kept() -> None:
    poem = "主人下马客在船，举酒欲饮无管弦。\n醉不成欢惨将别，别时茫茫江浸月。"
    assert extracted(poem, "") == poem


def test_title_quoted_inside_a_line_keeps_its_words() -> None:
    poem = "独倚危楼，吹《伊凉》一曲，月明中。\n人不见，泪沾巾。"
    assert extracted(poem, "") == "独倚危楼，吹伊凉一曲，月明中。\n人不见，泪沾巾。"
    noisy = "<think>草稿</think>\n" + poem
    assert extracted(noisy, "") == "独倚危楼，吹伊凉一曲，月明中。\n人不见，泪沾巾。"


# --- no poem ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "\n\t \u3000\n",
        "I cannot write a poem about that. Here is some English prose instead.",
        "Sure! Here is your poem:\n\nThe river flows east, the waves wash away the heroes.",
        "抱歉，我无法完成这个请求。",
        "对不起，作为一个人工智能语言模型，我不能创作这首词。",
        "<think>只有思考，没有答案</think>",
        "，。？！",
        "春风",
    ],
)
def test_no_poem_is_invalid(text: str) -> None:
    ex = extract_poem(text, "浣溪沙")
    assert ex.valid is False
    assert ex.poem == ""
    assert ex.reason


@pytest.mark.parametrize(
    "second", ["如果您有其他问题，我很乐意帮忙。", "请换一个话题吧。"], ids=["offer-help", "change-topic"]
)
def test_two_line_refusal_is_invalid(second: str) -> None:
    """BUG: the refusal line is dropped and the polite second line is taken for the poem."""
    ex = extract_poem(f"抱歉，我无法为您创作这首词。\n{second}", "浣溪沙")
    assert ex.valid is False, ex
    assert ex.poem == ""


@pytest.mark.parametrize("value", [None, 42, b"\xe6\x98\xa5"])
def test_non_string_is_invalid(value: object) -> None:
    ex = extract_poem(value, "浣溪沙")  # type: ignore[arg-type]
    assert ex.valid is False


def test_critic_scores_invalid_output_zero(critic: Critic) -> None:
    for text in ("", "抱歉，我无法完成这个请求。", "I will not write that.", "<think>…</think>"):
        r = critic.score("浣溪沙", text)
        assert r.valid is False
        assert (r.conformity, r.structure, r.tonal, r.rhyme) == (0.0, 0.0, 0.0, 0.0)
        assert r.variant is None
        assert r.reason
        assert r.as_dict()["valid"] is False
        assert r.lines == ()


# --- harmless wrapping never drops or lowers a real poem -------------------------------------------

Record = dict[str, str]


def _per_line(text: str, edit: Callable[[str], str]) -> str:
    return "\n".join(edit(line) for line in text.split("\n"))


def _inside(line: str, chars: str) -> str:
    """``chars`` after the second character of a verse line: inside its first clause."""
    return line[:2] + chars + line[2:]


def _pinyin(line: str) -> str:
    return " ".join(lazy_pinyin(line, style=Style.TONE, errors="ignore"))


def _one_line(r: Record) -> str:
    return r["text"].replace("\n", "")


#: Each wrapper turns a corpus record into a model answer holding its poem. The first group already
#: worked; the others dropped the poem (score 0) or scored a label or a title as verse.
WRAPPERS: dict[str, Callable[[Record], str]] = {
    # already worked
    "code-fence": lambda r: "```\n" + r["text"] + "\n```",
    "code-fence-lang": lambda r: "```text\n" + r["text"] + "\n```\n",
    "think": lambda r: f"<think>用户要我写{r['cipai']}。先想平仄，再想韵脚。</think>\n\n" + r["text"],
    "think-orphan-close": lambda r: "先想平仄，再想韵脚。\n</think>\n\n" + r["text"],
    "markdown-header": lambda r: f"# {r['cipai']}·{r['title']}\n\n" + r["text"],
    "markdown-bold": lambda r: _per_line(r["text"], lambda ln: f"**{ln}**"),
    "numbered-lines": lambda r: "\n".join(f"{i}. {ln}" for i, ln in enumerate(r["text"].split("\n"), 1)),
    "bulleted-lines": lambda r: _per_line(r["text"], lambda ln: "- " + ln),
    "title-and-author": lambda r: f"《{r['cipai']}·{r['title']}》\n宋·{r['poet']}\n\n" + r["text"],
    "notes": lambda r: r["text"] + "\n\n注释：\n1. 此词上片写景。\n2. 下片抒情，情景交融。",
    "appreciation": lambda r: r["text"] + "\n\n【赏析】\n此词上片写景，下片抒情。",
    "preamble-line": lambda r: f"好的，下面是我创作的{r['cipai']}：\n\n" + r["text"] + "\n\n希望你喜欢！",
    "pinyin-lines": lambda r: _per_line(r["text"], lambda ln: ln + "\n" + _pinyin(ln)),
    "translation-en": lambda r: r["text"] + "\n\nTranslation:\nA new song, a cup of wine.\nThe old pavilion.",
    "translation-zh": lambda r: r["text"] + "\n\n译文：\n听一曲新词，饮一杯美酒。",
    "english-around": lambda r: f"Here is a ci to the tune {r['cipai']}:\n\n" + r["text"] + "\n\nI hope you enjoy it.",
    "blockquote": lambda r: _per_line(r["text"], lambda ln: "> " + ln),
    "quote-marks": lambda r: "“" + r["text"] + "”",
    "corner-quotes": lambda r: "「" + r["text"] + "」",
    # JSON answers
    "json-poem": lambda r: json.dumps({"poem": r["text"]}, ensure_ascii=False),
    "json-ci": lambda r: json.dumps({"title": r["title"], "ci": r["text"]}, ensure_ascii=False),
    "json-text-indented": lambda r: json.dumps({"cipai": r["cipai"], "text": r["text"]}, ensure_ascii=False, indent=2),
    "json-ascii-escapes": lambda r: json.dumps({"poem": r["text"]}),
    "json-fenced": lambda r: (
        "```json\n" + json.dumps({"title": r["title"], "poem": r["text"]}, ensure_ascii=False) + "\n```"
    ),
    "json-list-of-lines": lambda r: json.dumps({"poem": r["text"].split("\n")}, ensure_ascii=False),
    "json-nested": lambda r: json.dumps({"result": {"cipai": r["cipai"], "poem": r["text"]}}, ensure_ascii=False),
    "json-unknown-key": lambda r: json.dumps({"title": r["title"], "词的内容": r["text"]}, ensure_ascii=False),
    "json-raw-newline": lambda r: '{"poem": "' + r["text"] + '"}',
    "json-in-prose": lambda r: "好的：\n" + json.dumps({"poem": r["text"]}, ensure_ascii=False) + "\n希望你喜欢！",
    # a chat prefix on the poem's own line
    "chat-prefix-zh-one-line": lambda r: f"好的，这是我写的{r['cipai']}：" + _one_line(r),
    "chat-prefix-en-one-line": lambda r: "Here is my ci: " + _one_line(r),
    "chat-prefix-zh": lambda r: f"好的，这是我写的{r['cipai']}：" + r["text"],
    "cipai-colon-one-line": lambda r: f"{r['cipai']}：" + _one_line(r),
    # HTML and other line breaks
    "br": lambda r: r["text"].replace("\n", "<br>"),
    "br-slash": lambda r: r["text"].replace("\n", "<br/>\n"),
    "br-space-slash": lambda r: r["text"].replace("\n", "<br />"),
    "html-paragraphs": lambda r: "".join(f"<p>{ln}</p>" for ln in r["text"].split("\n")),
    "poem-tags": lambda r: "<poem>" + r["text"] + "</poem>",
    "crlf": lambda r: r["text"].replace("\n", "\r\n") + "\r\n",
    "line-separator": lambda r: r["text"].replace("\n", "\u2028"),
    # characters that carry no verse, inside a line
    "bom": lambda r: "\ufeff" + r["text"],
    "zero-width-space": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "\u200b")),
    "zero-width-joiner": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "\u200d")),
    "zero-width-non-joiner": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "\u200c")),
    "word-joiner": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "\u2060")),
    "soft-hyphen": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "\u00ad")),
    "bidi-mark": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "\u200e")),
    "variation-selector": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "\ufe0f")),
    "ideographic-variation-selector": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "\U000e0100")),
    "combining-mark": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "\u0301")),
    "nul": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "\x00")),
    "control-characters": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "\x07\x1c\x7f")),
    "emoji": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "🌸")),
    "emoji-at-line-end": lambda r: _per_line(r["text"], lambda ln: ln + "🌙✨"),
    "emoji-zwj-sequence": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "👨\u200d👩\u200d👧👍🏻")),
    "dingbats": lambda r: _per_line(r["text"], lambda ln: _inside(ln, "❀★")),
    # label lines and headings are not verse
    "label-cipai": lambda r: f"词牌：{r['cipai']}\n" + r["text"],
    "label-cipai-name": lambda r: f"词牌名：{r['cipai']}\n" + r["text"],
    "label-title": lambda r: f"题目：{r['title']}\n" + r["text"],
    "label-biaoti": lambda r: f"标题：{r['title']}\n" + r["text"],
    "label-theme": lambda r: f"主题：{r['theme_label']}\n" + r["text"],
    "labels-all": lambda r: f"**词牌：** {r['cipai']}\n标题：{r['title']}\n主题：{r['theme_label']}\n\n" + r["text"],
    "inline-heading": lambda r: f"《{r['cipai']}》" + r["text"],
    "inline-heading-space": lambda r: f"《{r['cipai']}》 " + r["text"],
    "inline-heading-titled": lambda r: f"《{r['cipai']}·{r['title']}》" + r["text"],
    # all at once
    "combined": lambda r: (
        f"<think>先想平仄。</think>\n好的，这是我写的{r['cipai']}：\n\n```\n《{r['cipai']}·{r['title']}》\n"
        f"词牌：{r['cipai']}\n"
        + _per_line(r["text"], lambda ln: "\ufeff**" + _inside(ln, "\u200b🌸") + "**")
        + "\n```\n\n注释：\n1. 此词上片写景。"
    ),
}


@pytest.fixture(scope="module")
def bare_scores(critic: Critic) -> list[tuple[Record, float]]:
    """Every corpus poem with the critic's score of the poem as printed."""
    scored = [(r, critic.score(r["cipai"], r["text"])) for r in load_records()]
    assert len(scored) == 120 and all(s.valid and s.conformity > 0.5 for _, s in scored)
    return [(r, s.conformity) for r, s in scored]


@pytest.mark.parametrize("wrapper", list(WRAPPERS))
def test_harmless_wrapping_scores_as_the_bare_poem(
    wrapper: str, critic: Critic, bare_scores: list[tuple[Record, float]]
) -> None:
    """Over the 120 corpus poems, a wrapped answer scores as its bare poem within 0.005."""
    wrap = WRAPPERS[wrapper]
    off = []
    for record, bare in bare_scores:
        got = critic.score(record["cipai"], wrap(record)).conformity
        if abs(got - bare) > 0.005:
            off.append(f"{record['id']} {got - bare:+.3f}")
    assert not off, f"{wrapper}: {len(off)} of {len(bare_scores)} poems score otherwise: {off[:5]}"


NO_VERSE_CHARS = {
    "bom": "\ufeff", "zwsp": "\u200b", "zwnj": "\u200c", "zwj": "\u200d", "word-joiner": "\u2060",
    "soft-hyphen": "\u00ad", "vs16": "\ufe0f", "combining": "\u0301", "nul": "\x00", "x1e": "\x1e",
    "emoji": "🌸", "flag": "🇨🇳",
}  # fmt: skip


@pytest.mark.parametrize("name", list(NO_VERSE_CHARS))
def test_characters_without_verse_are_removed_and_the_poem_is_clean(name: str) -> None:
    chars = NO_VERSE_CHARS[name]
    text = _per_line(POEM, lambda ln: chars + _inside(ln, chars) + chars)
    assert extract_poem(text, "浣溪沙") == Extraction(POEM, True, "", clean=True)


def test_only_invisible_characters_is_invalid() -> None:
    for text in ("\u200b\ufeff", "🌸🌸🌸", "\x00\x00", "\u2060\n\u200d"):
        ex = extract_poem(text, "浣溪沙")
        assert not ex.valid and ex.poem == "" and ex.reason


def test_lone_surrogate_is_removed() -> None:
    assert extracted("\ud800" + _inside(POEM, "\udfff")) == POEM


def test_json_nested_lists_of_lines() -> None:
    stanzas = [line.split("。", 1) for line in POEM.split("\n")]
    lines = [line for stanza in stanzas for line in stanza]
    assert extracted(json.dumps({"poem": stanzas}, ensure_ascii=False)) == "\n".join(lines)
    assert not extract_poem("[[{}]]", "浣溪沙").valid


def test_shortcut_never_skips_a_character_to_remove() -> None:
    """The ordinary-text shortcut of the normalisation covers no character the full scan removes."""
    from poetone.extraction import _NO_VERSE_CHARS, _ORDINARY

    leaked = [hex(c) for c in range(0x30000) if _ORDINARY.fullmatch(chr(c)) and _NO_VERSE_CHARS.match(chr(c))]
    assert not leaked


def test_json_poem_keeps_its_layout() -> None:
    assert extracted(json.dumps({"poem": POEM}, ensure_ascii=False)) == POEM
    assert extracted(json.dumps({"poem": POEM.split("\n")})) == POEM
    assert extracted(json.dumps([POEM], ensure_ascii=False)) == POEM


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000,
        "[" * 100_000 + "]" * 100_000,
        '{"a":' * 50_000 + "1" + "}" * 50_000,
        "[" * 900 + '"春风"' + "]" * 900,
    ],
    ids=["open-brackets", "deep-list", "deep-object", "deep-but-decodable"],
)
def test_deeply_nested_json_is_no_crash(text: str) -> None:
    assert not extract_poem(text, "浣溪沙").valid
    assert extracted(text + "\n\n" + POEM) == POEM


def test_json_without_a_poem_is_read_as_text() -> None:
    # a fragment that looks like JSON but holds no poem loses nothing around it
    assert extracted("参见 [1]。\n\n" + POEM) == POEM
    assert extracted('{"note": "抱歉"}\n\n' + POEM) == POEM
    assert extracted('{"poem": 42}\n' + POEM) == POEM


@pytest.mark.parametrize(
    "text",
    [
        '{"answer": "抱歉，我无法完成这个请求。"}',
        '{"error": "rate limit exceeded"}',
        '["抱歉，我无法完成这个请求。"]',
        "<p>抱歉，我无法完成这个请求。</p>",
        "Sure! Here is your poem: The river flows east, the waves wash away the heroes.",
        "好的，这是我写的浣溪沙：抱歉我写不出。",
        "好的，这是我写的浣溪沙：\n\n希望你喜欢！",
        "好的，平仄如下：中仄中平中仄平，中平中仄仄平平。",
        "Here is the tone pattern: 中仄中平中仄平，中平中仄仄平平。",
        "分析：中仄中平中仄平，中平中仄仄平平。",
        "词牌：浣溪沙\n题目：春恨\n主题：离愁",
        "Title: 春恨",
        "《浣溪沙》",
        "Here is my ci: 春风",
    ],
)
def test_wrapped_prose_stays_invalid(text: str) -> None:
    ex = extract_poem(text, "浣溪沙")
    assert not ex.valid, ex
    assert ex.poem == ""


def test_chat_prefix_before_a_translation_is_not_taken_for_verse() -> None:
    text = POEM + "\n\n以下是白话译文：听一曲新词，饮一杯美酒。"
    assert extracted(text) == POEM


@pytest.mark.parametrize(
    "label",
    ["词牌：浣溪沙", "词牌名：浣溪沙", "题目：春恨", "标题：春恨", "主题：离愁", "Title: 春恨"],
    ids=["cipai", "cipai-name", "timu", "biaoti", "zhuti", "english-title"],
)
def test_label_lines_are_not_verse(label: str) -> None:
    assert extracted(f"{label}\n{POEM}") == POEM
    assert extracted(f"{label}\n\n{POEM}") == POEM


@pytest.mark.parametrize(
    "heading",
    ["《浣溪沙》", "《浣溪沙》 ", "《浣溪沙·春恨》", "【浣溪沙】", "《浣溪沙》："],
    ids=["book-title", "book-title-space", "cipai-and-title", "lenticular", "book-title-colon"],
)
def test_inline_heading_is_not_verse(heading: str) -> None:
    assert extracted(heading + POEM) == POEM
    assert extracted("<think>草稿</think>\n" + heading + POEM) == POEM


def test_quoted_title_opening_a_verse_line_stays() -> None:
    """张先 天仙子 opens 《水调》数声持酒听: a title quoted in verse is not a heading."""
    poem = "《水调》数声持酒听，午醉醒来愁未醒。\n送春春去几时回，临晚镜，伤流景，往事后期空记省。"
    assert extracted(poem, "天仙子").startswith("水调数声持酒听，")
