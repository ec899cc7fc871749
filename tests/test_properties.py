"""Property tests: any text, any cipai, any profile gives a well-formed, deterministic result."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poetone import Critic, CriticResult

CIPAI_20 = [
    "浣溪沙", "蝶恋花", "念奴娇", "水调歌头", "满江红", "江城子", "声声慢", "虞美人", "一剪梅", "卜算子",
    "青玉案", "西江月", "临江仙", "定风波", "渔家傲", "钗头凤", "破阵子", "菩萨蛮", "清平乐", "点绛唇",
]  # fmt: skip

# Common Han characters (classical 入声 ones included), a few traditional and rare ones, the lacuna,
# Chinese and ASCII punctuation, and newlines.
HAN = (
    "春花秋月何时了往事知多少小楼昨夜又东风故国不堪回首明中大江去浪淘尽千古流人物白一国"
    "寻觅冷清凄惨戚乍暖还寒候最难将息杯酒词年天气旧亭台夕阳西下几回无可奈落似曾相识燕归来"
    "錯莫嬌聲鳳龍𠀋㐀□"
)
PUNCT = "，。？！；：、,.!?;:《》“”「」—…（）·\n\n  "
CHINESE_TEXT = st.text(alphabet=st.sampled_from(HAN + PUNCT), max_size=160)
# Verse-shaped text: clauses of 1-9 Han characters between clause marks, as a poem of any form has.
CLAUSE = st.text(alphabet=st.sampled_from(HAN[:-5]), min_size=1, max_size=9)
MARK = st.sampled_from(["，", "。", "、", "？", "！", "；", "\n", "。\n", "。\n\n", " ", ""])
VERSE_TEXT = st.lists(st.tuples(CLAUSE, MARK), max_size=26).map(lambda parts: "".join(c + m for c, m in parts))
ANY_TEXT = st.text(max_size=160)
CIPAI = st.sampled_from(CIPAI_20)

# poetone-code rounds each component, and the total, to 0.01 percent on its own (as the official
# script does), so its total can differ from the weighted sum of its rounded parts by up to 1e-4.
TOLERANCE = {"default": 1e-9, "paper": 1e-9, "poetone-code": 1e-4 + 1e-9}

CRITICS: dict[str, Critic] = {}


def critic_for(profile: str) -> Critic:
    if profile not in CRITICS:
        CRITICS[profile] = Critic(profile=profile)
    return CRITICS[profile]


def check(profile: str, cipai: str, text: str) -> CriticResult:
    critic = critic_for(profile)
    r = critic.score(cipai, text)
    assert isinstance(r.valid, bool)
    values = (r.conformity, r.structure, r.tonal, r.rhyme)
    assert all(isinstance(v, float) for v in values), values
    assert all(0.0 <= v <= 1.0 for v in values), values
    assert r.cipai == cipai
    assert r.profile == profile
    if r.valid:
        weighted = 0.4 * r.structure + 0.3 * r.tonal + 0.3 * r.rhyme
        assert abs(r.conformity - weighted) <= TOLERANCE[profile], (r.conformity, weighted)
        assert r.variant in [v.id for v in critic.variants(cipai)]
    else:
        assert values == (0.0, 0.0, 0.0, 0.0)
        assert r.variant is None
        assert r.reason
    again = critic.score(cipai, text)
    assert again.as_dict() == r.as_dict()
    assert again.lines == r.lines
    # explaining the result never fails either
    assert isinstance(r.render(), str)
    assert r.details()["valid"] is r.valid
    return r


PROFILES = ["default", "paper", "poetone-code"]


@pytest.mark.parametrize("profile", PROFILES)
@settings(derandomize=True, max_examples=200, deadline=None)
@given(cipai=CIPAI, text=ANY_TEXT)
def test_any_text(profile: str, cipai: str, text: str) -> None:
    check(profile, cipai, text)


@pytest.mark.parametrize("profile", PROFILES)
@settings(derandomize=True, max_examples=200, deadline=None)
@given(cipai=CIPAI, text=CHINESE_TEXT)
def test_chinese_text(profile: str, cipai: str, text: str) -> None:
    check(profile, cipai, text)


@pytest.mark.parametrize("profile", PROFILES)
@settings(derandomize=True, max_examples=200, deadline=None)
@given(cipai=CIPAI, text=VERSE_TEXT)
def test_verse_shaped_text(profile: str, cipai: str, text: str) -> None:
    check(profile, cipai, text)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(cipai=CIPAI, text=st.one_of(CHINESE_TEXT, VERSE_TEXT))
def test_result_does_not_depend_on_what_was_scored_before(cipai: str, text: str) -> None:
    """The plan cache is keyed by shape only: a fresh critic gives the same result as a warm one."""
    warm = critic_for("default")
    fresh = Critic()
    assert fresh.score(cipai, text).as_dict() == warm.score(cipai, text).as_dict()


@settings(derandomize=True, max_examples=200, deadline=None)
@given(
    cipai=CIPAI,
    text=st.one_of(CHINESE_TEXT, VERSE_TEXT),
    weights=st.sampled_from([(0.5, 0.25, 0.25), (1.0, 0.0, 0.0), (0.2, 0.4, 0.4)]),
)
def test_weighted_sum_with_other_weights(cipai: str, text: str, weights: tuple[float, float, float]) -> None:
    r = weighted_critic(weights).score(cipai, text)
    if r.valid:
        ws, wt, wr = weights
        assert abs(r.conformity - (ws * r.structure + wt * r.tonal + wr * r.rhyme)) <= 1e-9
        # the best variant under these weights is at least as good as the default critic's choice under them
        base = critic_for("default").score(cipai, text)
        assert r.conformity >= ws * base.structure + wt * base.tonal + wr * base.rhyme - 1e-9


_WEIGHTED: dict[tuple[float, float, float], Critic] = {}


def weighted_critic(weights: tuple[float, float, float]) -> Critic:
    if weights not in _WEIGHTED:
        _WEIGHTED[weights] = Critic(weights=weights)
    return _WEIGHTED[weights]


def _per_variant(critic: Critic, cipai: str, text: str) -> list[tuple[float, str]]:
    """(conformity, variant id) of the text scored against each variant in turn, in listed order."""
    return [(critic.score(cipai, text, variant=v.id).conformity, v.id) for v in critic.variants(cipai)]


@settings(derandomize=True, max_examples=200, deadline=None)
@given(cipai=CIPAI, text=st.one_of(CHINESE_TEXT, VERSE_TEXT))
def test_best_variant_is_the_maximum_over_variants(cipai: str, text: str) -> None:
    critic = critic_for("default")
    best = critic.score(cipai, text)
    if not best.valid:
        return
    assert best.conformity == pytest.approx(max(t for t, _ in _per_variant(critic, cipai, text)), abs=1e-12)


def _tone_and_rhyme_from_details(r: CriticResult) -> tuple[float | None, float | None]:
    rows = r.details()["lines"]
    cells = [c for row in rows if row.get("length_ok") for c in row.get("tones", [])]
    rhymes = [row["rhyme"] for row in rows if "rhyme" in row]
    missing = sum(row.get("missing_characters", 0) for row in rows)  # the form's lines the poem lacks
    tonal = sum(c["ok"] for c in cells) / (len(cells) + missing) if cells else None
    rhyme = sum(x["ok"] for x in rhymes) / len(rhymes) if rhymes else None
    return tonal, rhyme


@pytest.mark.parametrize("profile", ["default", "paper"])
@settings(derandomize=True, max_examples=200, deadline=None)
@given(cipai=CIPAI, text=VERSE_TEXT)
def test_details_explain_the_scores(profile: str, cipai: str, text: str) -> None:
    """Every fault details() lists is one the score counted, and the other way round."""
    r = critic_for(profile).score(cipai, text)
    if not r.valid:
        return
    tonal, rhyme = _tone_and_rhyme_from_details(r)
    assert (tonal if tonal is not None else 0.0) == pytest.approx(r.tonal, abs=1e-12)
    assert (rhyme if rhyme is not None else 0.0) == pytest.approx(r.rhyme, abs=1e-12)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(cipai=CIPAI, text=st.one_of(CHINESE_TEXT, VERSE_TEXT))
def test_ties_go_to_the_first_listed_variant(cipai: str, text: str) -> None:
    critic = critic_for("default")
    best = critic.score(cipai, text)
    if not best.valid:
        return
    totals = _per_variant(critic, cipai, text)
    top = max(t for t, _ in totals)
    first = next(vid for t, vid in totals if t >= top - 1e-12)
    assert best.variant == first


@settings(derandomize=True, max_examples=200, deadline=None)
@given(text=st.one_of(CHINESE_TEXT, ANY_TEXT, VERSE_TEXT))
def test_extraction_is_idempotent_and_scoring_sees_only_the_poem(text: str) -> None:
    from poetone.extraction import extract_poem

    ex = extract_poem(text, "浣溪沙")
    assert isinstance(ex.valid, bool)
    if not ex.valid:
        assert ex.poem == ""
        return
    again = extract_poem(ex.poem, "浣溪沙")
    assert again.valid and again.poem == ex.poem
    critic = critic_for("default")
    assert critic.score("浣溪沙", text).as_dict() == critic.score("浣溪沙", ex.poem).as_dict()


LENGTHS = st.lists(st.integers(min_value=1, max_value=8), max_size=24)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(lengths=LENGTHS, want=LENGTHS.filter(bool))
def test_alignment_reads_the_most_lines_in_order(lengths: list[int], want: list[int]) -> None:
    """Every reading keeps the order, reads a form line at most once, and reads as many lines at
    the right length as a longest common subsequence of the two length sequences allows."""
    from poetone.critic import _alignments, _lcs_rows

    most = len(want) - _lcs_rows(lengths, want)[-1].bit_count()
    table = [[0] * (len(want) + 1) for _ in range(len(lengths) + 1)]
    for i, a in enumerate(lengths):
        for j, b in enumerate(want):
            table[i + 1][j + 1] = table[i][j] + 1 if a == b else max(table[i][j + 1], table[i + 1][j])
    assert most == table[-1][-1]
    readings = _alignments(lengths, want)
    assert readings and len(set(readings)) == len(readings)
    for line_of in readings:
        assert len(line_of) == len(lengths)
        used = [j for j in line_of if j >= 0]
        assert used == sorted(set(used)) and all(j < len(want) for j in used)
        assert sum(1 for i, j in enumerate(line_of) if j >= 0 and lengths[i] == want[j]) == most
