"""The critic cannot be gamed: text that is not verse in the form is invalid, and what is missing counts.

Thresholds come from the 全宋词 (benchmarks/derive_degeneracy.py); the poems that go furthest on
each measure are quoted here and must pass.
"""

from __future__ import annotations

import itertools
import operator
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from poetone import Critic, degeneracy
from poetone._chars import LACUNA
from poetone.bon import select
from poetone.corpus import load_records
from poetone.logs import Candidate
from poetone.reward import conformity_reward
from poetone.songci import score_answer, split_stanzas
from poetone.validation import DEGENERATE_KINDS, chance_level, degenerate_suite, fits_exactly, gaming_report

CIPAI_20 = sorted(Critic().registry)
HAN = "春花秋月何时了往事知多少小楼昨夜又东风故国不堪回首明中大江去浪淘尽千古流人物白一国寻觅冷清凄惨戚"
MARKS = ["，", "。", "、", "？", "！", "；", "\n", "。\n", " "]

A = "啊" * 7
FILLER_HUANXISHA = f"{A}，{A}，{A}。{A}，{A}，{A}。"

# The authentic poems that go furthest on the rule's measures (全宋词, quoted exactly).
FURTHEST = {
    "李清照 声声慢 (叠字)": (
        "声声慢",
        "寻寻觅觅，冷冷清清，凄凄惨惨戚戚。乍暖还寒时候，最难将息。三杯两盏淡酒，怎敌他、晚来风急！雁过也，正伤心，却是旧时相识。"
        "\n满地黄花堆积，憔悴损，如今有谁堪摘？守着窗儿，独自怎生得黑！梧桐更兼细雨，到黄昏、点点滴滴。这次第，怎一个愁字了得！",
    ),
    "王齐愈 菩萨蛮 (回文: every character twice, distinct share 0.43)": (
        "菩萨蛮",
        "老人愁叹惊年早。早年惊叹愁人老。霜点鬓苍苍。苍苍鬓点霜。酒杯停欲久。久欲停杯酒。杯酒唤眉开。开眉唤酒杯。",
    ),
    "陈著 一剪梅 (福唐体: 年 at every rhyme, line ends 0.75)": (
        "一剪梅",
        "记得儿时识景年。翕忽光阴，二十馀年。梅边聚首又三年。结得因缘。五百来年。"
        "\n把酒君前欲问年。笑指松椿，当是同年。愿从今后八千年。长似今年。长似今年。",
    ),
    "蒋捷 声声慢 (福唐体: 声 at every rhyme)": (
        "声声慢",
        "黄花深巷，红叶低窗，凄凉一片秋声。豆雨声来，中间夹带风声。疏疏二十五点，丽谯门、不锁更声。故人远，问谁摇玉佩，檐底铃声。"
        "\n彩角声吹月堕，渐连营马动，四起笳声。闪烁邻灯，灯前尚有砧声。知他诉愁到晓，碎哝哝、多少蛩声。诉未了，把一半、分与雁声。",
    ),
    "陆游 钗头凤 (叠句 错、错、错)": (
        "钗头凤",
        "红酥手，黄縢酒，满城春色宫墙柳。东风恶，欢情薄。一怀愁绪，几年离索。错、错、错。"
        "\n春如旧，人空瘦，泪痕红浥鲛绡透。桃花落，闲池阁。山盟虽在，锦书难托。莫、莫、莫！",
    ),
}

# Forms the resource does not know yet, checked on the rule alone (their clauses as printed).
FURTHEST_LINES = {
    "李清照 如梦令 (叠句 知否，知否)": "昨夜雨疏风骤。浓睡不消残酒。试问卷帘人，却道海棠依旧。知否。知否。应是绿肥红瘦。",
    "贺铸 相思引 (repeated line share 0.71)": "团扇单衣杨柳陌。花似春风□无迹。赖白玉香奁供汾泽。借秀色。添春色。借秀色。添春色。"
    "云幕华灯张绮席。半醉客。留醒客。半醉客。留醒客。渐促膝倾鬟琴差拍。问此夕。知何夕。问此夕。知何夕。",
    "晏几道 长相思 (长相思 twice)": "长相思。长相思。若问相思甚了期。除非相见时。长相思。长相思。欲把相思说似谁。浅情人不知。",
}


def clauses(text: str) -> list[str]:
    import re

    return [c for c in re.split(r"[^\u4e00-\u9fff□]+", text) if c]


@pytest.fixture(scope="module")
def critic() -> Critic:
    return Critic()


# --- the examples of the issue ------------------------------------------------------------------


def test_one_character_in_the_shape_is_invalid(critic: Critic) -> None:
    r = critic.score("浣溪沙", FILLER_HUANXISHA)
    assert (r.conformity, r.valid) == (0.0, False)
    assert r.reason.startswith("degenerate:") and "1 distinct character" in r.reason
    assert "INVALID: degenerate" in r.render()


@pytest.mark.parametrize("mark", ["□", "\ufffd", "ア", "─"])
def test_lacunae_and_garbled_marks_are_invalid(critic: Critic, mark: str) -> None:
    line = mark * 7
    r = critic.score("浣溪沙", f"{line}，{line}，{line}。{line}，{line}，{line}。")
    assert not r.valid and r.reason.startswith("degenerate:")


def test_a_repetition_loop_is_invalid(critic: Critic) -> None:
    r = critic.score("浣溪沙", "春风春风春风春，" * 6)
    assert not r.valid and r.reason.startswith("degenerate:")


def test_one_clause_alone_keeps_no_credit_for_the_rest(critic: Critic) -> None:
    r = critic.score("浣溪沙", "一曲新词酒一杯，")
    assert r.valid
    # structure 1/6; 7 of 42 characters; 1 of 5 rhyme positions
    assert r.conformity == pytest.approx(0.4 / 6 + 0.3 * 7 / 42 + 0.3 / 5)
    nian = critic.score("念奴娇", "大江东去，浪淘尽，千古风流人物。故垒西边，人道是，三国周郎赤壁。")
    assert nian.conformity <= 0.3


def test_random_characters_with_every_line_ending_alike_are_invalid(critic: Critic) -> None:
    text = "春花秋月何时来，往事知多少来，小楼昨夜东风来。故国不堪回首来，明中大江去来，浪淘尽千古来。"
    r = critic.score("浣溪沙", text)
    assert not r.valid and "end in 来" in r.reason


# --- authentic poems pass -------------------------------------------------------------------------


@pytest.mark.parametrize("key", list(FURTHEST))
def test_the_furthest_authentic_poems_pass(critic: Critic, key: str) -> None:
    cipai, text = FURTHEST[key]
    r = critic.score(cipai, text)
    assert r.valid, r.reason
    assert r.conformity >= 0.9


@pytest.mark.parametrize("key", list(FURTHEST_LINES))
def test_the_furthest_forms_pass_the_rule(key: str) -> None:
    assert degeneracy.degenerate_reason(clauses(FURTHEST_LINES[key])) == ""


def test_corpus_poems_pass(critic: Critic) -> None:
    bad = [(r["id"], res.reason) for r in load_records() if not (res := critic.score(r["cipai"], r["text"])).valid]
    assert bad == []


# --- every threshold, on both sides -----------------------------------------------------------------


def lines_of(*parts: str) -> list[str]:
    return list(parts)


def test_distinct_characters_boundary() -> None:
    assert degeneracy.degenerate_reason(["春风春风"]).startswith("degenerate: 2 distinct")
    assert degeneracy.degenerate_reason(["春风雨", "雨风春"]) == ""  # 3 distinct, share 0.5, no run of three twice


def test_distinct_share_boundary() -> None:
    # 10 characters: 4 distinct is the threshold exactly (kept), 3 would be below 3 distinct... use 20
    at = ["春夏秋冬冬", "秋夏春春夏"]  # 4 distinct of 10 = 0.40: not below
    assert degeneracy.degenerate_reason(at) == ""
    below = ["春夏秋冬春夏", "秋冬春夏秋冬"]  # 4 of 12 = 0.33
    assert "distinct characters in 12" in degeneracy.degenerate_reason(below)


def test_lacuna_share_boundary() -> None:
    two_of_five = ["□□山水云", "花月□□风"]  # 4 of 10 = 0.40: not above
    assert degeneracy.degenerate_reason(two_of_five) == ""
    above = ["□□山水云", "花月□□□"]  # 5 of 10
    assert "5 of 10 characters are lost" in degeneracy.degenerate_reason(above)


def test_lost_rhyme_share_boundary() -> None:
    lines = ["江山如画□", "春风又绿□", "明月照高楼", "落花人独立", "微雨燕双飞"]
    assert degeneracy.degenerate_reason(lines, ["□", "□", "楼", "立"]) == ""  # half the rhymes: not above
    assert "3 of 4 rhyme positions" in degeneracy.degenerate_reason(
        [*lines[:2], "明月照高□", *lines[3:]], ["□", "□", "□", "立"]
    )
    assert degeneracy.degenerate_reason(lines, ["□", "□", "楼"]) == ""  # fewer than four rhyme positions


def test_same_line_boundary() -> None:
    assert degeneracy.degenerate_reason(["明月几时有", "明月几时有", "把酒问青天", "不知天上阙"]) == ""  # 2 of 4
    assert "fills 3 of 5 lines" in degeneracy.degenerate_reason(["明月几时有"] * 3 + ["把酒问青天", "不知天上阙"])


def test_repeated_line_boundary() -> None:
    three_of_four = ["明月几时有", "把酒问青天", "明月几时有", "不知天上阙"]
    assert degeneracy.degenerate_reason(three_of_four) == ""
    six_of_eight = ["明月", "青天", "明月", "青天", "宫阙", "何年", "宫阙", "归去"]  # 0.75: not above
    assert degeneracy.degenerate_reason(six_of_eight) == ""
    stanza_twice = ["明月几时有", "把酒问青天", "不知天上阙", "今夕是何年"] * 2
    assert "8 of 8 lines repeat" in degeneracy.degenerate_reason(stanza_twice)


def test_repeated_trigram_boundary() -> None:
    # 晴也行 and 雨也行 each twice: 12 of 20 characters in a repeated run (0.6), kept
    kept = ["晴也行", "雨也行", "雨也行", "时不似", "晴也行", "晴天晴终快", "人名也成利"]
    assert degeneracy.measure(kept).repeated_trigram_chars == 12 and degeneracy.degenerate_reason(kept) == ""
    loop = ["风不生何如更人", "花相一月长春烟", "有无云是风不生", "何如更人花相一", "月长春烟有无云", "是风不生何如更"]
    assert "42 of 42 characters repeat a run of three" in degeneracy.degenerate_reason(loop)


def test_a_stanza_written_again_with_a_word_changed_is_invalid(critic: Critic) -> None:
    stanza = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？"
    r = critic.score("浣溪沙", stanza + "\n" + stanza.replace("一曲", "二曲"))
    assert not r.valid and "run of three" in r.reason


def test_a_loop_just_past_the_distinct_share_is_invalid(critic: Critic) -> None:
    """A review's attack: a 17-character cycle, each character placed to fit its tones (1.000 before)."""
    text = "风不生何如更人。花相一月长春烟。有无云是风不生。\n何如更人花相一，月长春烟有无云。是风不生何如更。"
    r = critic.score("浣溪沙", text)
    assert not r.valid and r.reason.startswith("degenerate:")


def test_completion_that_writes_the_given_upper_again_is_a_copy(critic: Critic) -> None:
    records = load_records()
    scores = []
    for r in records:
        upper, lower = split_stanzas(r["text"], critic, r["cipai"], r.get("variant"))
        prompt = {"strategy": "completion", "cipai": r["cipai"], "upper": upper, "original_lower": lower}
        out = score_answer(prompt, upper + "\n" + upper, critic, diagnostics=False)
        scores.append(out["conformity"])
        assert out["copied"] == 1.0
    assert max(scores) == 0.0


def test_same_end_boundary() -> None:
    four_of_five = ["一剪梅花年", "二十馀光年", "梅边聚三年", "结得因缘年", "五百来春去"]  # 0.8: not above
    assert degeneracy.degenerate_reason(four_of_five) == ""
    five_of_five = [*four_of_five[:4], "五百来春年"]
    assert "5 of 5 lines end in 年" in degeneracy.degenerate_reason(five_of_five)
    assert degeneracy.degenerate_reason(five_of_five[:3]) == ""  # fewer than four lines


def test_paper_and_official_profiles_keep_the_formula_as_printed() -> None:
    for profile in ("paper", "poetone-code"):
        assert Critic(profile=profile).score("浣溪沙", FILLER_HUANXISHA).valid


# --- properties -----------------------------------------------------------------------------------

TWO_CHARACTERS = st.tuples(st.sampled_from(HAN), st.sampled_from(HAN)).flatmap(
    lambda ab: st.lists(
        st.tuples(st.text(alphabet=st.sampled_from(ab), min_size=1, max_size=9), st.sampled_from(MARKS)),
        min_size=1,
        max_size=26,
    )
)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(cipai=st.sampled_from(CIPAI_20), parts=TWO_CHARACTERS)
def test_text_of_two_characters_never_scores_above_0_3(
    critic: Critic, cipai: str, parts: list[tuple[str, str]]
) -> None:
    text = "".join(c + m for c, m in parts)
    assert critic.score(cipai, text).conformity <= 0.3


@settings(derandomize=True, max_examples=300, deadline=None)
@given(
    cipai=st.sampled_from(CIPAI_20),
    clause=st.text(alphabet=st.sampled_from(HAN), min_size=1, max_size=9),
    times=st.integers(1, 26),
    mark=st.sampled_from(MARKS),
)
def test_one_repeated_clause_never_scores_above_0_3(
    critic: Critic, cipai: str, clause: str, times: int, mark: str
) -> None:
    assert critic.score(cipai, (clause + mark) * times).conformity <= 0.3


@pytest.mark.parametrize("record", load_records(), ids=lambda r: r["id"])
def test_a_first_clause_or_stanza_never_scores_above_its_poem(critic: Critic, record: dict) -> None:
    whole = critic.score(record["cipai"], record["text"]).conformity
    first_clause = clauses(record["text"])[0]
    upper, _lower = split_stanzas(record["text"], critic, record["cipai"], record.get("variant"))
    assert critic.score(record["cipai"], first_clause).conformity <= whole
    if not fits_exactly(critic, record["cipai"], upper):  # 江城子's 上阕 is its whole 单调 form
        assert critic.score(record["cipai"], upper).conformity <= whole
    assert critic.score(record["cipai"], first_clause).conformity <= 0.3


def test_a_first_stanza_alone_scores_as_half_a_poem(critic: Critic) -> None:
    """≤ 0.75 for ≥ 95% of the corpus's first stanzas: 江城子's 上阕 is also its 单调 form (又一体1)."""
    scores = {
        r["id"]: critic.score(r["cipai"], split_stanzas(r["text"], critic, r["cipai"], r.get("variant"))[0]).conformity
        for r in load_records()
    }
    high = sorted(k for k, v in scores.items() if v > 0.75)
    assert len(high) <= 0.05 * len(scores), high
    assert all(k.startswith("jiangchengzi") for k in high), high


# --- the suite, the reward, best-of-N, the adapters -------------------------------------------------


def test_every_degenerate_text_of_the_suite_scores_at_most_0_3(critic: Critic) -> None:
    suite = degenerate_suite(critic)
    assert len(suite) >= 1000 and {s["kind"] for s in suite} == set(DEGENERATE_KINDS) and len(DEGENERATE_KINDS) >= 8
    assert {s["cipai"] for s in suite} == set(CIPAI_20)
    report = gaming_report(critic, suite)
    assert report["degenerate_above_0.3"] == 0.0, report["per_kind_max"]
    assert degenerate_suite(critic) == suite  # deterministic


def test_the_chance_level_is_far_below_authentic_poems(critic: Critic) -> None:
    level = chance_level(critic, n=40)
    assert set(level["per_cipai"]) == set(CIPAI_20)
    assert 0.5 < level["pooled"] < 0.8
    assert chance_level(critic, n=40) == level


def test_the_reward_gives_0_for_degenerate_text() -> None:
    rewards = conformity_reward(
        completions=[
            FILLER_HUANXISHA,
            "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？无可奈何花落去，似曾相识燕归来。小园香径独徘徊。",
        ],
        cipai=["浣溪沙"] * 2,
    )
    assert rewards[0] == 0.0 and rewards[1] == 1.0


def test_score_answer_counts_degenerate_text_as_invalid(critic: Critic) -> None:
    out = score_answer({"strategy": "zero_shot", "cipai": "浣溪沙"}, FILLER_HUANXISHA, critic)
    assert out["invalid"] == 1.0 and out["conformity"] == 0.0 and out["reason"].startswith("degenerate:")


def test_bon_never_picks_a_degenerate_answer(tmp_path: Path, critic: Critic) -> None:
    def cand(epoch: int, answer: str) -> Candidate:
        s = score_answer({"strategy": "zero_shot", "cipai": "浣溪沙"}, answer, critic, diagnostics=False)
        return Candidate(
            "f", "inspect", "m", "p", "zero_shot", "浣溪沙", "t", epoch, "s", "u", answer, s["poem"], s["valid"], False,
            s["conformity"], s["structure"], s["tonal"], s["rhyme"],
        )  # fmt: skip

    real = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
    rows, _ = select([cand(1, FILLER_HUANXISHA), cand(2, real.replace("徘徊", "徘徘"))])
    assert [r["epoch"] for r in rows] == [2]
    rows, summary = select([cand(1, FILLER_HUANXISHA)])
    assert rows == [] and summary[0]["no_valid_candidate"] == 1


WIDE = "春花秋月何时了往事知多少小楼昨夜又东风故国不堪回首明中大江去浪淘尽千古流人物白一寻觅冷清凄惨戚"


@settings(derandomize=True, max_examples=500, deadline=None)
@given(
    lines=st.lists(
        st.text(alphabet=st.sampled_from("春风花月夜江山□年"), min_size=1, max_size=7), min_size=1, max_size=12
    )
)
def test_the_fast_screen_passes_nothing_the_rule_flags(lines: list[str]) -> None:
    if degeneracy.plainly_verse("".join(lines), lines):
        assert degeneracy.degenerate_reason_of(degeneracy.measure(lines)) == ""


@settings(derandomize=True, max_examples=800, deadline=None)
@given(
    chars=st.lists(st.tuples(st.sampled_from(WIDE), st.booleans()), min_size=1, max_size=60, unique_by=lambda c: c[0]),
    width=st.integers(1, 7),
    rhymed=st.lists(st.booleans(), min_size=60, max_size=60),
)
@example(  # three of four rhymes lost, an eighth of the text: the rhyme rule alone fires
    chars=[(ch, k in (5, 11, 17)) for k, ch in enumerate(WIDE[:24])], width=3, rhymed=[False, True] * 30
)
def test_the_screen_is_sound_on_texts_with_lacunae(
    chars: list[tuple[str, bool]], width: int, rhymed: list[bool]
) -> None:
    """Given the rhyme positions, a text with lacunae may pass the screen: then neither lacuna
    rule (share of the text, share of four or more rhymes) nor any other may fire. Each drawn
    character is kept or lost (□), so every share of lacunae is tried, in diverse text."""
    text = "".join(LACUNA if lost else ch for ch, lost in chars)
    lines = [text[i : i + width] for i in range(0, len(text), width)]
    rhyme_chars = [line[-1] for line, r in zip(lines, rhymed) if r]
    if degeneracy.plainly_verse("".join(lines), lines, rhyme_chars=rhyme_chars):
        assert degeneracy.degenerate_reason_of(degeneracy.measure(lines, rhyme_chars)) == ""


@settings(derandomize=True, max_examples=500, deadline=None)
@given(
    base=st.text(alphabet=st.sampled_from(WIDE), min_size=6, max_size=60),
    cut=st.tuples(st.integers(0, 60), st.integers(0, 60)),
    width=st.integers(1, 9),
)
def test_the_screen_is_sound_on_texts_that_repeat_a_part(base: str, cut: tuple[int, int], width: int) -> None:
    """Diverse texts with a piece copied in: where the screen passes, no rule (the runs of three
    above all) may fire."""
    a, b = sorted(cut)
    text = base + base[a:b]
    lines = [text[i : i + width] for i in range(0, len(text), width)]
    if degeneracy.plainly_verse(text, lines):
        assert degeneracy.degenerate_reason_of(degeneracy.measure(lines)) == ""


@settings(derandomize=True, max_examples=300, deadline=None)
@given(
    bodies=st.lists(st.text(alphabet=st.sampled_from(WIDE), min_size=0, max_size=6), min_size=1, max_size=12),
    last=st.lists(st.sampled_from("年年年春"), min_size=12, max_size=12),
)
def test_the_screen_reads_line_ends_from_the_plan_as_from_the_lines(bodies: list[str], last: list[str]) -> None:
    """The critic hands the screen a getter of the line ends (one C call); it must decide as the
    lines themselves do, at the same-end rule's edge above all (most lines end in 年)."""
    lines = [body + end for body, end in zip(bodies, last)]
    joined = "".join(lines)
    ends = list(itertools.accumulate(map(len, lines)))
    getter = operator.itemgetter(*[e - 1 for e in ends]) if len(ends) > 1 else (lambda s: (s[ends[0] - 1],))
    assert degeneracy.plainly_verse(joined, lines, getter) == degeneracy.plainly_verse(joined, lines)


# characters that share their low byte: the floor counts them once, the rules apart
_SAME_LOW_BYTE = "".join(chr(0x4E00 + 256 * k) for k in range(40)) + "".join(chr(0x20000 + 256 * k) for k in range(8))


@settings(derandomize=True, max_examples=500, deadline=None)
@given(
    base=st.text(alphabet=st.sampled_from(WIDE + _SAME_LOW_BYTE), min_size=3, max_size=60),
    cut=st.tuples(st.integers(0, 60), st.integers(0, 60)),
    width=st.integers(1, 9),
)
@example(base="\U00020000\U00020401\U00020000", cut=(0, 0), width=3).via(
    "two characters beyond the BMP, four low bytes in UTF-16"
)
def test_the_screen_is_sound_where_characters_share_a_low_byte(base: str, cut: tuple[int, int], width: int) -> None:
    """The screen floors the distinct characters by their distinct low bytes; characters that
    share one (and ones beyond the BMP) must never make it pass what a rule flags."""
    a, b = sorted(cut)
    text = base + base[a:b]
    lines = [text[i : i + width] for i in range(0, len(text), width)]
    if degeneracy.plainly_verse(text, lines):
        assert degeneracy.degenerate_reason_of(degeneracy.measure(lines)) == ""
