"""Read scored Songci answers back from Inspect logs and lm-eval sample files.

Best-of-N selection and the reports both start from the same thing: every candidate answer with
its prompt, model, epoch and critic scores. Inspect logs carry the scores already; lm-eval sample
files score only the first of ``repeats`` answers, so every response is scored here with the same
``score_answer`` the tasks use. A file that cannot be read is reported by name and the others
are still read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from poetone.critic import Critic
from poetone.songci import score_answer


class LogError(ValueError):
    """A log file that cannot be read, with the file named."""


@dataclass(slots=True)
class Candidate:
    """One answer to one prompt, scored."""

    source: str
    framework: str  # "inspect" | "lm-eval"
    model: str
    prompt_id: str
    strategy: str
    cipai: str
    theme: str
    epoch: int  # 1-based
    system: str
    user: str
    answer: str
    poem: str
    valid: bool
    copied: bool
    conformity: float
    structure: float
    tonal: float
    rhyme: float
    prompt_hash: str = ""
    profile: str = "default"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def eligible(self) -> bool:
        """Can this candidate be a training example? Invalid or copied answers never can."""
        return self.valid and not self.copied


@cache
def _critic(profile: str) -> Critic:
    return Critic(profile=profile)


def log_files(paths: Iterable[str | Path]) -> list[Path]:
    """The log files under the given files and folders: Inspect ``.eval``/``.json`` logs and
    lm-eval ``samples_*.jsonl`` (lm-eval's ``results_*.json`` are read beside their samples)."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise LogError(f"{path}: no such file or folder")
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and (p.suffix == ".eval" or (p.suffix == ".json" and not p.name.startswith("results_")) or (p.name.startswith("samples_") and p.suffix == ".jsonl"))
                and not p.name.startswith(".")
            )
            out.extend(found)
        else:
            out.append(path)
    return out


def read_candidates(paths: Iterable[str | Path]) -> tuple[list[Candidate], list[str]]:
    """All candidates of all files, in file order then sample order; plus one error per bad file."""
    candidates: list[Candidate] = []
    errors: list[str] = []
    for path in log_files(paths):
        try:
            candidates.extend(read_file(path))
        except LogError as exc:
            errors.append(str(exc))
    return candidates, errors


def read_file(path: Path) -> list[Candidate]:
    if path.name.startswith("samples_") and path.suffix == ".jsonl":
        return list(_read_lm_eval(path))
    if path.suffix in (".eval", ".json"):
        return list(_read_inspect(path))
    raise LogError(f"{path}: not an Inspect log (.eval, .json) or an lm-eval samples_*.jsonl file")


def _read_inspect(path: Path) -> Iterator[Candidate]:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # a torn or foreign file: name it, keep going with the others
        raise LogError(f"{path}: not a readable Inspect log ({type(exc).__name__}: {str(exc)[:200]})") from None
    if not log.samples:
        raise LogError(f"{path}: the Inspect log holds no samples (status {log.status})")
    model = log.eval.model
    for sample in log.samples:
        meta = sample.metadata or {}
        if "strategy" not in meta or "cipai" not in meta:
            raise LogError(f"{path}: sample {sample.id!r} is not a poetone Songci sample (no strategy/cipai metadata)")
        messages = sample.input if isinstance(sample.input, list) else []
        system = next((m.text for m in messages if m.role == "system"), "")
        user = next((m.text for m in messages if m.role == "user"), sample.input if isinstance(sample.input, str) else "")
        answer = sample.output.completion if sample.output else ""
        score = (sample.scores or {}).get("conformity")
        if score is not None and isinstance(score.value, dict):
            value, smeta = score.value, score.metadata or {}
            valid, poem = bool(smeta.get("valid", value.get("invalid") == 0.0)), score.answer or ""
            copied = bool(smeta.get("copied", 0.0))
        else:  # scored by another scorer (or not at all): score it here
            scored = score_answer({**meta, "id": str(sample.id)}, answer, _critic(meta.get("profile", "default")))
            value, valid, poem, copied = scored, scored["valid"], scored["poem"], bool(scored.get("copied", 0.0))
        yield Candidate(
            source=str(path),
            framework="inspect",
            model=model,
            prompt_id=str(sample.id),
            strategy=meta["strategy"],
            cipai=meta["cipai"],
            theme=meta.get("theme", ""),
            epoch=int(sample.epoch),
            system=system,
            user=user,
            answer=answer,
            poem=poem,
            valid=valid,
            copied=copied,
            conformity=float(value["conformity"]),
            structure=float(value["structure"]),
            tonal=float(value["tonal"]),
            rhyme=float(value["rhyme"]),
            prompt_hash=meta.get("prompt_hash", ""),
            extra={"upper": meta.get("upper", ""), "original_lower": meta.get("original_lower", "")},
        )


def _lm_eval_model(samples: Path) -> str:
    """The model name from the results file written in the same run (same timestamp suffix)."""
    stamp = samples.stem.rsplit("_", 1)[-1]
    for results in sorted(samples.parent.glob("results_*.json")):
        if results.stem.endswith(stamp):
            try:
                data = json.loads(results.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                break
            return str(data.get("model_name") or data.get("config", {}).get("model_args", {}).get("model") or data.get("config", {}).get("model") or "unknown")
    return "unknown"


def _read_lm_eval(path: Path) -> Iterator[Candidate]:
    model = _lm_eval_model(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise LogError(f"{path}: cannot be read ({exc})") from None
    rows = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            doc = record["doc"]
            responses = record["resps"][0]
            missing = [k for k in ("id", "strategy", "cipai") if k not in doc]
            if missing:
                raise KeyError(f"doc has no {', '.join(missing)}")
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LogError(f"{path}, line {n}: not a poetone lm-eval sample ({type(exc).__name__}: {exc})") from None
        rows.append((doc, [r if isinstance(r, str) else str(r) for r in responses]))
    for doc, responses in rows:
        critic = _critic(doc.get("profile", "default"))
        for epoch, answer in enumerate(responses, start=1):
            scored = score_answer(doc, answer, critic)
            yield Candidate(
                source=str(path),
                framework="lm-eval",
                model=model,
                prompt_id=doc["id"],
                strategy=doc["strategy"],
                cipai=doc["cipai"],
                theme=doc.get("theme", ""),
                epoch=epoch,
                system=doc.get("system", ""),
                user=doc.get("user", ""),
                answer=answer,
                poem=scored["poem"],
                valid=scored["valid"],
                copied=bool(scored.get("copied", 0.0)),
                conformity=scored["conformity"],
                structure=scored["structure"],
                tonal=scored["tonal"],
                rhyme=scored["rhyme"],
                prompt_hash=doc.get("prompt_hash", ""),
                profile=doc.get("profile", "default"),
                extra={"upper": doc.get("upper", ""), "original_lower": doc.get("original_lower", "")},
            )
