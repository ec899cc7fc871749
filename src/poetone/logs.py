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
    def full_poem(self) -> str:
        """The poem as a reader sees it: for completion, the given 上阕 then the model's 下阕."""
        if self.strategy != "completion":
            return self.poem
        upper = str(self.extra.get("upper", "")).strip()
        return f"{upper}\n{self.poem.strip()}" if upper else self.poem.strip()

    @property
    def eligible(self) -> bool:
        """Can this candidate be a training example? Invalid or copied answers never can."""
        return self.valid and not self.copied


@dataclass(slots=True)
class RunInfo:
    """What a report must record about one log file: who ran what, when, and how."""

    source: str
    framework: str
    model: str
    task: str
    created: str
    samples: int
    epochs: int
    generation: dict[str, Any]
    profile: str
    prompt_hashes: list[str]
    versions: dict[str, str]


@cache
def _critic(profile: str) -> Critic:
    return Critic(profile=profile)


#: JSON files Inspect keeps beside its logs (an index, an eval set's state): not logs themselves.
_NOT_LOGS = frozenset({"logs.json", "eval-set.json", "listing.json"})


def find_log_files(
    paths: Iterable[str | Path], samples_prefix: str = "samples_", skip: Iterable[str] = ()
) -> list[tuple[Path, bool]]:
    """Inspect ``.eval``/``.json`` logs and lm-eval ``{samples_prefix}*.jsonl`` files under the
    given files and folders, each with whether it was named explicitly (lm-eval's
    ``results_*.json`` are read beside their samples, not listed)."""
    ignored = _NOT_LOGS | set(skip)
    out: list[tuple[Path, bool]] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise LogError(f"{path}: no such file or folder")
        if not path.is_dir():
            out.append((path, True))
            continue
        for p in sorted(path.rglob("*")):
            if not p.is_file() or p.name.startswith(".") or p.name in ignored:
                continue
            inspect_log = p.suffix == ".eval" or (p.suffix == ".json" and not p.name.startswith("results_"))
            if inspect_log or (p.name.startswith(samples_prefix) and p.suffix == ".jsonl"):
                out.append((p, False))
    return out


def log_files(paths: Iterable[str | Path]) -> list[Path]:
    """The log files under the given files and folders (see ``find_log_files``)."""
    return [p for p, _ in find_log_files(paths)]


def read_candidates(paths: Iterable[str | Path]) -> tuple[list[Candidate], list[str]]:
    """All candidates of all files, in file order then sample order; plus one error per bad file."""
    candidates, _, errors = read_runs(paths)
    return candidates, errors


def read_runs(paths: Iterable[str | Path]) -> tuple[list[Candidate], list[RunInfo], list[str]]:
    """Candidates, one RunInfo per file read, and one error per file that could not be read."""
    candidates: list[Candidate] = []
    runs: list[RunInfo] = []
    errors: list[str] = []
    existing = []
    for raw in paths:
        if Path(raw).exists():
            existing.append(raw)
        else:
            errors.append(f"{raw}: no such file or folder")
    for path in log_files(existing):
        try:
            found, info = read_file(path)
        except LogError as exc:
            errors.append(str(exc))
            continue
        candidates.extend(found)
        runs.append(info)
    return candidates, runs, errors


def read_file(path: Path) -> tuple[list[Candidate], RunInfo]:
    if path.name.startswith("samples_") and path.suffix == ".jsonl":
        found = list(_read_lm_eval(path))
        return found, _lm_eval_info(path, found)
    if path.suffix in (".eval", ".json"):
        return _read_inspect(path)
    raise LogError(f"{path}: not an Inspect log (.eval, .json) or an lm-eval samples_*.jsonl file")


def _read_inspect(path: Path) -> tuple[list[Candidate], RunInfo]:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # a torn or foreign file: name it, keep going with the others
        raise LogError(f"{path}: not a readable Inspect log ({type(exc).__name__}: {str(exc)[:200]})") from None
    if not log.samples:
        raise LogError(f"{path}: the Inspect log holds no samples (status {log.status})")
    if "bazi" in log.eval.task:
        raise LogError(f"{path}: a BaZi log ({log.eval.task}): report it with `poetone bazi report`")
    found = list(_inspect_candidates(path, log))
    generation = {k: v for k, v in log.plan.config.model_dump(exclude_none=True).items()}
    generation.update(log.eval.model_generate_config.model_dump(exclude_none=True))  # the command line wins
    meta = log.eval.metadata or {}
    info = RunInfo(
        source=str(path),
        framework="inspect",
        model=log.eval.model,
        task=log.eval.task,
        created=str(log.eval.created),
        samples=len(log.samples),
        epochs=int(log.eval.config.epochs or 1),
        generation=generation,
        profile=str(meta.get("profile", "default")),
        prompt_hashes=sorted({c.prompt_hash for c in found if c.prompt_hash}),
        versions={k: str(v) for k, v in (log.eval.packages or {}).items()},
    )
    return found, info


def _inspect_candidates(path: Path, log: Any) -> Iterator[Candidate]:
    model = log.eval.model
    for sample in log.samples:
        meta = sample.metadata or {}
        if "strategy" not in meta or "cipai" not in meta:
            raise LogError(f"{path}: sample {sample.id!r} is not a poetone Songci sample (no strategy/cipai metadata)")
        messages = sample.input if isinstance(sample.input, list) else []
        system = next((m.text for m in messages if m.role == "system"), "")
        user = next((m.text for m in messages if m.role == "user"), sample.input if isinstance(sample.input, str) else "")
        answer = sample.output.completion if sample.output else ""
        extra: dict[str, Any] = {"upper": meta.get("upper", ""), "original_lower": meta.get("original_lower", "")}
        judged = (sample.scores or {}).get("songci_judge")
        if judged is not None and isinstance(judged.value, dict):
            extra["judge"] = {k: float(v) for k, v in judged.value.items()}
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
            profile=str(meta.get("profile") or (log.eval.metadata or {}).get("profile", "default")),
            extra=extra,
        )


def _lm_eval_results(samples: Path) -> dict[str, Any]:
    """The results file written in the same run as a samples file (same timestamp suffix)."""
    stamp = samples.stem.rsplit("_", 1)[-1]
    for results in sorted(samples.parent.glob("results_*.json")):
        if results.stem.endswith(stamp):
            try:
                return json.loads(results.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return {}
    return {}


def _lm_eval_info(path: Path, found: list[Candidate]) -> RunInfo:
    results = _lm_eval_results(path)
    task = path.stem[len("samples_") :].rsplit("_", 1)[0]
    task_config = results.get("configs", {}).get(task, {})
    generation = dict(task_config.get("generation_kwargs") or {})
    generation.update(results.get("config", {}).get("gen_kwargs") or {})
    created = results.get("date")
    return RunInfo(
        source=str(path),
        framework="lm-eval",
        model=found[0].model if found else lm_eval_model(path),
        task=task,
        created=str(created) if created is not None else "",
        samples=len({c.prompt_id for c in found}),
        epochs=int(task_config.get("repeats") or 1),
        generation=generation,
        profile=found[0].profile if found else "default",
        prompt_hashes=sorted({c.prompt_hash for c in found if c.prompt_hash}),
        versions={"lm_eval": str(results.get("lm_eval_version", ""))},
    )


def lm_eval_model(samples: Path) -> str:
    """The model of an lm-eval samples file: from the results file of the same run, else the
    folder lm-eval names after the model."""
    data = _lm_eval_results(samples)
    config = data.get("config", {})
    args = config.get("model_args")
    if isinstance(args, str):  # the command line's "model=…,base_url=…"
        args = dict(kv.split("=", 1) for kv in args.split(",") if "=" in kv)
    args = args if isinstance(args, dict) else {}
    name = args.get("model") or args.get("pretrained") or data.get("model_name") or config.get("model")
    return str(name) if name else samples.parent.name


def _read_lm_eval(path: Path) -> Iterator[Candidate]:
    model = lm_eval_model(path)
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
