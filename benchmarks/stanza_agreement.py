"""How the build's stanza rule (scripts/build_cipu.py ``stanza_splits``) does, measured.

    PYTHONPATH=src python3 benchmarks/stanza_agreement.py [--list] [--tunes 茶瓶儿 雨中花慢 …] [--build OLD.py]

``--build`` measures another version of the script (``git show REV:scripts/build_cipu.py > OLD.py``):
the before/after of a change to the rule.

1. Agreement with the 20 hand-curated cipai: every 词谱 form of a curated tune (couyun's
   ``cipu_all.json``) is converted as the build converts it; where curated variants of several
   stanzas have its length in characters, the build's stanza sizes are compared with theirs.
   Printed: forms split as a curated variant is (agree), split otherwise (listed), left one stanza.
2. The generated forms (every other tune, built in memory as the build does): forms split and
   left one stanza, and the two-stanza forms whose halves are in a size ratio (shorter/longer)
   below 0.7 (listed), against the curated files' smallest ratio.
3. The breaks of the tunes named with ``--tunes``: each form's stanza sizes and the last clause
   of every stanza but the last, read in the example poem.

Reads ../shared (couyun's transcription): a benchmark, never part of the build.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "reference" / "couyun-cipu" / "cipu_all.json"
BUILD = ROOT / "scripts" / "build_cipu.py"


def load_build(path: Path = BUILD):
    spec = importlib.util.spec_from_file_location("build_cipu", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_cipu"] = module
    spec.loader.exec_module(module)
    module.CURATED = ROOT / "src" / "poetone" / "cipai"  # a copy elsewhere still reads this tree's curated files
    return module


build_cipu = load_build()

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003ffff]")


def lengths(stanzas: list[list[str]]) -> list[list[int]]:
    return [[len(re.sub("[^平仄中]", "", s.split(" ")[0])) for s in st] for st in stanzas]


def sizes(stanzas: list[list[str]]) -> list[int]:
    return [sum(st) for st in lengths(stanzas)]


def cuts(stanzas: list[list[str]]) -> list[int]:
    return list(itertools.accumulate(len(st) for st in stanzas))[:-1]


def forms_of(entry: dict) -> list[tuple[str, int, dict]]:
    return [(src, i, f) for src in ("qinding", "longyusheng") for i, f in enumerate(entry.get(src, []))]


def convert(name: str, entry: dict, src: str, i: int, form: dict) -> tuple[list[list[str]], int] | None:
    kind, chars, _ = entry["type"]
    try:
        n = build_cipu.stanzas_of(kind, chars, form)
        lines, _inferred = build_cipu.convert_form(form, n, f"{name} {src}[{i}]")
    except build_cipu.FormError:
        return None
    return lines, n


def breaks_in_poem(form: dict, lines: list[list[str]]) -> str:
    """The example poem with ‖ where the stanzas break."""
    chars = [c for c in form["origin"] if _HAN.match(c)]
    at = set(itertools.accumulate(sizes(lines)))
    out, k = [], 0
    for c in form["origin"]:
        out.append(c)
        if _HAN.match(c):
            k += 1
            if k in at and k < len(chars):
                out.append("‖")
    return "".join(out)


def agreement(source: dict) -> tuple[int, int, int, list[str]]:
    """Forms of the curated tunes split as the curated file splits them, split otherwise, left whole.

    A 词谱 form is compared with the curated variants of its length (in characters): it agrees when
    one of them has its stanza sizes.
    """
    curated = {}
    for f in sorted(build_cipu.CURATED.glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        curated[data["name"]] = data
    agree = disagree = unsplit = 0
    wrong = []
    for name, data in curated.items():
        if name not in source:
            continue
        for src, i, form in forms_of(source[name]):
            got = convert(name, source[name], src, i, form)
            if got is None:
                continue
            lines, n = got
            total = sum(sizes(lines))
            same = [v for v in data["variants"] if len(v["stanzas"]) >= 2 and sum(sizes(v["stanzas"])) == total]
            if not same or n < 2:
                continue
            if len(lines) == 1:
                unsplit += 1
            elif any(sizes(lines) == sizes(v["stanzas"]) for v in same):
                agree += 1
            else:
                disagree += 1
                wrong.append(f"{name} {src}[{i}]: built {sizes(lines)}, curated {[sizes(v['stanzas']) for v in same]}")
    return agree, disagree, unsplit, wrong


def generated(source: dict) -> tuple[int, int, list[str], float]:
    curated = build_cipu.curated_names()
    split = one = 0
    uneven = []
    for name in sorted(source, key=lambda n: (source[n]["index"], n)):
        entry = source[name]
        if any(k in curated for k in (name, *entry.get("aliases", []))):
            continue
        for src, i, form in forms_of(entry):
            got = convert(name, entry, src, i, form)
            if got is None:
                continue
            lines, n = got
            if n < 2:
                continue
            if len(lines) == 1:
                one += 1
                continue
            split += 1
            s = sizes(lines)
            if len(s) == 2 and min(s) / max(s) < 0.7:
                uneven.append(f"{name} {src}[{i}]: {s}")
    low = 1.0
    for f in sorted(build_cipu.CURATED.glob("*.json")):
        for v in json.loads(f.read_text(encoding="utf-8"))["variants"]:
            s = sizes(v["stanzas"])
            if len(s) == 2:
                low = min(low, min(s) / max(s))
    return split, one, uneven, low


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=SOURCE)
    ap.add_argument("--tunes", nargs="*", default=[])
    ap.add_argument("--list", action="store_true", help="list the uneven splits")
    ap.add_argument("--build", type=Path, default=BUILD, help="another version of build_cipu.py (before/after)")
    args = ap.parse_args(argv)
    global build_cipu
    if args.build != BUILD:
        build_cipu = load_build(args.build)
    if not args.source.exists():
        print(f"error: {args.source} does not exist (needs ../shared)", file=sys.stderr)
        return 2
    source = json.loads(args.source.read_text(encoding="utf-8"))
    agree, disagree, unsplit, wrong = agreement(source)
    print(
        f"curated cipai: {agree} of {agree + disagree} split forms agree with the curated file; {unsplit} left one stanza"
    )
    for w in wrong:
        print(f"  differs: {w}")
    split, one, uneven, low = generated(source)
    print(f"generated multi-stanza tunes' forms: {split} split, {one} one stanza")
    print(f"two-stanza splits with size ratio < 0.7: {len(uneven)} (curated files' lowest ratio {low:.2f})")
    if args.list:
        for u in uneven:
            print(f"  {u}")
    for name in args.tunes:
        entry = source[name]
        for src, i, form in forms_of(entry):
            got = convert(name, entry, src, i, form)
            if got is None:
                print(f"{name} {src}[{i}]: left out")
                continue
            lines, _ = got
            print(f"{name} {src}[{i}]: {sizes(lines)} {breaks_in_poem(form, lines)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
