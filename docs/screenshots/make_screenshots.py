"""Take the README's screenshots of the battle page: a phone (390x844) and a tablet (820x1180).

Plays a short session on the simulated station (initial fill, then Red attacks Blue, then the
game's end) with the real ``Table`` and the real web app, and photographs the page in Debian's
headless Chromium, in English and in German (the browser's language): the plan, the result and the
game's end on both devices (``battle-<device>-<step>.png``, ``...-de.png`` in German)::

    .venv/bin/python docs/screenshots/make_screenshots.py [OUTPUT_DIR]
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from controller.table import Table
from controller.web.access import HostAccess
from controller.web.app import create_app
from controller.web.server import BackgroundServer

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PIN = "246810"


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for lang in ("en", "de"):
        shoot(out, lang)
    for name in sorted(p.name for p in out.glob("battle-*.png")):
        print(out / name)


def shoot(out: Path, lang: str) -> None:
    suffix = "" if lang == "en" else f"-{lang}"
    browser_language = {"en": "en-GB,en;q=0.9", "de": "de-DE,de;q=0.9"}[lang]
    with tempfile.TemporaryDirectory() as tmp:
        needed = ("vision.counter", "vision.annotate", "vision.settle", "simulation.synthetic_profile")
        camera = all(importlib.util.find_spec(name) is not None for name in needed)
        table = Table.open(data_dir=Path(tmp) / "data", reader="camera" if camera else "direct")
        table.new_session(["red", "blue", "yellow", "purple"], emperors_court=True)
        table.set_round(event="palace_defender_plus_one", bonus_tiles={"attack_plus_one": "red"})
        fill = table.plan({"battle": "initial_fill"})
        if table.release(fill["drop_id"])["needs_confirmation"]:
            table.correct(fill["drop_id"], table.station.world.tray_contents(), "host")
        table.deploy("red", 5)
        table.deploy("blue", 3)
        table.plan({"battle": "attack", "attacker": "red", "attacking_armies": 5, "defender": "blue",
                    "defending_armies": 3, "buildings": ["church"]})
        app = create_app(table, table.data_dir, HostAccess(PIN))
        with BackgroundServer(app) as server, sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            language = {"locale": browser_language.split(",")[0],
                        "extra_http_headers": {"Accept-Language": browser_language}}
            phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1.5, **language)
            tablet = browser.new_context(viewport={"width": 820, "height": 1180}, device_scale_factor=1, **language)
            host = phone.new_page()
            host.on("dialog", lambda dialog: dialog.accept())
            host.goto(server.url)
            host.click("#host-button")
            host.fill("#pin-input", PIN)
            host.click("#pin-submit")
            expect(host.locator("#release")).to_be_visible()
            host.evaluate("document.getElementById('toast').hidden = true; window.scrollTo(0, 0)")
            host.wait_for_timeout(400)
            host.screenshot(path=str(out / f"battle-phone-plan{suffix}.png"))
            watcher = tablet.new_page()
            watcher.goto(server.url)
            expect(watcher.locator("#live")).to_have_attribute("data-state", "live")
            expect(watcher.locator(".swatches.big .swatch").first).to_be_visible()
            watcher.wait_for_timeout(400)
            watcher.screenshot(path=str(out / f"battle-tablet-plan{suffix}.png"))
            host.click("#release")
            expect(host.locator("#outcome, #confirm").first).to_be_visible(timeout=60_000)
            if host.locator("#confirm").count():  # the station doubts its reading: the host checks it
                # (the question page has its own pictures: make_question_screenshot.py)
                reading = table.status()["drop"]["reading"]["cubes"]
                if reading == table.station.world.tray_contents():
                    host.click("#confirm")
                else:
                    host.click("#correct")
                    for colour, n in table.station.world.tray_contents().items():
                        host.fill(f"#correction-form input[name={colour}]", str(n))
                    host.click("#correction-submit")
            expect(host.locator("#outcome")).to_be_visible(timeout=60_000)
            expect(watcher.locator("#outcome")).to_be_visible(timeout=10_000)
            for page in (host, watcher):
                page.wait_for_load_state("networkidle")
                page.wait_for_timeout(400)
                page.evaluate("document.getElementById('toast').hidden = true; window.scrollTo(0, 0)")
            host.screenshot(path=str(out / f"battle-phone-result{suffix}.png"))
            watcher.screenshot(path=str(out / f"battle-tablet-result{suffix}.png"))
            host.evaluate("window.scrollTo(0, document.getElementById('ledger').offsetTop)")
            host.click("#end-game")
            for page in (host, watcher):
                expect(page.locator("#game-end")).to_be_visible(timeout=20_000)
                page.wait_for_timeout(400)
                page.evaluate("document.getElementById('toast').hidden = true; window.scrollTo(0, 0)")
            host.screenshot(path=str(out / f"battle-phone-end{suffix}.png"))
            watcher.screenshot(path=str(out / f"battle-tablet-end{suffix}.png"))
            browser.close()
        table.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
