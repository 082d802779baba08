"""Who may change the table through the web page: the host's PIN, host sessions with their CSRF token,
cross-site requests, the lockout after wrong PINs, and that every refusal is logged and changes
nothing. The app runs on the real ``Table`` over a simulated station (direct tray reading, so these
tests stay fast)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.table import Table
from controller.web.access import CSRF_HEADER, PIN_HEADER, HostAccess, generate_pin, same_origin
from controller.web.app import create_app
from station.hands import NoHands

PIN = "482916"
SITE = "http://tower.local"
ATTACK = {"battle": "attack", "attacker": "red", "attacking_armies": 3, "defender": "blue", "defending_armies": 2}


@pytest.fixture
def table(tmp_path: Path):
    t = Table.open(data_dir=tmp_path / "data", reader="direct")
    t.new_session(["red", "blue", "yellow"])
    yield t
    t.close()


@pytest.fixture
def client(table: Table):
    app = create_app(table, table.data_dir, HostAccess(PIN), allowed_hosts=["tower.local"])
    with TestClient(app, base_url=SITE) as c:
        yield c


def _fill(table: Table) -> int:
    """The initial fill and a release, so that the session has a resolved drop."""
    planned = table.plan({"battle": "initial_fill"})
    table.release(planned["drop_id"])
    return int(planned["drop_id"])


def _records(table: Table) -> int:
    return len(table.log())


# -- reading is open ---------------------------------------------------------------------------------
def test_anyone_may_watch(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "Wallenstein tower" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    state = client.get("/api/state").json()
    assert state["host"] is False and state["csrf"] is None
    assert state["status"]["session"]["players"] == ["red", "blue", "yellow"]
    assert state["history"] == []
    assert client.get("/static/app.js").status_code == 200


# -- refused without the PIN -------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "body"), [
    ("/api/battles", {"battle": "initial_fill"}),
    ("/api/drops/1/release", {}),
    ("/api/drops/1/correct", {"counts": {"red": 1}, "who": "mallory"}),
    ("/api/drops/1/confirm", {"who": "mallory"}),
    ("/api/drops/1/release-answer", {"fell": True}),
    ("/api/resume", {}),
    ("/api/session", {"players": ["red", "blue", "black"]}),
    ("/api/round", {"event": "churches_safe"}),
    ("/api/drops/1/cancel", {}),
    ("/api/court/convert", {"player": "red", "cubes": 1}),
    ("/api/tray/place", {"player": "red", "armies": 2, "source": "bonus"}),
    ("/api/tray/confirm", {"who": "mallory"}),
    ("/api/tray/confirm", {"counts": {"red": 9}, "who": "mallory"}),
])
def test_changes_without_the_pin_are_refused_logged_and_change_nothing(
        client: TestClient, table: Table, caplog: pytest.LogCaptureFixture, path: str, body: dict) -> None:
    if path != "/api/battles":
        table.plan({"battle": "initial_fill"})  # a planned drop 1 that a stranger tries to act on
    before = _records(table)
    with caplog.at_level(logging.WARNING, logger="controller.web.access"):
        answer = client.post(path, json=body)
    assert answer.status_code == 403
    assert "PIN" in answer.json()["error"]
    assert f"refused POST {path}" in caplog.text
    assert _records(table) == before
    assert table.status()["drop"] is None or table.status()["drop"]["phase"] == "planned"


def test_wrong_pin_is_refused_and_repeated_guesses_hold_up_a_device_that_never_logged_in(
        client: TestClient, table: Table, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="controller.web.access"):
        for guess in ("000000", "111111", "222222", "333333", "444444"):
            answer = client.post("/api/battles", json={"battle": "initial_fill"}, headers={PIN_HEADER: guess})
            assert answer.status_code == 403 and answer.json()["error"] == "wrong PIN"
        locked = client.post("/api/battles", json={"battle": "initial_fill"}, headers={PIN_HEADER: PIN})
    assert locked.status_code == 429 and "too many wrong PINs" in locked.json()["error"]
    assert PIN not in locked.text
    assert caplog.text.count("refused POST /api/battles") == 6
    assert table.status()["drop"] is None


def test_the_pin_header_lets_a_script_plan_and_release(client: TestClient, table: Table) -> None:
    planned = client.post("/api/battles", json={"battle": "initial_fill"}, headers={PIN_HEADER: PIN})
    assert planned.status_code == 200, planned.text
    drop_id = planned.json()["drop_id"]
    assert planned.json()["plan"]["drop"] == {"red": 7, "blue": 7, "yellow": 7, "green": 10}
    released = client.post(f"/api/drops/{drop_id}/release", headers={PIN_HEADER: PIN})
    assert released.status_code == 200, released.text
    assert released.json()["phase"] == "resolved"
    again = client.post(f"/api/drops/{drop_id}/release", headers={PIN_HEADER: PIN})
    assert again.status_code == 400 and "never released twice" in again.json()["error"]


def test_a_login_gives_a_strict_httponly_cookie_that_needs_its_csrf_token(client: TestClient, table: Table) -> None:
    login = client.post("/api/host/login", json={"pin": PIN}, headers={"Origin": SITE})
    assert login.status_code == 200
    cookie = login.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    csrf = login.json()["csrf"]
    state = client.get("/api/state").json()
    assert state["host"] is True and state["csrf"] == csrf

    bare = client.post("/api/battles", json={"battle": "initial_fill"}, headers={"Origin": SITE})
    assert bare.status_code == 403 and "CSRF" in bare.json()["error"]
    forged = client.post("/api/battles", json={"battle": "initial_fill"},
                         headers={"Origin": SITE, CSRF_HEADER: "0" * 64})
    assert forged.status_code == 403
    assert table.status()["drop"] is None
    ok = client.post("/api/battles", json={"battle": "initial_fill"}, headers={"Origin": SITE, CSRF_HEADER: csrf})
    assert ok.status_code == 200, ok.text

    client.post("/api/host/logout", headers={"Origin": SITE})
    assert client.get("/api/state").json()["host"] is False
    after = client.post(f"/api/drops/{ok.json()['drop_id']}/release", headers={"Origin": SITE, CSRF_HEADER: csrf})
    assert after.status_code == 403


def test_a_wrong_pin_at_login_opens_no_session(client: TestClient) -> None:
    answer = client.post("/api/host/login", json={"pin": "999999"}, headers={"Origin": SITE})
    assert answer.status_code == 403
    assert "set-cookie" not in answer.headers
    assert client.get("/api/state").json()["host"] is False


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"},
    {"Origin": "null"},
    {"Origin": "http://tower.local.evil.example"},
    {"Referer": "http://evil.example/attack.html"},
])
def test_cross_site_requests_are_refused_even_with_the_pin(
        client: TestClient, table: Table, caplog: pytest.LogCaptureFixture, headers: dict) -> None:
    with caplog.at_level(logging.WARNING, logger="controller.web.access"):
        answer = client.post("/api/battles", json={"battle": "initial_fill"}, headers={**headers, PIN_HEADER: PIN})
        login = client.post("/api/host/login", json={"pin": PIN}, headers=headers)
    assert answer.status_code == 403 and answer.json()["error"] == "cross-site request refused"
    assert login.status_code == 403 and "set-cookie" not in login.headers
    assert "cross-site request refused" in caplog.text
    assert table.status()["drop"] is None


def test_a_correction_through_the_api_keeps_who_and_before(client: TestClient, table: Table) -> None:
    drop_id = _fill(table)
    read = table.status()["drop"]["tray_after"]
    colour = next(c for c, n in read.items() if n > 0)
    counts = {**read, colour: read[colour] - 1}
    answer = client.post(f"/api/drops/{drop_id}/correct", json={"counts": counts, "who": "Anna"},
                         headers={PIN_HEADER: PIN})
    assert answer.status_code == 200, answer.text
    correction = answer.json()["corrections"][-1]
    assert correction["who"] == "Anna" and correction["before"] == read
    assert correction["after"] == {c: n for c, n in counts.items() if n}
    assert "correction" in [r["kind"] for r in table.log()]


def test_the_tables_errors_come_back_naming_the_problem(client: TestClient) -> None:
    bad = client.post("/api/battles", json={"battle": "attack", "attacker": "pink", "attacking_armies": 2,
                                            "defender": None, "defending_armies": 0},
                      headers={PIN_HEADER: PIN})
    assert bad.status_code == 400
    assert "fill the tower first" in bad.json()["error"]
    missing = client.post("/api/drops/99/release", headers={PIN_HEADER: PIN})
    assert missing.status_code == 400 and "drop 99" in missing.json()["error"]


# -- the pieces on their own -------------------------------------------------------------------------
def test_same_origin_rules() -> None:
    assert same_origin("http://tower.local", None, "tower.local", "http")
    assert same_origin(None, "http://tower.local/", "tower.local", "http")
    assert same_origin(None, None, "tower.local", "http")  # no page at all: curl or a script
    assert not same_origin("http://tower.local:8001", None, "tower.local:8000", "http")
    assert not same_origin("https://tower.local", None, "tower.local", "http")
    assert not same_origin(None, "http://evil.example/x", "tower.local", "http")
    assert not same_origin("http://tower.local", None, None, "http")


def test_generated_pins_are_random_digits() -> None:
    pins = {generate_pin() for _ in range(50)}
    assert len(pins) > 45 and all(p.isdigit() and len(p) == 6 for p in pins)
    with pytest.raises(ValueError, match="at least 6"):
        generate_pin(5)
    for short in ("12", "1234", "12345"):
        with pytest.raises(ValueError, match="6 to 12"):
            HostAccess(short)


def test_the_host_starts_a_game_and_sets_the_round(client: TestClient, table: Table) -> None:
    pin = {PIN_HEADER: PIN}
    game = client.post("/api/session", json={"players": ["purple", "black", "red"], "emperors_court": True}, headers=pin)
    assert game.status_code == 200, game.text
    assert table.status()["session"]["players"] == ["purple", "black", "red"]
    assert table.status()["session"]["emperors_court"] is True
    bad = client.post("/api/session", json={"players": ["pink", "red", "blue"]}, headers=pin)
    assert bad.status_code == 400 and "pink" in bad.json()["error"]
    rnd = client.post("/api/round", json={"event": "churches_safe", "bonus_tiles": {"attack_plus_one": "black"},
                                          "immune": ["red"]}, headers=pin)
    assert rnd.status_code == 200, rnd.text
    assert table.status()["round"] == {"event": "churches_safe", "immune": {"red": "both"},
                                       "bonus_tiles": {"attack_plus_one": "black", "defence_plus_one": None}}
    wrong = client.post("/api/round", json={"bonus_tiles": {"attack_plus_one": "blue"}}, headers=pin)
    assert wrong.status_code == 400 and "blue" in wrong.json()["error"]


def test_the_host_cancels_a_battle_planned_by_mistake(client: TestClient, table: Table) -> None:
    supply = dict(table.status()["supply"])
    drop_id = client.post("/api/battles", json={"battle": "initial_fill"}, headers={PIN_HEADER: PIN}).json()["drop_id"]
    assert table.status()["supply"] != supply
    answer = client.post(f"/api/drops/{drop_id}/cancel", headers={PIN_HEADER: PIN})
    assert answer.status_code == 200, answer.text
    assert table.status()["drop"] is None and table.status()["supply"] == supply
    assert "cancelled" in [r["kind"] for r in table.log()]


def test_a_dice_tower_card_without_the_emperors_court_is_refused_with_a_reason(client: TestClient) -> None:
    answer = client.post("/api/court/convert", json={"player": "red", "cubes": 2}, headers={PIN_HEADER: PIN})
    assert answer.status_code == 400 and "Emperor's Court is not in play" in answer.json()["error"]


def test_the_host_places_armies_into_the_tray_and_vouches_for_a_misread_tray(client: TestClient, table: Table) -> None:
    pin = {PIN_HEADER: PIN}
    _fill(table)
    placed = client.post("/api/tray/place", json={"player": "red", "armies": 2, "source": "bonus", "who": "Anna"},
                         headers=pin)
    assert placed.status_code == 200, placed.text
    assert placed.json()["placed"] == 2 and table.status()["tray"].get("red") == 2
    favor = client.post("/api/tray/place", json={"player": "red", "armies": 2, "source": "favor"}, headers=pin)
    assert favor.status_code == 400 and "Emperor's Court" in favor.json()["error"]
    table.station.world.add_to_tray({"green": 1})  # a cube nobody accounts for: the plan is refused
    table.cycle.hands = NoHands()  # (so that the simulated hands do not tidy it away)
    refused = client.post("/api/battles", json=ATTACK, headers=pin)
    assert refused.status_code == 409, refused.text
    assert refused.json()["tray_mismatch"] == {"expected": {"red": 2}, "seen": {"red": 2, "green": 1}}
    word = client.post("/api/tray/confirm", json={"counts": {"red": 2, "green": 1}, "who": "Anna"}, headers=pin)
    assert word.status_code == 200, word.text
    assert word.json()["before"] == {"red": 2} and word.json()["after"] == {"red": 2, "green": 1}
    assert table.status()["tray_vouched"]["who"] == "Anna"
    planned = client.post("/api/battles", json=ATTACK, headers=pin)
    assert planned.status_code == 200, planned.text
    assert planned.json()["plan"]["from_tray"] == {"red": 2, "green": 1}
    kinds = [r["kind"] for r in table.log()]
    assert "tray_placement" in kinds and "tray_corrected" in kinds
