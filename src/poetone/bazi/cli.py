"""``poetone bazi``: write the rule-verified item set, report on BaZi runs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from poetone.bazi.rules import ZI_HOURS


def cmd_items(args: argparse.Namespace) -> int:
    import json

    from poetone.bazi.data import write_jsonl
    from poetone.bazi.verified import generate_items

    items = generate_items(n=args.n, seed=args.seed, category=args.category, zi_hour=args.zi_hour)
    if args.out == "-":
        sys.stdout.writelines(json.dumps(item, ensure_ascii=False) + "\n" for item in items)
    else:
        count = write_jsonl(items, args.out)
        print(
            f"{count} items ({args.n} per category, seed {args.seed}, 子时 {args.zi_hour}) in {args.out}",
            file=sys.stderr,
        )
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from poetone.bazi.report import build_report, read_answers, render_markdown, write_report

    answers, errors = read_answers(args.logs)
    for error in errors:
        print(f"poetone: skipped {error}", file=sys.stderr)
    if not answers:
        print("poetone: no BaZi answers found in " + ", ".join(args.logs), file=sys.stderr)
        return 1
    report = build_report(answers)
    if args.out:
        written = write_report(report, answers, args.out)
        print("wrote " + ", ".join(str(p) for p in written), file=sys.stderr)
    sys.stdout.write(render_markdown(report))
    return 1 if errors else 0


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``poetone bazi`` on an ``add_subparsers()`` object."""
    p = sub.add_parser("bazi", help="BaZi multiple choice: the rule-verified item set, reports", description=__doc__)
    bsub = p.add_subparsers(dest="bazi_command", required=True)
    q = bsub.add_parser("items", help="write the rule-verified item set as JSONL")
    q.add_argument("--out", required=True, help="output JSONL file (- for stdout)")
    q.add_argument("--n", type=int, default=50, help="items per category (default: %(default)s)")
    q.add_argument("--seed", type=int, default=0, help="seed (default: %(default)s)")
    q.add_argument("--category", help="categories to write, comma-separated (default: all six)")
    q.add_argument(
        "--zi-hour",
        choices=ZI_HOURS,
        default="next_day",
        help="子时 convention of chart questions (default: %(default)s)",
    )
    q.set_defaults(func=cmd_items)
    q = bsub.add_parser("report", help="accuracy per category, Theory−Case gap, McNemar tests, from logs")
    q.add_argument(
        "logs", nargs="+", help="Inspect logs (.eval, .json), lm-eval samples_bazi*.jsonl, or folders of them"
    )
    q.add_argument("--out", help="also write report.md, report.json and answers.jsonl to this folder")
    q.set_defaults(func=cmd_report)
    return p
