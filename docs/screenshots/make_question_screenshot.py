"""Take the screenshot of the battle page asking the host "Is it 6 or 7 red?", the patch circled.

A simulated station plays a session (initial fill, then Red attacks Blue) with the real ``Table``,
camera, counter, annotation and web app. Today's counter reads the simulated tray right and names
no alternatives, so for this one drop a wrapper around it plays a hesitating counter: it keeps the
counter's reading, marks one red patch as the doubt and says "red 6 (62 %) or 7 (38 %)". Everything
after that is the station's own: the beam (a clump could hide the 7th cube) and the ledger do not
settle it, so the page asks. A seed is chosen whose drop leaves exactly 6 red in the tray. The same
question is photographed once more on a German phone (``battle-phone-question-de.png``)::

    .venv/bin/python docs/screenshots/make_question_screenshot.py [OUTPUT_DIR]
"""

from __future__ import annotations

import dataclasses
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
PIN = "246810"
ATTACK = {"battle": "attack", "attacker": "red", "attacking_armies": 9, "defender": "blue", "defending_armies": 4}


class HesitatingCounter:
    """The real counter, made to doubt one red patch on the next frame it counts (once armed)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.armed = False

    def count(self, frame: Any) -> Any:
        reading = self.inner.count(frame)
        if not self.armed or not reading.usable:
            return reading
        self.armed = False
        red = [d for d in reading.detections if d.kind == "cube" and d.colour == "red"]
        doubted = max(red, key=lambda d: float(d.outline[:, 0].mean()))  # the right-most red patch
        detections = [dataclasses.replace(d, doubt=True) if d is doubted else d for d in reading.detections]
        n = reading.cubes["red"]
        return dataclasses.replace(reading, detections=detections, trusted=False, confidence=0.62,
                                   alternatives={"red": [(n, 0.62), (n + 1, 0.38)]})


def _play(data: Path, seed: int, reader: str) -> Table:
    from hardware.config import load_config

    cfg = load_config(None).replace(station={"data_dir": str(data)}, sim={"seed": seed})
    table = Table.open(config=cfg, reader=reader)
    table.new_session(["red", "blue", "yellow"])
    fill = table.plan({"battle": "initial_fill"})
    if table.release(fill["drop_id"])["needs_confirmation"]:
        table.correct(fill["drop_id"], table.station.world.tray_contents(), "host")
    table.deploy("red", 9)
    table.deploy("blue", 4)
    table.plan(ATTACK)
    return table


def _seed_with_six_red(tmp: Path) -> int:
    """A world whose attack leaves 6 red in the tray (found quickly with the direct reader)."""
    for seed in range(1, 200):
        table = _play(tmp / f"probe-{seed}", seed, "direct")
        try:
            table.release(table.status()["drop"]["drop_id"])
            if table.station.world.tray_contents().get("red") == 6:
                return seed
        finally:
            table.close()
    raise SystemExit("no seed below 200 leaves 6 red in the tray")


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        seed = _seed_with_six_red(Path(tmp))
        table = _play(Path(tmp) / "data", seed, "camera")
        counter = HesitatingCounter(table.cycle.reader.counter)
        table.cycle.reader._counter = counter
        app = create_app(table, table.data_dir, HostAccess(PIN))
        with BackgroundServer(app) as server, sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
            host = phone.new_page()
            host.goto(server.url)
            host.click("#host-button")
            host.fill("#pin-input", PIN)
            host.click("#pin-submit")
            expect(host.locator("#release")).to_be_visible()
            counter.armed = True
            host.click("#release")
            expect(host.locator("#question-text")).to_have_text("Is it 6 or 7 red?", timeout=60_000)
            host.wait_for_load_state("networkidle")
            host.evaluate("document.getElementById('toast').hidden = true;"
                          "window.scrollTo(0, document.getElementById('question').getBoundingClientRect().top"
                          " + window.scrollY - 76)")
            host.wait_for_timeout(400)
            host.screenshot(path=str(out / "battle-phone-question.png"))
            _shoot_german(browser, server.url, out / "battle-phone-question-de.png")
            host.click("#answer-red-6")
            expect(host.locator("#outcome")).to_be_visible(timeout=60_000)
            browser.close()
        print(f"seed {seed}: the host answered 6 red; tray after: {table.status()['drop']['tray_after']}")
        table.close()
    print(out / "battle-phone-question.png")
    print(out / "battle-phone-question-de.png")


def _shoot_german(browser: Any, url: str, path: Path) -> None:
    """The host's question on a second phone whose browser asks for German."""
    german = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, locale="de-DE",
                                 extra_http_headers={"Accept-Language": "de-DE,de;q=0.9"})
    page = german.new_page()
    page.goto(url)
    page.click("#host-button")
    page.fill("#pin-input", PIN)
    page.click("#pin-submit")
    expect(page.locator("#question-text")).to_have_text("Sind es 6 oder 7 Rot?", timeout=60_000)
    page.wait_for_load_state("networkidle")
    page.evaluate("document.getElementById('toast').hidden = true;"
                  "window.scrollTo(0, document.getElementById('question').getBoundingClientRect().top"
                  " + window.scrollY - 76)")
    page.wait_for_timeout(400)
    page.screenshot(path=str(path))
    german.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
