"""Issue 13 on the page, in headless Chromium (skips like the other browser tests where Chromium is
missing): the host's word on the tray across a court conversion, the corrected reading in the
history, a server restart (offline, nothing released, reconnected, still the host), the phone
layout, the undo and the game's end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_web_browser import PHONE, PIN, TABLET, browser, log_in  # noqa: F401  (browser: the shared fixture)

from controller.table import Table
from controller.web.access import HostAccess
from controller.web.app import create_app
from controller.web.server import BackgroundServer

pytestmark = pytest.mark.browser


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


def _serve(table: Table, port: int | None = None) -> BackgroundServer:
    access = HostAccess(PIN, key_file=table.data_dir / "host.key")
    return BackgroundServer(create_app(table, table.data_dir, access), port=port)


def _page(chromium, server: BackgroundServer, viewport: dict[str, int] = PHONE):  # type: ignore[no-untyped-def]
    page = chromium.new_page(viewport=viewport)
    page.on("dialog", lambda dialog: dialog.accept())  # the host's "are you sure?" questions
    page.goto(server.url)
    return page


def _plan_attack(page) -> None:  # type: ignore[no-untyped-def]
    page.click("#new-battle")
    page.select_option("select[name=attacker]", "red")
    page.fill("input[name=attacking_armies]", "2")
    page.click("#plan-submit")


def _no_code_words(page) -> None:  # type: ignore[no-untyped-def]
    """The page shows words: never a JavaScript or Python value (null, undefined, None, {'...)."""
    text = page.inner_text("body")
    for word in ("null", "undefined", "NaN", "[object", "None", "{'", "$."):
        assert not re.search(rf"(^|\W){re.escape(word)}(\W|$)", text), f"{word!r} on the page:\n{text}"


def _in_view(page, selector: str) -> bool:  # type: ignore[no-untyped-def]
    return bool(page.eval_on_selector(selector, "e => { const r = e.getBoundingClientRect(); "
                                                 "return r.top >= 0 && r.bottom <= window.innerHeight; }"))


def test_the_hosts_word_survives_a_court_conversion_and_history_shows_the_correction(browser, table) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    table.set_tray({"red": 3, "green": 1}, "anna")
    assert table.court_convert("red", 1)["performed"]
    with _serve(table) as server:
        page = _page(browser, server)
        log_in(page)
        _plan_attack(page)  # planned on the host's word: no "the tray does not hold" refusal
        expect(page.locator("#release")).to_be_visible()
        expect(page.locator("#toast")).to_be_hidden()
        page.click("#release")
        expect(page.locator("#outcome, #confirm").first).to_be_visible(timeout=60_000)
        drop = table.status()["drop"]
        read = drop["reading"]["cubes"]
        corrected = {**read, "yellow": read.get("yellow", 0) + 1}
        table.correct(drop["drop_id"], corrected, "anna")
        page.reload()
        first = page.locator(f"#history-list li[data-drop='{drop['drop_id']}'] .meta")
        expect(first).to_contain_text(f"{corrected['yellow']} yellow")


def test_a_restart_says_offline_nothing_released_and_keeps_the_host(browser, table) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    server = _serve(table).start()
    port = server.port
    page = _page(browser, server)
    expect(page.locator("#live")).to_have_text("connected")
    log_in(page)
    _plan_attack(page)
    expect(page.locator("#release")).to_be_visible()
    server.stop()
    page.click("#release")
    expect(page.locator("#toast")).to_contain_text("Offline, nothing was released")
    expect(page.locator("#live")).to_have_text(re.compile("offline"))
    expect(page.locator("#progress")).to_have_count(0)
    assert table.status()["drop"]["phase"] == "planned"  # the station never heard the tap
    with _serve(table, port=port):  # the server comes back on the same address, with a new process
        expect(page.locator("#live")).to_have_text("connected", timeout=30_000)
        expect(page.locator("#host-button")).to_have_text("Host ✓")  # still the host
        page.click("#release")
        expect(page.locator("#outcome, #confirm").first).to_be_visible(timeout=60_000)


def test_the_phone_layout_after_login_and_plan(browser, table) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    with _serve(table) as server:
        page = _page(browser, server)
        log_in(page)
        expect(page.locator("#new-battle")).to_be_visible()
        assert _in_view(page, "#new-battle"), "New battle is below the fold after logging in"
        toast = page.locator("#toast").bounding_box()
        button = page.locator("#new-battle").bounding_box()
        assert toast is None or button is None or toast["y"] + toast["height"] <= button["y"] or \
            button["y"] + button["height"] <= toast["y"], "the toast covers New battle"
        _plan_attack(page)
        expect(page.locator("#release")).to_be_visible()
        top = page.eval_on_selector("#battle", "e => e.getBoundingClientRect().top")
        assert -1 <= top <= PHONE["height"] / 2, "the page stays scrolled past the funnel"
        _no_code_words(page)
        expect(page.locator("#live")).to_be_visible()
        assert page.eval_on_selector("#live", "e => parseFloat(getComputedStyle(e).fontSize)") >= 10


def test_undo_and_the_games_end_on_the_page(browser, table) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    table.set_round("churches_safe", {}, {})
    with _serve(table) as server:
        host = _page(browser, server)
        watcher = _page(browser, server, TABLET)
        log_in(host)
        expect(host.locator("#undo-what")).to_contain_text("the round's settings")
        host.click("#undo")
        expect(host.locator("#toast")).to_contain_text("Undone: the round's settings")
        assert table.status()["round"]["event"] is None
        assert table.log()[-1]["kind"] == "undo"
        table.release(table.plan({"battle": "attack", "attacker": "red", "attacking_armies": 2, "defender": None,
                                  "defending_armies": 0})["drop_id"])
        host.reload()
        host.click("#end-game")
        for page in (host, watcher):
            expect(page.locator("#game-end-title")).to_have_text("The game's end", timeout=20_000)
            expect(page.locator("#game-end")).to_contain_text("In the tower")
            _no_code_words(page)
        summary = table.status()["ended"]["summary"]
        assert table.log()[-1]["kind"] == "session_end"
        if summary["wins"]:
            winner = next(iter(summary["wins"]))
            expect(watcher.locator(f"#game-end li[data-winner='{winner}']")).to_be_visible()
        expect(host.locator("#game-form")).to_be_visible()  # the host starts the next game from here
        expect(watcher.locator("#game-form")).to_have_count(0)


def test_the_page_in_german_for_a_german_browser(browser, table) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    with _serve(table) as server:
        context = browser.new_context(viewport=PHONE, locale="de-DE", extra_http_headers={"Accept-Language": "de-DE,de;q=0.9"})
        page = context.new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(server.url)
        expect(page.locator("html")).to_have_attribute("lang", "de")
        expect(page.locator("#ledger-title")).to_have_text("Turm, Schale und Vorräte")
        expect(page.locator("#live")).to_have_text("verbunden")
        expect(page.locator("#host-button")).to_have_text("Gastgeber")
        page.click("#host-button")
        page.fill("#pin-input", PIN)
        page.click("#pin-submit")
        expect(page.locator("#host-button")).to_have_text("Gastgeber ✓")
        expect(page.locator("#new-battle")).to_have_text("Neue Schlacht")
        page.click("#end-game")
        expect(page.locator("#game-end-title")).to_have_text("Das Ende der Partie")
        expect(page.locator("#game-end")).to_contain_text("Im Turm")
        english = browser.new_page(viewport=PHONE)
        english.goto(server.url)
        expect(english.locator("#game-end-title")).to_have_text("The game's end")
        context.close()


def test_qr_for_watchers_dark_theme_and_the_opt_in_signal(browser, table) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    with _serve(table) as server:
        watcher = _page(browser, server, TABLET)
        expect(watcher.locator("#join-open")).to_be_hidden()  # the QR code is for the host's screen
        host = _page(browser, server)
        log_in(host)
        host.click("#join-open")
        expect(host.locator("#join-dialog")).to_be_visible()
        # decode() waits for the image: wait_for_function polls a string in the page by eval, which
        # the page's CSP forbids (it fails whenever the image is not loaded at the first look)
        assert host.eval_on_selector("#join-qr", "i => i.decode().then(() => i.naturalWidth)") > 100
        expect(host.locator("#join-url")).to_have_text(re.compile(rf"^http://[0-9.]+:{server.port}/$"))
        host.click("#join-close")

        light = watcher.evaluate("getComputedStyle(document.body).backgroundColor")
        watcher.check("#pref-dark")
        expect(watcher.locator("html")).to_have_attribute("data-theme", "dark")
        assert watcher.evaluate("getComputedStyle(document.body).backgroundColor") != light
        watcher.reload()  # the choice is this device's, kept
        expect(watcher.locator("html")).to_have_attribute("data-theme", "dark")

        watcher.evaluate("() => { navigator.vibrate = (p) => { window.__buzz = p; return true; }; }")
        assert watcher.evaluate("document.body.dataset.signal") is None  # nothing until opted in
        watcher.check("#pref-signal")
        watcher.evaluate("() => { delete document.body.dataset.signal; }")
        _plan_attack(host)
        host.click("#release")
        expect(watcher.locator("body")).to_have_attribute("data-signal", "resolution", timeout=60_000)
        assert watcher.evaluate("window.__buzz") is not None
