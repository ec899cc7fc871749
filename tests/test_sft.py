"""LoRA SFT (poetone.sft) end to end on the CPU, with a tiny random Llama and a local tokenizer.

Nothing is downloaded: the base model is built from a config and the tokenizer is a character-level
``tokenizers`` WordLevel model with a Jinja chat template, both saved to a temporary folder that
is passed as ``--model``. The training rows are authentic corpus poems in the ``poetone bon`` format.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
from pathlib import Path

import pytest

for _name in ("torch", "transformers", "peft", "trl"):
    pytest.importorskip(_name, reason=f"LoRA SFT needs {_name} (pip install 'poetone[train]')")

import torch  # noqa: E402

from poetone import __version__, corpus  # noqa: E402
from poetone.prompts import SYSTEM, plain_prompt, user_message  # noqa: E402
from poetone.sft import (  # noqa: E402
    CARD,
    TrainingDependencyError,
    add_parser,
    data_hash,
    load_sft_data,
    to_prompt_completion,
    train_sft,
)

SPECIALS = ["<unk>", "<pad>", "<s>", "<|end|>", "<|system|>", "<|user|>", "<|assistant|>"]
CHAT_TEMPLATE = (
    "{% for m in messages %}{{ '<|' + m['role'] + '|>' + m['content'] + '<|end|>' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}"
)
STEPS = 3


def _rows() -> list[dict]:
    """Eight best-of-N style rows: six 浣溪沙 and two 点绛唇, each with its own theme."""
    records = corpus.load_records()
    chosen = [r for r in records if r["cipai"] == "浣溪沙"] + [r for r in records if r["cipai"] == "点绛唇"][:2]
    return [
        {
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": user_message("zero_shot", theme_label=r["theme_label"], cipai=r["cipai"])},
                {"role": "assistant", "content": r["text"]},
            ],
            "model": "stub",
            "strategy": "zero_shot",
            "prompt_id": f"zero_shot-{r['cipai']}-{r['theme']}",
            "epoch": 1,
            "conformity": 1.0,
        }
        for r in chosen
    ]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _tiny_model(folder: Path, texts: list[str], chat_template: str | None = CHAT_TEMPLATE) -> Path:
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    chars = sorted(set("".join(texts)) | set(plain_prompt("", "")))
    vocab = {t: i for i, t in enumerate(SPECIALS + chars)}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    backend.decoder = decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        unk_token="<unk>",
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="<|end|>",
        additional_special_tokens=SPECIALS[4:],
    )
    if chat_template:
        tokenizer.chat_template = chat_template
    tokenizer.save_pretrained(folder)
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=512,
        bos_token_id=vocab["<s>"],
        eos_token_id=vocab["<|end|>"],
        pad_token_id=vocab["<pad>"],
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The tiny model, the dataset in all three layouts, and one training run (shared by the tests)."""
    root = tmp_path_factory.mktemp("sft")
    rows = _rows()
    texts = [m["content"] for r in rows for m in r["messages"]]
    model = _tiny_model(root / "base", texts)
    jsonl = _write_jsonl(root / "best.jsonl", rows)
    bon = root / "round1"  # what `poetone bon` writes: train.jsonl + dataset/
    bon.mkdir()
    _write_jsonl(bon / "train.jsonl", rows)
    import datasets

    datasets.Dataset.from_list(rows).save_to_disk(str(bon / "dataset"))
    out = train_sft(jsonl, str(model), root / "adapter", max_steps=STEPS, logging_steps=1)
    return {"root": root, "rows": rows, "model": model, "jsonl": jsonl, "bon": bon, "out": out}


def _card(out: Path) -> dict:
    return json.loads((out / CARD).read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- training


def test_adapter_tokenizer_and_card_are_written(setup: dict) -> None:
    out = setup["out"]
    for name in (
        "adapter_config.json",
        "adapter_model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        CARD,
        "README.md",
    ):
        assert (out / name).is_file(), name
    assert not list(out.glob("checkpoint-*")), "no intermediate checkpoints"
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "library_name: peft" in readme and "rank 16, alpha 32" in readme and "adamw_torch" in readme


def test_card_records_data_config_device_and_losses(setup: dict) -> None:
    card = _card(setup["out"])
    rows = setup["rows"]
    assert card["poetone_version"] == __version__
    assert card["dataset"]["rows"] == len(rows) == 8
    assert card["dataset"]["format"] == "jsonl"
    assert card["dataset"]["path"] == str(setup["jsonl"])
    assert card["dataset"]["data_sha256"] == data_hash([r["messages"] for r in rows])
    assert card["base_model"] == str(setup["model"])
    assert card["lora"]["r"] == 16 and card["lora"]["lora_alpha"] == 32
    assert card["lora"]["target_modules"] == "all-linear"
    assert set(card["lora"]["target_modules_resolved"]) == {
        "q_proj",
        "k_proj",
        "v_proj",
        "o_proj",
        "gate_proj",
        "up_proj",
        "down_proj",
    }
    t = card["training"]
    assert (t["learning_rate"], t["batch_size"], t["epochs"], t["max_steps"], t["global_steps"]) == (
        5e-5,
        2,
        3,
        STEPS,
        STEPS,
    )
    assert t["optim"] == "adamw_torch" and t["max_length"] == 1024
    assert (card["device"], card["precision"], card["seed"]) == ("cpu", "float32", 0)
    assert [e["step"] for e in card["losses"]] == list(range(1, STEPS + 1))
    losses = [e["loss"] for e in card["losses"]]
    assert all(isinstance(x, float) and math.isfinite(x) and x > 0 for x in losses)
    assert card["final_loss"] == losses[-1]
    assert math.isfinite(card["train_loss"])
    assert card["started"] <= card["finished"]


def test_loss_covers_only_the_poem_and_its_end_token(setup: dict) -> None:
    """Character-level tokens make the trained-token count exact: each poem's characters plus <|end|>."""
    card = _card(setup["out"])
    assert card["prompt_format"] == "chat_template"
    assert card["loss_masking"].startswith("completion_only")
    poems = [r["messages"][-1]["content"] for r in setup["rows"]]
    assert card["tokens"]["examples"] == len(poems)
    assert card["tokens"]["trained"] == sum(len(p) + 1 for p in poems)
    assert card["tokens"]["total"] > 2 * card["tokens"]["trained"]  # the system + user prompt is longer than a 浣溪沙


def test_adapter_reloads_runs_and_was_trained(setup: dict) -> None:
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base = AutoModelForCausalLM.from_pretrained(setup["model"])
    model = PeftModel.from_pretrained(base, setup["out"]).eval()
    tokenizer = AutoTokenizer.from_pretrained(setup["out"])
    prompt = tokenizer.apply_chat_template(
        setup["rows"][0]["messages"][:-1], add_generation_prompt=True, return_dict=True, return_tensors="pt"
    )
    with torch.no_grad():
        logits = model(input_ids=prompt["input_ids"]).logits
        generated = model.generate(**prompt, max_new_tokens=5, do_sample=False)
    assert logits.shape == (1, prompt["input_ids"].shape[1], base.config.vocab_size)
    assert torch.isfinite(logits).all()
    assert generated.shape[1] > prompt["input_ids"].shape[1]
    lora_b = {n: p for n, p in model.named_parameters() if "lora_B" in n}
    assert lora_b, "the adapter has LoRA B matrices"
    assert any(p.abs().sum() > 0 for p in lora_b.values()), "LoRA B starts at zero; training must have moved it"


def test_same_seed_same_losses(setup: dict) -> None:
    out = train_sft(setup["jsonl"], str(setup["model"]), setup["root"] / "again", max_steps=STEPS, logging_steps=1)
    assert [e["loss"] for e in _card(out)["losses"]] == [e["loss"] for e in _card(setup["out"])["losses"]]


def test_cli_on_a_bon_folder_with_overrides(setup: dict, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="poetone")
    add_parser(parser.add_subparsers(dest="command", required=True))
    out = setup["root"] / "cli-adapter"
    args = parser.parse_args(
        ["sft", str(setup["bon"]), "--model", str(setup["model"]), "--out", str(out), "--max-steps", "2",
         "--rank", "4", "--alpha", "8", "--lr", "1e-3", "--batch-size", "4", "--seed", "7", "--logging-steps", "1",
         "--target-modules", "q_proj,v_proj"]
    )  # fmt: skip
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert str(out) in printed and CARD in printed
    card = _card(out)
    assert card["dataset"]["source"] == str(setup["bon"] / "train.jsonl")
    assert card["dataset"]["data_sha256"] == _card(setup["out"])["dataset"]["data_sha256"]
    assert (card["lora"]["r"], card["lora"]["lora_alpha"], card["lora"]["target_modules"]) == (
        4,
        8,
        ["q_proj", "v_proj"],
    )
    assert set(card["lora"]["target_modules_resolved"]) == {"q_proj", "v_proj"}
    t = card["training"]
    assert (t["learning_rate"], t["batch_size"], t["global_steps"], card["seed"]) == (1e-3, 4, 2, 7)
    assert len(card["losses"]) == 2


def test_cli_defaults_are_the_papers() -> None:
    parser = argparse.ArgumentParser(prog="poetone")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["sft", "data/round1", "--model", "m", "--out", "o"])
    assert (args.rank, args.alpha, args.lr, args.batch_size, args.epochs, args.max_steps, args.seed, args.max_length) == (
        16, 32, 5e-5, 2, 3, -1, 0, 1024
    )  # fmt: skip


# --------------------------------------------------------------------------- data


def test_every_layout_gives_the_same_rows(setup: dict) -> None:
    expected = [r["messages"] for r in setup["rows"]]
    bon, saved = setup["bon"], setup["bon"] / "dataset"
    only_dataset = setup["root"] / "only-dataset"  # a folder with dataset/ but no train.jsonl
    shutil.copytree(saved, only_dataset / "dataset", dirs_exist_ok=True)
    for path, kind, source in [
        (setup["jsonl"], "jsonl", setup["jsonl"]),
        (bon, "jsonl", bon / "train.jsonl"),
        (saved, "save_to_disk", saved),
        (only_dataset, "save_to_disk", only_dataset / "dataset"),
    ]:
        data = load_sft_data(path)
        assert (data.kind, data.source, data.rows) == (kind, source, expected), path


def test_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"nope\.jsonl: no such file or folder"):
        train_sft(tmp_path / "nope.jsonl", "unused", tmp_path / "out")


def test_a_missing_model_folder_is_a_clear_error(setup: dict) -> None:
    missing = setup["root"] / "no" / "such" / "model"  # not a valid Hub id either: nothing is fetched
    with pytest.raises(ValueError, match=r"model: cannot load the tokenizer"):
        train_sft(setup["jsonl"], str(missing), setup["root"] / "never")


def test_empty_dataset_is_a_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"empty\.jsonl: no training rows"):
        train_sft(empty, "unused", tmp_path / "out")
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(ValueError, match=r"neither train\.jsonl nor a dataset saved"):
        train_sft(folder, "unused", tmp_path / "out")


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"text": "no messages"}, r"line 3: no 'messages'"),
        ({"messages": []}, r"line 3: 'messages' must be a non-empty list"),
        ({"messages": "a poem"}, r"line 3: 'messages' must be a non-empty list"),
        (
            {"messages": [{"role": "user", "content": "写词"}]},
            r"line 3: the last message must be the assistant's answer",
        ),
        (
            {"messages": [{"role": "user", "content": "写词"}, {"role": "assistant", "content": "  "}]},
            r"line 3: the last",
        ),
        ({"messages": [{"role": "assistant", "content": "词"}]}, r"line 3: no user message"),
        ({"messages": [{"role": "poet", "content": "词"}]}, r"line 3: message 0 has role 'poet'"),
        (
            {"messages": [{"role": "user"}, {"role": "assistant", "content": "词"}]},
            r"line 3: message 0 \(user\) has no string",
        ),
        (["messages"], r"line 3: a row must be a JSON object"),
    ],
)
def test_a_bad_row_names_its_line(tmp_path: Path, bad: object, message: str) -> None:
    rows = _rows()[:2]
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [*rows, bad]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl: " + message):
        train_sft(path, "unused", tmp_path / "out")


def test_malformed_json_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps(_rows()[0], ensure_ascii=False) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.jsonl: line 2: malformed JSON"):
        load_sft_data(path)


def test_a_bad_saved_row_names_its_row(tmp_path: Path) -> None:
    import datasets

    rows = [r["messages"] for r in _rows()[:3]]
    rows[1] = rows[1][:2]  # no assistant answer
    datasets.Dataset.from_dict({"messages": rows}).save_to_disk(str(tmp_path / "ds"))
    with pytest.raises(ValueError, match=r"ds: row 1: the last message must be the assistant's answer"):
        load_sft_data(tmp_path / "ds")
    datasets.Dataset.from_dict({"text": ["词"]}).save_to_disk(str(tmp_path / "notext"))
    with pytest.raises(ValueError, match=r"no 'messages' column"):
        load_sft_data(tmp_path / "notext")


def test_without_a_chat_template_the_plain_prompt_is_used() -> None:
    messages = _rows()[0]["messages"]
    assert to_prompt_completion([messages], chat_template=True) == [
        {"prompt": messages[:2], "completion": messages[2:]}
    ]
    plain = to_prompt_completion([messages], chat_template=False)
    assert plain == [{"prompt": plain_prompt(SYSTEM, messages[1]["content"]), "completion": messages[2]["content"]}]
    turns = [*messages[:2], {"role": "assistant", "content": "草稿"}, {"role": "user", "content": "改"}, messages[2]]
    assert to_prompt_completion([turns], chat_template=True)[0]["completion"] == messages[2:]
    with pytest.raises(ValueError, match=r"row 0: the tokenizer has no chat template"):
        to_prompt_completion([turns], chat_template=False)


def test_hash_matches_bon_summary() -> None:
    bon = pytest.importorskip("poetone.bon", reason="poetone.bon not importable")
    rows = _rows()
    assert data_hash([r["messages"] for r in rows]) == bon.data_hash(rows)


def test_missing_training_libraries_say_what_to_install(
    setup: dict, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "peft", None)  # makes `import peft` raise ImportError
    with pytest.raises(TrainingDependencyError, match=r'peft: pip install "poetone\[train\]"'):
        train_sft(setup["jsonl"], "unused", setup["root"] / "never")
    parser = argparse.ArgumentParser(prog="poetone")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["sft", str(setup["jsonl"]), "--model", "unused", "--out", str(setup["root"] / "never")])
    assert args.func(args) == 2
    assert 'pip install "poetone[train]"' in capsys.readouterr().err


def test_end_to_end_local_server_log_to_bon_to_adapter(setup: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's loop on CPU: an Inspect log made against the local OpenAI-compatible server with
    --epochs 2, `poetone bon` on it, `poetone sft` on the result, and the adapter reloaded."""
    from inspect_ai import eval as inspect_eval
    from openai_stub import OpenAIStub
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from poetone.cli import main as cli_main
    from poetone.reference import answer_for_message

    calls: dict[str, int] = {}

    def answer(messages: list[dict]) -> str:
        user = next(m["content"] for m in messages if m["role"] == "user")
        calls[user] = calls.get(user, 0) + 1
        poem = answer_for_message(user)
        return poem if calls[user] % 2 == 0 else poem[:-4]  # one damaged and one whole candidate

    with OpenAIStub(answer) as stub:
        monkeypatch.setenv("SFTSTUB_BASE_URL", stub.base_url)
        monkeypatch.setenv("SFTSTUB_API_KEY", "test")
        log = inspect_eval(
            "poetone/zero_shot", model="openai-api/sftstub/stub", limit=4, epochs=2,
            log_dir=str(tmp_path / "logs"), display="none",
        )[0]  # fmt: skip
    assert log.status == "success" and len(stub.exchanges) == 8
    assert cli_main(["bon", str(tmp_path / "logs"), "--out", str(tmp_path / "bon")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "bon" / "train.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 4 and all(r["conformity"] > 0.9 for r in rows)
    out = tmp_path / "adapter"
    assert cli_main(["sft", str(tmp_path / "bon"), "--model", str(setup["model"]), "--out", str(out), "--max-steps", "2", "--logging-steps", "1"]) == 0
    assert (out / "adapter_model.safetensors").exists()
    card = _card(out)
    assert card["dataset"]["rows"] == 4
    assert card["dataset"]["data_sha256"] == json.loads((tmp_path / "bon" / "summary.json").read_text(encoding="utf-8"))["data_sha256"]
    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(str(setup["model"])), str(out))
    assert model.peft_config["default"].r == 16
