"""The per-cipai tables of docs/validation.md, generated from the validation benchmark's JSON.

    python benchmarks/validate_critic.py --official --json validation.json
    python benchmarks/validation_tables.py validation.json > tables.md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

OFFICIAL = "poetone-code (official metadata)"


def per_cipai(figures: dict[str, Any], profile: str = "default") -> str:
    auth = figures[profile]["authentic"]["per_cipai"]
    official = figures.get(OFFICIAL, {}).get("authentic", {}).get("per_cipai", {})
    lowered = figures[profile]["reference"]["lowered_per_cipai"]
    chance = figures.get("chance_level", {}).get("per_cipai", {})
    kinds = ("tone_flip", "rhyme_break", "char_drop", "line_drop")
    out = [
        "| cipai | n | mean | ≥ 0.9 | official | chance | " + " | ".join(kinds) + " |",
        "|---|---|---|---|---|---|" + "---|" * len(kinds),
    ]
    for name, a in auth.items():
        low = lowered.get(name, {})
        off = official.get(name, {}).get("mean")
        cells = [
            name,
            str(a["n"]),
            f"{a['mean']:.3f}",
            f"{a['share_at_threshold']:.1%}",
            f"{off:.3f}" if off is not None else "–",
            f"{chance[name]:.3f}" if name in chance else "–",
            *(f"{low[k]:.2f}" if k in low else "–" for k in kinds),
        ]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def coverage(figures: dict[str, Any]) -> str:
    out = [
        "| cipai | poems | coverage | complete | coverage of complete | set apart | uncovered |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, c in figures["coverage"].items():
        apart = ", ".join(f"{len(v)} {k.replace('_', ' ')}" for k, v in c["apart"].items() if v) or "–"
        out.append(
            f"| {name} | {c['n']} | {c['coverage']:.3f} | {c['n_complete']} | **{c['coverage_complete']:.3f}** | {apart} | {len(c['uncovered'])} |"
        )
    return "\n".join(out)


def main() -> None:
    figures = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))["figures"]
    print("### Structural coverage\n\n" + coverage(figures) + "\n\n## Per cipai\n\n" + per_cipai(figures))


if __name__ == "__main__":
    main()
