"""Screenshots of the human-evaluation app for docs/human-eval.md: start page, stage 1, stage 2.

Builds a two-pair study in a temporary database (two 浣溪沙 written for this script against the
corpus poems of the same themes), serves it on a free loopback port and drives Debian's Chromium
with Playwright through one pair. Needs ``poetone[human-eval]``, ``playwright`` (Python package
only; no ``playwright install``), ``chromium`` and, for the Chinese glyphs, ``fonts-noto-cjk``:

    python scripts/human_eval_screenshots.py [--out docs/images] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from poetone import Critic
from poetone.human_eval.app import create_app, serve_in_thread
from poetone.human_eval.db import Database
from poetone.human_eval.pairs import build_pairs
from poetone.logs import Candidate

#: Two 浣溪沙 written for the screenshots (formally correct: conformity 1.0).
POEMS = {
    "huanxisha-love_longing": "小院风轻柳絮飞。画楼人去燕双归。夕阳无语下斜晖。\n旧梦难寻春已老，新愁又上翠眉低。一帘疏雨湿罗衣。",
    "huanxisha-nature_landscape": "细雨轻风过小桥。柳丝新绿映溪遥。山村处处听歌谣。\n牧笛一声归晚照，渔舟几点系春潮。人间清景自逍遥。",
}


def candidates() -> list[Candidate]:
    critic = Critic()
    out = []
    for slot, poem in POEMS.items():
        r = critic.score("浣溪沙", poem)
        candidate = Candidate(
            source="screenshots", framework="inspect", model="example/model", prompt_id=f"zero_shot-{slot}",
            strategy="zero_shot", cipai="浣溪沙", theme=slot.split("-", 1)[1], epoch=1, system="", user="",
            answer=poem, poem=poem, valid=r.valid, copied=False, conformity=r.conformity,
            structure=r.structure, tonal=r.tonal, rhyme=r.rhyme,
        )  # fmt: skip
        out.append(candidate)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs" / "images"), help="output folder")
    ap.add_argument("--chromium", default="/usr/bin/chromium", help="the Chromium executable (default: %(default)s)")
    args = ap.parse_args(argv)
    from playwright.sync_api import expect, sync_playwright

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(Path(tmp) / "study.sqlite")
        db.setup(build_pairs(candidates()).pairs, seed=0)
        with serve_in_thread(create_app(db)) as base, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"], headless=True)
            try:
                page = browser.new_page(viewport={"width": 1200, "height": 860}, locale="zh-CN")
                page.goto(base + "/")
                page.fill("#annotator", "示例评审")
                page.screenshot(path=str(out / "human-eval-start.png"), full_page=True)
                page.click("#begin")
                expect(page.locator('[data-stage="1"]')).to_have_count(1)
                page.check('input[name="choice"][value="right"]')
                page.check('input[name="confidence"][value="3"]')
                page.screenshot(path=str(out / "human-eval-stage1.png"), full_page=True)
                page.click("#submit-stage1")
                expect(page.locator('[data-stage="2"]')).to_have_count(1)
                for field, value in (("faithfulness", "4"), ("artistry", "3"), ("overall", "3")):
                    page.check(f'input[name="{field}"][value="{value}"]')
                page.screenshot(path=str(out / "human-eval-stage2.png"), full_page=True)
            finally:
                browser.close()
    for name in ("start", "stage1", "stage2"):
        print(out / f"human-eval-{name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
