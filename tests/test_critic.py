"""The critic on canonical poems, on hand-made faults, and its API (profiles, weights, variants, rendering)."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

import pytest

from poetone import Critic, CriticResult, UnknownCipaiError

# --- canonical poems (public domain), quoted as commonly printed ----------------------------------

CANONICAL: dict[str, tuple[str, str]] = {
    "苏轼 念奴娇·赤壁怀古": (
        "念奴娇",
        "大江东去，浪淘尽，千古风流人物。故垒西边，人道是，三国周郎赤壁。"
        "乱石穿空，惊涛拍岸，卷起千堆雪。江山如画，一时多少豪杰。\n"
        "遥想公瑾当年，小乔初嫁了，雄姿英发。羽扇纶巾，谈笑间，樯橹灰飞烟灭。"
        "故国神游，多情应笑我，早生华发。人生如梦，一尊还酹江月。",
    ),
    "苏轼 念奴娇·赤壁怀古 (全宋词)": (
        "念奴娇",
        "大江东去，浪淘尽、千古风流人物。\n故垒西边人道是，三国周郎赤壁。\n乱石穿空，惊涛拍岸，卷起千堆雪。\n"
        "江山如画，一时多少豪杰。\n遥想公瑾当年，小乔初嫁了，雄姿英发。\n羽扇纶巾谈笑间，强虏灰飞烟灭。\n"
        "故国神游，多情应笑，我早生华发。\n人间如梦，一尊还酹江月。",
    ),
    "李清照 声声慢": (
        "声声慢",
        "寻寻觅觅，冷冷清清，凄凄惨惨戚戚。乍暖还寒时候，最难将息。三杯两盏淡酒，怎敌他、晚来风急！"
        "雁过也，正伤心，却是旧时相识。\n"
        "满地黄花堆积，憔悴损，如今有谁堪摘？守着窗儿，独自怎生得黑！梧桐更兼细雨，到黄昏、点点滴滴。"
        "这次第，怎一个愁字了得！",
    ),
    "岳飞 满江红": (
        "满江红",
        "怒发冲冠，凭栏处、潇潇雨歇。抬望眼、仰天长啸，壮怀激烈。三十功名尘与土，八千里路云和月。"
        "莫等闲、白了少年头，空悲切。\n"
        "靖康耻，犹未雪。臣子恨，何时灭。驾长车，踏破贺兰山缺。壮志饥餐胡虏肉，笑谈渴饮匈奴血。"
        "待从头、收拾旧山河，朝天阙。",
    ),
    "苏轼 水调歌头": (
        "水调歌头",
        "明月几时有？把酒问青天。不知天上宫阙，今夕是何年。我欲乘风归去，又恐琼楼玉宇，高处不胜寒。"
        "起舞弄清影，何似在人间。\n"
        "转朱阁，低绮户，照无眠。不应有恨，何事长向别时圆？人有悲欢离合，月有阴晴圆缺，此事古难全。"
        "但愿人长久，千里共婵娟。",
    ),
    "晏殊 浣溪沙": (
        "浣溪沙",
        "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？\n无可奈何花落去，似曾相识燕归来。小园香径独徘徊。",
    ),
    "辛弃疾 青玉案·元夕": (
        "青玉案",
        "东风夜放花千树，更吹落、星如雨。宝马雕车香满路。凤箫声动，玉壶光转，一夜鱼龙舞。\n"
        "蛾儿雪柳黄金缕，笑语盈盈暗香去。众里寻他千百度，蓦然回首，那人却在，灯火阑珊处。",
    ),
    "李煜 虞美人": (
        "虞美人",
        "春花秋月何时了？往事知多少。小楼昨夜又东风，故国不堪回首月明中。\n"
        "雕栏玉砌应犹在，只是朱颜改。问君能有几多愁？恰似一江春水向东流。",
    ),
    "陆游 钗头凤": (
        "钗头凤",
        "红酥手，黄縢酒，满城春色宫墙柳。东风恶，欢情薄。一怀愁绪，几年离索。错、错、错。\n"
        "春如旧，人空瘦，泪痕红浥鲛绡透。桃花落，闲池阁。山盟虽在，锦书难托。莫、莫、莫！",
    ),
    "苏轼 定风波": (
        "定风波",
        "莫听穿林打叶声，何妨吟啸且徐行。竹杖芒鞋轻胜马，谁怕？一蓑烟雨任平生。\n"
        "料峭春风吹酒醒，微冷，山头斜照却相迎。回首向来萧瑟处，归去，也无风雨也无晴。",
    ),
    "李白 菩萨蛮": (
        "菩萨蛮",
        "平林漠漠烟如织，寒山一带伤心碧。暝色入高楼，有人楼上愁。\n玉阶空伫立，宿鸟归飞急。何处是归程？长亭更短亭。",
    ),
}

PUSA = CANONICAL["李白 菩萨蛮"][1]
HUANXISHA = CANONICAL["晏殊 浣溪沙"][1]
CHIBI = CANONICAL["苏轼 念奴娇·赤壁怀古"][1]

# 赤壁怀古 in traditional script, written out by hand.
CHIBI_TRADITIONAL = (
    "大江東去，浪淘盡，千古風流人物。故壘西邊，人道是，三國周郎赤壁。"
    "亂石穿空，驚濤拍岸，捲起千堆雪。江山如畫，一時多少豪傑。\n"
    "遙想公瑾當年，小喬初嫁了，雄姿英發。羽扇綸巾，談笑間，檣櫓灰飛煙滅。"
    "故國神遊，多情應笑我，早生華髮。人生如夢，一尊還酹江月。"
)
PUSA_TRADITIONAL = (
    "平林漠漠煙如織，寒山一帶傷心碧。暝色入高樓，有人樓上愁。\n玉階空佇立，宿鳥歸飛急。何處是歸程？長亭更短亭。"
)


def scores(r: CriticResult) -> tuple[float, float, float, float]:
    return r.conformity, r.structure, r.tonal, r.rhyme


def row_of(result: CriticResult, text: str) -> dict[str, Any]:
    """The details() row of the line whose text is ``text``."""
    rows = [row for row in result.details()["lines"] if row["text"] == text]
    assert len(rows) == 1, f"no single line {text!r} in {[row['text'] for row in result.details()['lines']]}"
    return rows[0]


def assert_details_match_scores(r: CriticResult) -> None:
    """details() must explain exactly the tonal and rhyme scores (same faults, same counts)."""
    rows = r.details()["lines"]
    checked = [c for row in rows if row.get("length_ok") for c in row.get("tones", [])]
    missing = sum(row.get("missing_characters", 0) for row in rows)  # the form's lines the poem lacks
    if checked:
        good = sum(1 for c in checked if c["ok"])
        assert r.tonal == pytest.approx(good / (len(checked) + missing), abs=1e-12), [c for c in checked if not c["ok"]]
    rhymes = [row["rhyme"] for row in rows if "rhyme" in row]
    if rhymes:
        good = sum(1 for x in rhymes if x["ok"])
        assert r.rhyme == pytest.approx(good / len(rhymes), abs=1e-12), rhymes


# --- canonical poems ------------------------------------------------------------------------------


@pytest.mark.parametrize("key", list(CANONICAL))
def test_canonical_poem_scores_high(critic: Critic, key: str) -> None:
    cipai, text = CANONICAL[key]
    r = critic.score(cipai, text)
    assert r.valid, r.reason
    assert r.cipai == cipai
    assert r.conformity >= 0.95, f"{key} scores {r.conformity:.4f}:\n{r.render()}"
    assert r.rhyme == 1.0, r.render()
    assert r.tonal >= 0.95, r.render()


@pytest.mark.parametrize(
    "key",
    [
        "李清照 声声慢",
        "苏轼 水调歌头",
        "晏殊 浣溪沙",
        "辛弃疾 青玉案·元夕",
        "李煜 虞美人",
        "陆游 钗头凤",
        "苏轼 定风波",
        "李白 菩萨蛮",
    ],
)
def test_canonical_poem_is_structurally_perfect(critic: Critic, key: str) -> None:
    cipai, text = CANONICAL[key]
    r = critic.score(cipai, text)
    assert r.structure == 1.0, r.render()


def test_chibi_as_printed_in_quan_song_ci_is_perfect(critic: Critic) -> None:
    r = critic.score("念奴娇", CANONICAL["苏轼 念奴娇·赤壁怀古 (全宋词)"][1])
    assert scores(r) == (1.0, 1.0, 1.0, 1.0), r.render()


def test_yumeiren_scores_perfectly(critic: Critic) -> None:
    r = critic.score("虞美人", CANONICAL["李煜 虞美人"][1])
    assert scores(r) == (1.0, 1.0, 1.0, 1.0), r.render()
    assert r.variant == "正体"


@pytest.mark.parametrize("key", list(CANONICAL))
def test_details_explain_the_scores_exactly(critic: Critic, paper_critic: Critic, key: str) -> None:
    cipai, text = CANONICAL[key]
    assert_details_match_scores(critic.score(cipai, text))
    assert_details_match_scores(paper_critic.score(cipai, text))


def test_result_lines_are_the_aligned_clauses(critic: Critic) -> None:
    r = critic.score("菩萨蛮", PUSA)
    assert r.lines == (
        "平林漠漠烟如织",
        "寒山一带伤心碧",
        "暝色入高楼",
        "有人楼上愁",
        "玉阶空伫立",
        "宿鸟归飞急",
        "何处是归程",
        "长亭更短亭",
    )
    assert r.variant == "正体"
    assert r.as_dict() == {
        "cipai": "菩萨蛮",
        "conformity": 1.0,
        "structure": 1.0,
        "tonal": 1.0,
        "rhyme": 1.0,
        "valid": True,
        "variant": "正体",
    }


# --- hand-made faults lower the right component ---------------------------------------------------


def test_dropped_line_counts_as_missing(critic: Critic, paper_critic: Critic) -> None:
    """菩萨蛮 has 44 characters and 8 rhyme positions; 长亭更短亭 (5 characters, a rhyme) is lost."""
    text = PUSA.replace("何处是归程？长亭更短亭。", "何处是归程。")
    r = critic.score("菩萨蛮", text)
    assert r.structure == pytest.approx(7 / 8)
    assert r.tonal == pytest.approx(39 / 44)  # its 5 characters are unmatched (correction 7)
    assert r.rhyme == pytest.approx(7 / 8)  # its rhyme position is a miss
    assert r.conformity == pytest.approx(0.4 * 7 / 8 + 0.3 * 39 / 44 + 0.3 * 7 / 8)
    assert "missing line" in r.render()
    # the formula as printed counts only the lines present
    old = Critic(profile="default")
    old.profile = replace(old.profile, count_missing=False)
    q = old.score("菩萨蛮", text)
    assert (q.tonal, q.rhyme) == (1.0, 1.0)


def test_dropped_line_in_the_middle_lowers_structure(critic: Critic) -> None:
    r = critic.score("浣溪沙", HUANXISHA.replace("似曾相识燕归来。", ""))
    assert r.structure == pytest.approx(5 / 6)
    assert r.conformity < 1.0


SHUIDIAO = CANONICAL["苏轼 水调歌头"][1]


def test_lost_line_costs_only_that_line(critic: Critic, paper_critic: Critic) -> None:
    """Eq. 2 over an alignment: one lost clause no longer makes every later line wrong."""
    text = SHUIDIAO.replace("把酒问青天。", "")
    r = critic.score("水调歌头", text)
    assert r.structure == pytest.approx(18 / 19)
    # 95 characters, 8 rhyme positions; the lost clause's 5 characters and its rhyme count against it
    assert (r.tonal, r.rhyme, r.variant) == (pytest.approx(90 / 95), pytest.approx(7 / 8), "正体")
    rows = r.details()["lines"]
    assert (rows[1]["index"], rows[1]["text"], rows[1]["fault"]) == (2, "", "missing line")
    assert rows[2]["text"] == "不知天上宫阙" and rows[2]["index"] == 3 and "fault" not in rows[2]
    assert_details_match_scores(r)
    # the paper's Eq. 2 compares line i with line i: everything after the gap is misread
    assert paper_critic.score("水调歌头", text).structure < 0.5


def test_extra_clause_costs_only_that_clause(critic: Critic, paper_critic: Critic) -> None:
    r = critic.score("浣溪沙", "春日偶成，" + HUANXISHA)
    assert r.structure == pytest.approx(6 / 7)
    # its 4 characters are unmatched in Eq. 4 (42 of 46), its rhyme-less clause costs no rhyme
    assert (r.tonal, r.rhyme) == (pytest.approx(42 / 46), 1.0)
    assert_details_match_scores(r)
    assert r.line_of == (-1, 0, 1, 2, 3, 4, 5)
    assert r.details()["lines"][0]["fault"] == "superfluous line"
    assert "春日偶成" in r.render().splitlines()[1] and "superfluous line" in r.render()
    assert paper_critic.score("浣溪沙", "春日偶成，" + HUANXISHA).structure < 6 / 7


def test_surviving_lines_are_read_where_tones_and_rhyme_fit(critic: Critic) -> None:
    # 云作伴，月为邻 could stand at any two of 转朱阁，低绮户，照无眠: it is read at the last two,
    # where 邻 takes the rhyme of 照无眠
    r = critic.score("水调歌头", "云作伴，月为邻。")
    assert r.line_of == (10, 11)
    assert r.structure == pytest.approx(2 / 19)
    assert r.rhyme == pytest.approx(1 / 8)  # 邻 is the one rhyme written, of the form's eight
    assert_details_match_scores(r)


def test_alignment_never_reads_fewer_lines_than_line_by_line(critic: Critic, paper_critic: Critic) -> None:
    from poetone.critic import _alignments, _lcs_rows

    for lengths, want in [((7, 7, 7), (7, 4, 4, 7)), ((4, 5, 4, 7), (4, 5, 4, 7)), ((3, 3), (5, 3, 3, 3)), ((), (7,))]:
        readings = _alignments(lengths, want)
        positional = sum(a == b for a, b in zip(lengths, want))
        for line_of in readings:
            assert len(line_of) == len(lengths)
            used = [j for j in line_of if j >= 0]
            assert used == sorted(set(used)), "an alignment keeps the order and reads a line once"
            right = sum(1 for i, j in enumerate(line_of) if j >= 0 and lengths[i] == want[j])
            assert right == len(want) - _lcs_rows(lengths, want)[-1].bit_count() >= positional


def test_added_character_lowers_structure_only(critic: Critic) -> None:
    r = critic.score("菩萨蛮", PUSA.replace("平林漠漠烟如织", "平林漠漠轻烟如织"))
    assert r.structure == pytest.approx(7 / 8)
    assert r.tonal == 1.0
    assert r.rhyme == 1.0
    row = row_of(r, "平林漠漠轻烟如织")
    assert row["length_ok"] is False
    assert row["expected_length"] == 7
    assert "8 characters, the form wants 7" in row["fault"]


def test_ping_for_ze_at_fixed_position_lowers_tonal_only(critic: Critic) -> None:
    # 长亭更短亭 is 中平中仄平: position 2 must be 平; 路 is 仄.
    r = critic.score("菩萨蛮", PUSA.replace("长亭更短亭", "长路更短亭"))
    assert r.structure == 1.0
    assert r.rhyme == 1.0
    assert r.tonal == pytest.approx(43 / 44)
    row = row_of(r, "长路更短亭")
    assert row["tones"][1] == {"pos": 2, "char": "路", "expected": "平", "found": "仄", "ok": False}
    assert [c["ok"] for c in row["tones"]] == [True, False, True, True, True]


def test_ze_at_zhong_position_is_no_fault(critic: Critic) -> None:
    # position 1 of 长亭更短亭 is 中: any tone is right there.
    r = critic.score("菩萨蛮", PUSA.replace("长亭更短亭", "短亭更短亭"))
    assert scores(r) == (1.0, 1.0, 1.0, 1.0)


def test_rhyme_of_another_group_lowers_rhyme_only(critic: Critic) -> None:
    # 亭 (第十一部 平) -> 花 (第十部 平): same tone class, another rhyme group.
    r = critic.score("菩萨蛮", PUSA.replace("长亭更短亭", "长亭更短花"))
    assert r.structure == 1.0
    assert r.tonal == 1.0
    assert r.rhyme == pytest.approx(7 / 8)
    rh = row_of(r, "长亭更短花")["rhyme"]
    assert rh["char"] == "花"
    assert rh["ok"] is False
    assert rh["expected_tone"] == "平"


def test_rhyme_fault_in_single_segment_poem(critic: Critic) -> None:
    r = critic.score("浣溪沙", HUANXISHA.replace("夕阳西下几时回", "夕阳西下几时东"))
    assert (r.structure, r.tonal) == (1.0, 1.0)
    assert r.rhyme == pytest.approx(4 / 5)


def test_correct_rhyme_change_is_no_fault_but_paper_penalises_it(critic: Critic, paper_critic: Critic) -> None:
    # 菩萨蛮 changes rhyme four times (仄 织碧, 平 楼愁, 仄 立急, 平 程亭): right in the form.
    r = critic.score("菩萨蛮", PUSA)
    assert r.rhyme == 1.0
    p = paper_critic.score("菩萨蛮", PUSA)
    assert p.rhyme < 1.0
    assert p.rhyme == pytest.approx(0.5)
    assert p.conformity < r.conformity


def test_broken_repeat_lowers_structure(critic: Critic) -> None:
    text = CANONICAL["陆游 钗头凤"][1]
    assert critic.score("钗头凤", text.replace("错、错、错", "错错错")).structure == 1.0
    r = critic.score("钗头凤", text.replace("错、错、错", "错、对、错"))
    assert r.structure < 1.0
    assert r.tonal == 1.0
    assert "叠" in r.render()


# --- script, noise, layout ------------------------------------------------------------------------


def test_traditional_script_gives_identical_result(critic: Critic, paper_critic: Critic) -> None:
    assert sum(a != b for a, b in zip(CHIBI, CHIBI_TRADITIONAL)) >= 20  # really another script
    for c in (critic, paper_critic):
        assert c.score("念奴娇", CHIBI_TRADITIONAL).as_dict() == c.score("念奴娇", CHIBI).as_dict()
        assert c.score("念奴嬌", CHIBI_TRADITIONAL).as_dict() == c.score("念奴娇", CHIBI).as_dict()
        assert c.score("菩薩蠻", PUSA_TRADITIONAL).as_dict() == c.score("菩萨蛮", PUSA).as_dict()


def _noisy(poem: str, title: str) -> str:
    body = "\n".join(f"**{line}**" for line in poem.splitlines())
    return (
        "<think>\n用户要一首词。先想格律：双调，仄韵，上下阕各若干句。\n我决定写怀古。\n</think>\n\n"
        f"## 《{title}》\n\n{body}\n\n"
        "注：周郎，指周瑜；公瑾，周瑜的字。\n"
    )


@pytest.mark.parametrize(
    ("cipai", "poem", "title"),
    [("念奴娇", CHIBI, "念奴娇·赤壁怀古"), ("菩萨蛮", PUSA, "菩萨蛮"), ("浣溪沙", HUANXISHA, "浣溪沙")],
)
def test_noise_around_poem_scores_identically(critic: Critic, cipai: str, poem: str, title: str) -> None:
    bare = critic.score(cipai, poem)
    noisy = critic.score(cipai, _noisy(poem, title))
    assert noisy.valid
    assert noisy.as_dict() == bare.as_dict()
    assert noisy.lines == bare.lines


def test_line_breaks_do_not_change_the_score(critic: Critic) -> None:
    one_line = PUSA.replace("\n", "")
    per_clause = PUSA.replace("。", "。\n").replace("，", "，\n")
    base = critic.score("菩萨蛮", PUSA).as_dict()
    assert critic.score("菩萨蛮", one_line).as_dict() == base
    assert critic.score("菩萨蛮", per_clause).as_dict() == base


def test_extraction_off_scores_bare_poem_the_same(critic: Critic) -> None:
    raw = Critic(extract=False)
    for cipai, text in CANONICAL.values():
        assert raw.score(cipai, text).as_dict() == critic.score(cipai, text).as_dict()


# --- names, aliases, variants ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typo", "closest"), [("念奴桥", "念奴娇"), ("菩萨慢", "菩萨蛮"), ("满江虹", "满江红"), ("声声漫", "声声慢")]
)
def test_unknown_cipai_names_the_closest(critic: Critic, typo: str, closest: str) -> None:
    with pytest.raises(UnknownCipaiError) as info:
        critic.score(typo, PUSA)
    assert typo in str(info.value)
    assert closest in str(info.value)
    assert info.value.suggestions[0] == closest


def test_unknown_cipai_is_a_key_error(critic: Critic) -> None:
    with pytest.raises(KeyError):
        critic.score("不存在的词牌", PUSA)


@pytest.mark.parametrize(
    ("alias", "canonical", "text"),
    [
        ("酹江月", "念奴娇", CHIBI),
        ("念奴嬌", "念奴娇", CHIBI),
        ("《念奴娇》", "念奴娇", CHIBI),
        ("念奴娇·赤壁怀古", "念奴娇", CHIBI),
        ("菩薩蠻", "菩萨蛮", PUSA),
        ("浣溪紗", "浣溪沙", HUANXISHA),
    ],
)
def test_aliases_resolve(critic: Critic, alias: str, canonical: str, text: str) -> None:
    assert critic.resolve(alias) == canonical
    r = critic.score(alias, text)
    assert r.cipai == canonical
    assert r.as_dict() == critic.score(canonical, text).as_dict()


def test_yijianmei_alias(critic: Critic) -> None:
    text = "红藕香残玉簟秋。轻解罗裳，独上兰舟。云中谁寄锦书来，雁字回时，月满西楼。\n花自飘零水自流。一种相思，两处闲愁。此情无计可消除，才下眉头，却上心头。"
    assert critic.resolve("一翦梅") == "一剪梅"
    a, b = critic.score("一翦梅", text), critic.score("一剪梅", text)
    assert a.as_dict() == b.as_dict()
    assert a.cipai == "一剪梅"
    assert a.conformity >= 0.95, a.render()


def test_variant_argument_scores_that_variant(critic: Critic) -> None:
    best = critic.score("念奴娇", CHIBI)
    ids = [v.id for v in critic.variants("念奴娇")]
    assert len(ids) > 1
    for vid in ids:
        r = critic.score("念奴娇", CHIBI, variant=vid)
        assert r.variant == vid
        assert r.conformity <= best.conformity + 1e-12
        assert r.conformity == pytest.approx(0.4 * r.structure + 0.3 * r.tonal + 0.3 * r.rhyme, abs=1e-12)
    assert critic.score("念奴娇", CHIBI, variant=best.variant).as_dict() == best.as_dict()
    # the 正体 cuts the first stanza 4/5/4 (浪淘尽千古，风流人物), so this text fits it worse
    assert critic.score("念奴娇", CHIBI, variant="正体").structure < best.structure


def test_unknown_variant_is_named(critic: Critic) -> None:
    with pytest.raises(ValueError, match="又一体99"):
        critic.score("念奴娇", CHIBI, variant="又一体99")


def test_score_many(critic: Critic) -> None:
    pairs = [(cipai, text) for cipai, text in CANONICAL.values()]
    many = critic.score_many(pairs)
    assert [r.as_dict() for r in many] == [critic.score(c, t).as_dict() for c, t in pairs]
    assert critic.score_many([]) == []


def test_text_must_be_a_string(critic: Critic) -> None:
    with pytest.raises(TypeError):
        critic.score("菩萨蛮", None)  # type: ignore[arg-type]


# --- 入声 (entering tone): 仄 in the classical system, 平 in modern Mandarin -------------------------


@pytest.mark.parametrize("char", "白国一")
def test_entering_tone_char_at_ze_position(critic: Critic, paper_critic: Critic, char: str) -> None:
    # 平林漠漠烟如织 is 中平中仄平平仄: position 4 must be 仄.
    line = "平林漠" + char + "烟如织"
    text = PUSA.replace("平林漠漠烟如织", line)
    r = critic.score("菩萨蛮", text)
    assert scores(r) == (1.0, 1.0, 1.0, 1.0), r.render()
    assert row_of(r, line)["tones"][3] == {"pos": 4, "char": char, "expected": "仄", "found": "仄", "ok": True}

    p = paper_critic.score("菩萨蛮", text)
    assert p.tonal < paper_critic.score("菩萨蛮", PUSA).tonal
    assert row_of(p, line)["tones"][3] == {"pos": 4, "char": char, "expected": "仄", "found": "平", "ok": False}


def test_guo_in_chibi_is_right_by_default_wrong_in_paper(critic: Critic, paper_critic: Critic) -> None:
    text = CANONICAL["苏轼 念奴娇·赤壁怀古 (全宋词)"][1]
    cell = row_of(critic.score("念奴娇", text), "三国周郎赤壁")["tones"][1]
    assert cell == {"pos": 2, "char": "国", "expected": "仄", "found": "仄", "ok": True}
    cell = row_of(paper_critic.score("念奴娇", text), "三国周郎赤壁")["tones"][1]
    assert cell == {"pos": 2, "char": "国", "expected": "仄", "found": "平", "ok": False}


def test_modern_tone_system_on_default_profile(critic: Critic) -> None:
    text = PUSA.replace("平林漠漠烟如织", "平林漠白烟如织")
    assert critic.score("菩萨蛮", text).tonal == 1.0
    assert Critic(tone_system="modern").score("菩萨蛮", text).tonal < 1.0


# --- weights, profiles, systems -------------------------------------------------------------------


def test_weights_are_configurable(critic: Critic) -> None:
    text = PUSA.replace("长亭更短亭", "长路更短花")  # a tonal and a rhyme fault
    base = critic.score("菩萨蛮", text)
    c = Critic(weights=(0.5, 0.25, 0.25))
    assert c.weights == (0.5, 0.25, 0.25)
    r = c.score("菩萨蛮", text)
    assert (r.structure, r.tonal, r.rhyme) == (base.structure, base.tonal, base.rhyme)
    assert r.conformity == pytest.approx(0.5 * r.structure + 0.25 * r.tonal + 0.25 * r.rhyme, abs=1e-12)
    assert r.conformity != pytest.approx(base.conformity)
    only_structure = Critic(weights=[1, 0, 0]).score("菩萨蛮", text)
    assert only_structure.conformity == 1.0


@pytest.mark.parametrize(
    "weights",
    [(0.5, 0.5), (0.4, 0.3, 0.3, 0.0), (-0.1, 0.6, 0.5), (0.5, 0.5, 0.5), (0.2, 0.2, 0.2), (math.inf, 0.0, 0.0), ()],
)
def test_bad_weights_raise(weights: tuple[float, ...]) -> None:
    with pytest.raises(ValueError, match="weights"):
        Critic(weights=weights)


def test_nan_weights_raise() -> None:
    """BUG: a NaN weight passes validation (NaN < 0 and |NaN - 1| > 1e-9 are both False)."""
    with pytest.raises(ValueError, match="weights"):
        Critic(weights=(math.nan, 0.5, 0.5))


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"profile": "papr"}, "papr"),
        ({"tone_system": "medieval"}, "medieval"),
        ({"rhyme_system": "pingshui"}, "pingshui"),
        ({"metadata_format": "bogus"}, "bogus"),
    ],
)
def test_profile_and_system_errors_name_the_value(kwargs: dict[str, str], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        Critic(**kwargs)  # type: ignore[arg-type]


def test_poetone_code_systems_are_fixed() -> None:
    with pytest.raises(ValueError, match="poetone-code"):
        Critic(profile="poetone-code", tone_system="classical")
    with pytest.raises(ValueError, match="variant"):
        Critic(profile="poetone-code").score("菩萨蛮", PUSA, variant="正体")


def test_profiles_are_named_in_results(critic: Critic, paper_critic: Critic) -> None:
    assert critic.score("菩萨蛮", PUSA).profile == "default"
    assert paper_critic.score("菩萨蛮", PUSA).profile == "paper"
    assert "[paper]" in paper_critic.score("菩萨蛮", PUSA).render()


def test_rhyme_system_switch(critic: Critic) -> None:
    r = Critic(rhyme_system="pinyin-final").score("菩萨蛮", PUSA)
    assert r.profile == "default"
    assert 0.0 <= r.rhyme <= 1.0
    assert r.structure == 1.0


# --- render() and details() -----------------------------------------------------------------------


def test_render_of_perfect_poem(critic: Critic) -> None:
    out = critic.score("菩萨蛮", PUSA).render()
    assert out.splitlines()[0].startswith("菩萨蛮 · 正体  conformity 1.000")
    for sym in "○●◐":
        assert sym in out
    assert "✗" not in out
    assert re.search(r"^平林漠漠烟如织\s+◐○◐●○○●\s+韵A$", out, re.M), out
    assert re.search(r"^长亭更短亭\s+◐○◐●○\s+韵D$", out, re.M), out


def test_render_marks_faults(critic: Critic) -> None:
    out = critic.score("菩萨蛮", PUSA.replace("长亭更短亭", "长路更短花")).render()
    for sym in "○●◐":
        assert sym in out
    [line] = [ln for ln in out.splitlines() if ln.startswith("长路更短花")]
    assert "✗" in line
    assert "路@2 wants 平, is 仄" in line
    assert "rhyme 花" in line
    assert sum("✗" in ln for ln in out.splitlines()) == 1


def test_render_of_invalid_result(critic: Critic) -> None:
    r = critic.score("菩萨蛮", "I am sorry, I cannot write that.")
    assert not r.valid
    assert "INVALID" in r.render()
    assert r.details() == {"valid": False, "reason": r.reason, "lines": []}


def test_details_lists_every_character(critic: Critic) -> None:
    d = critic.score("菩萨蛮", PUSA).details()
    assert d["valid"] is True
    assert (d["cipai"], d["variant"], d["profile"]) == ("菩萨蛮", "正体", "default")
    rows = d["lines"]
    assert [row["text"] for row in rows] == list(critic.score("菩萨蛮", PUSA).lines)
    first = rows[0]
    assert first["expected"] == "中平中仄平平仄 韵A"
    assert [c["char"] for c in first["tones"]] == list("平林漠漠烟如织")
    assert [c["expected"] for c in first["tones"]] == list("中平中仄平平仄")
    assert all(set(c) == {"pos", "char", "expected", "found", "ok"} for row in rows for c in row["tones"])
    assert [row["rhyme"]["char"] for row in rows] == list("织碧楼愁立急程亭")
    assert [row["rhyme"]["segment"] for row in rows] == list("AABBCCDD")


@pytest.mark.parametrize(
    "text",
    [
        PUSA.replace("长亭更短亭", "长路更短花"),
        PUSA.replace("平林漠漠烟如织", "平林漠漠轻烟如织"),
        PUSA.replace("何处是归程？长亭更短亭。", ""),
        CHIBI,
        "春风。",
    ],
)
def test_details_match_scores_on_faults(critic: Critic, paper_critic: Critic, text: str) -> None:
    cipai = "念奴娇" if text is CHIBI else "菩萨蛮"
    assert_details_match_scores(critic.score(cipai, text))
    assert_details_match_scores(paper_critic.score(cipai, text))


# --- corrections documented in docs/critic.md -------------------------------------------------------

XIJIANGYUE = "明月别枝惊鹊，清风半夜鸣蝉。稻花香里说丰年，听取蛙声一片。\n七八个星天外，两三点雨山前。旧时茅店社林边，路转溪桥忽见。"


def test_xie_rhyme_joins_its_segment(critic: Critic) -> None:
    # 西江月: the closing 仄 rhymes (片, 见) 叶 the 平 rhymes (蝉 年, 前 边) of the same 部
    assert scores(critic.score("西江月", XIJIANGYUE)) == (1.0, 1.0, 1.0, 1.0)
    r = critic.score("西江月", XIJIANGYUE.replace("一片", "一曲"))  # 曲: 仄, but 第十五部
    assert (r.structure, r.tonal) == (1.0, 1.0)
    assert r.rhyme == pytest.approx(5 / 6)
    assert row_of(r, "听取蛙声一曲")["rhyme"]["ok"] is False


@pytest.mark.parametrize("line", ["长看更短亭", "长亭更看亭"])
def test_character_with_both_tones_fits_either(critic: Critic, line: str) -> None:
    # 看 has a 平 and a 仄 reading: right at the 平 position 2 and at the 仄 position 4
    assert scores(critic.score("菩萨蛮", PUSA.replace("长亭更短亭", line))) == (1.0, 1.0, 1.0, 1.0)


def test_quotes_and_brackets_inside_lines_are_dropped(critic: Critic) -> None:
    text = PUSA.replace("有人楼上愁", "有人楼《上》愁").replace("寒山一带", "寒山“一带”")
    assert critic.score("菩萨蛮", text).as_dict() == critic.score("菩萨蛮", PUSA).as_dict()


@pytest.mark.parametrize("garbled", ["\ufffd", "□", "の"])
def test_lost_character_keeps_its_place(critic: Critic, paper_critic: Critic, garbled: str) -> None:
    """A lost character keeps the line's length; it is unverified, so its tone counts as a fault
    (伤 stands at a 平 position of 菩萨蛮's 44), and at a rhyme it is a miss."""
    r = critic.score("菩萨蛮", PUSA.replace("伤", garbled))
    assert (r.structure, r.tonal, r.rhyme) == (1.0, pytest.approx(43 / 44), 1.0)
    assert r.lines[1] == "寒山一带□心碧"
    rhyme_lost = critic.score("菩萨蛮", PUSA.replace("碧", garbled))
    assert rhyme_lost.rhyme == pytest.approx(7 / 8)
    assert_details_match_scores(rhyme_lost)
    # the paper's profile keeps the old rule: a lost character fits any tone and rhyme
    assert paper_critic.score("菩萨蛮", PUSA.replace("碧", garbled)).rhyme == paper_critic.score("菩萨蛮", PUSA).rhyme


def test_title_line_directly_above_scores_like_the_bare_poem(critic: Critic) -> None:
    """BUG: 《浣溪沙》 on the line right above the poem is scored as a first line (0.68 instead of 1.0)."""
    r = critic.score("浣溪沙", "《浣溪沙》\n" + HUANXISHA)
    assert r.as_dict() == critic.score("浣溪沙", HUANXISHA).as_dict(), r.render()


TRADITIONAL_NAMES = {
    "蝶戀花": "蝶恋花", "念奴嬌": "念奴娇", "水調歌頭": "水调歌头", "滿江紅": "满江红", "聲聲慢": "声声慢",
    "臨江仙": "临江仙", "定風波": "定风波", "漁家傲": "渔家傲", "釵頭鳳": "钗头凤", "破陣子": "破阵子",
    "菩薩蠻": "菩萨蛮", "清平樂": "清平乐", "點絳唇": "点绛唇",
}  # fmt: skip


@pytest.mark.parametrize(("name", "canonical"), list(TRADITIONAL_NAMES.items()))
def test_traditional_cipai_names_resolve(critic: Critic, name: str, canonical: str) -> None:
    assert critic.resolve(name) == canonical


@pytest.mark.parametrize(
    ("name", "canonical"),
    [("點絳脣", "点绛唇"), ("鵲踏枝", "蝶恋花"), ("鳳棲梧", "蝶恋花"), ("壺中天", "念奴娇"), ("減字浣溪沙", "浣溪沙")],
    ids=["dianjiangchun-variant-char", "quetazhi", "fengqiwu", "huzhongtian", "jianzi-huanxisha"],
)
def test_traditional_aliases_resolve(critic: Critic, name: str, canonical: str) -> None:
    """BUG: names are not script-normalised; only the aliases listed verbatim resolve, so the
    traditional spelling of most 又名 (and 點絳脣, as traditional editions print it) is unknown."""
    assert critic.resolve(name) == canonical


def test_the_plan_cache_is_bounded_by_size_and_changes_no_score(monkeypatch: pytest.MonkeyPatch) -> None:
    """Long texts of fresh shapes clear the cache instead of growing it; scores stay those of a fresh critic."""
    import random

    import poetone.critic

    monkeypatch.setattr(poetone.critic, "PLAN_CACHE_SLOTS", 2_000)
    rng = random.Random(0)
    texts = ["，".join("春花秋月何时了往事知多少"[: rng.randint(1, 12)] for _ in range(rng.randint(20, 80))) for _ in range(60)]
    bounded = Critic()
    seen = []
    for k, text in enumerate(texts):
        seen.append(bounded.score("念奴娇" if k % 2 else "浣溪沙", text).as_dict())
        assert bounded._plan_cost <= 2_000 or len(bounded._plan_cache) == 1  # one shape larger than the budget
    assert seen == [Critic().score("念奴娇" if k % 2 else "浣溪沙", t).as_dict() for k, t in enumerate(texts)]


def test_the_tone_table_covers_every_code_point_and_is_shared() -> None:
    """Indexed by code point over all of Unicode: no text can grow it or miss it, and critics of
    the same systems share one copy (it takes 9 MB)."""
    critic = Critic()
    assert len(critic._tone_digits) == 0x110000 and Critic()._tone_digits is critic._tone_digits
    text = "".join(chr(0x10000 + i) for i in range(500)) + "，一曲新词酒一杯"
    assert critic.score("浣溪沙", text).as_dict() == Critic().score("浣溪沙", text).as_dict()
    assert [int(critic._tone_digits[ord(ch)]) for ch in "春仄看□x\U0010ffff"] == [1, 2, 3, 0, 0, 0]
    assert Critic(profile="paper")._tone_digits[ord("□")] == "3"  # a lacuna fits where the profile says so


@pytest.mark.parametrize("stanza", [True, 1.0, "1"])
def test_a_stanza_that_is_no_int_is_refused(critic: Critic, stanza: object) -> None:
    with pytest.raises(ValueError, match=r"stanza must be an int \(0 the first stanza, 1 the 下阕 …\), got"):
        critic.score("菩萨蛮", PUSA, stanza=stanza)  # type: ignore[arg-type]
