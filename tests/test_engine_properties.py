"""Property tests: whatever comes out of the tower, the engine loses no cube and invents none.

For every valid battle and every possible reading: the tray splits exactly into what goes back to
the supplies, what goes into the county and what stays (``tray_after == to_supply + to_county +
tray_remaining``), and ``tower_delta == dropped - tray_after`` colour by colour. Further
invariants: the plan's drop is the sum of its sources, peasants never stand in a county, only the
winner places armies, and the outcome agrees with the strengths in the tray.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import api
from engine.colours import PALETTE, PEASANTS, PLAYER_COLOURS
from engine.counts import add, subtract
from engine.events import Event
from engine.ledger import TowerLedger

small = st.integers(min_value=0, max_value=3)


def count_map(colours: tuple[str, ...], values: st.SearchStrategy[int]) -> st.SearchStrategy[dict[str, int]]:
    return st.dictionaries(st.sampled_from(colours), values, max_size=len(colours))


@st.composite
def bonus_tiles(draw: st.DrawFn, players: list[str]) -> dict[str, str | None]:
    """Owners of the two combat tiles: nobody, or two different players (one tile each)."""
    attack = draw(st.sampled_from([None, *players]))
    defence = draw(st.sampled_from([None, *(p for p in players if p != attack)]))
    return {"attack_plus_one": attack, "defence_plus_one": defence}


@st.composite
def round_keys(draw: st.DrawFn, players: list[str]) -> dict[str, Any]:
    """Event, bonus tiles, tray, and optionally supplies and the tower, kept small enough to be consistent."""
    keys: dict[str, Any] = {
        "event": draw(st.sampled_from([None, *(e.value for e in Event if e is not Event.CHURCHES_SAFE)])),
        "bonus_tiles": draw(bonus_tiles(players)),
        "tray_before": draw(count_map(PALETTE, small)),
    }
    if draw(st.booleans()):
        # the contract's strict `supply` map: one that forgets a colour is an error, so name them all
        supply = {colour: draw(st.integers(0, 10)) for colour in PLAYER_COLOURS}
        supply[PEASANTS] = draw(st.integers(0, 5))
        keys["supply"] = supply
    if draw(st.booleans()):
        keys["tower_before"] = draw(count_map(PALETTE, st.integers(0, 5)))
    return keys


@st.composite
def attacks(draw: st.DrawFn) -> dict[str, Any]:
    attacker = draw(st.sampled_from(PLAYER_COLOURS))
    defender = draw(st.sampled_from([None, *(c for c in PLAYER_COLOURS if c != attacker)]))
    armies = draw(st.integers(1, 10))
    battle: dict[str, Any] = {
        "battle": "attack",
        "attacker": attacker,
        "attacking_armies": armies,
        "defender": defender,
        "defending_armies": 0 if defender is None else draw(st.integers(1, 10)),
        "revolt_markers": 0 if defender is None else draw(small),
        "buildings": [] if defender is None else draw(st.lists(st.sampled_from(["palace", "trading_post"]), unique=True)),
        "immune": draw(st.lists(st.sampled_from([c for c in PLAYER_COLOURS if c != defender]), unique=True)),
        **draw(round_keys(list(PLAYER_COLOURS))),
    }
    if draw(st.booleans()):
        battle["origin_armies"] = armies + draw(st.integers(1, 3))
    return battle


@st.composite
def revolts(draw: st.DrawFn) -> dict[str, Any]:
    winter = draw(st.booleans())
    battle: dict[str, Any] = {
        "battle": "winter_revolt" if winter else "revolt",
        "defender": draw(st.sampled_from(PLAYER_COLOURS)),
        "defending_armies": draw(st.integers(1, 10)),
        "revolt_markers": draw(small) if winter else draw(st.integers(1, 3)),
        "buildings": draw(st.lists(st.sampled_from(["palace", "church", "trading_post"]), unique=True)),
        **draw(round_keys(list(PLAYER_COLOURS))),
    }
    if winter:
        battle["unsupplied_counties"] = draw(st.integers(1, 9))
    return battle


@st.composite
def initial_fills(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.lists(st.sampled_from(PLAYER_COLOURS), min_size=3, max_size=5, unique=True))
    return {
        "battle": "initial_fill",
        "players": players,
        "emperors_court": draw(st.booleans()),
        "tray_before": {},
    }


@st.composite
def resolvable(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A valid battle with a reading the tower could produce, and its plan."""
    battle = draw(st.one_of(attacks(), revolts(), initial_fills()))
    plan = api.plan(battle)
    # Unknown tower contents may hold a few cubes of any colour; known ones bound the reading.
    inside = battle.get("tower_before", {} if battle["battle"] == "initial_fill" else dict.fromkeys(PALETTE, 3))
    tray_after = {}
    for colour in PALETTE:
        most = plan["drop"].get(colour, 0) + inside.get(colour, 0)
        n = draw(st.integers(0, most))
        if n:
            tray_after[colour] = n
    return {**battle, "tray_after": tray_after}, plan


FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(resolvable())
def test_every_cube_in_the_tray_goes_exactly_one_way(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    battle, _plan = case
    out = api.resolve(battle)
    tray_after = battle["tray_after"]
    assert add(out["to_supply"], out["to_county"], out["tray_remaining"]) == add(tray_after)
    assert all(n > 0 for m in ("to_supply", "to_county", "tray_remaining") for n in out[m].values())


@FAST
@given(resolvable())
def test_tower_delta_is_dropped_minus_tray(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    battle, plan = case
    out = api.resolve(battle)
    assert out["dropped"] == plan["drop"]
    assert out["tower_delta"] == subtract(out["dropped"], battle["tray_after"])
    if "tower_before" in battle:
        inside = TowerLedger(battle["tower_before"]).after_drop(out["dropped"], battle["tray_after"]).inside
        assert dict(inside) == add(battle["tower_before"], out["tower_delta"])


@FAST
@given(resolvable())
def test_plan_drop_is_the_sum_of_its_sources(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _battle, plan = case
    assert plan["drop"] == add(plan["from_supply"], plan["from_county"], plan["from_tray"])


@FAST
@given(resolvable())
def test_only_the_winner_places_armies_and_never_peasants(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    battle, _plan = case
    out = api.resolve(battle)
    assert PEASANTS not in out["to_county"]
    county = out["county"]
    if battle["battle"] == "initial_fill":
        assert county is None and out["to_county"] == {} and out["tray_remaining"] == {}
        return
    assert county["armies"] == sum(out["to_county"].values())
    if out["to_county"]:
        assert list(out["to_county"]) == [county["owner"]]
    if out["outcome"] == "tie":
        assert county["owner"] is None and county["armies"] == 0 and county["revolt_markers"] == 0
    if out["attacker_in_tray"] > out["defender_in_tray"]:
        assert out["outcome"] == "attacker_wins"
    elif out["attacker_in_tray"] == out["defender_in_tray"]:
        assert out["outcome"] == "tie"
    else:
        assert out["outcome"] in ("defender_wins", "tie")
    # Cubes of factions not involved are untouched.
    involved = {battle.get("attacker"), battle.get("defender"), PEASANTS}
    for colour, n in battle["tray_after"].items():
        if colour not in involved:
            assert out["tray_remaining"].get(colour) == n


@FAST
@given(resolvable())
def test_extras_never_exceed_the_supply(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    battle, plan = case
    if "supply" in battle and battle["battle"] != "initial_fill":
        for colour, n in plan["from_supply"].items():
            assert n <= battle["supply"].get(colour, 0)
