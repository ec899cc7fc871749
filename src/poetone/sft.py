"""LoRA supervised fine-tuning on best-of-N selections: the training step of the Generate-Critic loop.

The PoeTone paper fine-tunes on the critic's best candidates with LoRA (rank 16, alpha 32,
learning rate 5e-5, batch 2, 3 epochs); those are the defaults here. Training goes through TRL's
``SFTTrainer`` with a PEFT ``LoraConfig``. Each row's final assistant message (the poem) is the
completion and everything before it the prompt, so the loss covers the poem and the template's
end-of-turn token only (TRL's completion-only loss); a tokenizer without a chat template gets the
plain prompt poetone gives base models (``poetone.prompts.plain_prompt``) instead.

torch, transformers, peft and trl are imported inside the functions that need them, so the CLI
(which imports this module to register ``poetone sft``) stays fast and works without them.
Docs: docs/generate-critic.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poetone.bon import messages_hash as data_hash

if TYPE_CHECKING:
    import datasets

CARD = "poetone_sft_card.json"
ROLES = ("system", "user", "assistant")
INSTALL_HINT = 'pip install "poetone[train]"'
_TRAIN_MODULES = ("torch", "transformers", "peft", "trl", "accelerate")


class TrainingDependencyError(ImportError):
    """A training library is missing; the message says what to install."""


@dataclass(frozen=True, slots=True)
class SFTData:
    """Validated training conversations and where they came from (for the run card)."""

    rows: list[list[dict[str, str]]]
    path: Path  # what the user gave
    source: Path  # the file or save_to_disk folder actually read
    kind: str  # "jsonl" or "save_to_disk"

    @property
    def sha256(self) -> str:
        return data_hash(self.rows)


# --------------------------------------------------------------------------- data


def _check_messages(value: Any, where: str) -> list[dict[str, str]]:
    if value is None:
        raise ValueError(f"{where}: no 'messages' (expected a list of {{role, content}} messages)")
    if not isinstance(value, list) or not value:
        raise ValueError(f"{where}: 'messages' must be a non-empty list of {{role, content}} messages")
    out: list[dict[str, str]] = []
    for i, m in enumerate(value):
        if not isinstance(m, dict):
            raise ValueError(f"{where}: message {i} is not an object with 'role' and 'content'")
        role, content = m.get("role"), m.get("content")
        if role not in ROLES:
            raise ValueError(f"{where}: message {i} has role {role!r}; expected one of {list(ROLES)}")
        if not isinstance(content, str):
            raise ValueError(f"{where}: message {i} ({role}) has no string 'content'")
        out.append({"role": role, "content": content})
    if out[-1]["role"] != "assistant" or not out[-1]["content"].strip():
        raise ValueError(f"{where}: the last message must be the assistant's answer (the text to train on), non-empty")
    if not any(m["role"] == "user" for m in out[:-1]):
        raise ValueError(f"{where}: no user message before the assistant's answer")
    return out


def _read_jsonl(file: Path) -> list[list[dict[str, str]]]:
    rows = []
    with file.open(encoding="utf-8") as f:
        for number, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            where = f"{file}: line {number}"
            try:
                record = json.loads(raw)
            except ValueError as exc:
                raise ValueError(f"{where}: malformed JSON: {exc}") from None
            if not isinstance(record, dict):
                raise ValueError(f"{where}: a row must be a JSON object with 'messages'")
            rows.append(_check_messages(record.get("messages"), where))
    return rows


def _read_saved(folder: Path) -> list[list[dict[str, str]]]:
    import datasets

    ds: datasets.Dataset | datasets.DatasetDict = datasets.load_from_disk(str(folder))
    if isinstance(ds, datasets.DatasetDict):
        if "train" in ds:
            ds = ds["train"]
        elif len(ds) == 1:
            ds = next(iter(ds.values()))
        else:
            raise ValueError(f"{folder}: a DatasetDict without a 'train' split (splits: {sorted(ds)})")
    if "messages" not in ds.column_names:
        raise ValueError(f"{folder}: no 'messages' column (columns: {ds.column_names})")
    return [_check_messages(m, f"{folder}: row {i}") for i, m in enumerate(ds["messages"])]


def _is_saved_dataset(folder: Path) -> bool:
    return folder.is_dir() and any(
        (folder / n).is_file() for n in ("dataset_info.json", "state.json", "dataset_dict.json")
    )


def load_sft_data(path: str | Path) -> SFTData:
    """Read training conversations from a JSONL file, a ``save_to_disk`` folder, or a ``poetone bon`` folder.

    A ``bon`` folder is read through its ``train.jsonl`` (so errors can name a line), else its
    ``dataset/``. Every problem is a ValueError naming the file and the line (JSONL, from 1) or
    row (datasets, from 0): a wrong row is never silently skipped.
    """
    p = Path(path)
    if not p.exists():
        raise ValueError(
            f"{p}: no such file or folder (expected a JSONL file, a save_to_disk folder or a `poetone bon` folder)"
        )
    if p.is_file():
        source, kind = p, "jsonl"
    elif (p / "train.jsonl").is_file():
        source, kind = p / "train.jsonl", "jsonl"
    elif _is_saved_dataset(p):
        source, kind = p, "save_to_disk"
    elif _is_saved_dataset(p / "dataset"):
        source, kind = p / "dataset", "save_to_disk"
    else:
        raise ValueError(f"{p}: a folder with neither train.jsonl nor a dataset saved with datasets.save_to_disk")
    rows = _read_jsonl(source) if kind == "jsonl" else _read_saved(source)
    if not rows:
        raise ValueError(f"{source}: no training rows (the dataset is empty)")
    return SFTData(rows=rows, path=p, source=source, kind=kind)


def to_prompt_completion(rows: Sequence[list[dict[str, str]]], chat_template: bool) -> list[dict[str, Any]]:
    """Split each conversation into prompt and completion, so the loss covers only the final answer.

    With a chat template the split stays conversational (TRL renders both through the template);
    without one the prompt is poetone's plain base-model prompt and the completion the bare text
    (TRL appends the eos token), matching how the tasks prompt base models.
    """
    from poetone.prompts import plain_prompt

    out = []
    for i, messages in enumerate(rows):
        if chat_template:
            out.append({"prompt": messages[:-1], "completion": messages[-1:]})
            continue
        roles = [m["role"] for m in messages]
        if roles not in (["system", "user", "assistant"], ["user", "assistant"]):
            raise ValueError(
                f"row {i}: the tokenizer has no chat template, so only [system, user, assistant] rows can be "
                f"rendered as a plain prompt; this row has {roles}"
            )
        system = messages[0]["content"] if roles[0] == "system" else ""
        prompt = plain_prompt(system, messages[-2]["content"])
        if not system:
            prompt = prompt.lstrip("\n")
        out.append({"prompt": prompt, "completion": messages[-1]["content"]})
    return out


# --------------------------------------------------------------------------- training


def _require() -> None:
    import importlib

    missing = []
    for name in _TRAIN_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise TrainingDependencyError(f"LoRA fine-tuning needs {', '.join(missing)}: {INSTALL_HINT}")


def _bitsandbytes() -> bool:
    try:
        import bitsandbytes  # noqa: F401
    except Exception:  # a broken CUDA build fails with errors other than ImportError
        return False
    return True


def _plain(value: Any) -> Any:
    """JSON-safe copy of a config or log value (sets and tensors appear in PEFT and Trainer state)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(_plain(v) for v in value)
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if hasattr(value, "item"):
        return _plain(value.item())
    return str(value)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def train_sft(
    dataset: str | Path,
    model: str,
    out: str | Path,
    *,
    rank: int = 16,
    alpha: int = 32,
    dropout: float = 0.05,
    learning_rate: float = 5e-5,
    batch_size: int = 2,
    gradient_accumulation_steps: int = 1,
    epochs: float = 3,
    max_steps: int = -1,
    seed: int = 0,
    max_length: int | None = 1024,
    target_modules: str | list[str] | None = None,
    logging_steps: int = 10,
    cpu: bool = False,
) -> Path:
    """Fine-tune ``model`` (a local folder or a Hub id) with LoRA on ``dataset``; return the output folder.

    ``out`` receives the adapter (``adapter_config.json``, ``adapter_model.safetensors``), the
    tokenizer, ``poetone_sft_card.json`` (data hash, configs, device, losses) and ``README.md``.
    On CUDA with bitsandbytes the base model is loaded in 4-bit NF4 and optimised with paged 8-bit
    AdamW (QLoRA); on CUDA without it, in bfloat16 (float16 on GPUs without bf16); on CPU (or with
    ``cpu=True``) in float32 with plain AdamW, which is only practical for smoke tests.
    """
    data = load_sft_data(dataset)  # before the heavy imports: a bad dataset fails fast
    _require()
    import peft
    import torch
    import transformers
    import trl
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from poetone import __version__

    out = Path(out)
    started, t0 = _now(), time.monotonic()
    transformers.set_seed(seed)

    try:
        tokenizer = AutoTokenizer.from_pretrained(model)
    except OSError as exc:  # no such folder, no such Hub id, or no network: say which model
        raise ValueError(f"{model}: cannot load the tokenizer: {exc}") from exc
    if tokenizer.pad_token is None:
        if tokenizer.eos_token is None:
            raise ValueError(f"{model}: the tokenizer has neither a pad nor an eos token")
        tokenizer.pad_token = tokenizer.eos_token
    has_template = bool(getattr(tokenizer, "chat_template", None))
    train_rows = Dataset.from_list(to_prompt_completion(data.rows, chat_template=has_template))

    use_cuda = torch.cuda.is_available() and not cpu
    quantized = use_cuda and _bitsandbytes()
    load_kwargs: dict[str, Any] = {}
    if use_cuda:
        half = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        load_kwargs.update(dtype=half, device_map={"": int(os.environ.get("LOCAL_RANK", "0"))})
        if quantized:
            load_kwargs["quantization_config"] = transformers.BitsAndBytesConfig(
                load_in_4bit=True,
                bnb_4bit_quant_type="nf4",
                bnb_4bit_use_double_quant=True,
                bnb_4bit_compute_dtype=half,
            )
        else:
            print(
                "poetone sft: bitsandbytes is not importable; training LoRA on the unquantised model in "
                f"{str(half).removeprefix('torch.')} ('pip install \"poetone[train-cuda]\"' for 4-bit)",
                file=sys.stderr,
            )
        precision = ("4-bit nf4, " if quantized else "") + str(half).removeprefix("torch.")
    else:
        half = None
        load_kwargs["dtype"] = torch.float32
        precision = "float32"
    try:
        base = AutoModelForCausalLM.from_pretrained(model, **load_kwargs)
    except OSError as exc:
        raise ValueError(f"{model}: cannot load the model: {exc}") from exc

    requested = target_modules if target_modules is None or isinstance(target_modules, str) else list(target_modules)
    lora = peft.LoraConfig(
        r=rank,
        lora_alpha=alpha,
        lora_dropout=dropout,
        target_modules=requested if requested is not None else "all-linear",
        bias="none",
        task_type="CAUSAL_LM",
    )
    # transformers 5.x renamed gradient_checkpointing (a deprecated alias now); 4.x knows only the old name
    checkpointing = (
        "activation_checkpointing"
        if "activation_checkpointing" in trl.SFTConfig.__dataclass_fields__
        else "gradient_checkpointing"
    )
    config = trl.SFTConfig(
        output_dir=str(out),
        learning_rate=learning_rate,
        per_device_train_batch_size=batch_size,
        gradient_accumulation_steps=gradient_accumulation_steps,
        num_train_epochs=epochs,
        max_steps=max_steps,
        seed=seed,
        data_seed=seed,
        max_length=max_length,
        completion_only_loss=True,
        packing=False,
        optim="paged_adamw_8bit" if quantized else "adamw_torch",
        bf16=half is torch.bfloat16,
        fp16=half is torch.float16,
        use_cpu=not use_cuda,
        **{checkpointing: use_cuda},  # saves memory on the GPU; on the CPU it only costs time
        logging_steps=logging_steps,
        logging_first_step=True,
        save_strategy="no",
        report_to="none",
    )
    trainer = trl.SFTTrainer(
        model=base, args=config, train_dataset=train_rows, processing_class=tokenizer, peft_config=lora
    )
    # what the loss actually sees, after TRL's masking, truncation and dropping of fully masked rows
    examples, tokens, trained = len(trainer.train_dataset), None, None
    if "labels" in trainer.train_dataset.column_names:
        labels = trainer.train_dataset["labels"]
        tokens = sum(len(x) for x in labels)
        trained = sum(1 for x in labels for t in x if t != -100)
    if examples < len(data.rows):
        print(
            f"poetone sft: {len(data.rows) - examples} of {len(data.rows)} rows have no answer token left "
            f"after truncation to {max_length} and are not trained on",
            file=sys.stderr,
        )
    # PEFT rewrites the config's target_modules into the full names of the wrapped layers
    resolved = set(trainer.model.peft_config["default"].target_modules)
    result = trainer.train()
    out.mkdir(parents=True, exist_ok=True)
    trainer.save_model(str(out))
    tokenizer.save_pretrained(str(out))

    history = [_plain(e) for e in trainer.state.log_history if "loss" in e]
    losses = [e["loss"] for e in history]
    if not all(isinstance(x, float) for x in losses):  # _plain turned NaN or inf into a string
        print(f"poetone sft: non-finite training loss {losses}; the adapter is probably useless", file=sys.stderr)
    card = {
        "poetone_version": __version__,
        "kind": "lora-sft",
        "started": started,
        "finished": _now(),
        "duration_seconds": round(time.monotonic() - t0, 3),
        "dataset": {
            "path": str(data.path),
            "source": str(data.source),
            "format": data.kind,
            "rows": len(data.rows),
            "data_sha256": data.sha256,
        },
        "base_model": model,
        "prompt_format": "chat_template" if has_template else "plain_prompt",
        "loss_masking": "completion_only: the final assistant message and its end-of-turn token",
        "tokens": {"examples": examples, "total": tokens, "trained": trained},
        "lora": _plain(
            {
                "r": rank,
                "lora_alpha": alpha,
                "lora_dropout": dropout,
                "target_modules": requested if requested is not None else "all-linear",
                "target_modules_resolved": sorted({n.rsplit(".", 1)[-1] for n in resolved}),
                "lora_modules": len(resolved),
                "bias": "none",
                "task_type": "CAUSAL_LM",
            }
        ),
        "training": {
            "learning_rate": learning_rate,
            "batch_size": batch_size,
            "gradient_accumulation_steps": gradient_accumulation_steps,
            "epochs": epochs,
            "max_steps": max_steps,
            "global_steps": trainer.state.global_step,
            "max_length": max_length,
            "optim": str(getattr(config.optim, "value", config.optim)),
            "lr_scheduler": str(getattr(config.lr_scheduler_type, "value", config.lr_scheduler_type)),
            "warmup_steps": config.warmup_steps,
            "weight_decay": config.weight_decay,
            "gradient_checkpointing": config.gradient_checkpointing,
            "logging_steps": logging_steps,
            "pad_token": tokenizer.pad_token,
        },
        "device": "cuda" if use_cuda else "cpu",
        "precision": precision,
        "seed": seed,
        "losses": history,
        "final_loss": losses[-1] if losses else None,
        "train_loss": _plain(result.training_loss),
        "libraries": {m.__name__: m.__version__ for m in (torch, transformers, peft, trl)},
    }
    (out / CARD).write_text(json.dumps(card, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    (out / "README.md").write_text(_readme(card), encoding="utf-8")
    return out


def _readme(card: dict[str, Any]) -> str:
    """A short human card; PEFT's generic one is replaced, keeping the Hub metadata it would carry."""
    base = card["base_model"]
    front = ["---", "library_name: peft", "tags: [lora, sft, trl, poetone, songci]"]
    if not Path(base).exists():  # a Hub id, not a local folder
        front.insert(1, f"base_model: {base}")
    front.append("---")
    d, t, lora = card["dataset"], card["training"], card["lora"]
    final = card["final_loss"]
    final = round(final, 4) if isinstance(final, float) else final
    lines = [
        *front,
        "",
        f"# LoRA adapter for {base} (poetone {card['poetone_version']})",
        "",
        "Supervised fine-tuning on best-of-N Songci (宋词) selected by the poetone critic "
        "(the Generate-Critic loop, docs/generate-critic.md).",
        "",
        f"- data: `{d['path']}`, {d['rows']} rows, sha256 `{d['data_sha256']}`",
        f"- LoRA: rank {lora['r']}, alpha {lora['lora_alpha']}, dropout {lora['lora_dropout']}, "
        f"modules {lora['target_modules']}",
        f"- training: lr {t['learning_rate']}, batch {t['batch_size']}×{t['gradient_accumulation_steps']}, "
        f"epochs {t['epochs']}, {t['global_steps']} steps, max length {t['max_length']}, optimiser {t['optim']}, "
        f"seed {card['seed']}",
        f"- device: {card['device']} ({card['precision']}); loss on {card['loss_masking']}",
        f"- final logged loss: {final}; run {card['started']} → {card['finished']}",
        "",
        f"Everything else is in `{CARD}`. Load with "
        "`PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base), this_folder)`.",
        "",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- CLI


def cmd_sft(args: argparse.Namespace) -> int:
    """``poetone sft``: train, then say where the adapter and the card are."""
    modules = [m.strip() for m in args.target_modules.split(",") if m.strip()] if args.target_modules else None
    try:
        out = train_sft(
            args.dataset,
            args.model,
            args.out,
            rank=args.rank,
            alpha=args.alpha,
            dropout=args.dropout,
            learning_rate=args.lr,
            batch_size=args.batch_size,
            gradient_accumulation_steps=args.grad_accum,
            epochs=args.epochs,
            max_steps=args.max_steps,
            seed=args.seed,
            max_length=args.max_length or None,
            target_modules=modules[0] if modules == ["all-linear"] else modules,
            logging_steps=args.logging_steps,
            cpu=args.cpu,
        )
    except TrainingDependencyError as exc:
        print(f"poetone: error: {exc}", file=sys.stderr)
        return 2
    card = json.loads((out / CARD).read_text(encoding="utf-8"))
    print(f"LoRA adapter and tokenizer: {out}/ (adapter_config.json, adapter_model.safetensors)")
    print(
        f"run card: {out / CARD} ({card['dataset']['rows']} rows, data sha256 {card['dataset']['data_sha256'][:12]}…)"
    )
    print(
        f"device: {card['device']} ({card['precision']}); steps: {card['training']['global_steps']}; "
        f"final loss: {card['final_loss']}"
    )
    return 0


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``poetone sft`` on an ``add_subparsers()`` object."""
    p = sub.add_parser(
        "sft",
        help="LoRA supervised fine-tuning on a best-of-N dataset (needs poetone[train])",
        description="LoRA SFT through TRL, with the PoeTone paper's defaults. "
        "The loss covers the final assistant message only. Writes the adapter, the tokenizer and "
        f"{CARD} to --out.",
    )
    p.add_argument(
        "dataset", help="a `poetone bon` folder, a JSONL file of {messages: [...]}, or a save_to_disk folder"
    )
    p.add_argument("--model", required=True, help="base model: a local folder or a Hugging Face id")
    p.add_argument("--out", required=True, help="output folder for the adapter and the run card")
    p.add_argument("--rank", type=int, default=16, help="LoRA rank (default: %(default)s)")
    p.add_argument("--alpha", type=int, default=32, help="LoRA alpha (default: %(default)s)")
    p.add_argument("--dropout", type=float, default=0.05, help="LoRA dropout (default: %(default)s)")
    p.add_argument("--lr", type=float, default=5e-5, help="learning rate (default: %(default)s)")
    p.add_argument("--batch-size", type=int, default=2, help="per-device batch size (default: %(default)s)")
    p.add_argument("--grad-accum", type=int, default=1, help="gradient accumulation steps (default: %(default)s)")
    p.add_argument("--epochs", type=float, default=3, help="epochs (default: %(default)s)")
    p.add_argument("--max-steps", type=int, default=-1, help="stop after N optimiser steps; overrides --epochs")
    p.add_argument("--seed", type=int, default=0, help="seed (default: %(default)s)")
    p.add_argument("--max-length", type=int, default=1024, help="truncate sequences to N tokens; 0 = never")
    p.add_argument("--target-modules", help="comma-separated module names (default: all-linear)")
    p.add_argument("--logging-steps", type=int, default=10, help="log the loss every N steps (default: %(default)s)")
    p.add_argument("--cpu", action="store_true", help="train on the CPU in float32 even when CUDA is available")
    p.set_defaults(func=cmd_sft)
    return p
