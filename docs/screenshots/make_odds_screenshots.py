"""Take the screenshots of the odds on the plan step (phone) and of the luck report (phone, tablet).

Plays a seeded game of 16 battles on the simulated station (direct tray reading, so it is quick),
plans one more (Red attacks Blue) and photographs the page in Debian's headless Chromium, in English
and in German (the browser's language: ``...-de.png``, the report's plots drawn in German)::

    .venv/bin/python docs/screenshots/make_odds_screenshots.py [OUTPUT_DIR]
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import expect, sync_playwright

from controller.table import Table
from controller.web.access import HostAccess
from controller.web.app import create_app
from controller.web.server import BackgroundServer

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PLAYERS = ["red", "blue", "yellow", "purple"]


def play(table: Table, battles: int, seed: int) -> None:
    rng = random.Random(seed)
    table.new_session(PLAYERS)
    table.release(table.fill()["drop_id"])
    for player in PLAYERS:
        table.deploy(player, 40)
    for _ in range(battles):
        attacker, defender = rng.sample(PLAYERS, 2)
        battle = {"battle": "attack", "attacker": attacker, "attacking_armies": rng.randint(2, 7),
                  "defender": defender, "defending_armies": rng.randint(1, 5)}
        if rng.random() < 0.2:
            battle = {"battle": "revolt", "defender": defender, "defending_armies": rng.randint(1, 4),
                      "revolt_markers": rng.randint(1, 3)}
        table.release(table.plan(battle)["drop_id"])
        table.clean()


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        table = Table.open(data_dir=Path(tmp) / "data", reader="direct")
        play(table, 16, seed=4)
        table.plan({"battle": "attack", "attacker": "red", "attacking_armies": 5, "defender": "blue",
                    "defending_armies": 3})
        app = create_app(table, table.data_dir, HostAccess("246810"))
        with BackgroundServer(app) as server, sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for lang, browser_language in (("en", "en-GB,en;q=0.9"), ("de", "de-DE,de;q=0.9")):
                shoot(browser, server.url, out, "" if lang == "en" else f"-{lang}", browser_language)
            browser.close()
        table.close()
    for name in sorted(p.name for p in out.glob("*.png") if p.name.startswith(("odds-", "luck-report-"))):
        print(out / name)


def shoot(browser: Any, url: str, out: Path, suffix: str, browser_language: str) -> None:
    """The odds on the phone and the report on a phone and a tablet, for a browser of this language."""
    language = {"locale": browser_language.split(",")[0], "extra_http_headers": {"Accept-Language": browser_language}}
    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, **language)
    tablet = browser.new_context(viewport={"width": 820, "height": 1180}, device_scale_factor=1, **language)
    page = phone.new_page()
    page.goto(url)
    expect(page.locator("#odds")).to_be_visible()
    page.wait_for_timeout(300)
    page.locator("#battle").screenshot(path=str(out / f"odds-phone-plan{suffix}.png"))
    for context, name in ((phone, "luck-report-phone"), (tablet, "luck-report-tablet")):
        report = context.new_page()
        report.goto(url + "/report")
        expect(report.locator("#luck-table")).to_be_visible(timeout=60_000)
        report.wait_for_load_state("networkidle")
        report.wait_for_timeout(300)
        report.screenshot(path=str(out / f"{name}{suffix}.png"), full_page=True)
    phone.close()
    tablet.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
