"""The Inspect tasks, scorers and reference model, run through Inspect's own ``eval``.

Models: ``poetone/reference`` (authentic poems), ``mockllm`` with scripted outputs, and the local
OpenAI-compatible server on 127.0.0.1 through Inspect's ``openai-api`` provider. Every metric in
a log must equal what the critic says of exactly what the model sent.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from openai_stub import OpenAIStub

from poetone import Critic
from poetone.corpus import THEMES, load_records
from poetone.prompts import STRATEGIES
from poetone.songci import build_eval_set, score_answer

CRITIC = Critic()
PROMPTS = {p.id: p for p in build_eval_set()}
RECORDS = {r["id"]: r for r in load_records()}
TASKS = ("zero_shot", "one_shot", "completion", "instruction", "cot")


def _run(task: str, model: Any, tmp_path: Path, **kwargs: Any) -> EvalLog:
    logs = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none", **kwargs)
    assert len(logs) == 1
    log = logs[0]
    assert log.status == "success", log.error
    return log


def _metric(log: EvalLog, scorer: str, key: str, metric: str) -> float:
    for s in log.results.scores:
        if s.scorer == scorer and s.name == key:
            return s.metrics[metric].value
    raise KeyError((scorer, key, metric))


def _expected(samples: list[Any]) -> dict[str, list[dict[str, Any]]]:
    return {s.id: score_answer(PROMPTS[s.id], s.output.completion, CRITIC) for s in samples}


# ---------------------------------------------------------------------------- registration


@pytest.mark.parametrize("task", TASKS)
def test_each_strategy_task_is_registered_and_runs(task: str, tmp_path: Path) -> None:
    log = _run(f"poetone/{task}", "poetone/reference", tmp_path, limit=3)
    assert log.eval.task == f"poetone/{task}"
    assert len(log.samples) == 3
    assert all(s.id.startswith(f"{task}-") for s in log.samples)
    assert log.eval.metadata["prompt_hash"] == next(iter(PROMPTS.values())).prompt_hash


def test_songci_strategy_parameter_and_filters(tmp_path: Path) -> None:
    log = _run(
        "poetone/songci",
        "poetone/reference",
        tmp_path,
        task_args={"strategy": "one_shot,cot", "cipai": "酹江月", "theme": "history_nostalgia"},
    )
    assert sorted(s.id for s in log.samples) == [
        "cot-niannujiao-history_nostalgia",
        "one_shot-niannujiao-history_nostalgia",
    ]


def test_unknown_strategy_is_a_clear_error() -> None:
    from poetone.inspect_tasks import songci

    with pytest.raises(ValueError, match="unknown strategy 'two_shot'"):
        songci(strategy="two_shot")


def test_a_cipai_option_yaml_reads_as_a_number_or_as_blank_is_named() -> None:
    from poetone.inspect_tasks import longtail, zero_shot
    from poetone.metadata import UnknownCipaiError

    with pytest.raises(UnknownCipaiError, match="unknown cipai '123'"):
        zero_shot(cipai=123)  # -T cipai=123 arrives as an int
    with pytest.raises(ValueError, match="cipai=' ' names no cipai"):
        zero_shot(cipai=" ")
    with pytest.raises(ValueError, match=r"unknown band \['201'\]"):
        longtail(band=201)


def test_a_profile_that_cannot_score_completion_is_refused_before_generating() -> None:
    from poetone.inspect_tasks import completion, songci

    # poetone-code (the official code) scores whole poems; a completion answer is a 下阕 alone
    for build in (lambda: songci(profile="poetone-code"), lambda: completion(profile="poetone-code")):
        with pytest.raises(ValueError, match="profile 'poetone-code' scores whole poems only"):
            build()
    assert {s.metadata["strategy"] for s in songci(strategy="zero_shot,cot", profile="poetone-code").dataset} == {
        "zero_shot",
        "cot",
    }


def test_generation_settings_default_to_the_papers_and_can_be_changed() -> None:
    from poetone.inspect_tasks import cot, zero_shot

    cfg = zero_shot().config
    assert (cfg.temperature, cfg.top_p, cfg.max_tokens) == (0.7, 0.9, 1024)
    assert cot().config.max_tokens == 2048
    assert zero_shot(temperature=0.0, max_tokens=300).config.max_tokens == 300


def test_every_task_is_a_plain_task_function_in_source() -> None:
    """Tools that read ``@task`` from the source without importing it (``inspect list tasks``,
    inspect_evals' listing) must find every task: top-level functions decorated ``@task``."""
    import ast

    from inspect_ai import list_tasks

    import poetone.inspect_tasks.tasks as module

    source = Path(module.__file__)
    tree = ast.parse(source.read_text(encoding="utf-8"))
    decorated = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any(
            (isinstance(d, ast.Name) and d.id == "task")
            or (isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "task")
            for d in node.decorator_list
        )
    }
    assert decorated == {*TASKS, "songci", "longtail"}
    listed = {t.name for t in list_tasks(source.name, root_dir=source.parent)}
    assert listed == {*TASKS, "songci", "longtail"}


def test_strategy_tasks_take_songcis_parameters_but_strategy() -> None:
    import inspect

    from poetone.inspect_tasks import tasks

    expected = [p for p in inspect.signature(tasks.songci).parameters.values() if p.name != "strategy"]
    for name in TASKS:
        assert list(inspect.signature(getattr(tasks, name)).parameters.values()) == expected, name


def _recording(seen: dict[str, int | None]) -> Any:
    """A model that answers nothing useful and records the max_tokens each prompt was sent with."""

    def reply(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        user = next(m.text for m in input if m.role == "user")  # the prompt, also under a revision request
        strategy = next(p.strategy for p in PROMPTS.values() if p.user == user)
        seen.setdefault(strategy, config.max_tokens)
        assert seen[strategy] == config.max_tokens
        return _output("mockllm", "无")

    return reply


@pytest.mark.parametrize("revise", [0, 1])
def test_a_mixed_run_gives_each_strategy_its_own_budget(tmp_path: Path, revise: int) -> None:
    """As lm-eval does (songci_cot 2048, the others 1024), not the largest budget for all."""
    seen: dict[str, int | None] = {}
    model = get_model("mockllm/model", custom_outputs=_recording(seen), memoize=False)
    args = {"strategy": "zero_shot,cot,completion", "cipai": "浣溪沙", "theme": "love_longing", "revise": revise}
    log = _run("poetone/songci", model, tmp_path, task_args=args)
    assert seen == {"zero_shot": 1024, "cot": 2048, "completion": 1024}
    assert log.eval.metadata["max_tokens"] == seen


def test_a_mixed_run_keeps_a_budget_the_user_sets(tmp_path: Path) -> None:
    args = {"strategy": "zero_shot,cot", "cipai": "浣溪沙", "theme": "love_longing"}
    seen: dict[str, int | None] = {}
    model = get_model("mockllm/model", custom_outputs=_recording(seen), memoize=False)
    _run("poetone/songci", model, tmp_path, task_args={**args, "max_tokens": 300})  # -T max_tokens=300
    assert seen == {"zero_shot": 300, "cot": 300}
    for given in ("mockllm/model", model):  # by name, as the command line does, and as a Model
        seen.clear()
        kwargs = {"model_args": {"custom_outputs": _recording(seen)}} if isinstance(given, str) else {}
        _run("poetone/songci", given, tmp_path, task_args=args, max_tokens=500, **kwargs)  # --max-tokens 500
        assert seen == {"zero_shot": 500, "cot": 500}


def test_copied_is_shown_only_for_tasks_with_completion(tmp_path: Path) -> None:
    def names(log: EvalLog) -> set[str]:
        return {s.name for s in log.results.scores if s.scorer == "conformity"}

    assert names(_run("poetone/zero_shot", "poetone/reference", tmp_path, limit=2)) == {
        "conformity", "structure", "tonal", "rhyme", "invalid"
    }  # fmt: skip
    assert "copied" in names(_run("poetone/completion", "poetone/reference", tmp_path, limit=2))
    mixed = _run("poetone/songci", "poetone/reference", tmp_path, task_args={"strategy": "cot,one_shot"}, limit=3)
    assert "copied" not in names(mixed)
    log = _run(
        "poetone/songci", "poetone/reference", tmp_path,
        task_args={"strategy": "zero_shot,completion", "cipai": "浣溪沙"},
    )  # fmt: skip
    copied = next(s for s in log.results.scores if s.scorer == "conformity" and s.name == "copied")
    assert (copied.scored_samples, copied.unscored_samples) == (6, 6)  # the rate is over completion alone


# ---------------------------------------------------------------------------- reference model


def test_reference_model_scores_the_whole_eval_set(tmp_path: Path) -> None:
    log = _run("poetone/songci", "poetone/reference", tmp_path)
    assert len(log.samples) == 600
    expected = _expected(log.samples)
    for s in log.samples:
        p = PROMPTS[s.id]
        if p.strategy == "one_shot":
            assert s.output.completion.strip() != RECORDS[p.reference_id]["text"].strip()  # never the example
        if p.strategy == "completion":
            assert expected[s.id]["copied"] == 0.0
            assert s.output.completion.strip() not in RECORDS[p.id.split("-", 1)[1]]["text"]
        assert s.scores["conformity"].value["conformity"] == pytest.approx(expected[s.id]["conformity"])
    mean = fmean(e["conformity"] for e in expected.values())
    assert _metric(log, "conformity", "conformity", "mean") == pytest.approx(mean)
    assert mean > 0.98
    assert _metric(log, "conformity", "invalid", "mean") == 0.0
    for strategy in STRATEGIES:
        group = [e["conformity"] for i, e in expected.items() if i.startswith(strategy + "-")]
        assert _metric(log, "conformity", "conformity", f"grouped_{strategy}") == pytest.approx(fmean(group))


def test_reference_model_refuses_what_is_not_a_songci_prompt() -> None:
    import asyncio

    model = get_model("poetone/reference")
    with pytest.raises(ValueError, match="answers only the Songci prompts"):
        asyncio.run(model.generate("写一首唐诗"))
    with pytest.raises(ValueError, match="unknown poetone model"):
        get_model("poetone/gpt", memoize=False)


# ---------------------------------------------------------------------------- mockllm


def _output(model: str, text: str) -> ModelOutput:
    """A scripted reply with its usage set (mockllm would otherwise count tokens with tiktoken,
    which downloads its encoding: no network here)."""
    out = ModelOutput.from_content(model, text)
    out.usage = ModelUsage(input_tokens=1, output_tokens=len(text), total_tokens=1 + len(text))
    return out


def _scripted(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
    """Answers chosen from the prompt: poems wrapped in chatter, prose, empty, a copied 下阕."""
    user = input[-1].text
    for r in RECORDS.values():
        slot = r["id"].rsplit("-", 1)[1]
        if f"《{r['cipai']}》" in user and f"「{THEMES[slot]}」" in user:
            if slot == "sorrow_grief":
                text = ""
            elif slot == "philosophical_reflection":
                text = "抱歉，我无法创作这首词。"
            elif "续写" in user:
                text = r["text"].split("\n", 1)[-1]  # the poet's own 下阕: a copy
            else:
                text = f"好的，这是一首《{r['cipai']}》：\n\n{r['text']}\n\n希望你喜欢。"
            return _output("mockllm", text)
    return _output("mockllm", "")


def test_mockllm_metrics_equal_the_critics_scores(tmp_path: Path) -> None:
    model = get_model("mockllm/model", custom_outputs=_scripted)
    log = _run("poetone/songci", model, tmp_path, task_args={"strategy": "zero_shot,completion"})
    expected = _expected(log.samples)
    assert len(expected) == 240
    for key in ("conformity", "structure", "tonal", "rhyme", "invalid"):
        assert _metric(log, "conformity", key, "mean") == pytest.approx(fmean(e[key] for e in expected.values()))
    invalid = [s for s in log.samples if s.scores["conformity"].value["invalid"] == 1.0]
    assert len(invalid) == 2 * 20 * 2  # empty and prose, in both strategies
    assert all(s.scores["conformity"].value["conformity"] == 0.0 for s in invalid)
    assert all("invalid output" in s.scores["conformity"].explanation for s in invalid)
    copies = [e for i, e in expected.items() if i.startswith("completion-") and e["copied"]]
    assert len(copies) == 80
    assert _metric(log, "conformity", "copied", "mean") == pytest.approx(80 / 120)
    sample = next(s for s in log.samples if s.id == "zero_shot-niannujiao-history_nostalgia")
    score = sample.scores["conformity"]
    assert score.answer.startswith("大江东去") and "希望" not in score.answer
    assert "念奴娇" in score.explanation and score.metadata["variant"]


def test_epochs_give_one_candidate_per_epoch(tmp_path: Path) -> None:
    model = get_model("mockllm/model", custom_outputs=_scripted)
    log = _run("poetone/zero_shot", model, tmp_path, limit=4, epochs=3)
    assert len(log.samples) == 12
    assert sorted({s.epoch for s in log.samples}) == [1, 2, 3]


# ---------------------------------------------------------------------------- the judge

GOOD = '{"流畅": 4, "连贯": 5, "意境": 3, "理由": "语言自然"}'


def _grader(replies: dict[str, list[str]]) -> Any:
    """A scripted grader: per cipai a queue of replies (the retry takes the next one)."""

    def reply(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        assert config.temperature == 0.0
        first = input[0].text
        for cipai, queue in replies.items():
            if f"《{cipai}》" in first:
                n = sum(1 for m in input if m.role == "assistant")
                return _output("grader", queue[min(n, len(queue) - 1)])
        return _output("grader", GOOD)

    return reply


def test_judge_averages_graders_and_counts_invalid_judgments(tmp_path: Path) -> None:
    g1 = get_model(
        "mockllm/g1",
        custom_outputs=_grader(
            {
                "浣溪沙": ['好的！```json\n{"流畅": "5分", "连贯": 5, "意境": 5}\n```'],
                "蝶恋花": ["{流畅: 4", '{"fluency": 2, "coherence": 2, "yijing": 2}'],  # broken, then fixed on retry
                "念奴娇": ["无法评价", "还是无法评价"],  # broken twice: invalid
            }
        ),
    )
    g2 = get_model("mockllm/g2", custom_outputs=_grader({"念奴娇": ["流畅：3分，连贯：3分，意境：4分"]}))
    log = _run(
        "poetone/zero_shot", "poetone/reference", tmp_path,
        task_args={"cipai": "浣溪沙,蝶恋花,念奴娇", "theme": "love_longing", "judge": True},
        model_roles={"grader": [g1, g2]},
    )  # fmt: skip
    judged = {s.metadata["cipai"]: s.scores["songci_judge"] for s in log.samples}
    assert judged["浣溪沙"].value["fluency"] == pytest.approx((5 + 4) / 2)
    assert judged["蝶恋花"].value["coherence"] == pytest.approx((2 + 5) / 2)
    assert judged["蝶恋花"].metadata["judgments"][0]["replies"][0] == "{流畅: 4"  # the retry is in the log
    assert judged["念奴娇"].value["yijing"] == 4.0  # only the valid grader counts
    assert judged["念奴娇"].value["invalid_judgments"] == 1.0
    assert _metric(log, "songci_judge", "invalid_judgments", "poetone/total") == 1.0
    assert _metric(log, "songci_judge", "fluency", "mean") == pytest.approx(fmean([4.5, (2 + 4) / 2, 3.0]))
    assert judged["浣溪沙"].metadata["rubric_version"] == "1.0"


def test_judge_with_no_valid_judgment_is_left_out_of_the_means(tmp_path: Path) -> None:
    g = get_model("mockllm/g", custom_outputs=_grader({"念奴娇": ["坏了", "还是坏了"]}))
    log = _run(
        "poetone/zero_shot", "poetone/reference", tmp_path,
        task_args={"cipai": "浣溪沙,念奴娇", "theme": "love_longing", "judge": True},
        model_roles={"grader": g},
    )  # fmt: skip
    bad = next(s for s in log.samples if s.metadata["cipai"] == "念奴娇").scores["songci_judge"]
    assert all(math.isnan(bad.value[k]) for k in ("fluency", "coherence", "yijing"))
    assert _metric(log, "songci_judge", "fluency", "mean") == 4.0  # the 浣溪沙 judgment alone
    score = next(s for s in log.results.scores if s.scorer == "songci_judge" and s.name == "fluency")
    assert (score.scored_samples, score.unscored_samples) == (1, 1)


def test_judge_without_a_grader_stops_before_any_generation(tmp_path: Path) -> None:
    asked: list[str] = []

    def poet(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        asked.append(input[-1].text)
        return _output("poet", "一曲新词酒一杯")

    logs = inspect_eval(
        "poetone/zero_shot", model=get_model("mockllm/poet", custom_outputs=poet), limit=3,
        task_args={"judge": True}, log_dir=str(tmp_path / "logs"), display="none",
    )  # fmt: skip
    assert logs[0].status == "error"
    assert "--model-role grader=" in str(logs[0].error)
    assert asked == []  # not one answer paid for


def test_judge_graders_task_parameter_with_an_api_grader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIStub(lambda messages: GOOD if "意境" in messages[0]["content"] else "不是评分请求") as stub:
        monkeypatch.setenv("JUDGESTUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("JUDGESTUB_API_KEY", "test")
        log = _run(
            "poetone/zero_shot", "poetone/reference", tmp_path, limit=2,
            task_args={"judge": True, "graders": "openai-api/judgestub/judge"},
        )  # fmt: skip
    assert len(stub.exchanges) == 2
    assert _metric(log, "songci_judge", "coherence", "mean") == 5.0
    assert _metric(log, "songci_judge", "invalid_judgments", "poetone/total") == 0.0


# ---------------------------------------------------------------------------- judge calibration


def _discerning(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
    """Rates a poem 5 when it is an authentic corpus text, else 2."""
    prompt = input[0].text
    authentic = any(r["text"].strip() in prompt for r in RECORDS.values())
    level = 5 if authentic else 2
    return _output("judge", f'{{"流畅": {level}, "连贯": {level}, "意境": {level}}}')


def test_calibration_trusts_a_judge_that_tells_authentic_from_degraded(tmp_path: Path) -> None:
    model = get_model("mockllm/judge", custom_outputs=_discerning)
    log = _run("poetone/judge_calibration", model, tmp_path, task_args={"cipai": "浣溪沙,念奴娇,卜算子"})
    assert len(log.samples) == 3 * 6 * 2
    for key in ("fluency", "coherence", "yijing"):
        assert _metric(log, "prefers_authentic", key, "mean") == 1.0
        assert _metric(log, "prefers_authentic", key, "poetone/trusted") == 1.0


def test_calibration_distrusts_a_judge_that_cannot(tmp_path: Path) -> None:
    constant = get_model("mockllm/judge", custom_outputs=_grader({}))  # the same ratings for every poem
    log = _run(
        "poetone/judge_calibration", constant, tmp_path, task_args={"cipai": "浣溪沙", "degradation": "replace_chars"}
    )
    assert len(log.samples) == 6
    assert _metric(log, "prefers_authentic", "fluency", "mean") == 0.0  # ties are not preferences
    assert _metric(log, "prefers_authentic", "fluency", "poetone/trusted") == 0.0


# ---------------------------------------------------------------------------- local OpenAI-compatible server


def _server_answer(messages: list[dict[str, Any]]) -> str:
    user = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    text = _scripted([_User(user)], None, None, GenerateConfig()).completion
    return text


class _User:
    role = "user"

    def __init__(self, text: str) -> None:
        self.text = text


@pytest.mark.slow
def test_all_five_tasks_against_the_local_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIStub(_server_answer) as stub:
        monkeypatch.setenv("POETONESTUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("POETONESTUB_API_KEY", "test")
        log = _run("poetone/songci", "openai-api/poetonestub/stub", tmp_path, max_connections=8)
        sent = {}
        for messages, answer in stub.exchanges:
            user = next(m["content"] for m in messages if m["role"] == "user")
            sent[user] = answer
    assert len(log.samples) == 600 and not any(s.error for s in log.samples)
    assert len(stub.exchanges) == 600
    for s in log.samples:
        answer = sent[PROMPTS[s.id].user]
        assert s.output.completion == answer
        expected = score_answer(PROMPTS[s.id], answer, CRITIC)
        for key in ("conformity", "structure", "tonal", "rhyme", "invalid"):
            assert s.scores["conformity"].value[key] == pytest.approx(expected[key])
    rows = [score_answer(PROMPTS[s.id], sent[PROMPTS[s.id].user], CRITIC) for s in log.samples]
    assert _metric(log, "conformity", "conformity", "mean") == pytest.approx(fmean(r["conformity"] for r in rows))
    assert _metric(log, "conformity", "invalid", "mean") == pytest.approx(fmean(r["invalid"] for r in rows))
    assert os.environ["POETONESTUB_BASE_URL"].startswith("http://127.0.0.1:")


def test_metrics_equal_figures_worked_out_by_hand(tmp_path: Path) -> None:
    """The adapter's metrics against figures that do not come from ``score_answer``: 晏殊's
    浣溪沙 is the form's own example (龙榆生's 唐宋词格律), so it keeps every length, fixed tone and
    rhyme of the 正体 (1.0 on each score); an empty answer is invalid (0 on each). Six prompts of
    each tune, the poem for 浣溪沙 and nothing for 菩萨蛮: every mean is 6/12."""
    poem = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"

    def answer(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        return _output("mockllm", poem if "《浣溪沙》" in input[-1].text else "")

    model = get_model("mockllm/model", custom_outputs=answer)
    log = _run("poetone/zero_shot", model, tmp_path, task_args={"cipai": "浣溪沙,菩萨蛮"})
    assert len(log.samples) == 12
    for key in ("conformity", "structure", "tonal", "rhyme", "invalid"):
        assert _metric(log, "conformity", key, "mean") == pytest.approx(0.5), key
