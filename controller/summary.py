"""Say what a resolved battle means at the table: one sentence, then what to do with each cube."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.i18n import gettext_for
from controller.wording import counts_phrase

PEASANTS = "green"


def _tr(lang: str) -> Callable[[str], str]:
    return gettext_for(lang).gettext


def _cubes(counts: dict[str, int], lang: str = "en") -> str:
    """One name per colour: the peasants' cubes are "green" here as on the swatches and in the tables."""
    return counts_phrase(counts, lang=lang)


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _side(battle: dict[str, Any]) -> tuple[str, str]:
    kind = battle.get("battle")
    if kind in ("revolt", "winter_revolt"):
        return "the peasants", str(battle.get("defender"))
    defender = battle.get("defender")
    return str(battle.get("attacker")), "the neutral county's peasants" if defender is None else str(defender)


def summary(battle: dict[str, Any], result: dict[str, Any], lang: str = "en") -> str:
    """One sentence: who won, and by how much (in ``lang``: "en" or "de", from the gettext catalogue)."""
    tr = _tr(lang)
    kind = battle.get("battle")
    if kind == "initial_fill":
        remaining = result.get("tray_remaining", {})
        text = (tr("The tower is filled: {cubes} stay in the tray").format(cubes=_cubes(remaining, lang)) if remaining
                else tr("The tower is filled: the tray is cleared"))
        if result.get("courtiers"):
            text += tr("; courtiers to the Emperor's Court: {cubes}").format(cubes=_cubes(result["courtiers"], lang))
        return text + "."
    attacker, defender = _side(battle)
    a, d = result.get("attacker_in_tray", 0), result.get("defender_in_tray", 0)
    outcome = result.get("outcome")
    if outcome == "tie":
        return tr("A tie: the county is cleared ({a} against {d} in the tray).").format(a=a, d=d)
    winner = attacker if outcome == "attacker_wins" else defender
    name = {"attack": "the attack", "revolt": "the revolt", "winter_revolt": "the winter revolt"}.get(str(kind), "the battle")
    if outcome == "defender_wins":
        a, d = d, a  # the winner's strength first: "Yellow wins the revolt, 3 against 1"
    many = winner.startswith("the ")  # "the peasants win", "Blue wins"
    template = ("{winner} win {battle}, {a} against {d} in the tray." if many
                else "{winner} wins {battle}, {a} against {d} in the tray.")
    return tr(template).format(winner=_upper_first(tr(winner)), battle=tr(name), a=a, d=d)


def instructions(battle: dict[str, Any], result: dict[str, Any], lang: str = "en") -> list[str]:
    """Each thing the players do with the tray and the county, in the order they do it."""
    tr = _tr(lang)
    out = []
    for colour, n in sorted(result.get("to_supply", {}).items()):
        if colour == PEASANTS:
            out.append(tr("Take {n} {colour} from the tray back to the common supply.").format(n=n, colour=tr(colour)))
        else:
            out.append(tr("Take {n} {colour} from the tray back to {player}'s supply.").format(
                n=n, colour=tr(colour), player=tr(colour)))
    for colour, n in sorted(result.get("to_county", {}).items()):
        out.append(tr("Place {n} {colour} from the tray in the county.").format(n=n, colour=tr(colour)))
    if result.get("tray_remaining"):
        out.append(tr("Leave {cubes} in the tray.").format(cubes=_cubes(result["tray_remaining"], lang)))
    if result.get("courtiers"):
        for colour, n in sorted(result["courtiers"].items()):
            template = ("{player} places 1 courtier in the Emperor's Court's entrance hall." if n == 1
                        else "{player} places {n} courtiers in the Emperor's Court's entrance hall.")
            out.append(tr(template).format(player=_upper_first(tr(colour)), n=n))
    county = result.get("county")
    if county:
        owner = tr(str(county.get("owner")))
        card = {"kept": tr("The county card stays with its owner."),
                "transferred": tr("The county card goes to {owner}.").format(owner=owner),
                "to_common_supply": tr("The county card goes to the common supply."),
                "taken_from_deck": tr("{owner} takes the county card from the deck.").format(owner=_upper_first(owner)),
                "stays_in_deck": tr("The county card stays in the deck.")}.get(county.get("card"), "")
        if card:
            out.append(card)
        if county.get("buildings_removed"):
            out.append(tr("Remove the county's buildings."))
        markers = county.get("revolt_markers", 0)
        before = battle.get("revolt_markers", 0) or 0
        if markers != before:
            out.append(tr("Revolt markers in the county: {before} -> {after}.").format(before=before, after=markers))
    return out


def localise_ended(ended: Any, lang: str) -> Any:
    """The game's end (``status()["ended"]``) with each battle's sentence in ``lang``."""
    if lang == "en" or not isinstance(ended, dict) or not isinstance(ended.get("summary"), dict):
        return ended
    rows = [{**row, "text": summary(row["sides"], row["score"], lang)} if row.get("sides") and row.get("score") else row
            for row in ended["summary"].get("battles", [])]
    return {**ended, "summary": {**ended["summary"], "battles": rows}}


def localise(view: Any, lang: str) -> Any:
    """A drop view (``Table.drop``, ``status()["drop"]``, a history item) with its summary and
    instructions in ``lang`` (the page's language); English views are returned as they are."""
    if lang == "en" or not isinstance(view, dict) or not view.get("resolution") or not view.get("battle"):
        return view
    return {**view, "summary": summary(view["battle"], view["resolution"], lang),
            "instructions": instructions(view["battle"], view["resolution"], lang)}
