"""Issue 13: the page in German for a German browser, in headless Chromium (skips like the other
browser tests where Chromium is missing). The host walks a whole small game -- the round, the
dice-tower card, armies into the tray, a planned attack with its odds, the release, the result and
what to do at the table, the history, the luck report and the game's end -- and at each step no line
of the page may still hold an English word (tests/english_left.py) nor a number written the English
way (2.3 for 2,3), while an English browser still reads English and its numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from english_left import english_in
from test_web_browser import PHONE, PIN, TABLET, browser  # noqa: F401  (browser: the shared fixture)

from controller.table import Table
from controller.web.access import HostAccess
from controller.web.app import create_app
from controller.web.server import BackgroundServer

pytestmark = pytest.mark.browser
GERMAN = {"locale": "de-DE", "extra_http_headers": {"Accept-Language": "de-DE,de;q=0.9"}}
ENGLISH_DECIMAL = re.compile(r"(?<![\d.,])\d+\.\d+(?![\d.])")
"""A decimal point where German writes a comma ("47.4 %"); a version or an address ("0.1.0") is not one."""


@pytest.fixture
def table(tmp_path: Path):  # type: ignore[no-untyped-def]
    t = Table.open(data_dir=tmp_path / "data", reader="direct")
    t.new_session(["red", "blue", "yellow"], emperors_court=True)
    t.release(t.fill()["drop_id"])
    t.clean()
    for player in ("red", "blue", "yellow"):
        t.deploy(player, 10)
    yield t
    t.close()


def _german(page, where: str) -> None:  # type: ignore[no-untyped-def]
    text = page.inner_text("body")
    left = english_in(text) + [line for line in text.splitlines() if ENGLISH_DECIMAL.search(line)]
    assert not left, f"English on the German page ({where}):\n" + "\n".join(left)


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["phone", "tablet"])
def test_a_whole_game_on_the_german_page_shows_no_english(browser, table, viewport) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    access = HostAccess(PIN, key_file=table.data_dir / "host.key")
    with BackgroundServer(create_app(table, table.data_dir, access)) as server:
        context = browser.new_context(viewport=viewport, **GERMAN)
        page = context.new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(server.url)
        expect(page.locator("html")).to_have_attribute("lang", "de")
        expect(page.locator("#live")).to_have_text("verbunden")
        _german(page, "a watcher's page")
        page.click("#host-button")
        page.fill("#pin-input", PIN)
        page.click("#pin-submit")
        expect(page.locator("#host-button")).to_have_text("Gastgeber ✓")
        _german(page, "the host's page")
        for panel, form in (("#round-open", "#round-form"), ("#court-open", "#court-form"),
                            ("#tray-open", "#tray-place-form"), ("#game-open", "#game-form")):
            page.click(panel)
            expect(page.locator(form)).to_be_visible()
            _german(page, f"the host's {form}")
            page.locator("#ledger-body button.secondary", has_text="Abbrechen").click()
        page.click("#round-open")
        page.select_option("select[name=event]", "churches_safe")
        page.select_option("select[name=attack_plus_one]", "blue")
        page.click("#round-submit")
        expect(page.locator("#round-form")).to_have_count(0)
        _german(page, "the round's settings")
        page.click("#new-battle")
        expect(page.locator("#battle-form")).to_be_visible()
        _german(page, "the battle form")
        for kind in ("revolt", "winter_revolt", "attack"):
            page.check(f"input[name=kind][value={kind}]", force=True)
            _german(page, f"the {kind} form")
        page.select_option("select[name=attacker]", "red")
        page.select_option("select[name=defender]", "blue")
        page.fill("input[name=attacking_armies]", "4")
        page.fill("input[name=defending_armies]", "2")
        page.click("#plan-submit")
        expect(page.locator("#release")).to_have_text("Auslösen")
        expect(page.locator("#odds")).to_contain_text("Chancen vor dem Wurf")
        expect(page.locator(".odds-list strong").first).to_have_text(re.compile(r"^\d{1,3},\d %$"))
        expect(page.locator("#odds")).to_contain_text(re.compile(r"Erwartet in der Schale: Rot \d+,\d, Blau \d+,\d"))
        _german(page, "the funnel and the odds")
        page.click("#release")
        expect(page.locator("#outcome, #confirm").first).to_be_visible(timeout=60_000)
        if page.locator("#confirm").count():
            page.click("#confirm")
            expect(page.locator("#outcome")).to_be_visible()
        expect(page.locator("#instructions")).to_be_visible()
        _german(page, "the result")
        page.goto(server.url.rstrip("/") + "/report")
        expect(page.locator("#luck-table")).to_be_visible()
        expect(page.locator("#station-reads")).to_contain_text("ohne zu fragen danach gehandelt")  # the station's own figures
        _german(page, "the luck report")
        assert re.search(r"\d,\d", page.inner_text("#luck-table"))  # its expected cubes: 2,3
        assert page.get_attribute("img.plot", "src").split("?")[0].endswith("-luck-de.png")  # the German plot
        page.goto(server.url)
        page.click("#end-game")
        # the game's end works out its summary before the page shows it: under a loaded 2-core CI it once took over 20 s
        expect(page.locator("#game-end-title")).to_have_text("Das Ende der Partie", timeout=60_000)
        _german(page, "the game's end")
        english = browser.new_page(viewport=viewport)
        english.goto(server.url)
        expect(english.locator("#game-end-title")).to_have_text("The game's end", timeout=60_000)
        assert english_in(english.inner_text("body"))  # the same page still reads English in English
        english.goto(server.url.rstrip("/") + "/report")
        expect(english.locator("#luck-table")).to_be_visible()
        assert re.search(r"\d\.\d", english.inner_text("#luck-table"))  # and its numbers: 2.3
        expect(english.locator("#station-reads")).to_contain_text("acted on without asking")
        assert not re.search(r"\d,\d", english.inner_text("#luck-table"))
        assert english.get_attribute("img.plot", "src").split("?")[0].endswith("-luck.png")
        context.close()


SENTENCES = ("red wins the attack, 3 against 2 in the tray.", "Take 2 blue from the tray back to blue's supply.",
             "Expected in the tray: the peasants 2.3, blue 5.0", "Red", "  drop 3: red attacks blue's county with 3: "
             "A tie: the county is cleared (2 against 2 in the tray).", "event: churches safe; attack +1 tile: blue; "
             "defence +1 tile: nobody; immune: yellow (against both actions)", "battles played: attack 10, revolt 2",
             "Is it 6 or 7 red?", "47.4 %", "simulated, 20,000 drops", "0.144", "+1.5",
             "Tower model: spielbyweb (two-chance: p_new 0.667, p_stuck 0.333)", "conf 0.90: red 4, courtier blue 1",
             "zork 412.345 and 1.5 cubes", "p < 0.05; zork 2.25", "a sentence the catalogue does not know")


def test_the_page_and_the_server_translate_alike(browser, table) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """i18n.js and controller.i18n.translate apply one rule; the same sentences come out the same."""
    from playwright.sync_api import expect

    from controller.i18n import translate

    access = HostAccess(PIN, key_file=table.data_dir / "host.key")
    with BackgroundServer(create_app(table, table.data_dir, access)) as server:
        context = browser.new_context(viewport=PHONE, **GERMAN)
        page = context.new_page()
        page.goto(server.url)
        expect(page.locator("html")).to_have_attribute("lang", "de")
        done = page.evaluate("async (texts) => { const { tr } = await import('/static/i18n.js'); "
                             "return texts.map((t) => tr(t)); }", list(SENTENCES))
        context.close()
    assert done == [translate(s, "de") for s in SENTENCES]
    assert done[0] == "Rot gewinnt den Angriff, 3 gegen 2 in der Schale." and done[-1] == SENTENCES[-1]
    assert done[SENTENCES.index("47.4 %")] == "47,4 %" and done[SENTENCES.index("simulated, 20,000 drops")] == (
        "simuliert, 20.000 Würfe")
    # decimals left in words no msgid matched take the German form too, once (412,345 is no thousand group)
    assert done[SENTENCES.index("zork 412.345 and 1.5 cubes")] == "zork 412,345 und 1,5 Würfel"
    assert done[SENTENCES.index("p < 0.05; zork 2.25")] == "p < 0,05; zork 2,25"


def test_a_german_browser_is_shown_the_photo_captioned_in_german(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """The station writes the annotated photo per language; each browser loads its own and decodes it."""
    from playwright.sync_api import expect
    from test_web_browser import camera_reader_available

    if not camera_reader_available():
        pytest.skip("the simulated camera's counter is not available, so no annotated photo can be made")
    with Table.open(data_dir=tmp_path / "data", reader="camera") as table:
        table.new_session(["red", "blue", "yellow"])
        table.release(table.fill()["drop_id"])
        with BackgroundServer(create_app(table, table.data_dir, HostAccess(PIN))) as server:
            for options, photo in ((GERMAN, "-annotated-de.jpg"), ({}, "-annotated.jpg")):
                context = browser.new_context(viewport=PHONE, **options)
                page = context.new_page()
                page.goto(server.url)
                expect(page.locator("#annotated")).to_have_attribute("src", re.compile(re.escape(photo) + "$"))
                # decode() waits for the image (polling with wait_for_function would need eval, which the CSP forbids)
                assert page.eval_on_selector("#annotated", "i => i.decode().then(() => i.naturalWidth)") > 100
                context.close()
