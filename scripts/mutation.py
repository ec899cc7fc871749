"""Mutation testing of one core module with mutmut, outside the checkout.

    python scripts/mutation.py --module critic            # every mutant of critic.py
    python scripts/mutation.py --module critic --sample 120 --seed 0
    python scripts/mutation.py --list                     # the modules and their test files

Why a wrapper: mutmut 3 reads one global ``[tool.mutmut]`` and writes a ``mutants/`` copy where it
runs. A per-module run (one source file, only the fast test files that cover it) is what fits CI's
limits, and running in a temporary copy keeps the checkout exactly as it was. The shared settings
come from ``[tool.mutmut]`` in pyproject.toml; this script adds ``only_mutate`` and the test files
of the module (``MODULES`` below, plus ``tests/test_expectations_<module>.py`` and
``tests/test_boundaries_<module>.py`` when they exist), copies ``src/``,
``tests/`` and pyproject.toml to ``--workdir`` (default: a fresh temporary folder), runs
``mutmut run`` there and prints killed / survived / timeout / no-tests and the surviving mutants
with their diffs. ``--sample N`` tests a random sample of N mutants (seeded) when a module has too
many for the time budget. The score and the equivalent mutants are recorded in docs/mutation.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_BAZI_SLOW = [
    arg
    for test in ("test_lm_eval_metrics_equal_direct_computation", "test_inspect_tasks_and_the_report")
    for arg in ("--deselect", f"tests/test_bazi.py::{test}")
]

#: module -> (source path, fast test files that cover it). New test files named
#: tests/test_expectations_<module>.py or tests/test_boundaries_<module>.py are added automatically.
MODULES: dict[str, tuple[str, list[str]]] = {
    "critic": ("src/poetone/critic.py", ["tests/test_critic.py", "tests/test_properties.py"]),
    "degeneracy": ("src/poetone/degeneracy.py", ["tests/test_degeneracy.py"]),
    "extraction": ("src/poetone/extraction.py", ["tests/test_extraction.py", "tests/test_properties.py"]),
    "prosody": ("src/poetone/prosody/*", ["tests/test_prosody.py"]),
    "metadata": ("src/poetone/metadata.py", ["tests/test_metadata.py", "tests/test_cipai_resource.py"]),
    "songci": ("src/poetone/songci.py", ["tests/test_songci.py"]),
    "judge": ("src/poetone/judge.py", ["tests/test_judge.py"]),
    "reward": ("src/poetone/reward.py", ["tests/test_generate_critic.py"]),
    "bon": (
        "src/poetone/bon.py",
        # the fast select() tests; test_generate_critic's Inspect/lm-eval runs (6 s + 16 s) are left out
        [
            "tests/test_generate_critic.py::test_invalid_and_copied_candidates_never_win",
            "tests/test_degeneracy.py::test_bon_never_picks_a_degenerate_answer",
        ],
    ),
    "stats": ("src/poetone/stats.py", ["tests/test_stats.py"]),
    "logs": ("src/poetone/logs.py", ["tests/test_expectations_logs.py"]),
    # test_bazi.py without its lm-eval and Inspect runs (a 22 s fixture, a 14 s test): they reach
    # parse_answer and the rules too, but would make every surviving mutant's run take about 40 s
    "bazi_parse": ("src/poetone/bazi/parse.py", ["tests/test_bazi.py", *_BAZI_SLOW]),
    "bazi_rules": ("src/poetone/bazi/rules.py", ["tests/test_bazi.py", *_BAZI_SLOW]),
}

_RESULT_LINE = re.compile(r"^\s+(\S+): (\S.*)$")


def test_files(module: str) -> list[str]:
    """The module's listed test files plus its test_expectations_/test_boundaries_ files."""
    listed = MODULES[module][1]
    extra = [f"tests/test_{kind}_{module}.py" for kind in ("expectations", "boundaries")]
    extra = [f for f in extra if (ROOT / f).exists()]
    files = [*listed, *(f for f in extra if f not in listed)]
    if not files:
        raise SystemExit(f"module {module!r}: no test files (add tests/test_expectations_{module}.py)")
    return files


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"[tool.mutmut]: cannot write {value!r}")


def mutmut_section(module: str) -> str:
    """``[tool.mutmut]`` of the run: pyproject's shared settings, this module's files and tests."""
    base = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8")).get("tool", {}).get("mutmut", {})
    settings = dict(base)
    settings["only_mutate"] = [MODULES[module][0]]
    settings["pytest_add_cli_args_test_selection"] = test_files(module)
    return "[tool.mutmut]\n" + "".join(f"{k} = {_toml_value(v)}\n" for k, v in settings.items())


def prepare(workdir: Path, module: str) -> None:
    """Copy src/, tests/ and pyproject.toml (with this run's [tool.mutmut]) into workdir."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("src", "tests"):
        shutil.rmtree(workdir / name, ignore_errors=True)
        shutil.copytree(ROOT / name, workdir / name, ignore=ignore)
    text = (ROOT / "pyproject.toml").read_text("utf-8")
    text = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", text)
    (workdir / "pyproject.toml").write_text(text.rstrip() + "\n\n" + mutmut_section(module), "utf-8")


def _env(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    # the copy's tests look for ../shared beside *it*; point them at the checkout's
    env.setdefault("POETONE_SHARED", str(ROOT.parent / "shared"))
    # subprocesses started by tests import the mutated copy, not the checkout or the editable install
    env["PYTHONPATH"] = str(workdir / "mutants" / "src")
    return env


def _mutmut(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "mutmut", *args]
    done = subprocess.run(cmd, cwd=workdir, env=_env(workdir), text=True, capture_output=True)
    if check and done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"mutmut {' '.join(args)} failed with exit code {done.returncode}")
    return done


def results(workdir: Path) -> dict[str, str]:
    """mutant name -> status (killed, survived, timeout, no tests, not checked, ...)."""
    out = _mutmut(workdir, "results", "--all", "true").stdout
    return {m.group(1): m.group(2).strip() for line in out.splitlines() if (m := _RESULT_LINE.match(line))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--module", choices=sorted(MODULES))
    parser.add_argument("--list", action="store_true", help="print the modules and their test files")
    parser.add_argument("--sample", type=int, default=0, help="test a seeded random sample of N mutants")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-children", type=int, default=1, help="parallel mutants (the machine is shared)")
    parser.add_argument("--workdir", type=Path, help="reuse this folder (mutmut resumes where it stopped)")
    parser.add_argument("--no-diffs", action="store_true", help="do not print the surviving mutants' diffs")
    args = parser.parse_args(argv)
    if args.list:
        for name in MODULES:
            print(f"{name:12} {MODULES[name][0]:32} {' '.join(test_files(name)) if MODULES[name][1] else '-'}")
        return 0
    if not args.module:
        parser.error("--module is required")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix=f"poetone-mutation-{args.module}-"))
    workdir.mkdir(parents=True, exist_ok=True)
    prepare(workdir, args.module)
    start = time.monotonic()
    names: list[str] = []
    if args.sample:
        # generate the mutants and the test map without testing any, then test a sample
        _mutmut(workdir, "run", "--max-children", str(args.max_children), "poetone_no_such_mutant*", check=False)
        every = sorted(results(workdir))
        names = sorted(random.Random(args.seed).sample(every, min(args.sample, len(every))))
        print(f"sampled {len(names)} of {len(every)} mutants (seed {args.seed})")
    done = _mutmut(workdir, "run", "--max-children", str(args.max_children), *names, check=False)
    if "could not find any test case for any mutant" in done.stdout:
        # mutmut 3.8's first run in a fresh folder can miss the tests' calls; the second finds them
        done = _mutmut(workdir, "run", "--max-children", str(args.max_children), *names, check=False)
    elapsed = time.monotonic() - start
    if done.returncode != 0:
        print(f"mutmut run exited with {done.returncode}; its last output:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    status = results(workdir)
    if names:
        status = {k: v for k, v in status.items() if k in set(names)}
    if not status:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit("mutmut produced no results")
    counts = Counter(status.values())
    tested = sum(counts.values()) - counts.get("no tests", 0) - counts.get("not checked", 0)
    killed = counts.get("killed", 0) + counts.get("timeout", 0)
    print(f"module {args.module}: {MODULES[args.module][0]}  tests: {' '.join(test_files(args.module))}")
    print("  " + "  ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    print(f"  score {killed}/{tested} = {100 * killed / max(tested, 1):.1f}% (killed+timeout of tested)")
    print(f"  wall time {elapsed:.0f} s, workdir {workdir}")
    survivors = sorted(k for k, v in status.items() if v not in ("killed", "timeout"))
    for name in survivors:
        print(f"\n--- {status[name]}: {name}")
        if not args.no_diffs and status[name] in ("survived", "no tests"):
            print(_mutmut(workdir, "show", name, check=False).stdout.rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
