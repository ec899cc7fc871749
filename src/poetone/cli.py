"""The ``poetone`` command line: score poems, inspect the cipai resource."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from importlib import resources
from typing import Any, TextIO

from poetone.metadata import MetadataError, UnknownCipaiError, load_cipai
from poetone.profiles import PROFILES

RESULT_FIELDS = ("conformity", "structure", "tonal", "rhyme", "valid", "variant")


def _critic(args: argparse.Namespace):
    from poetone.critic import Critic

    return Critic(
        profile=args.profile,
        metadata=args.metadata,
        metadata_format=args.metadata_format,
        tone_system=getattr(args, "tone_system", None),
        rhyme_system=getattr(args, "rhyme_system", None),
    )


def _fmt(x: float) -> float:
    return round(x, 6)


def score_jsonl(critic, src: TextIO, dst: TextIO, err: TextIO) -> tuple[int, int]:
    """Score each line of ``src``; a bad line is reported and written with ``error``, the rest go on."""
    done = failed = 0
    for number, raw in enumerate(src, start=1):
        record: dict[str, Any]
        if not raw.strip():
            failed += 1  # reported and kept, so output line k still answers input line k
            print(f"line {number}: empty line", file=err)
            dst.write(json.dumps({"line": number, "error": "empty line"}) + "\n")
            continue
        try:
            record = json.loads(raw)
            if not isinstance(record, dict):
                raise ValueError("a line must be a JSON object")
        except ValueError as exc:
            failed += 1
            print(f"line {number}: malformed JSON: {exc}", file=err)
            dst.write(json.dumps({"line": number, "raw": raw.rstrip("\n"), "error": f"malformed JSON: {exc}"}, ensure_ascii=False) + "\n")
            continue
        try:
            cipai, text = record.get("cipai"), record.get("text")
            if not isinstance(cipai, str) or not cipai:
                raise ValueError("missing field 'cipai'")
            if not isinstance(text, str):
                raise ValueError("missing field 'text' (a string)")
            r = critic.score(cipai, text)
            record.update({k: (_fmt(v) if isinstance(v, float) else v) for k, v in r.as_dict().items() if k in RESULT_FIELDS})
            done += 1
        except (ValueError, UnknownCipaiError) as exc:
            failed += 1
            print(f"line {number}: {exc}", file=err)
            record["error"] = str(exc)
        dst.write(json.dumps(record, ensure_ascii=False) + "\n")
    return done, failed


def cmd_score(args: argparse.Namespace) -> int:
    critic = _critic(args)
    if args.jsonl:
        src = sys.stdin if args.jsonl == "-" else open(args.jsonl, encoding="utf-8")  # noqa: SIM115
        dst = sys.stdout if not args.out or args.out == "-" else open(args.out, "w", encoding="utf-8")  # noqa: SIM115
        try:
            done, failed = score_jsonl(critic, src, dst, sys.stderr)
        finally:
            if src is not sys.stdin:
                src.close()
            if dst is not sys.stdout:
                dst.close()
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
    print(f"{record['poet']}《{record['cipai']}》{record['title']}…, as the 全宋词 prints it, scored by the default critic:\n")
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
        for c in reg.values():
            aliases = f"  ({'、'.join(c.aliases)})" if c.aliases else ""
            print(f"{c.name}\t{len(c.variants)} variants\t{c.variants[0].char_count} chars{aliases}")
        return 0
    c = reg[args.name]
    print(f"{c.name}" + (f"  又名 {'、'.join(c.aliases)}" if c.aliases else ""))
    print(f"source: {c.source}")
    for h in c.homonyms:
        poems = "、".join(f"{p['poet']}「{p['first_line']}」" for p in h.poems)
        print(f"同名异调 (not a variant): {h.name}: {poems}\n  source: {h.source}")
    for v in c.variants:
        print(f"\n[{v.id}] {v.label}  ({v.char_count} 字)")
        print(f"  source: {v.source}")
        if v.example:
            print(f"  example: {v.example.get('poet', '')}「{v.example.get('first_line', '')}」")
        for si, stanza in enumerate(v.stanzas):
            print(f"  {'上阕' if si == 0 else '下阕' if si == 1 else f'第{si + 1}段'}")
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
    print(f"{len(selection.rows)} training rows in {args.out}/train.jsonl (and {args.out}/dataset, {args.out}/summary.json)")
    return 1 if selection.errors else 0


def cmd_report(args: argparse.Namespace) -> int:
    from poetone.report import build_report

    report = build_report(args.logs, args.out, n_boot=args.bootstrap, seed=args.seed)
    for error in report.errors:
        print(f"poetone: skipped {error}", file=sys.stderr)
    runs, calibrations = report.record.get("runs", []), report.record.get("calibration_logs", [])
    print(f"report of {len(runs)} run(s) and {len(calibrations)} judge calibration(s): {args.out}/report.md, report.html, *.csv, *.png")
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
    p.add_argument("--profile", default="default", choices=sorted(PROFILES), help="critic profile (default: %(default)s)")
    p.add_argument("--metadata", help="a cipai file or folder of our schema, or an official PoeTone metadata file")
    p.add_argument("--metadata-format", choices=["poetone-native", "poetone"], help="format of --metadata")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="poetone", description="Songci (宋词) evaluation: the formal-conformity critic, corpus, best-of-N and SFT, reports, human evaluation, BaZi.")
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
    p.add_argument("logs", nargs="+", help="Inspect logs (.eval, .json) and lm-eval samples_*.jsonl, or folders of them")
    p.add_argument("--out", required=True, help="output folder: train.jsonl, dataset/, summary.json")
    p.add_argument("--min-score", type=float, default=0.0, help="drop prompts whose best conformity is below this")
    p.set_defaults(func=cmd_bon)

    p = sub.add_parser("report", help="tables, intervals, paired tests and figures from Inspect logs and lm-eval outputs")
    p.add_argument("logs", nargs="+", help="Inspect logs (.eval, .json), lm-eval output folders or samples_*.jsonl")
    p.add_argument("--out", required=True, help="output folder: report.md, report.html, one CSV per table, PNG figures")
    p.add_argument("--bootstrap", type=int, default=10_000, help="bootstrap resamples (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("probe", help="cipai, theme and human-vs-model classification probes")
    p.add_argument("logs", nargs="*", help="Inspect logs or lm-eval outputs with generated poems (none: canonical only)")
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
    q = csub.add_parser("list", help="the cipai and their variant counts")
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


if __name__ == "__main__":
    sys.exit(main())
