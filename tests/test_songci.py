"""The eval set and the scoring of one answer: the shared core of the lm-eval and Inspect tasks."""

from __future__ import annotations

import pytest

from poetone import Critic, prompts
from poetone.corpus import THEMES, load_records
from poetone.songci import build_eval_set, copy_overlap, score_answer, split_stanzas, strip_given_upper


@pytest.fixture(scope="module")
def eval_set() -> list:
    return build_eval_set(critic=Critic())


@pytest.fixture(scope="module")
def records() -> dict[str, dict]:
    return {r["id"]: r for r in load_records()}


def test_600_prompts_with_stable_unique_ids(eval_set: list) -> None:
    assert len(eval_set) == 600
    ids = [p.id for p in eval_set]
    assert len(set(ids)) == 600
    assert ids[0] == "zero_shot-huanxisha-love_longing"
    for p in eval_set:
        assert p.id == f"{p.strategy}-{p.reference_id.rsplit('-', 1)[0]}-{p.theme}" or p.strategy == "one_shot"
        assert p.prompt_hash == prompts.prompt_hash() and p.prompt_version == prompts.PROMPT_VERSION
        assert p.system == prompts.SYSTEM and f"《{p.cipai}》" in p.user and f"「{THEMES[p.theme]}」" in p.user
        assert p.plain.startswith(p.system) and p.user in p.plain


def test_filters() -> None:
    c = Critic()
    some = build_eval_set(["cot"], cipai=["菩萨蛮", "酹江月"], theme="history_nostalgia", critic=c)
    assert [(p.cipai, p.theme) for p in some] == [("念奴娇", "history_nostalgia"), ("菩萨蛮", "history_nostalgia")]
    assert [p.theme for p in build_eval_set(["zero_shot"], cipai="浣溪沙", theme="哲理")] == ["philosophical_reflection"]
    with pytest.raises(ValueError, match="unknown theme"):
        build_eval_set(theme="romance", critic=c)
    with pytest.raises(ValueError, match="unknown strategy"):
        build_eval_set(["few_shot"], critic=c)


def test_one_shot_example_is_never_the_poem_of_the_same_theme(eval_set: list, records: dict) -> None:
    for p in (p for p in eval_set if p.strategy == "one_shot"):
        example = records[p.reference_id]
        assert example["cipai"] == p.cipai
        assert p.reference_id.rsplit("-", 1)[1] != p.theme
        assert example["text"] in p.user


def test_completion_gives_the_upper_stanza_and_keeps_the_original_lower(eval_set: list, records: dict) -> None:
    critic = Critic()
    for p in (p for p in eval_set if p.strategy == "completion"):
        poem = records[p.reference_id]
        assert p.upper in p.user and p.original_lower not in p.user
        assert (p.upper + p.original_lower).replace("\n", "") == poem["text"].replace("\n", "")
        own = score_answer(p, p.original_lower, critic)
        assert own["valid"] and own["copied"] == 1.0 and own["conformity"] == 0.0  # a copy scores 0
        fresh = critic.score(p.cipai, p.original_lower, stanza=1)
        assert fresh.conformity >= 0.85, (p.id, fresh.render())


def test_completion_strips_a_repeated_upper_stanza() -> None:
    upper = "平林漠漠烟如织，寒山一带伤心碧。暝色入高楼，有人楼上愁。"
    lower = "玉阶空伫立，宿鸟归飞急。何处是归程？长亭连短亭。"
    assert strip_given_upper(upper + "\n" + lower, upper) == lower
    assert strip_given_upper(lower, upper) == lower
    assert copy_overlap(lower, lower) == 1.0 and copy_overlap("", lower) == 0.0


def test_instruction_states_the_rules(eval_set: list) -> None:
    p = next(p for p in eval_set if p.strategy == "instruction" and p.cipai == "菩萨蛮")
    assert "上阕共4句，44字" not in p.user  # per stanza, not the whole
    assert "上阕共4句，24字" in p.user and "换韵" in p.user and "平仄 中平中仄平平仄" in p.user


def test_cot_analysis_is_dropped_before_scoring_and_kept(eval_set: list, records: dict) -> None:
    critic = Critic()
    p = next(p for p in eval_set if p.strategy == "cot" and p.cipai == "浣溪沙")
    poem = records[p.reference_id]["text"]
    answer = f"【分析】浣溪沙双调四十二字，上阕三句三平韵，下阕三句两平韵，七言律句。\n【作品】\n{poem}"
    scored = score_answer(p, answer, critic)
    assert scored["valid"] and scored["conformity"] == pytest.approx(critic.score("浣溪沙", poem).conformity)
    assert scored["analysis"].startswith("浣溪沙双调")


@pytest.mark.parametrize("answer", ["", "   ", "I cannot help with that.", "抱歉，我无法为您创作这首词。"])
def test_invalid_answers_score_zero_and_are_flagged(eval_set: list, answer: str) -> None:
    scored = score_answer(eval_set[0], answer, Critic())
    assert scored["invalid"] == 1.0 and not scored["valid"]
    assert (scored["conformity"], scored["structure"], scored["tonal"], scored["rhyme"]) == (0.0, 0.0, 0.0, 0.0)
    assert scored["reason"]


def test_split_stanzas_by_clause_count_when_the_text_is_one_line() -> None:
    text = "平林漠漠烟如织，寒山一带伤心碧。暝色入高楼，有人楼上愁。玉阶空伫立，宿鸟归飞急。何处是归程？长亭连短亭。"
    upper, lower = split_stanzas(text, Critic(), "菩萨蛮")
    assert upper.endswith("有人楼上愁。") and lower.startswith("玉阶空伫立")


@pytest.mark.parametrize("strategy", ["zero_shot", "completion"])
def test_an_answer_is_read_once(monkeypatch: pytest.MonkeyPatch, strategy: str) -> None:
    """score_answer extracts the poem once; the critic scores that extraction without reading again."""
    import poetone.critic
    import poetone.extraction
    import poetone.songci

    calls: list[str] = []
    real = poetone.extraction.extract_poem

    def counting(text: str, cipai: str = "") -> poetone.extraction.Extraction:
        calls.append(text)
        return real(text, cipai)

    monkeypatch.setattr(poetone.songci, "extract_poem", counting)
    monkeypatch.setattr(poetone.critic, "extract_poem", counting)
    critic = Critic()
    answer = "好的，这是我的词：\n\n一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？\n无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"
    prompt = {"strategy": strategy, "cipai": "浣溪沙", "upper": "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？", "original_lower": ""}
    out = score_answer(prompt, answer, critic)
    assert out["valid"] and len(calls) == 1


SHILIUZILING = {
    "name": "十六字令",
    "aliases": ["苍梧谣", "归字谣"],
    "source": "test: 钦定词谱 卷一 (蔡伸词)",
    "variants": [
        {
            "id": "正体",
            "label": "单调十六字，四句三平韵",
            "source": "钦定词谱 卷一 蔡伸词",
            "example": {"poet": "蔡伸", "first_line": "天"},
            "stanzas": [["平 韵A", "中仄平平中仄平 韵A", "平平仄 句", "中仄仄平平 韵A"]],
        }
    ],
}


def critic_with_a_tune_beyond_the_corpus(tmp_path) -> Critic:
    import json
    from importlib import resources

    folder = tmp_path / "cipai"
    folder.mkdir()
    for f in resources.files("poetone").joinpath("cipai").iterdir():
        if f.name.endswith(".json"):
            (folder / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "十六字令.json").write_text(json.dumps(SHILIUZILING, ensure_ascii=False), encoding="utf-8")
    return Critic(metadata=folder)


def test_zero_shot_and_instruction_take_a_tune_the_corpus_has_no_poem_of(tmp_path) -> None:
    from poetone.inspect_tasks.tasks import record_to_sample

    critic = critic_with_a_tune_beyond_the_corpus(tmp_path)
    out = build_eval_set(["zero_shot", "instruction", "cot"], cipai="十六字令", critic=critic)
    assert len(out) == 18 and {p.cipai for p in out} == {"十六字令"}
    assert out[0].id == "zero_shot-十六字令-" + out[0].theme and out[0].reference_id == ""
    instruction = next(p for p in out if p.strategy == "instruction")
    assert "共4句，16字" in instruction.user and "第2句：7字" in instruction.user
    assert record_to_sample(out[0].as_record()).target == ""
    mixed = build_eval_set(["zero_shot"], cipai=["十六字令", "浣溪沙"], critic=critic)
    assert len(mixed) == 12
    # the answer is scored against the tune
    answer = "天。休使圆蟾照客眠。人何在，桂影自婵娟。"
    assert score_answer(out[0], answer, critic)["conformity"] > 0.9


@pytest.mark.parametrize("strategy", ["one_shot", "completion"])
def test_a_strategy_that_needs_a_corpus_poem_names_the_reason(tmp_path, strategy: str) -> None:
    critic = critic_with_a_tune_beyond_the_corpus(tmp_path)
    with pytest.raises(ValueError, match=f"strategy '{strategy}' needs a corpus poem of 十六字令.*zero_shot"):
        build_eval_set([strategy], cipai="十六字令", critic=critic)


def test_a_one_stanza_form_is_stated_whole_and_an_unsplit_one_says_so() -> None:
    from poetone.metadata import parse_cipai
    from poetone.songci import render_rules, stanza_name

    # 浪淘沙 itself is 单调 (the 钦定词谱's 28字 正体, four lines): no 上阕 to speak of
    rules = render_rules(Critic().registry["浪淘沙"].variants[0])
    assert rules.startswith("全词共4句，28字：") and "上阕" not in rules
    unsplit = parse_cipai(
        {
            "name": "测试调",
            "source": "手写",
            "variants": [
                {
                    "id": "正体",
                    "label": "单段 (分段未能推定)10字",
                    "source": "手写",
                    "stanzas": [["平平仄仄平 韵A", "仄仄仄平平 韵A"]],
                }
            ],
        },
        "test",
    )
    assert render_rules(unsplit.variants[0]).startswith("全词共2句，10字（分段未能推定）：")
    assert [stanza_name(i, 2) for i in range(2)] == ["上阕", "下阕"]
    assert [stanza_name(i, 3) for i in range(3)] == ["第一段", "第二段", "第三段"]
