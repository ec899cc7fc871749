"""The ``poetone`` command line: score poems, inspect the cipai resource."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import stat
import sys
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import Any, BinaryIO, TextIO

from poetone._progress import Progress, wanted
from poetone.batch import RESULT_FIELDS, check_fields, result_fields
from poetone.metadata import MetadataError, UnknownCipaiError, load_cipai
from poetone.profiles import PROFILES

#: Fields an output line owns: an input's own values of them are dropped, never passed on as ours.
OWN_FIELDS = frozenset({*RESULT_FIELDS, "error"})
_BOM = b"\xef\xbb\xbf"
_SURROGATE = re.compile("[\ud800-\udfff]")


class CliError(ValueError):
    """A command-line input that cannot be used, named with what is wrong (exit status 2)."""


def _critic(args: argparse.Namespace):
    from poetone.critic import Critic

    return Critic(
        profile=args.profile,
        metadata=args.metadata,
        metadata_format=args.metadata_format,
        tone_system=getattr(args, "tone_system", None),
        rhyme_system=getattr(args, "rhyme_system", None),
    )


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of the range of a number")
    return value


def _surrogate(value: Any, where: str = "") -> str | None:
    """Where a lone surrogate (\\ud800–\\udfff, valid as a JSON escape, not as text) sits in a
    parsed line, or None: such a string can be neither scored nor written as UTF-8."""
    if isinstance(value, str):
        m = _SURROGATE.search(value)
        return (
            f"{where or 'the line'} holds a lone surrogate U+{ord(m.group()):04X} at character {m.start()}"
            if m
            else None
        )
    if isinstance(value, dict):
        for k, v in value.items():
            found = _surrogate(k, f"a key of {where or 'the line'}") or _surrogate(
                v, f"field {k!r}" if not where else f"{where}[{k!r}]"
            )
            if found:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = _surrogate(v, f"{where}[{i}]")
            if found:
                return found
    return None


def _clean(value: Any) -> Any:
    """``value`` made writable as strict UTF-8 JSON: lone surrogates become U+FFFD, NaN and the
    infinities null. Used only for a line already reported as failed."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


# Line breaks other than "\n" that json.dumps leaves raw (it escapes those below U+0020 only), and
# that line readers such as str.splitlines split at: escaped, so one record stays one line.
_RAW_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _dump(record: dict[str, Any]) -> str:
    """One output line: strict JSON (no NaN), valid UTF-8 (no lone surrogate), always one line."""
    try:
        text = json.dumps(record, ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        text = json.dumps(_clean(record), ensure_ascii=False, allow_nan=False)
    return text.translate(_RAW_BREAKS) + "\n"


def _parse_line(raw: bytes | str, number: int) -> dict[str, Any]:
    """The JSON object of one input line; ``ValueError`` says what is wrong with it."""
    if isinstance(raw, bytes):
        if raw.startswith(_BOM):  # a BOM (Windows editors write one): read past it, on any line
            raw = raw[len(_BOM) :]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            seq = raw[exc.start : exc.start + 3]
            if (
                len(seq) == 3 and seq[0] == 0xED and 0xA0 <= seq[1] <= 0xBF
            ):  # a surrogate encoded as if it were a character
                code = 0xD000 | (seq[1] & 0x3F) << 6 | seq[2] & 0x3F
                raise ValueError(f"not UTF-8: a lone surrogate U+{code:04X} at offset {exc.start}") from None
            raise ValueError(f"not UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start} ({exc.reason})") from None
    else:
        text = raw.removeprefix("\ufeff")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"not UTF-8: a lone surrogate U+{ord(text[exc.start]):04X} at character {exc.start}"
            ) from None
    text = text.rstrip("\r\n")
    if not text.strip():
        raise ValueError("empty line")
    try:
        record = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except RecursionError:
        raise ValueError("malformed JSON: nested too deeply") from None
    except json.JSONDecodeError as exc:  # its "line 1 column k" would read as another line's number
        raise ValueError(f"malformed JSON: {exc.msg} at character {exc.pos}") from None
    except ValueError as exc:
        raise ValueError(f"malformed JSON: {exc}") from None
    if not isinstance(record, dict):
        raise ValueError(f"malformed JSON: a line must be a JSON object, not {type(record).__name__}")
    return record


def _raw_text(raw: bytes | str) -> str:
    """An unreadable line as it was, for the output: undecodable bytes as \\xNN escapes."""
    text = raw.decode("utf-8", "backslashreplace") if isinstance(raw, bytes) else _clean(raw)
    return text.rstrip("\r\n")


def score_jsonl(
    critic, src: Iterable[bytes | str], dst: TextIO, err: TextIO, progress: Progress | None = None
) -> tuple[int, int]:
    """Score each line of ``src``: one output line per input line, in order.

    A bad line (not UTF-8, not JSON, a lone surrogate, no cipai or text, an unknown cipai, or a
    failure of the critic on it) is reported on ``err`` with its number and written with an
    ``error`` field; the rest go on. ``src`` yields lines as bytes (a binary file splits on
    ``\\n`` only, so one bad byte costs one line) or as text. Every output line is strict JSON
    that encodes as UTF-8.
    """
    say = progress.print if progress is not None else (lambda message: print(message, file=err))
    done = failed = 0
    for number, raw in enumerate(src, start=1):
        out = _score_line(critic, raw, number)
        if "error" in out:
            failed += 1
            say(f"line {number}: {out['error']}")
        else:
            done += 1
        dst.write(_dump(out))
        if progress is not None:
            progress.advance(len(raw), detail=f"{number} lines, {failed} failed")
    return done, failed


def _score_line(critic, raw: bytes | str, number: int) -> dict[str, Any]:
    try:
        record = _parse_line(raw, number)
    except ValueError as exc:
        message = str(exc)
        if message == "empty line":  # kept, so output line k still answers input line k
            return {"line": number, "error": message}
        return {"line": number, "raw": _raw_text(raw), "error": message}
    record = {k: v for k, v in record.items() if k not in OWN_FIELDS}
    try:
        where = _surrogate(record)
        if where:
            raise ValueError(f"not UTF-8: {where}")
        cipai, text = record.get("cipai"), record.get("text")
        check_fields(cipai, text)
        result = critic.score(cipai, text)
        record.update(result_fields(result))
    except (ValueError, UnknownCipaiError) as exc:
        record["error"] = str(exc)
    except Exception as exc:  # the critic failed on this poem: one line lost, not the batch
        record["error"] = f"the critic failed on this line ({type(exc).__name__}: {exc})"
    return record


def _open_jsonl_input(path: str) -> BinaryIO:
    """The input of ``score --jsonl``, opened for reading bytes, or a ``CliError`` naming it."""
    if path == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        return buffer if buffer is not None else sys.stdin  # type: ignore[return-value]  # a StringIO in tests
    if os.path.isdir(path):
        raise CliError(f"--jsonl {path}: is a folder; give a JSONL file, one {{cipai, text}} object per line")
    try:
        return open(path, "rb")  # closed by cmd_score
    except FileNotFoundError:
        raise CliError(f"--jsonl {path}: no such file") from None
    except OSError as exc:
        raise CliError(f"--jsonl {path}: cannot be read ({exc.strerror or exc})") from None


def _open_jsonl_output(path: str | None, src: Any) -> TextIO:
    """The output of ``score --jsonl``: stdout, or a file that is not the input itself.

    Opening the input for writing would empty it before a line is read, so that is refused,
    whatever path, link or redirection names it.
    """
    if not path or path == "-":
        if getattr(sys.stdout, "encoding", "utf-8").lower().replace("-", "") != "utf8":
            with contextlib.suppress(AttributeError, ValueError):  # a non-UTF-8 locale: UTF-8 JSON regardless
                sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
        return sys.stdout
    if os.path.isdir(path):
        raise CliError(f"--out {path}: is a folder; give a file name")
    try:
        same = os.path.exists(path) and os.path.samestat(os.fstat(src.fileno()), os.stat(path))
    except (AttributeError, OSError, ValueError):  # an input without a file descriptor
        same = False
    if same:
        raise CliError(f"--out {path}: is the input file; writing it would destroy the input. Write to another file")
    try:
        return open(path, "w", encoding="utf-8", newline="\n")  # closed by cmd_score
    except OSError as exc:
        raise CliError(f"--out {path}: cannot be written ({exc.strerror or exc})") from None


def _size(src: Any) -> int | None:
    """Bytes left to read in ``src`` if it is a regular file (the progress bar's total)."""
    try:
        st = os.fstat(src.fileno())
    except (AttributeError, OSError, ValueError):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def cmd_score(args: argparse.Namespace) -> int:
    critic = _critic(args)
    if args.jsonl:
        src = _open_jsonl_input(args.jsonl)
        try:
            dst = _open_jsonl_output(args.out, src)
        except CliError:
            if src is not sys.stdin and src is not getattr(sys.stdin, "buffer", None):
                src.close()
            raise
        # the bar goes on stderr, and not when the scored lines themselves scroll by on the terminal
        shown = wanted() and not (dst is sys.stdout and wanted(sys.stdout))
        try:
            with Progress("scoring", total=_size(src), enabled=shown) as progress:
                done, failed = score_jsonl(critic, src, dst, sys.stderr, progress)
        finally:
            if src is not sys.stdin and src is not getattr(sys.stdin, "buffer", None):
                src.close()
            if dst is not sys.stdout:
                dst.close()
            else:
                dst.flush()
        print(f"scored {done} poems, {failed} lines failed", file=sys.stderr)
        return 1 if failed else 0
    if not args.cipai:
        print("poetone score: give CIPAI and TEXT (or -), or --jsonl IN", file=sys.stderr)
        return 2
    text = sys.stdin.read() if args.text in (None, "-") else args.text
    r = critic.score(args.cipai, text)
    print(r.render())
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job until the Inspect tasks exist: a canonical poem, scored and rendered."""
    from poetone import corpus
    from poetone.critic import Critic

    record = next(r for r in corpus.load_records() if r["id"] == "niannujiao-history_nostalgia")
    print(
        f"{record['poet']}《{record['cipai']}》{record['title']}…, as the 全宋词 prints it, scored by the default critic:\n"
    )
    print(Critic().score(record["cipai"], record["text"]).render())
    return 0


def cmd_corpus(args: argparse.Namespace) -> int:
    from poetone import corpus

    if args.hf:
        print(f"wrote the corpus as a Hugging Face dataset to {corpus.write_hf(args.hf)}", file=sys.stderr)
    elif args.jsonl == "-":
        for r in corpus.load_records():
            sys.stdout.write(json.dumps(r, ensure_ascii=False) + "\n")
    else:
        print(f"wrote the corpus to {corpus.write_jsonl(args.jsonl)}", file=sys.stderr)
    return 0


def cmd_lm_eval_path(args: argparse.Namespace) -> int:
    print(resources.files("poetone") / "lm_eval_tasks")
    return 0


def cmd_cipai(args: argparse.Namespace) -> int:
    from poetone.render import render_pattern
    from poetone.songci import stanza_name

    if args.action == "validate":
        try:
            reg = load_cipai(args.file, args.metadata_format)
        except (MetadataError, FileNotFoundError) as exc:
            print(f"invalid: {exc}", file=sys.stderr)
            return 1
        n = sum(len(c.variants) for c in reg.values())
        print(f"ok: {len(reg)} cipai, {n} variants")
        return 0
    reg = load_cipai(args.metadata, args.metadata_format)
    if args.action == "list":
        # the benchmark's hand-curated cipai first, then (with --all) every tune of the 词谱
        names = reg.all_names() if getattr(args, "all", False) and hasattr(reg, "all_names") else tuple(reg)
        for name in names:
            c = reg[name]
            aliases = f"  ({'、'.join(c.aliases[:6])}{'…' if len(c.aliases) > 6 else ''})" if c.aliases else ""
            kind = "curated" if not hasattr(reg, "is_curated") or reg.is_curated(name) else "词谱"
            print(f"{c.name}\t{len(c.variants)} variants\t{c.variants[0].char_count} chars\t{kind}: {c.source}{aliases}")
        if not getattr(args, "all", False) and hasattr(reg, "all_names"):
            print(f"({len(names)} hand-curated cipai of the benchmark; {len(reg.all_names())} in all: poetone cipai list --all)", file=sys.stderr)
        return 0
    c = reg[args.name]
    print(f"{c.name}" + (f"  又名 {'、'.join(c.aliases)}" if c.aliases else ""))
    print(f"source: {c.source}")
    sizes = sorted({v.char_count for v in c.variants})
    span = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}"
    print(f"{len(c.variants)} variant{'s' if len(c.variants) != 1 else ''}, {span} 字")
    also = reg.tunes_titled(args.name)[1:] if hasattr(reg, "tunes_titled") else ()
    if also:  # a 同名异调 title: scored against each tune, counting for the one the poem follows
        print(f"同名异调: a poem titled {args.name} is also scored as {'、'.join(also)} and counts for the tune it follows")
    for h in c.homonyms:
        poems = "、".join(f"{p['poet']}「{p['first_line']}」" for p in h.poems)
        print(f"同名异调 (not a variant): {h.name}: {poems}\n  source: {h.source}")
    for v in c.variants:
        print(f"\n[{v.id}] {v.label}  ({v.char_count} 字)")
        print(f"  source: {v.source}")
        if v.example:
            print(f"  example: {v.example.get('poet', '')}「{v.example.get('first_line', '')}」")
        for si, stanza in enumerate(v.stanzas):
            print(f"  {stanza_name(si, len(v.stanzas))}")
            for line in stanza:
                end = line.end + (line.segment if line.rhymed else "")
                print(f"    {render_pattern(line.tones):<12} {line.tones:<10} {end}{' 叠' if line.repeat else ''}")
    return 0


def cmd_bon(args: argparse.Namespace) -> int:
    from poetone.bon import build, format_summary

    selection = build(args.logs, args.out, min_score=args.min_score)
    for error in selection.errors:
        print(f"poetone: skipped {error}", file=sys.stderr)
    print(format_summary(selection.summary))
    print(
        f"{len(selection.rows)} training rows in {args.out}/train.jsonl (and {args.out}/dataset, {args.out}/summary.json)"
    )
    return 1 if selection.errors else 0


def cmd_report(args: argparse.Namespace) -> int:
    from poetone.report import build_report

    report = build_report(args.logs, args.out, n_boot=args.bootstrap, seed=args.seed)
    for error in report.errors:
        print(f"poetone: skipped {error}", file=sys.stderr)
    runs, calibrations = report.record.get("runs", []), report.record.get("calibration_logs", [])
    print(
        f"report of {len(runs)} run(s) and {len(calibrations)} judge calibration(s): {args.out}/report.md, report.html, *.csv, *.png"
    )
    return 1 if report.errors else 0


def cmd_probe(args: argparse.Namespace) -> int:
    from poetone.probe import run_probes, to_markdown, write

    results, errors = run_probes(args.logs, encoder=args.encoder, folds=args.folds, seed=args.seed)
    for error in errors:
        print(f"poetone: skipped {error}", file=sys.stderr)
    print(to_markdown(results))
    if args.out:
        print(f"written to {write(results, errors, args.out)}/probes.md and probes.json")
    return 1 if errors else 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--profile", default="default", choices=sorted(PROFILES), help="critic profile (default: %(default)s)"
    )
    p.add_argument("--metadata", help="a cipai file or folder of our schema, or an official PoeTone metadata file")
    p.add_argument("--metadata-format", choices=["poetone-native", "poetone"], help="format of --metadata")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="poetone",
        description="Songci (宋词) evaluation: the formal-conformity critic, corpus, best-of-N and SFT, reports, human evaluation, BaZi.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("score", help="score a poem, or a JSONL file of poems")
    p.add_argument("cipai", nargs="?", help="cipai name (or alias)")
    p.add_argument("text", nargs="?", help="the poem, or - to read it from standard input")
    p.add_argument("--jsonl", help="input JSONL, one {cipai, text, ...} per line (- for stdin)")
    p.add_argument("--out", help="output JSONL (default: stdout)")
    p.add_argument("--tone-system", choices=["classical", "modern"])
    p.add_argument("--rhyme-system", choices=["cilin", "pinyin-final", "xinyun"])
    _common(p)
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("corpus", help="write the canonical corpus of 120 Song ci")
    out = p.add_mutually_exclusive_group(required=True)
    out.add_argument("--jsonl", help="output JSONL, one poem a line (- for stdout)")
    out.add_argument("--hf", metavar="OUT", help="a new folder: the corpus as a Hugging Face dataset, with its card")
    p.set_defaults(func=cmd_corpus)

    p = sub.add_parser("lm-eval-path", help="print the folder of the lm-eval tasks (for --include_path)")
    p.set_defaults(func=cmd_lm_eval_path)

    p = sub.add_parser("demo", help="score a canonical poem and print the rendering")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("bon", help="best-of-N: an SFT dataset of the best-scoring candidate per prompt")
    p.add_argument(
        "logs", nargs="+", help="Inspect logs (.eval, .json) and lm-eval samples_*.jsonl, or folders of them"
    )
    p.add_argument("--out", required=True, help="output folder: train.jsonl, dataset/, summary.json")
    p.add_argument("--min-score", type=float, default=0.0, help="drop prompts whose best conformity is below this")
    p.set_defaults(func=cmd_bon)

    p = sub.add_parser(
        "report", help="tables, intervals, paired tests and figures from Inspect logs and lm-eval outputs"
    )
    p.add_argument("logs", nargs="+", help="Inspect logs (.eval, .json), lm-eval output folders or samples_*.jsonl")
    p.add_argument("--out", required=True, help="output folder: report.md, report.html, one CSV per table, PNG figures")
    p.add_argument("--bootstrap", type=int, default=10_000, help="bootstrap resamples (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("probe", help="cipai, theme and human-vs-model classification probes")
    p.add_argument(
        "logs", nargs="*", help="Inspect logs or lm-eval outputs with generated poems (none: canonical only)"
    )
    p.add_argument("--out", help="folder for probes.md and probes.json")
    p.add_argument("--encoder", help="a local Chinese BERT folder: adds the embeddings + SVM pipeline")
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_probe)

    from poetone.bazi.cli import add_parser as add_bazi_parser
    from poetone.human_eval.cli import add_parser as add_human_eval_parser
    from poetone.sft import add_parser as add_sft_parser

    add_sft_parser(sub)
    add_bazi_parser(sub)
    add_human_eval_parser(sub)

    p = sub.add_parser("cipai", help="list, show or validate cipai metadata")
    csub = p.add_subparsers(dest="action", required=True)
    q = csub.add_parser("list", help="the cipai, their variant counts and sources")
    q.add_argument("--all", action="store_true", help="every tune of the 钦定词谱, not only the benchmark's 20")
    _common(q)
    q = csub.add_parser("show", help="the template of a cipai, rendered")
    q.add_argument("name")
    _common(q)
    q = csub.add_parser("validate", help="validate a metadata file or folder")
    q.add_argument("file")
    q.add_argument("--metadata-format", choices=["poetone-native", "poetone"])
    p.set_defaults(func=cmd_cipai)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (UnknownCipaiError, MetadataError, FileNotFoundError, ValueError) as exc:
        print(f"poetone: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `poetone cipai show … | head`: the reader left; not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a folder where a file was wanted, no permission, a full disk: named, no traceback
        print(f"poetone: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
