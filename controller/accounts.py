"""Reading the session's account without changing it: the session's colours and players, the
round's immunities and favor card #4 as a battle needs them, the armies a battle names on the map,
and the conservation check. Every change to the account is ``controller.session``'s."""

from __future__ import annotations

from typing import Any

from engine import counts as count_maps
from engine.colours import PEASANTS, cubes_in_game

Counts = dict[str, int]


class SessionError(ValueError):
    """A request that does not fit the session's state (unknown player, too few cubes, ...)."""


def clean(counts: dict[str, int] | None) -> Counts:
    """A count map from outside (JSON, a form) as ints, with only its non-zero entries."""
    return count_maps.nonzero({c: int(n) for c, n in (counts or {}).items()})


def add(a: dict[str, int], b: dict[str, int], sign: int = 1) -> Counts:
    """``a + b`` (or ``a - b`` with ``sign=-1``) colour by colour, non-zero entries only."""
    if sign not in (1, -1):
        raise ValueError(f"sign must be 1 or -1, not {sign}")
    b = clean(b)
    return count_maps.add(a, b) if sign == 1 else count_maps.subtract(a, b)


def vouched(state: dict[str, Any]) -> dict[str, Any] | None:
    """The host's word on the tray (``tray_override``), while the tray is still the one vouched for."""
    word: dict[str, Any] | None = state.get("tray_vouched")
    if word is None or clean(word["tray"]) != clean(state["tray"]):
        return None
    return word


def under_way(state: dict[str, Any]) -> bool:
    """A game someone would miss: the tower was filled or a drop planned, and it was not ended."""
    return not state.get("ended") and (bool(state.get("filled")) or state.get("drop") is not None
                                       or int(state.get("drops_done", 0)) > 0)


def given_counts(counts: dict[str, Any]) -> str:
    """Counts as the person gave them, in words (``red=3, pink=1``), never a Python dict."""
    return ", ".join(f"{c}={n}" for c, n in counts.items()) or "nothing"


def total_of(colour: str) -> int:
    return cubes_in_game(colour)


def colours(state: dict[str, Any]) -> list[str]:
    return [*state["players"], PEASANTS]


def check_player(state: dict[str, Any], player: str | None, what: str) -> None:
    if player is not None and player not in state["players"]:
        raise SessionError(f"{what} {player!r} is not a player of this session ({', '.join(state['players'])})")


IMMUNITIES = ("A", "B", "both")
"""What favor cards #10, #11 and #18 protect against: Combat/Movement A, B, or either."""


def immunities(immune: list[str] | dict[str, str] | None) -> dict[str, str]:
    """The round's immune players as ``{player: "A" | "B" | "both"}``; a bare list (the older form,
    and the records made before the map) means immune to both actions."""
    if immune is None:
        return {}
    if isinstance(immune, dict):
        return dict(immune)
    return dict.fromkeys(immune, "both")


def parry_card_holder(state: dict[str, Any]) -> str | None:
    """The player keeping favor card #4, if any (records made before the card was kept have none)."""
    holder: str | None = state.get("parry_card")
    return holder


def fill_in_round(state: dict[str, Any], battle: dict[str, Any]) -> None:
    """What the session knows of the round and the favor cards, filled into ``battle`` where it
    does not say: the event, the bonus tiles, each immune player's card (the map form of
    ``immune``), and ``parry_revolt_marker`` for a revolt against the holder of favor card #4."""
    rnd = state["round"]
    battle.setdefault("event", rnd["event"])
    battle.setdefault("bonus_tiles", dict(rnd["bonus_tiles"]))
    battle.setdefault("immune", immunities(rnd["immune"]))
    holder = parry_card_holder(state)
    if battle.get("battle") == "revolt" and holder is not None and battle.get("defender") == holder:
        battle.setdefault("parry_revolt_marker", True)


def supply_for_battle(state: dict[str, Any]) -> Counts:
    """Every session colour's supply, 0 included: the contract's ``supply`` map must name every
    colour a battle may draw on, so an empty supply is said, never left out."""
    return {c: state["supply"].get(c, 0) for c in colours(state)}


def armies_named(battle: dict[str, Any]) -> Counts:
    """Armies a battle says stand on the map: the attacker's origin county and the contested county."""
    out: dict[str, int] = {}
    kind = battle.get("battle")
    if kind == "attack" and isinstance(battle.get("attacker"), str):
        origin = battle.get("origin_armies") or 0
        armies = battle.get("attacking_armies") or 0
        if isinstance(origin, int) and isinstance(armies, int):
            out[battle["attacker"]] = max(origin, armies)
    if kind in ("attack", "revolt", "winter_revolt") and isinstance(battle.get("defender"), str):
        armies = battle.get("defending_armies") or 0
        if isinstance(armies, int):
            out[battle["defender"]] = out.get(battle["defender"], 0) + armies
    return out


def shortfall_on_board(state: dict[str, Any], on_map: Counts) -> Counts:
    """Armies a battle takes from the map beyond what the session has seen deployed there.

    The station does not watch the map, so when a battle names more armies than the account holds
    they are taken to have been deployed from the supply earlier; the drop's record says so."""
    short = {}
    for colour, n in on_map.items():
        if colour not in state["players"]:
            continue  # the engine names an unknown colour better
        have = state["board"].get(colour, 0)
        if n > have:
            short[colour] = n - have
    for colour, n in short.items():
        if state["supply"].get(colour, 0) < n:
            raise SessionError(
                f"the battle names {on_map[colour]} {colour} armies on the map, but the session knows "
                f"of only {state['board'].get(colour, 0)} there and {state['supply'].get(colour, 0)} in supply")
    return short


def conservation(state: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Per colour: where its cubes are, their sum, and the number the game has of them."""
    out = {}
    drop = state.get("drop")
    funnel = drop.get("funnel", {}) if drop and drop.get("phase") not in ("resolved",) else {}
    for colour in colours(state):
        row = {
            "supply": state["supply"].get(colour, 0),
            "board": state["board"].get(colour, 0),
            "tray": state["tray"].get(colour, 0),
            "tower": state["tower"].get(colour, 0),
            "in_flight": funnel.get(colour, 0),
        }
        row["total"] = sum(row.values())
        row["expected"] = total_of(colour)
        out[colour] = row
    return out


def conservation_errors(state: dict[str, Any]) -> list[str]:
    return [f"{colour}: {row['total']} cubes accounted for, the game has {row['expected']}"
            for colour, row in conservation(state).items() if row["total"] != row["expected"]]
