"""What a person reads: counts in words, plurals, and the engine's JSON paths turned into flags or labels.

The engine speaks the battle JSON contract (``$.attacking_armies must be at least 1``), which is right
for a program but not for a host at the table, who typed ``--armies`` or filled in "attacking armies".
Everything the CLI and the page show passes through here, so that no Python repr (``{'red': 2}``,
``None``) and no JSON path reaches a person. One name per thing: the peasants' cubes are "green".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from controller.i18n import gettext_for
from engine.colours import PALETTE

COLOUR_NAMES = {c: c for c in PALETTE}
"""One name per colour, the same in the CLI, the page and the instructions: the peasants' cubes are green."""


def plural(n: int, one: str, many: str | None = None) -> str:
    """``plural(1, "revolt marker") == "1 revolt marker"``, ``plural(2, "army", "armies") == "2 armies"``."""
    return f"{n} {one if n == 1 else (many if many is not None else one + 's')}"


def counts_phrase(counts: Mapping[str, int] | None, empty: str = "nothing", lang: str = "en") -> str:
    """``{"red": 2, "green": 1}`` -> ``"2 red and 1 green"`` in the palette's order; empty -> ``empty``
    (``lang="de"``: the colour names and the "and" from the German catalogue)."""
    tr = _translator(lang)
    items = [(c, int(n)) for c, n in sorted((counts or {}).items(), key=lambda kv: _order(kv[0])) if n]
    if not items:
        return tr(empty)
    parts = [f"{n} {tr(COLOUR_NAMES.get(c, c))}" for c, n in items]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + tr(" and ") + parts[-1]


def _translator(lang: str) -> Callable[[str], str]:
    if lang == "en":
        return lambda text: text
    return gettext_for(lang).gettext


def difference_phrase(seen: Mapping[str, int], expected: Mapping[str, int]) -> str:
    """What the tray holds beyond (or short of) what was expected: ``"1 red too few, 2 yellow too many"``."""
    parts = []
    for colour in sorted(set(seen) | set(expected), key=_order):
        diff = int(seen.get(colour, 0)) - int(expected.get(colour, 0))
        if diff:
            parts.append(f"{abs(diff)} {COLOUR_NAMES.get(colour, colour)} too {'many' if diff > 0 else 'few'}")
    return ", ".join(parts) if parts else "no difference"


def _order(colour: str) -> int:
    return PALETTE.index(colour) if colour in PALETTE else len(PALETTE)


# -- the engine's JSON paths, as the person typed them ------------------------------------------------------

CLI_ATTACK = {"attacking_armies": "--armies", "defending_armies": "--defending", "defender": "--defender",
              "attacker": "--attacker", "origin_armies": "--origin-armies", "revolt_markers": "--revolt-markers",
              "buildings": "--buildings", "action": "--action",
              "event": "the round's event (tower session round --event)",
              "bonus_tiles": "the round's bonus tiles (tower session round)",
              "immune": "the round's immune players (tower session round --immune)"}
"""``tower battle attack``'s flags for the battle JSON's keys."""

CLI_COUNTY = {**CLI_ATTACK, "defending_armies": "--armies", "defender": "--player", "unsupplied_counties": "--unsupplied"}
"""``tower battle revolt`` and ``winter-revolt``: the county's owner is ``--player``, its armies ``--armies``."""

WEB_LABELS = {"attacking_armies": "the attacking armies", "defending_armies": "the defending armies",
              "defender": "the defender", "attacker": "the attacker", "origin_armies": "the armies in the origin",
              "revolt_markers": "the revolt markers", "buildings": "the buildings", "action": "the action card",
              "event": "the round's event", "bonus_tiles": "the round's bonus tiles",
              "immune": "the round's immune players", "unsupplied_counties": "the unsupplied counties",
              "tray_after": "the tray's reading", "tray_before": "the tray", "tower_before": "the tower",
              "supply": "the supplies", "players": "the players", "battle": "the kind of battle"}
"""The page's form labels for the battle JSON's keys."""

_PATH = re.compile(r"\$\.([a-z_]+)(?:\.([a-z_]+))?|\$(?![\w.])")
_SET_NULL = re.compile(r"set (\w+) to null")
_SET_ZERO = re.compile(r"set (\w+) to 0")
_QUOTED_KEY = re.compile(r"'([a-z_]+)'")


def for_person(message: str, names: Mapping[str, str]) -> str:
    """``message`` with each JSON path and battle key replaced by the name the person knows it by.

    ``names`` maps the battle JSON's keys to flags (the CLI) or labels (the page); a path into a
    count map (``$.supply.blue``) becomes "the supplies' blue". Keys the person never gave are
    named by the page's labels, which read as plain words in either place."""
    def name(key: str) -> str:
        return names.get(key) or WEB_LABELS.get(key) or key.replace("_", " ")

    def path(m: re.Match[str]) -> str:
        if m.group(1) is None:
            return "the battle"
        key, sub = m.group(1), m.group(2)
        return f"{name(key)} ({sub})" if sub else name(key)

    text = _PATH.sub(path, message)
    text = _SET_NULL.sub(lambda m: f"leave out {name(m.group(1))}" if name(m.group(1)).startswith("--")
                         else f"leave {name(m.group(1))} empty", text)
    text = _SET_ZERO.sub(lambda m: f"set {name(m.group(1))} to 0", text)
    text = _QUOTED_KEY.sub(lambda m: name(m.group(1)) if m.group(1) in names or m.group(1) in WEB_LABELS
                           else m.group(0), text)
    text = re.sub(r"\b(attacking_armies|defending_armies|origin_armies|revolt_markers|unsupplied_counties)\b",
                  lambda m: name(m.group(1)), text)
    return text


def error_text(err: BaseException, names: Mapping[str, str]) -> str:
    """An error's sentence for a person: its ``message`` (or ``str``) with JSON paths in words."""
    message = getattr(err, "message", None) or str(err) or type(err).__name__
    return for_person(str(message), names)


def looks_like_python(text: str) -> str | None:
    """What in ``text`` is Python or JSON rather than words (for the tests that walk every message)."""
    for mark in ("{'", "{\"", "[]", "None", "$.", "['", "True", "False", "null"):
        if mark in text:
            return mark
    return None


def round_phrase(rnd: Mapping[str, Any] | None) -> str:
    """The round's settings in words: event, bonus tiles, immune players."""
    rnd = rnd or {}
    parts = [f"event: {str(rnd['event']).replace('_', ' ')}" if rnd.get("event") else "no event"]
    tiles = rnd.get("bonus_tiles") or {}
    parts.append(f"attack +1 tile: {tiles.get('attack_plus_one') or 'nobody'}")
    parts.append(f"defence +1 tile: {tiles.get('defence_plus_one') or 'nobody'}")
    immune = rnd.get("immune") or {}
    if isinstance(immune, list):
        immune = dict.fromkeys(immune, "both")
    if immune:
        what = {"A": "Combat/Movement A", "B": "Combat/Movement B", "both": "both actions"}
        parts.append("immune: " + ", ".join(f"{p} (against {what.get(a, a)})" for p, a in immune.items()))
    else:
        parts.append("nobody immune")
    return "; ".join(parts)


_PAGE_COMMANDS = (
    (re.compile(r"start one with `tower session new[^`]*`"), "start one with the host's New game button"),
    (re.compile(r"acknowledges it: `tower log acknowledge[^`]*` \(or on the page\)"),
     "acknowledges it with the page's Acknowledge button"),
    (re.compile(r"\s*\(`tower [^`]*`[^)]*\)"), ""),
    (re.compile(r"`tower [^`]*`"), "the host's buttons"),
    (re.compile(r"\s*with --force"), ""),
)


def for_page(message: str) -> str:
    """A message for the web page: JSON paths as form labels, and no shell command (the page has buttons)."""
    text = for_person(message, WEB_LABELS)
    for pattern, words in _PAGE_COMMANDS:
        text = pattern.sub(words, text)
    return text


def action_phrase(kind: str, payload: Mapping[str, Any]) -> str:
    """A between-battle action in words, for the undo that names what it takes back."""
    p = payload
    if kind == "round":
        return f"the round's settings ({round_phrase(p)})"
    if kind == "deploy":
        return f"{p.get('player')} deploys {plural(int(p.get('armies', 0)), 'army', 'armies')}"
    if kind == "court_convert":
        return str(p.get("why") or f"{p.get('player')}'s court conversion")
    if kind == "court_return":
        return f"{p.get('player')} takes {plural(int(p.get('courtiers', 0)), 'courtier')} back"
    if kind == "tray_placement":
        return f"{p.get('player')} places {plural(int(p.get('placed', 0)), 'army', 'armies')} into the tray"
    if kind == "parry_card":
        return f"{p.get('player')} keeps favor card #4" if p.get("player") else "nobody keeps favor card #4"
    if kind == "session_new":
        return f"the new game of {', '.join(p.get('players', []))} (session {p.get('session_id')})"
    return kind.replace("_", " ")
