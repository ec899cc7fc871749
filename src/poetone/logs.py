"""Read scored Songci answers back from Inspect logs and lm-eval sample files.

Best-of-N selection and the reports both start from the same thing: every candidate answer with
its prompt, model, epoch and critic scores. Inspect logs carry the scores already; lm-eval sample
files score only the first of ``repeats`` answers, so every response is scored here with the same
``score_answer`` the tasks use. A file that cannot be read is reported by name and the others
are still read; so is a line of a samples file (or a sample of an Inspect log) that cannot be
used: its file and line are named, it is skipped, and the rest of the file is read.

JSONL files are split on ``\n`` only: lm-eval writes U+2028, U+0085 and the other characters
``str.splitlines`` also breaks at raw inside its JSON strings, so one such character in one
answer must not cost the whole file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO

from poetone._progress import Progress
from poetone.critic import Critic
from poetone.metadata import UnknownCipaiError
from poetone.profiles import PROFILES
from poetone.songci import score_answer

#: Per file, at most this many bad lines are named one by one; the rest are counted.
MAX_LINE_ERRORS = 20
_BOM = b"\xef\xbb\xbf"


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
    """Candidates, one RunInfo per file read, and one error per file, line or sample that could not be read."""
    candidates: list[Candidate] = []
    runs: list[RunInfo] = []
    errors: list[str] = []
    existing = []
    for raw in paths:
        if Path(raw).exists():
            existing.append(raw)
        else:
            errors.append(f"{raw}: no such file or folder")
    files = log_files(existing)
    with Progress("reading logs", total=len(files)) as progress:
        for path in files:
            progress.advance(0, detail=path.name)
            try:
                found, info, skipped = read_file(path)
            except LogError as exc:
                errors.append(str(exc))
                continue
            except Exception as exc:  # whatever else a foreign file does to a reader: this file only
                errors.append(f"{path}: cannot be read ({type(exc).__name__}: {str(exc)[:200]})")
                continue
            finally:
                progress.advance(1)
            errors.extend(skipped)
            if found:
                candidates.extend(found)
                runs.append(info)
            elif not skipped:
                errors.append(f"{path}: holds no samples")
    return candidates, runs, errors


def read_file(path: Path) -> tuple[list[Candidate], RunInfo, list[str]]:
    """The candidates of one log file, its RunInfo, and one message per line or sample skipped."""
    skipped: list[str] = []
    if path.name.startswith("samples_") and path.suffix == ".jsonl":
        found = list(_read_lm_eval(path, skipped))
        return found, _lm_eval_info(path, found), capped(path, skipped)
    if path.suffix in (".eval", ".json"):
        found, info = _read_inspect(path, skipped)
        return found, info, capped(path, skipped)
    raise LogError(f"{path}: not an Inspect log (.eval, .json) or an lm-eval samples_*.jsonl file")


def read_jsonl(path: Path, errors: list[str]) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each JSON line of ``path``; a line that is not UTF-8 JSON
    (a torn last line, a bad byte) is named in ``errors`` and skipped, blank lines are skipped.

    Lines are split on ``\\n`` only and read one at a time, so a bad byte or a raw U+2028 costs at
    most its own line. Raises ``LogError`` only if the file cannot be opened.
    """
    try:  # opened now, not at the first line: a file that cannot be opened raises here
        f = path.open("rb")
    except OSError as exc:
        raise LogError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return _json_lines(path, f, errors)


def _json_lines(path: Path, f: BinaryIO, errors: list[str]) -> Iterator[tuple[int, Any]]:
    with f:
        for number, raw in enumerate(f, start=1):
            if number == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
            if not raw.strip():
                continue
            try:
                value = json.loads(raw.decode("utf-8"), strict=False)  # a raw control character in a string is kept
            except UnicodeDecodeError as exc:
                errors.append(f"{path}, line {number}: not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})")
            except RecursionError:
                errors.append(f"{path}, line {number}: not JSON (nested too deeply)")
            except ValueError as exc:
                torn = " (the file ends inside it: a torn last line)" if not raw.endswith(b"\n") else ""
                errors.append(f"{path}, line {number}: not JSON{torn} ({getattr(exc, 'msg', exc)})")
            else:
                yield number, value


def capped(path: Path, messages: list[str], limit: int = MAX_LINE_ERRORS) -> list[str]:
    """At most ``limit`` messages about one file, and a count of the others."""
    if len(messages) <= limit:
        return messages
    return [*messages[:limit], f"{path}: {len(messages) - limit} more bad lines skipped"]


def _read_inspect(path: Path, skipped: list[str]) -> tuple[list[Candidate], RunInfo]:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # a torn or foreign file: name it, keep going with the others
        raise LogError(f"{path}: not a readable Inspect log ({type(exc).__name__}: {str(exc)[:200]})") from None
    if not log.samples:
        raise LogError(f"{path}: the Inspect log holds no samples (status {log.status})")
    if "bazi" in log.eval.task:
        raise LogError(f"{path}: a BaZi log ({log.eval.task}): report it with `poetone bazi report`")
    found = list(_inspect_candidates(path, log, skipped))
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


def _inspect_candidates(path: Path, log: Any, skipped: list[str]) -> Iterator[Candidate]:
    """The candidates of a log's samples; a sample that cannot be used is named in ``skipped``."""
    if not any("strategy" in (s.metadata or {}) and "cipai" in (s.metadata or {}) for s in log.samples):
        raise LogError(f"{path}: not a poetone Songci log (no sample has strategy/cipai metadata)")
    for sample in log.samples:
        try:
            yield _inspect_candidate(path, log, sample)
        except (LogError, ValueError, KeyError, TypeError, AttributeError) as exc:
            message = str(exc) if isinstance(exc, (LogError, UnknownCipaiError)) else f"{type(exc).__name__}: {exc}"
            skipped.append(f"{path}, sample {sample.id!r} epoch {sample.epoch}: skipped ({message})")


def _inspect_candidate(path: Path, log: Any, sample: Any) -> Candidate:
    meta = sample.metadata or {}
    if not isinstance(meta.get("strategy"), str) or not isinstance(meta.get("cipai"), str):
        raise LogError("not a poetone Songci sample (no strategy/cipai metadata)")
    model = log.eval.model
    messages = sample.input if isinstance(sample.input, list) else []
    system = next((m.text for m in messages if m.role == "system"), "")
    user = next((m.text for m in messages if m.role == "user"), sample.input if isinstance(sample.input, str) else "")
    answer = sample.output.completion if sample.output else ""
    extra: dict[str, Any] = {"upper": meta.get("upper", ""), "original_lower": meta.get("original_lower", ""), "band": meta.get("band", "")}
    judged = (sample.scores or {}).get("songci_judge")
    if judged is not None and isinstance(judged.value, dict):
        extra["judge"] = {k: float(v) for k, v in judged.value.items()}
    score = (sample.scores or {}).get("conformity")
    if score is not None and isinstance(score.value, dict):
        value, smeta = score.value, score.metadata or {}
        valid, poem = bool(smeta.get("valid", value.get("invalid") == 0.0)), score.answer or ""
        copied = bool(smeta.get("copied", 0.0))
    else:  # scored by another scorer (or not at all): score it here
        critic = _known_critic(meta.get("profile", "default"))
        critic.registry.resolve(meta["cipai"])  # an unknown cipai is named, not scored as nothing
        scored = score_answer({**meta, "id": str(sample.id)}, answer, critic)
        value, valid, poem, copied = scored, scored["valid"], scored["poem"], bool(scored.get("copied", 0.0))
    return Candidate(
        source=str(path),
        framework="inspect",
        model=model,
        prompt_id=str(sample.id),
        strategy=meta["strategy"],
        cipai=meta["cipai"],
        theme=str(meta.get("theme", "")),
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
        prompt_hash=str(meta.get("prompt_hash", "")),
        profile=str(meta.get("profile") or (log.eval.metadata or {}).get("profile", "default")),
        extra=extra,
    )


def _known_critic(profile: Any) -> Critic:
    """The critic of a profile named in a log; a ``ValueError`` naming it if there is none."""
    if not isinstance(profile, str) or profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of {', '.join(sorted(PROFILES))}")
    return _critic(profile)


def _lm_eval_results(samples: Path) -> dict[str, Any]:
    """The results file written in the same run as a samples file (same timestamp suffix)."""
    stamp = samples.stem.rsplit("_", 1)[-1]
    for results in sorted(samples.parent.glob("results_*.json")):
        if results.stem.endswith(stamp):
            try:
                data = json.loads(results.read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError):
                return {}
            return data if isinstance(data, dict) else {}
    return {}


def _object(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else empty: a results file's parts are optional."""
    return value if isinstance(value, dict) else {}


def _lm_eval_info(path: Path, found: list[Candidate]) -> RunInfo:
    results = _lm_eval_results(path)
    task = path.stem[len("samples_") :].rsplit("_", 1)[0]
    task_config = _object(_object(results.get("configs")).get(task))
    generation = dict(_object(task_config.get("generation_kwargs")))
    generation.update(_object(_object(results.get("config")).get("gen_kwargs")))
    created = results.get("date")
    return RunInfo(
        source=str(path),
        framework="lm-eval",
        model=found[0].model if found else lm_eval_model(path),
        task=task,
        created=str(created) if created is not None else "",
        samples=len({c.prompt_id for c in found}),
        epochs=task_config["repeats"] if isinstance(task_config.get("repeats"), int) else 1,
        generation=generation,
        profile=found[0].profile if found else "default",
        prompt_hashes=sorted({c.prompt_hash for c in found if c.prompt_hash}),
        versions={"lm_eval": str(results.get("lm_eval_version", ""))},
    )


def lm_eval_model(samples: Path) -> str:
    """The model of an lm-eval samples file: from the results file of the same run, else the
    folder lm-eval names after the model."""
    data = _lm_eval_results(samples)
    config = _object(data.get("config"))
    args = config.get("model_args")
    if isinstance(args, str):  # the command line's "model=…,base_url=…"
        args = dict(kv.split("=", 1) for kv in args.split(",") if "=" in kv)
    args = _object(args)
    name = args.get("model") or args.get("pretrained") or data.get("model_name") or config.get("model")
    return str(name) if name else samples.parent.name


#: Fields of a doc that, when present, must be text (they are prompts, poems and labels).
_DOC_TEXT = ("theme", "system", "user", "prompt_hash", "upper", "original_lower")


def _songci_sample(record: Any) -> tuple[dict[str, Any], list[str], Critic]:
    """The doc, the responses and the critic of one lm-eval sample line; ``ValueError`` names
    what is wrong (a doc that is not an object, an unknown cipai or profile, ``resps`` that
    are not a list of lists of strings)."""
    if not isinstance(record, dict):
        raise ValueError(f"a line must be a JSON object, not {type(record).__name__}")
    doc = record.get("doc")
    if not isinstance(doc, dict):
        raise ValueError(f"'doc' must be an object, not {type(doc).__name__}")
    missing = [k for k in ("id", "strategy", "cipai") if k not in doc]
    if missing:
        raise ValueError(f"doc has no {', '.join(missing)}")
    if isinstance(doc["id"], bool) or not isinstance(doc["id"], (str, int)):
        raise ValueError(f"doc id must be a string, not {type(doc['id']).__name__}")
    for key in ("strategy", "cipai"):
        if not isinstance(doc[key], str) or not doc[key]:
            raise ValueError(f"doc {key} must be a non-empty string, not {doc[key]!r}")
    wrong = [k for k in _DOC_TEXT if k in doc and not isinstance(doc[k], str)]
    if wrong:
        raise ValueError(f"doc {', '.join(wrong)} must be text")
    critic = _known_critic(doc.get("profile", "default"))
    critic.registry.resolve(doc["cipai"])
    resps = record.get("resps")
    if not isinstance(resps, list) or not resps or not all(isinstance(r, list) for r in resps):
        raise ValueError(
            f"'resps' must be a list of lists of answers, not {json.dumps(resps, ensure_ascii=False)[:80]}"
        )
    responses = resps[0]
    if not responses:
        raise ValueError("'resps' holds no answer")
    if not all(isinstance(r, str) for r in responses):
        raise ValueError("'resps' must hold the answers as strings")
    return {**doc, "id": str(doc["id"])}, responses, critic


def _read_lm_eval(path: Path, skipped: list[str]) -> Iterator[Candidate]:
    model = lm_eval_model(path)
    for number, record in read_jsonl(path, skipped):
        try:
            doc, responses, critic = _songci_sample(record)
        except (ValueError, UnknownCipaiError) as exc:
            skipped.append(f"{path}, line {number}: not a poetone lm-eval sample ({exc})")
            continue
        for epoch, answer in enumerate(responses, start=1):
            try:
                scored = score_answer(doc, answer, critic)
            except Exception as exc:  # the critic failed on this answer: it counts as invalid, and is named
                skipped.append(f"{path}, line {number}: answer {epoch} scored as invalid ({type(exc).__name__}: {exc})")
                scored = {"poem": "", "valid": False, "conformity": 0.0, "structure": 0.0, "tonal": 0.0, "rhyme": 0.0}
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
                extra={"upper": doc.get("upper", ""), "original_lower": doc.get("original_lower", ""), "band": doc.get("band", "")},
            )
