"""The cipai resource (src/poetone/cipai/*.json): every file is valid and documented, every example
is a real 全宋词 poem that fits its own variant, and the variants cover the forms Song poets used.

Coverage of a cipai = share of its 全宋词 poems (printed under its name or an alias) for which some
variant gives structure 1.0 under the critic. Tests that read the 全宋词 need ../shared beside the
project and skip without it.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from importlib import resources

import pytest
from conftest import SHARED, SHARED_REASON

from poetone import Critic
from poetone.metadata import parse_cipai
from poetone.validation import corpus_poems, load_corpus

CORPUS = SHARED / "data/quan-song-ci/quan_song_ci.dev.json"
needs_shared = pytest.mark.skipif(not CORPUS.exists(), reason=SHARED_REASON)

# Required structural coverage is 0.95. A cipai listed here cannot honestly reach it: its uncovered
# poems are fragments, corrupt entries or other tunes printed under its title, or one-off 衬字/脱字
# that no 词谱 records (adding a variant for each would only teach the critic the corruption). The
# value is the measured floor, so the test still catches any regression.
COVERAGE_FLOOR = {
    # 77 poems, 9 uncovered: 4 fragments (苏轼 闲卧藤床、子瞻书困, 无名氏 素笺封了, 吴氏 待得明年),
    # 4 other tunes printed as 定风波 (范仲淹 罗绮满城 is 渔家傲, 贺铸 槛外雨波新涨 is 破阵子,
    # 柳永 伫立长堤 and 自春来 are 定风波慢), and 朱敦儒 红药花前 (衬字 你 in the last line).
    # Even with every non-fragment covered it could not pass 0.95. Measured 0.883.
    "定风波": 0.88,
    # 372 poems, 29 uncovered: 7 fragments or 缺词文 (陈德武 ×2, 无名氏 ×5); corrupt or half-lost
    # entries (□ in 蔡伸, 魏了翁, 卫时敏, 辛弃疾 未须草草); one-off line-length changes no 词谱 records (辛弃疾 洞庭春晚, 石孝友, 胡惠斋,
    # 程珌, 李仲光, 陈德武 古今明月, 刘辰翁 沧洲一叶/少微星小, 赵必□, 宝月, 无名氏 ×4, and the pairs
    # 卓田/陈之贤 (六字 for 七字) and 黎廷瑞/窃杯女子 (七字 结句), left out because a 减字 variant
    # absorbs char_drop damage). Measured 0.922.
    "念奴娇": 0.92,
    # 478 poems, 26 uncovered: 11 fragments (苏轼 我歌月徘徊, 范成大 ×3 下缺, 无名氏 ×6, 锺将之),
    # 5 parts of 曾布's 冯燕传 大曲 (排遍, another tune), 华岳 (□), and one-off 衬字/脱字 (叶梦得,
    # 甄龙友, 贾应, 马伯升, 甄良友, 赵希蓬, 无名氏 ×2). Measured 0.946.
    "水调歌头": 0.945,
}
REQUIRED_COVERAGE = 0.95
_MARKS = re.compile(r"[，。？！；：、,.?!;:\s《》“”‘’「」『』（）()]")


def _title(record: dict) -> str:
    return str(record.get("rhythmic", "")).split("・")[0].split("·")[0].strip()


def _builtin_files() -> list[tuple[str, str]]:
    folder = resources.files("poetone") / "cipai"
    return sorted((p.name, p.read_text(encoding="utf-8")) for p in folder.iterdir() if p.name.endswith(".json"))


@pytest.fixture(scope="module")
def critic() -> Critic:
    return Critic()


@pytest.fixture(scope="module")
def poems(critic: Critic) -> dict[str, list[tuple[str, dict]]]:
    if not CORPUS.exists():
        pytest.skip(SHARED_REASON)
    # corpus_poems keeps only titles that are exactly a name or an alias; filtering on that set
    # first gives the same poems without resolving (fuzzily) the thousands of other titles.
    titles = {t for n in critic.registry for t in (n, *critic.registry[n].aliases)}
    records = [r for r in load_corpus(CORPUS) if _title(r) in titles]
    by: dict[str, list[tuple[str, dict]]] = defaultdict(list)
    for name, text, rec in corpus_poems(critic, records):
        by[name].append((text, rec))
    return by


@pytest.fixture(scope="module")
def matched(critic: Critic, poems: dict) -> dict[str, list[set[str]]]:
    """Per cipai, per poem: the ids of the variants that give it structure 1.0."""
    out: dict[str, list[set[str]]] = {}
    for name, items in poems.items():
        ids = [v.id for v in critic.registry[name].variants]
        out[name] = [
            {vid for vid in ids if critic.score(name, text, variant=vid).structure == 1.0} for text, _ in items
        ]
    return out


def test_every_file_validates():
    files = _builtin_files()
    assert len(files) >= 20
    for fname, text in files:
        data = json.loads(text)
        cipai = parse_cipai(data, f"cipai/{fname}")
        assert fname == f"{cipai.name}.json", f"{fname}: file name must be the canonical name"
        assert cipai.variants[0].id == "正体", f"{fname}: the first variant is the 正体"


def test_every_variant_has_source_and_example(critic: Critic):
    for name in critic.registry:
        for v in critic.registry[name].variants:
            where = f"{name} {v.id}"
            assert v.source.strip(), f"{where}: no source"
            assert v.label.strip(), f"{where}: no label"
            assert str(v.example.get("poet", "")).strip(), f"{where}: example has no poet"
            assert str(v.example.get("first_line", "")).strip(), f"{where}: example has no first_line"


def test_no_cipai_shares_a_shape_with_another(critic: Critic):
    """A variant whose line lengths and rhyme tones equal another cipai's variant is that other tune."""
    owner: dict[tuple, str] = {}
    for name in critic.registry:
        for v in critic.registry[name].variants:
            shape = (v.lengths, tuple(line.rhyme_tone for line in v.lines))
            other = owner.setdefault(shape, f"{name} {v.id}")
            assert other.split()[0] == name, f"{name} {v.id} has the shape of {other}"


@needs_shared
def test_examples_are_real_poems_of_their_variant(critic: Critic, poems: dict):
    for name in critic.registry:
        for v in critic.registry[name].variants:
            poet, first = v.example["poet"], _MARKS.sub("", v.example["first_line"])
            found = [
                text
                for text, rec in poems.get(name, [])
                if rec.get("author") == poet and _MARKS.sub("", text).startswith(first)
            ]
            assert found, f"{name} {v.id}: no 全宋词 poem of {name} by {poet} starting {first}"
            best = max(critic.score(name, text, variant=v.id).structure for text in found)
            assert best == 1.0, f"{name} {v.id}: its example {poet} {first} scores structure {best} against it"


@needs_shared
def test_structural_coverage(matched: dict):
    low = []
    for name, hits in sorted(matched.items()):
        coverage = sum(1 for h in hits if h) / len(hits)
        floor = COVERAGE_FLOOR.get(name, REQUIRED_COVERAGE)
        if coverage < floor:
            low.append(f"{name} {coverage:.3f} < {floor}")
    assert not low, "structural coverage below target: " + "; ".join(low)


@needs_shared
def test_every_cipai_has_poems(critic: Critic, poems: dict):
    assert sorted(poems) == sorted(critic.registry)


@needs_shared
def test_every_variant_is_attested(critic: Critic, matched: dict):
    unused = []
    for name in critic.registry:
        used = set().union(*matched.get(name, [set()]))
        unused += [f"{name} {v.id}" for v in critic.registry[name].variants if v.id not in used]
    assert not unused, "variants no 全宋词 poem follows: " + ", ".join(unused)


# Canonical poems (全宋词 text) that must conform to the resource.
CANONICAL = [
    ("声声慢", "李清照", "寻寻觅觅"),
    ("念奴娇", "苏轼", "大江东去"),
    ("满江红", "岳飞", "怒发冲冠"),
    ("水调歌头", "苏轼", "明月几时有"),
    ("青玉案", "辛弃疾", "东风夜放花千树"),
    ("定风波", "苏轼", "莫听穿林打叶声"),
    ("江城子", "苏轼", "十年生死两茫茫"),
    ("江城子", "苏轼", "老夫聊发少年狂"),
    ("一剪梅", "李清照", "红藕香残玉簟秋"),
    ("卜算子", "陆游", "驿外断桥边"),
    ("破阵子", "辛弃疾", "醉里挑灯看剑"),
    ("渔家傲", "范仲淹", "塞下秋来风景异"),
    ("蝶恋花", "晏殊", "槛菊愁烟兰泣露"),
    ("西江月", "辛弃疾", "明月别枝惊鹊"),
    ("临江仙", "苏轼", "夜饮东坡醒复醉"),
    ("点绛唇", "无名氏", "蹴罢秋千"),
    ("清平乐", "黄庭坚", "春归何处"),
    ("钗头凤", "陆游", "红酥手"),
    ("钗头凤", "唐婉", "世情薄"),
    ("满江红", "姜夔", "仙姥来时"),
    ("念奴娇", "叶梦得", "洞庭波冷"),
]


@needs_shared
def test_canonical_poems_conform(critic: Critic, poems: dict):
    low = []
    for name, poet, first in CANONICAL:
        found = [
            text for text, rec in poems[name] if rec.get("author") == poet and _MARKS.sub("", text).startswith(first)
        ]
        assert found, f"{name} {poet} {first} is not in the 全宋词 dev corpus"
        r = critic.score(name, found[0])
        if r.conformity < 0.95:
            low.append(f"{name} {poet} {first}: {r.conformity:.3f} ({r.variant})")
    assert not low, "canonical poems below 0.95: " + "; ".join(low)
