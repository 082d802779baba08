"""Say what a resolved battle means at the table: one sentence, then what to do with each cube."""

from __future__ import annotations

from typing import Any

from controller.wording import counts_phrase, plural

PEASANTS = "green"


def _cubes(counts: dict[str, int]) -> str:
    """One name per colour: the peasants' cubes are "green" here as on the swatches and in the tables."""
    return counts_phrase(counts)


def _side(battle: dict[str, Any]) -> tuple[str, str]:
    kind = battle.get("battle")
    if kind in ("revolt", "winter_revolt"):
        return "the peasants", str(battle.get("defender"))
    defender = battle.get("defender")
    return str(battle.get("attacker")), "the neutral county's peasants" if defender is None else str(defender)


def summary(battle: dict[str, Any], result: dict[str, Any]) -> str:
    kind = battle.get("battle")
    if kind == "initial_fill":
        remaining = result.get("tray_remaining", {})
        text = "The tower is filled: " + (f"{_cubes(remaining)} stay in the tray" if remaining else "the tray is cleared")
        if result.get("courtiers"):
            text += f"; courtiers to the Emperor's Court: {_cubes(result['courtiers'])}"
        return text + "."
    attacker, defender = _side(battle)
    a, d = result.get("attacker_in_tray", 0), result.get("defender_in_tray", 0)
    outcome = result.get("outcome")
    if outcome == "attacker_wins":
        head = f"{attacker.capitalize()} win{'s' if attacker != 'the peasants' else ''}"
    elif outcome == "defender_wins":
        head = f"{defender.capitalize()} win{'s' if not defender.startswith('the') else ''}"
    else:
        head = "A tie: the county is cleared"
    name = {"attack": "the attack", "revolt": "the revolt", "winter_revolt": "the winter revolt"}.get(str(kind), "the battle")
    if outcome == "defender_wins":
        a, d = d, a  # the winner's strength first: "Yellow wins the revolt, 3 against 1"
    return f"{head} {name}, {a} against {d} in the tray." if outcome != "tie" else f"{head} ({a} against {d} in the tray)."


def instructions(battle: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """Each thing the players do with the tray and the county, in the order they do it."""
    out = []
    for colour, n in sorted(result.get("to_supply", {}).items()):
        where = "the common supply" if colour == PEASANTS else f"{colour}'s supply"
        out.append(f"Take {n} {colour} from the tray back to {where}.")
    for colour, n in sorted(result.get("to_county", {}).items()):
        out.append(f"Place {n} {colour} from the tray in the county.")
    if result.get("tray_remaining"):
        out.append(f"Leave {_cubes(result['tray_remaining'])} in the tray.")
    if result.get("courtiers"):
        for colour, n in sorted(result["courtiers"].items()):
            out.append(f"{colour.capitalize()} places {plural(n, 'courtier')} in the Emperor's Court's entrance hall.")
    county = result.get("county")
    if county:
        card = {"kept": "The county card stays with its owner.",
                "transferred": f"The county card goes to {county.get('owner')}.",
                "to_common_supply": "The county card goes to the common supply.",
                "taken_from_deck": f"{str(county.get('owner')).capitalize()} takes the county card from the deck.",
                "stays_in_deck": "The county card stays in the deck."}.get(county.get("card"), "")
        if card:
            out.append(card)
        if county.get("buildings_removed"):
            out.append("Remove the county's buildings.")
        markers = county.get("revolt_markers", 0)
        before = battle.get("revolt_markers", 0) or 0
        if markers != before:
            out.append(f"Revolt markers in the county: {before} -> {markers}.")
    return out
