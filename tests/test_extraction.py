"""extract_poem: find the poem in a model's raw answer, never cut inside it."""

from __future__ import annotations

import pytest

from poetone import Critic
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
