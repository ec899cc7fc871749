"""``poetone probe``: the three classification probes, checked against a direct computation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sklearn", reason="the probes need scikit-learn (poetone[probe])")

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from sklearn.model_selection import StratifiedKFold

from poetone.cli import main as cli_main
from poetone.corpus import load_records
from poetone.probe import BertEmbedder, balance, canonical_poems, run_probe, run_probes, tfidf_nb
from poetone.reference import answer_for_message
from poetone.stats import wilson

MODERN = "我们的你了是在这不手机城市"


def _modern(input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
    """A 'model' whose diction gives it away: every other character modern."""
    poem = answer_for_message(next(m.text for m in input if m.role == "user"))
    text = "".join(MODERN[i % len(MODERN)] if i % 2 and "\u4e00" <= ch <= "\u9fff" else ch for i, ch in enumerate(poem))
    out = ModelOutput.from_content("modern", text)
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("probe-logs")
    (log,) = inspect_eval("poetone/zero_shot", model=get_model("mockllm/modern", custom_outputs=_modern), log_dir=str(folder), display="none")
    assert log.status == "success"
    return folder


def test_canonical_cipai_probe_equals_a_direct_computation() -> None:
    poems = canonical_poems()
    result = run_probe("cipai", poems, "canonical", "tfidf-nb", tfidf_nb, folds=5, seed=3)
    balanced = balance(poems, lambda p: p.cipai, 3)
    texts, labels = [p.text for p in balanced], [p.cipai for p in balanced]
    correct = 0
    for train, test in StratifiedKFold(n_splits=5, shuffle=True, random_state=3).split(texts, labels):
        model = tfidf_nb().fit([texts[i] for i in train], [labels[i] for i in train])
        correct += sum(p == labels[i] for p, i in zip(model.predict([texts[i] for i in test]), test))
    iv = wilson(int(correct), 120)
    assert (result.n, result.classes, result.chance) == (120, 20, 0.05)
    assert (result.accuracy, result.low, result.high) == pytest.approx((iv.estimate, iv.low, iv.high))
    assert result.method == "5-fold CV"


def test_labels_are_balanced_and_seeded() -> None:
    poems = canonical_poems()
    a = balance(poems, lambda p: p.theme, 1)
    counts = {t: sum(p.theme == t for p in a) for t in {p.theme for p in a}}
    assert len(set(counts.values())) == 1 and len(counts) == 6
    assert a == balance(poems, lambda p: p.theme, 1) and a != balance(poems, lambda p: p.theme, 2)


def test_source_attribution_finds_a_giveaway_diction(logs: Path) -> None:
    results, errors = run_probes([logs], seed=0)
    assert not errors
    by = {(r.probe, r.data): r for r in results}
    assert set(by) == {("cipai", "canonical"), ("theme", "canonical"), ("cipai", "generated"), ("theme", "generated"), ("source", "canonical+generated")}
    source = by[("source", "canonical+generated")]
    assert source.method == "80/20 split" and source.classes == 2 and source.n == 48  # 120 + 120 balanced, 20% held out
    assert source.low > 0.5 and source.accuracy > 0.9
    assert all(r.low <= r.accuracy <= r.high for r in results)


def test_cli_writes_the_tables(logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["probe", str(logs), "--out", str(tmp_path)]) == 0
    assert "source" in capsys.readouterr().out
    data = json.loads((tmp_path / "probes.json").read_text(encoding="utf-8"))
    assert len(data["results"]) == 5 and data["errors"] == []
    assert "accuracy [95% CI]" in (tmp_path / "probes.md").read_text(encoding="utf-8")


def test_an_encoder_path_without_a_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no model there"):
        BertEmbedder(tmp_path)
    assert cli_main(["probe", "--encoder", str(tmp_path)]) == 2


def test_bert_embeddings_with_an_svm_on_a_tiny_local_encoder(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    chars = sorted({ch for r in load_records() for ch in r["text"]})
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab = {t: i for i, t in enumerate(specials + chars)}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]").save_pretrained(tmp_path)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64, max_position_embeddings=512)
    BertModel(config).save_pretrained(tmp_path)
    results, errors = run_probes([], encoder=tmp_path, folds=3, seed=0)
    assert errors == []
    pipelines = {(r.probe, r.pipeline) for r in results}
    assert ("cipai", "bert-svm") in pipelines and ("theme", "bert-svm") in pipelines
    bert = next(r for r in results if r.pipeline == "bert-svm" and r.probe == "cipai")
    assert bert.n == 120 and 0.0 <= bert.accuracy <= 1.0 and bert.method == "3-fold CV"
