"""Build the long-tail track's tune list (src/poetone/data/longtail.json) from the 全宋词 and the 词谱.

The rule, deterministic: rank every tune of the resource by how many poems the dev 全宋词 prints
under its name or an alias (失调名 aside; ties by name; a title resolves as the registry resolves it: a name, an
alias or a 全宋词 spelling), and take every tune ranked 1–400 that is not
one of the benchmark's 20 cipai, in five frequency bands (1–20: the frequent tunes the benchmark
lacks, 鹧鸪天, 贺新郎, 沁园春…; then 21–50, 51–100, 101–200, 201–400). Each tune gets one zero-shot
prompt, on the theme its rank picks in turn, and the 词谱's example poem of its 正体 (couyun's
transcription of the 钦定词谱, MIT; see src/poetone/cipai_generated/NOTICE) as the reference
answer `poetone/reference` gives offline.

    python scripts/build_longtail.py            # needs ../shared; rewrites the file byte for byte
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path

from poetone import Critic, corpus
from poetone.validation import load_corpus

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("POETONE_SHARED", ROOT.parent / "shared"))
QSC = SHARED / "data/quan-song-ci/quan_song_ci.dev.json"
CIPU = SHARED / "reference/couyun-cipu/cipu_all.json"
OUT = ROOT / "src/poetone/data/longtail.json"
BANDS = ((1, 20), (21, 50), (51, 100), (101, 200), (201, 400))


def main() -> None:
    if not QSC.exists() or not CIPU.exists():
        sys.exit(f"needs {QSC} and {CIPU} (../shared beside the project)")
    registry = Critic().registry
    counts: Counter[str] = Counter()
    for rec in load_corpus(QSC):
        title = str(rec.get("rhythmic", "")).split("・")[0].strip()
        if title and title != "失调名" and title in registry:
            counts[registry.resolve(title)] += 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    cipu = json.loads(CIPU.read_text(encoding="utf-8"))
    tunes = []
    for rank, (name, poems) in enumerate(ranked, start=1):
        band = next((f"{lo}-{hi}" for lo, hi in BANDS if lo <= rank <= hi), None)
        if band is None or name in corpus.SLUGS:
            continue
        entry = cipu.get(name)
        forms = (entry or {}).get("qinding") or (entry or {}).get("longyusheng") or []
        example = forms[0].get("origin", "") if forms else ""
        theme = list(corpus.THEMES)[rank % len(corpus.THEMES)]
        tunes.append({"cipai": name, "rank": rank, "poems": poems, "band": band, "theme": theme, "example": example})
    data = {
        "rule": "tunes ranked 1-400 by their poems in the dev 全宋词 (失调名 aside, ties by name), the benchmark's 20 left out",
        "bands": [f"{lo}-{hi}" for lo, hi in BANDS],
        "source": "ranks: the 全宋词 (chinese-poetry, dev two thirds); examples: 钦定词谱 正体 (couyun transcription, MIT)",
        "tunes": tunes,
    }
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    by_band = Counter(t["band"] for t in tunes)
    print(f"{len(tunes)} tunes: " + ", ".join(f"{b} {by_band[b]}" for b in data["bands"]) + f" -> {OUT}")


if __name__ == "__main__":
    main()
