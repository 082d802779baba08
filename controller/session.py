"""The game state that matters for battles, as plain JSON-able data.

The station cannot see the board, so it keeps an account of every cube by colour, in five places:
the personal supply (``green``: the common supply of peasants), the armies on the map
(``board``, all counties together), the tray, the tower (the ledger, exact from the initial fill
on), and the funnel while a drop is in flight. Every change is made by one of the functions here,
which the drop cycle calls when it commits a record, so that "every colour's cube total is
conserved" is a property of this module (checked by ``controller.accounts.conservation``) and
not a hope.

Also kept: the players and their colours, whether the Emperor's Court is in play, the courtiers
each player has deployed, the round's event, bonus tiles and each immune player's favor card
(#10, #11, #18: immune to Combat/Movement A, B or both), and who keeps favor card #4 to parry the
next revolt marker; the drop cycle fills these into each battle so that nobody has to repeat them,
and a revolt its holder wins spends card #4.
"""

from __future__ import annotations

import copy
import time
from typing import Any

# SessionError, clean, conservation_errors, fill_in_round and supply_for_battle are read here too
from controller.accounts import (  # noqa: F401
    IMMUNITIES,
    SessionError,
    add,
    check_player,
    clean,
    colours,
    conservation_errors,
    fill_in_round,
    given_counts,
    immunities,
    supply_for_battle,
    vouched,
)
from controller.wording import action_phrase, plural
from engine.colours import CUBES_PER_PLAYER, PEASANT_CUBES, PEASANTS, PLAYER_COLOURS
from engine.court import COURTIERS_PER_PLAYER, convert_from_tray
from engine.events import Event
from engine.supply import Supplies
from engine.tray import place_armies_into_tray

# What is in the box (cubes per colour, courtiers per player) is the engine's to say; the session
# only keeps the account of where those cubes are.

Counts = dict[str, int]


def _armies(n: int) -> str:
    return plural(n, "army", "armies")


def new_state(players: list[str], emperors_court: bool, session_id: int = 1) -> dict[str, Any]:
    """A fresh game: every cube in its supply, an empty tray, an empty tower, no courtiers."""
    if not 3 <= len(players) <= 5:  # the initial fill (engine) refuses any other count: say so now
        raise SessionError(f"a game of Wallenstein is for 3 to 5 players, not {len(players)}")
    unknown = [p for p in players if p not in PLAYER_COLOURS]
    if unknown:
        raise SessionError(f"unknown player colour \"{unknown[0]}\": choose from {', '.join(PLAYER_COLOURS)}")
    if len(set(players)) != len(players):
        raise SessionError("each player colour can be taken only once")
    supply = {p: CUBES_PER_PLAYER for p in players}
    supply[PEASANTS] = PEASANT_CUBES
    return {
        "session_id": session_id,
        "started": time.time(),
        "players": list(players),
        "emperors_court": bool(emperors_court),
        "supply": supply,
        "board": {},
        "tray": {},
        "tower": {},
        "filled": False,
        "courtiers": {},
        "round": {"event": None, "bonus_tiles": {"attack_plus_one": None, "defence_plus_one": None},
                  "immune": {}},
        "parry_card": None,
        "drop": None,
        "next_drop_id": 1,
        "drops_done": 0,
    }


def set_round(state: dict[str, Any], event: str | None, bonus_tiles: dict[str, str | None] | None,
              immune: list[str] | dict[str, str] | None) -> dict[str, Any]:
    """The round's event card, bonus tiles, and the favor card (#10, #11, #18) each immune player
    holds: ``immune`` maps a player to the action it protects against (``"A"``, ``"B"``, ``"both"``);
    a list names players immune to both."""
    new = copy.deepcopy(state)
    tiles = {"attack_plus_one": None, "defence_plus_one": None, **(bonus_tiles or {})}
    for key, owner in tiles.items():
        if key not in ("attack_plus_one", "defence_plus_one"):
            raise SessionError(f"unknown bonus tile {key!r}")
        check_player(state, owner, f"the owner of {key}")
    if tiles["attack_plus_one"] is not None and tiles["attack_plus_one"] == tiles["defence_plus_one"]:
        raise SessionError(f"{tiles['attack_plus_one']} cannot hold both combat bonus tiles: "
                           "each player takes one tile a round")
    if isinstance(immune, list) and len(set(immune)) != len(immune):
        raise SessionError("each immune player is named once")
    cards = immunities(immune)
    for player, protects in cards.items():
        check_player(state, player, "the immune player")
        if protects not in IMMUNITIES:
            raise SessionError(f"{player}'s favor card protects against Combat/Movement A, B or both, "
                               f"not {protects!r}")
    if event is not None and event not in {e.value for e in Event}:  # a typo must not wait for the next plan
        raise SessionError(f"unknown event {event!r}: choose from {', '.join(e.value for e in Event)}")
    ordered = {p: cards[p] for p in state["players"] if p in cards}
    new["round"] = {"event": event, "bonus_tiles": tiles, "immune": ordered}
    return new


def keep_parry_card(state: dict[str, Any], player: str | None) -> dict[str, Any]:
    """Who keeps favor card #4 to parry the next revolt marker in one of their counties (``None``:
    nobody, e.g. it was spent on a marker placed without a battle). There is one such card."""
    check_player(state, player, "the holder of favor card #4")
    if player is not None and not state["emperors_court"]:
        raise SessionError("favor cards belong to the Emperor's Court, which is not in play in this session")
    new = copy.deepcopy(state)
    new["parry_card"] = player
    return new


def deploy(state: dict[str, Any], player: str, armies: int) -> dict[str, Any]:
    """Armies placed from the player's supply on the map (negative: taken back to the supply)."""
    check_player(state, player, "player")
    new = copy.deepcopy(state)
    if armies > 0 and state["supply"].get(player, 0) < armies:
        raise SessionError(f"{player} has only {_armies(state['supply'].get(player, 0))} in supply, not {armies}")
    if armies < 0 and state["board"].get(player, 0) < -armies:
        raise SessionError(f"{player} has only {_armies(state['board'].get(player, 0))} on the map, not {-armies}")
    new["supply"] = add(state["supply"], {player: armies}, -1)
    new["board"] = add(state["board"], {player: armies})
    new["supply"].setdefault(player, 0)
    return new


def apply_deployment(state: dict[str, Any], assumed_deployed: Counts) -> dict[str, Any]:
    """Armies taken to have been deployed from the supply before this battle (see ``shortfall_on_board``)."""
    if not assumed_deployed:
        return state
    new = copy.deepcopy(state)
    new["supply"] = add(state["supply"], assumed_deployed, -1)
    new["board"] = add(state["board"], assumed_deployed)
    for colour in colours(state):
        new["supply"].setdefault(colour, 0)
    return new


def apply_plan(state: dict[str, Any], drop_id: int, battle: dict[str, Any], plan: dict[str, Any],
               odds: dict[str, Any] | None = None) -> dict[str, Any]:
    """Cubes leave the supplies, the counties and the tray for the funnel; the drop keeps the odds
    expected before its release, and the host's word on the tray (which covers one plan) is spent."""
    new = copy.deepcopy(state)
    new["supply"] = add(state["supply"], plan.get("from_supply", {}), -1)
    new["board"] = add(state["board"], plan.get("from_county", {}), -1)
    new["tray"] = add(state["tray"], plan.get("from_tray", {}), -1)
    for colour in colours(state):
        new["supply"].setdefault(colour, 0)
    new["drop"] = {"drop_id": drop_id, "phase": "planned", "battle": battle, "plan": plan,
                   "funnel": clean(plan.get("drop", {})), "odds": odds}
    new["next_drop_id"] = drop_id + 1
    new.pop("tray_vouched", None)
    return new


def set_phase(state: dict[str, Any], phase: str, **extra: Any) -> dict[str, Any]:
    new = copy.deepcopy(state)
    if new["drop"] is None:
        raise SessionError("no drop is in flight")
    new["drop"]["phase"] = phase
    new["drop"].update(extra)
    return new


def apply_resolution(state: dict[str, Any], tray_after: Counts, result: dict[str, Any]) -> dict[str, Any]:
    """The tray was read and the engine resolved the battle: cubes return to supplies and county,
    the ledger takes what stayed in the tower, and the tray keeps the uninvolved factions."""
    new = copy.deepcopy(state)
    drop = state["drop"]
    battle = drop["battle"]
    new["tower"] = add(state["tower"], result.get("tower_delta", {}))
    new["supply"] = add(state["supply"], result.get("to_supply", {}))
    new["board"] = add(state["board"], result.get("to_county", {}))
    new["tray"] = clean(result.get("tray_remaining", {}))
    for colour in colours(state):
        new["supply"].setdefault(colour, 0)
    if battle.get("battle") == "initial_fill":
        new["filled"] = True
        new["courtiers"] = add(state["courtiers"], result.get("courtiers") or {})
    if battle.get("parry_revolt_marker"):
        # favor card #4 is spent by the revolt its holder wins; a lost one (or a corrected reading
        # that turns the win into a loss) leaves it with them
        won = result.get("outcome") == "defender_wins"
        new["parry_card"] = None if won else battle.get("defender")
    new["drop"] = {**drop, "phase": "resolved", "tray_after": clean(tray_after), "result": result,
                   "needs_confirmation": False}
    return new


def finish_drop(state: dict[str, Any]) -> dict[str, Any]:
    new = copy.deepcopy(state)
    new["drop"] = None
    new["drops_done"] = state["drops_done"] + 1
    return new


def court_convert(state: dict[str, Any], player: str, cubes: int) -> tuple[dict[str, Any], bool, str]:
    """A dice-tower card: ``cubes`` of the player's own armies lying in the tray become courtiers.

    Returns the new state, whether the action was performed, and why not; as the rules say, an
    action that cannot be completed (too few own cubes in the tray, too few courtiers left) is not
    performed at all."""
    check_player(state, player, "player")
    if not state["emperors_court"]:
        raise SessionError("the Emperor's Court is not in play in this session")
    if cubes not in (1, 2, 3):
        raise SessionError("a dice-tower card converts 1, 2 or 3 armies")
    if state["drop"] is not None:
        raise SessionError(f"drop {state['drop']['drop_id']} is still in flight; finish it first")
    left = COURTIERS_PER_PLAYER - state["courtiers"].get(player, 0)
    conversion, tray = convert_from_tray(player, cubes, state["tray"], courtiers_in_supply=left)
    if not conversion.performed:
        return state, False, f"{conversion.reason}: not performed"
    new = copy.deepcopy(state)
    new["tray"] = clean(tray)
    new["supply"] = add(state["supply"], {player: conversion.armies_to_supply})
    new["courtiers"] = add(state["courtiers"], {player: conversion.courtiers_placed})
    return new, True, f"{player} converts {cubes} arm{'y' if cubes == 1 else 'ies'} from the tray into courtiers"


def court_return(state: dict[str, Any], player: str, courtiers: int) -> dict[str, Any]:
    """Courtiers leave the Emperor's Court back to the player's supply (spent on a favor card, or
    sent home at the end of a round), so that they can be deployed again."""
    check_player(state, player, "player")
    placed = state["courtiers"].get(player, 0)
    if courtiers < 1 or courtiers > placed:
        raise SessionError(f"{player} has {placed} courtiers at the court; cannot return {courtiers}")
    new = copy.deepcopy(state)
    new["courtiers"] = add(state["courtiers"], {player: courtiers}, -1)
    return new


TRAY_SOURCES = ("favor", "bonus")


def place_into_tray(state: dict[str, Any], player: str, armies: int, source: str) -> tuple[dict[str, Any], int]:
    """A favor card (#3, #8, #14 of the Emperor's Court) or the bonus-card benefit puts armies from
    the player's own supply into the tray, to fall with the next battle.

    The engine's rule decides how many (``engine.tray``): a supply too short to pay the whole gift
    pays what it has. Returns the new state and the number of armies placed."""
    check_player(state, player, "player")
    if source not in TRAY_SOURCES:
        raise SessionError(f"armies are placed into the tray by a favor card or a bonus card, not {source!r}")
    if source == "favor" and not state["emperors_court"]:
        raise SessionError("favor cards belong to the Emperor's Court, which is not in play in this session; "
                           "use the bonus-card source for the bonus-card benefit")
    if isinstance(armies, bool) or not isinstance(armies, int) or armies < 1:
        raise SessionError(f"a card places a whole number of armies >= 1 into the tray, not {armies!r}")
    if not state["filled"]:
        raise SessionError("fill the tower first (`tower fill`): cards place armies into the tray during the game")
    if state["drop"] is not None:
        raise SessionError(f"drop {state['drop']['drop_id']} is still in flight; finish it first")
    supplies = Supplies({c: n for c, n in state["supply"].items() if c in colours(state)})
    placement = place_armies_into_tray(supplies, state["tray"], player, armies)
    new = copy.deepcopy(state)
    new["supply"] = {c: placement.supplies.available(c) for c in colours(state)}
    new["tray"] = clean(placement.tray)
    return new, placement.placed


def set_tray(state: dict[str, Any], counts: dict[str, int]) -> tuple[dict[str, Any], Counts]:
    """The host says what the tray really holds. A cube more than the account expects was taken
    from its colour's supply (a player put it there); a cube fewer went back to it, so every cube
    stays accounted for. Returns the new state and what moved from the supplies into the tray."""
    bad = {c: n for c, n in counts.items() if c not in colours(state) and n}
    if bad or any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts.values()):
        raise SessionError(f"the tray's counts are whole numbers >= 0 for the session's colours "
                           f"({', '.join(colours(state))}), got {given_counts(counts)}")
    moved = add(clean(counts), state["tray"], -1)
    short = {c: n for c, n in moved.items() if n > state["supply"].get(c, 0)}
    if short:
        raise SessionError("the tray cannot hold that many: " + ", ".join(
            f"{c} has only {plural(state['supply'].get(c, 0), 'cube')} in supply, {n} more than expected "
            f"{'lies' if n == 1 else 'lie'} in the tray"
            for c, n in short.items()))
    new = copy.deepcopy(state)
    new["supply"] = add(state["supply"], moved, -1)
    for colour in colours(state):
        new["supply"].setdefault(colour, 0)
    new["tray"] = clean(counts)
    return new, moved


def cancel_plan(state: dict[str, Any]) -> dict[str, Any]:
    """A planned drop given up before its release: its cubes go back where they came from."""
    plan = state["drop"]["plan"]
    new = dict(state)
    new["supply"] = add(state["supply"], plan.get("from_supply", {}))
    new["board"] = add(state["board"], plan.get("from_county", {}))
    new["tray"] = add(state["tray"], plan.get("from_tray", {}))
    new["drop"] = None
    return new


def undo_resolution(state: dict[str, Any]) -> dict[str, Any]:
    """A resolved drop back to its reading (before a correction re-resolves it)."""
    drop = state["drop"]
    result = drop["result"]
    new = dict(state)
    new["tower"] = add(state["tower"], result.get("tower_delta", {}), -1)
    new["supply"] = add(state["supply"], result.get("to_supply", {}), -1)
    new["board"] = add(state["board"], result.get("to_county", {}), -1)
    new["tray"] = {}
    for colour in colours(state):
        new["supply"].setdefault(colour, 0)
    if drop["battle"].get("battle") == "initial_fill":
        new["filled"] = False
        new["courtiers"] = add(state["courtiers"], result.get("courtiers") or {}, -1)
    new["drop"] = {k: v for k, v in drop.items() if k not in ("result", "tray_after")}
    return new


def add_correction(state: dict[str, Any], correction: dict[str, Any]) -> dict[str, Any]:
    """The host's correction (or confirmation) of a reading: the drop is counted again, with it."""
    new = set_phase(state, "counted")
    new["drop"]["corrections"] = [*state["drop"].get("corrections", []), correction]
    return new


def vouch_tray(state: dict[str, Any], counts: dict[str, int] | None, who: str,
               when: float) -> tuple[dict[str, Any], Counts]:
    """The host vouches for the tray: as the session expects it (``counts`` None) or as ``counts``
    (the difference from, or back to, the supplies). The state, and what came from the supplies."""
    if counts is None:
        new, moved = dict(state), dict[str, int]()
    else:
        new, moved = set_tray(state, counts)
    new["tray_vouched"] = {"tray": clean(new["tray"]), "who": who, "when": when}
    return new, moved


def carry_vouched(state: dict[str, Any], new: dict[str, Any], why: str) -> None:
    """The host's word on the tray survives a change the station itself made to it (a court
    conversion, armies a card placed): the tray it vouched for, plus that known change, is still
    vouched for. Without a word in force there is nothing to carry."""
    word = vouched(state)
    if word is None:
        new.pop("tray_vouched", None)
        return
    new["tray_vouched"] = {**word, "tray": clean(new["tray"]), "carried_over": why}


UNDOABLE = ("round", "parry_card", "deploy", "court_convert", "court_return", "tray_placement", "session_new")
"""Between-battle actions that an undo can take back (never a drop's own records)."""

UNDO_DEPTH = 20


def with_undo(old: dict[str, Any] | None, new: dict[str, Any], kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """``new`` with the state before this action pushed onto its undo stack (the first session has no
    state before it, so it cannot be undone)."""
    if old is None:
        return new
    before = {k: v for k, v in old.items() if k != "undo"}
    stack = [] if kind == "session_new" else list(old.get("undo") or [])
    entry = {"kind": kind, "text": action_phrase(kind, payload), "before": before}
    return {**new, "undo": [*stack, entry][-UNDO_DEPTH:]}


def without_undo(state: dict[str, Any]) -> dict[str, Any]:
    """A battle ends what can be undone: its cubes fell on the state before it."""
    return {k: v for k, v in state.items() if k != "undo"}


def undo_last(state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The state before the last between-battle action, and that action's undo entry. A resolved
    drop waiting for its clean-up (or cleaned since) stays as it is; an undone new session brings
    the old game back, drop ids staying unique."""
    stack = list(state.get("undo") or [])
    last = stack.pop()
    restored = {**last["before"], "undo": stack}
    if last["kind"] == "session_new":
        restored["next_drop_id"] = max(restored["next_drop_id"], state["next_drop_id"])
    else:
        for key in ("drop", "drops_done", "next_drop_id"):
            restored[key] = state[key]
    return restored, last


def end_game(state: dict[str, Any], who: str, when: float, summary: dict[str, Any]) -> dict[str, Any]:
    """The game ends: its summary kept in the state for the page; nothing left to undo."""
    new = without_undo(state)
    new["ended"] = {"who": who, "when": when, "summary": summary}
    return new
