"""Issue 11 through the session: the table, the `tower` commands at the table, and the web API the page
uses. The simulated station reads its tray directly (``reader="direct"``) where the camera is not the
point, so these stay fast; where a battle's outcome matters the host's correction fixes the reading.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller import session as ses
from controller.cli import main
from controller.table import Table, read_only
from controller.web.access import PIN_HEADER, HostAccess
from controller.web.app import create_app

PIN = "482916"
SITE = "http://tower.local"
ATTACK: dict[str, Any] = {"battle": "attack", "attacker": "blue", "attacking_armies": 4, "defender": "yellow",
                          "defending_armies": 3}
REVOLT: dict[str, Any] = {"battle": "revolt", "defender": "red", "defending_armies": 4, "revolt_markers": 2}


@pytest.fixture
def table(tmp_path: Path):
    t = Table.open(data_dir=tmp_path / "data", reader="direct")
    t.new_session(["red", "blue", "yellow"], emperors_court=True)
    t.release(t.fill()["drop_id"])
    for player in ("red", "blue", "yellow"):
        t.deploy(player, 12)
    yield t
    t.close()


def _played(table: Table, battle: dict[str, Any], tray_after: dict[str, int]) -> dict[str, Any]:
    """Plan and release ``battle``, then the host fixes the reading to ``tray_after`` (an outcome the test needs)."""
    planned = table.plan(battle)
    table.release(planned["drop_id"])
    return table.correct(planned["drop_id"], tray_after, "host")


# -- 1. immunity per action ----------------------------------------------------------------------------
def test_the_round_keeps_each_immune_players_card_and_the_attack_its_action(table: Table) -> None:
    rnd = table.set_round(immune={"yellow": "A", "red": "both"})
    assert rnd["immune"] == {"red": "both", "yellow": "A"}
    with pytest.raises(ValueError, match="Combat/Movement A") as refused:
        table.plan(ATTACK)
    assert getattr(refused.value, "field", None) == "$.action"
    with pytest.raises(ValueError, match="immune to it"):
        table.plan({**ATTACK, "action": "A"})
    assert table.status()["drop"] is None  # a refused plan commits nothing
    planned = table.plan({**ATTACK, "action": "B"})
    assert planned["battle"]["immune"] == {"red": "both", "yellow": "A"} and planned["battle"]["action"] == "B"
    table.cancel(planned["drop_id"])
    with pytest.raises(ValueError, match="red cannot be attacked this round"):
        table.plan({**ATTACK, "defender": "red", "action": "B"})


def test_the_round_refuses_an_unknown_card() -> None:
    state = ses.new_state(["red", "blue", "yellow"], emperors_court=False)
    with pytest.raises(ses.SessionError, match="A, B or both"):
        ses.set_round(state, None, None, {"red": "C"})
    with pytest.raises(ses.SessionError, match="not a player"):
        ses.set_round(state, None, None, {"purple": "A"})
    assert ses.set_round(state, None, None, ["blue"])["round"]["immune"] == {"blue": "both"}


def test_records_made_before_the_map_still_fill_in_as_immune_to_both() -> None:
    state = ses.new_state(["red", "blue", "yellow"], emperors_court=False)
    state["round"]["immune"] = ["yellow"]  # the older form kept by earlier records
    battle: dict[str, Any] = dict(ATTACK)
    ses.fill_in_round(state, battle)
    assert battle["immune"] == {"yellow": "both"}


# -- 2 and 3: the box's limits; the supply map names every colour ---------------------------------------
def test_the_session_names_every_colour_of_the_supply_and_an_empty_one_adds_nothing(table: Table) -> None:
    supply = table.status()["supply"]
    tray = table.status()["tray"]
    # the host puts every remaining peasant into the tray: the common supply is empty
    table.set_tray({**tray, "green": tray.get("green", 0) + supply["green"]}, "host")
    state = table.cycle.state
    assert "green" not in ses.clean(state["supply"]) and ses.supply_for_battle(state)["green"] == 0
    neutral = {"battle": "attack", "attacker": "red", "attacking_armies": 2, "defender": None, "defending_armies": 0}
    planned = table.plan(neutral)
    assert planned["battle"]["supply"]["green"] == 0
    assert "green" not in planned["plan"]["from_supply"]
    assert any("only 0 of 1 peasant could be added" in n and "rulebooks are silent" in n for n in planned["notes"])
    table.cancel(planned["drop_id"])


# -- 4. favor card #4 -------------------------------------------------------------------------------------
def test_the_holder_of_card_4_wins_a_revolt_without_a_new_marker_and_spends_the_card(table: Table) -> None:
    assert table.keep_parry_card("red") == {"parry_card": "red"}
    assert table.status()["parry_card"] == "red"
    won = _played(table, REVOLT, {"red": 4})
    assert won["battle"]["parry_revolt_marker"] is True
    assert won["resolution"]["outcome"] == "defender_wins" and won["resolution"]["county"]["revolt_markers"] == 2
    assert any("favor card #4 parries" in n for n in won["notes"])
    assert table.status()["parry_card"] is None
    # a corrected reading that turns the win into a loss gives the card back
    lost = table.correct(won["drop_id"], {"red": 1, "green": 2}, "host")
    assert lost["resolution"]["outcome"] == "attacker_wins"
    assert table.status()["parry_card"] == "red"


def test_card_4_is_not_spent_on_another_players_revolt_nor_without_the_court(table: Table, tmp_path: Path) -> None:
    table.keep_parry_card("blue")
    planned = table.plan(REVOLT)
    assert "parry_revolt_marker" not in planned["battle"]
    table.cancel(planned["drop_id"])
    winter = table.plan({"battle": "winter_revolt", "defender": "blue", "defending_armies": 2, "unsupplied_counties": 1})
    assert "parry_revolt_marker" not in winter["battle"]  # a winter revolt adds no marker to parry
    table.cancel(winter["drop_id"])
    assert table.keep_parry_card(None) == {"parry_card": None}
    with Table.open(data_dir=tmp_path / "plain", reader="direct") as plain:
        plain.new_session(["red", "blue", "yellow"])
        with pytest.raises(ValueError, match="Emperor's Court"):
            plain.keep_parry_card("red")


# -- 5. 42 revolt markers ---------------------------------------------------------------------------------
def test_a_county_never_holds_more_than_the_42_markers(table: Table) -> None:
    with pytest.raises(ValueError, match="at most 42"):
        table.plan({**REVOLT, "revolt_markers": 43})
    full = _played(table, {**REVOLT, "revolt_markers": 42}, {"red": 4})
    assert full["resolution"]["county"]["revolt_markers"] == 42
    assert any("all 42 revolt markers" in n for n in full["notes"])


# -- 6. the notes where a silent rule decides --------------------------------------------------------------
def test_a_won_revolt_says_how_its_losses_were_counted(table: Table) -> None:
    won = _played(table, REVOLT, {"red": 4, "green": 1})
    assert won["resolution"]["to_county"] == {"red": 3}
    assert any("red wins the revolt and loses 1 army" in n for n in won["notes"])
    assert table.drop(won["drop_id"])["notes"] == won["notes"]


def test_a_card_placing_more_armies_than_the_supply_holds_says_so(table: Table) -> None:
    left = table.status()["supply"]["red"]
    table.deploy("red", left - 1)
    placed = table.place_into_tray("red", 3, "favor", card=8)
    assert placed["placed"] == 1
    assert placed["notes"] == [
        "only 1 of 3 armies could be placed: the red supply is empty "
        "(the rulebooks are silent here; the engine's decision is in engine/decisions.py, decision 1)"]
    assert table.place_into_tray("blue", 1, "favor")["notes"] == []


# -- the commands at the table ---------------------------------------------------------------------------
def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_commands_take_the_action_the_immune_cards_and_card_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    assert _run(capsys, "session", "new", "--players", "red,blue,yellow", "--emperors-court", *d)[0] == 0
    assert _run(capsys, "fill", *d)[0] == 0
    for p in ("red", "blue", "yellow"):
        assert _run(capsys, "session", "deploy", "--player", p, "--armies", "15", *d)[0] == 0
    code, out, _ = _run(capsys, "session", "round", "--immune", "yellow=a,red", "--json", *d)
    assert code == 0 and json.loads(out)["immune"] == {"red": "both", "yellow": "A"}
    attack = ["battle", "attack", "--attacker", "blue", "--armies", "4", "--defender", "yellow", "--defending", "3", *d]
    code, _out, err = _run(capsys, *attack)
    assert code == 2 and "Combat/Movement A" in err and "--action A or --action B" in err
    code, _out, err = _run(capsys, *attack, "--action", "A")
    assert code == 2 and "immune to it" in err
    code, out, _ = _run(capsys, *attack, "--action", "B")
    assert code == 0 and "blue attacks yellow's county with 4" in out
    with pytest.raises(SystemExit):
        main(["session", "round", "--immune", "yellow=C", *d])
    with pytest.raises(SystemExit):
        main([*attack, "--action", "C"])
    capsys.readouterr()

    code, out, _ = _run(capsys, "session", "parry", "--player", "red", *d)
    assert code == 0 and "red keeps favor card #4" in out
    code, out, _ = _run(capsys, "battle", "revolt", "--player", "red", "--armies", "3", "--revolt-markers", "2", *d)
    assert code == 0 and "Revolt against red" in out
    status = json.loads(_run(capsys, "status", "--json", *d)[1])
    with read_only(tmp_path) as records:  # the revolt just played, as recorded
        last = records.history()[0]
    assert last["battle"]["parry_revolt_marker"] is True
    won = last["resolution"]["outcome"] == "defender_wins"
    assert status["parry_card"] == (None if won else "red"), "spent by a won revolt, kept after a lost one"
    assert ("favor card #4 parries" in out) == won
    code, out, _ = _run(capsys, "session", "parry", "--none", *d)
    assert code == 0 and "nobody keeps favor card #4" in out

    left = status["supply"]["red"]
    assert _run(capsys, "session", "deploy", "--player", "red", "--armies", str(left - 1), *d)[0] == 0
    code, out, _ = _run(capsys, "tray", "add", "--player", "red", "--armies", "3", "--card", "3", *d)
    assert code == 0 and "note: only 1 of 3 armies could be placed: the red supply is empty" in out


# -- the web API behind the page's controls --------------------------------------------------------------
@pytest.fixture
def client(table: Table):
    app = create_app(table, table.data_dir, HostAccess(PIN), allowed_hosts=["tower.local"])
    with TestClient(app, base_url=SITE) as c:
        yield c


def test_the_page_sets_the_cards_and_asks_for_the_action(client: TestClient, table: Table) -> None:
    pin = {PIN_HEADER: PIN}
    rnd = client.post("/api/round", json={"event": None, "immune": {"yellow": "B"}}, headers=pin)
    assert rnd.status_code == 200 and rnd.json()["immune"] == {"yellow": "B"}
    bad = client.post("/api/round", json={"immune": {"yellow": "C"}}, headers=pin)
    assert bad.status_code == 400 and "A, B or both" in bad.json()["error"]
    missing = client.post("/api/battles", json=ATTACK, headers=pin)
    assert missing.status_code == 400 and missing.json()["field"] == "$.action"
    planned = client.post("/api/battles", json={**ATTACK, "action": "A"}, headers=pin)
    assert planned.status_code == 200, planned.text
    assert planned.json()["battle"]["action"] == "A" and planned.json()["notes"] == []
    client.post(f"/api/drops/{planned.json()['drop_id']}/cancel", headers=pin)

    parry = client.post("/api/parry", json={"player": "yellow"}, headers=pin)
    assert parry.status_code == 200 and parry.json() == {"parry_card": "yellow"}
    state = client.get("/api/state").json()["status"]
    assert state["parry_card"] == "yellow" and state["round"]["immune"] == {"yellow": "B"}
    assert client.post("/api/parry", json={"player": None}, headers=pin).json() == {"parry_card": None}
    assert client.post("/api/parry", json={"player": "red"}).status_code in (401, 403)  # the host only


def test_the_page_shows_the_note_of_a_short_tray_gift(client: TestClient, table: Table) -> None:
    table.deploy("red", table.status()["supply"]["red"] - 2)
    done = client.post("/api/tray/place", json={"player": "red", "armies": 5, "source": "favor"},
                       headers={PIN_HEADER: PIN})
    assert done.status_code == 200 and done.json()["placed"] == 2
    assert done.json()["notes"][0].startswith("only 2 of 5 armies could be placed: the red supply is empty")


def test_the_page_script_asks_for_the_action_and_sends_the_cards() -> None:
    """The page's controls exist where its script builds them (the browser tests drive them)."""
    static = Path(__file__).resolve().parents[1] / "controller" / "web" / "static"
    script = "\n".join(f.read_text() for f in sorted(static.rglob("*.js")))  # the page's ES modules
    assert 'id: "action-field"' in script and "battle.action = fd.get(\"action\")" in script
    assert '"/api/parry"' in script and "immune-${p}" in script
