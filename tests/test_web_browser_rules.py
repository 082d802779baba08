"""Issue 11 on the page, in headless Chromium: the host gives each immune player's favor card and the
holder of favor card #4 in the round form, and the battle form asks for the action only where the
defender is immune to one of the two (skips like the other browser tests where Chromium is missing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_web_browser import PHONE, PIN, browser, log_in  # noqa: F401  (browser: the shared fixture)

from controller.table import Table
from controller.web.access import HostAccess
from controller.web.app import create_app
from controller.web.server import BackgroundServer

pytestmark = pytest.mark.browser


def test_the_round_form_takes_the_cards_and_the_battle_form_asks_for_the_action(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    from playwright.sync_api import expect

    table = Table.open(data_dir=tmp_path / "data", reader="direct")
    try:
        table.new_session(["red", "blue", "yellow"], emperors_court=True)
        table.release(table.fill()["drop_id"])
        for player in ("red", "blue", "yellow"):
            table.deploy(player, 10)
        with BackgroundServer(create_app(table, table.data_dir, HostAccess(PIN))) as server:
            page = browser.new_page(viewport=PHONE)
            page.goto(server.url)
            log_in(page)
            page.click("#round-open")
            page.check("#round-form input[name=immune][value=yellow]")
            page.select_option("#round-form select[name=immune-yellow]", "A")
            page.select_option("#round-form select[name=parry_card]", "red")
            page.click("#round-submit")
            expect(page.locator("#immune")).to_contain_text("yellow (Combat/Movement A)")
            expect(page.locator("#parry-card")).to_contain_text("red parries the next revolt marker")
            assert table.status()["round"]["immune"] == {"yellow": "A"}
            assert table.status()["parry_card"] == "red"
            # The page saves the round in two calls and then reads the table again; the round form
            # closes only then, and the page below it moves up. A click on "New battle" before that
            # can land where the button was (CI lost one that way), so wait for the form to close.
            expect(page.locator("#round-form")).to_have_count(0)

            page.click("#new-battle")
            expect(page.locator("#battle-form")).to_be_visible()
            expect(page.locator("#action-field")).to_be_hidden()  # blue, the default defender, is not immune
            page.select_option("#battle-form select[name=defender]", "yellow")
            expect(page.locator("#action-field")).to_be_visible()
            expect(page.locator("#action-hint")).to_contain_text("cannot be attacked with Combat/Movement A")
            expect(page.locator("#battle-form select[name=action]")).to_have_value("B")
            page.select_option("#battle-form select[name=attacker]", "blue")
            page.click("#plan-submit")
            expect(page.locator("#release")).to_be_visible()
            assert table.status()["drop"]["battle"]["action"] == "B"
            page.close()
    finally:
        table.close()
