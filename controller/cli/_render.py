"""Rich tables for the table-side commands and the demo: the plan, the result, the status, the log.

Only presentation: every figure comes from ``controller.table.Table``'s dicts.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from controller.cli._words import say, say_markup
from controller.summary import summary
from controller.wording import counts_phrase, plural, round_phrase
from engine.colours import PALETTE

SWATCH = {"red": "red", "blue": "blue", "yellow": "yellow", "purple": "magenta", "black": "bright_black",
          "green": "green"}
ORDER = PALETTE  # the engine's palette order, so tables list colours as its outputs do


def colour_text(colour: str, n: int | None = None) -> Text:
    label = say(colour) if n is None else f"{n} {say(colour)}"
    return Text("■ ", style=SWATCH.get(colour, "white")) + Text(label)


def person(who: Any) -> str:
    """A name as the host typed it stays; the page's default name "host" is the role, said in the reader's
    language (the record keeps "host")."""
    return say("host") if who == "host" else str(who)


def counts_text(counts: dict[str, int] | None) -> Text:
    items = [(c, (counts or {}).get(c, 0)) for c in ORDER if (counts or {}).get(c, 0)]
    if not items:
        return Text("—", style="dim")
    out = Text()
    for i, (c, n) in enumerate(items):
        if i:
            out += Text("  ")
        out += colour_text(c, n)
    return out


def battle_title(battle: dict[str, Any]) -> str:
    kind = battle.get("battle")
    if kind == "initial_fill":
        return "Initial fill of the tower"
    if kind == "attack":
        target = "a neutral county" if battle.get("defender") is None else f"{battle['defender']}'s county"
        return f"{battle['attacker']} attacks {target} with {battle['attacking_armies']}"
    if kind == "revolt":
        return f"Revolt against {battle['defender']} ({plural(battle.get('revolt_markers') or 0, 'revolt marker')})"
    return (f"Winter revolt against {battle['defender']} "
            f"({plural(battle.get('unsupplied_counties') or 0, 'unsupplied county', 'unsupplied counties')})")


def plan_panel(planned: dict[str, Any]) -> Panel:
    plan = planned["plan"]
    table = RichTable(show_header=True, header_style="bold", expand=False)
    table.add_column(say("into the funnel"))
    table.add_column(say("from"))
    for key, label in (("from_county", "the county"), ("from_supply", "the supplies"), ("from_tray", "the tray")):
        if plan.get(key):
            table.add_row(counts_text(plan[key]), say(label))
    table.add_row(Text(say("all together"), style="bold") + Text(": ") + counts_text(plan["drop"]), "")
    # towermodel's fit brings SciPy, a second that `tower --help` should not wait for
    from controller.odds import describe_odds

    extra = [Text(say(line), style="bold magenta" if k == 0 else "magenta")
             for k, line in enumerate(describe_odds(planned.get("odds")))]
    if planned.get("assumed_deployed"):
        extra.append(Text(say(f"(taken as deployed from the supplies earlier: {counts_phrase(planned['assumed_deployed'])})"),
                          style="dim"))
    return Panel(Group(table, *extra), title=say(f"Drop {planned['drop_id']}: {battle_title(planned['battle'])}"),
                 border_style="cyan")


def result_panel(view: dict[str, Any]) -> Panel:
    rows: list[Any] = []
    reading = view.get("reading") or {}
    rows.append(Text(say("tray read:") + " ") + counts_text(reading.get("cubes")) +
                Text("   " + say(f"(confidence {reading.get('confidence', 0):.2f}, {reading.get('source', '?')})"), style="dim"))
    if view.get("corrections"):
        last = view["corrections"][-1]
        rows.append(Text(say("corrected by") + " ", style="yellow") + Text(person(last["who"]), style="bold yellow") +
                    Text(": ") + counts_text(last["after"]))
    reconciled = view.get("reconciliation") or {}
    if reconciled.get("cubes") and not view.get("needs_confirmation"):
        rows.append(Text(say(f"settled without asking: {reconciled['reason']}"), style="cyan"))
    for doubt in view.get("doubts") or []:
        rows.append(Text(say(f"doubt: {doubt}"), style="yellow"))
    if view.get("summary"):
        rows.append(Text(say(view["summary"]), style="bold green"))
    for step in view.get("instructions") or []:
        rows.append(Text(f"  • {say(step)}"))
    if view.get("annotated"):
        rows.append(Text(f"{say('photo:')} {view['annotated']}", style="dim"))
    question = view.get("question") or {}
    if question:
        example = " ".join(f"{c}={n[-1]}" for c, n in sorted(question.items()))
        bare = view.get("question_uncircled") or []
        look = (f"The photo circles no patch of {' and '.join(bare)}: look at the tray." if bare
                else "The doubted patch is circled on the photo.")
        rows.append(Text(say(reconciled.get("question_text") or ""), style="bold red") +
                    Text("  " + say(look) + " " + say(f"Answer with `tower answer {view['drop_id']} {example} "
                                                      "--who NAME`, or confirm or correct the whole tray (tower correct)."),
                         style="red"))
    elif view.get("needs_confirmation"):
        rows.append(Text(say("The host must confirm or correct this reading (tower correct)."), style="bold red"))
    return Panel(Group(*rows), title=say(f"Drop {view['drop_id']}: {view['phase']}"),
                 border_style="green" if view.get("resolution") else "yellow")


def status_table(status: dict[str, Any]) -> RichTable:
    session = status.get("session")
    table = RichTable(title=say("Where every cube is") if session else say("No session"), header_style="bold")
    if not session:
        return table
    table.add_column(say("colour"))
    for col in ("supply", "map", "tray", "tower", "in flight", "total", "courtiers"):
        table.add_column(say(col), justify="right")
    cons = status["conservation"]
    for colour in [*session["players"], "green"]:
        row = cons[colour]
        ok = row["total"] == row["expected"]
        table.add_row(colour_text(colour), str(row["supply"]), str(row["board"]), str(row["tray"]),
                      str(row["tower"]), str(row["in_flight"]),
                      Text(f"{row['total']}/{row['expected']}", style="green" if ok else "bold red"),
                      str(status["courtiers"].get(colour, "")) if colour != "green" else "")
    return table


def log_table(records: list[dict[str, Any]]) -> RichTable:
    table = RichTable(header_style="bold")
    for col in ("#", "time", "drop", "record", "details"):
        table.add_column(say(col))
    battles: dict[int, dict[str, Any]] = {}
    for rec in records:
        try:
            when = dt.datetime.fromtimestamp(rec["ts"], tz=dt.UTC).strftime("%H:%M:%S")
        except (TypeError, ValueError, OverflowError, OSError):  # an edited time: shown, never a traceback
            when = f"?{str(rec['ts'])[:12]}"
        if rec["kind"] == "intent" and rec["drop_id"] is not None and isinstance(rec["payload"], dict):
            battles[rec["drop_id"]] = rec["payload"].get("battle") or {}
        try:
            detail = record_phrase(rec, battles.get(rec["drop_id"]) if rec["drop_id"] is not None else None)
        except (KeyError, TypeError, AttributeError, IndexError, ValueError):  # a hand-edited payload
            detail = "(a payload this version cannot read)"
        detail = say(detail)
        table.add_row(str(rec["seq"]), when, "" if rec["drop_id"] is None else str(rec["drop_id"]),
                      say(str(rec["kind"]).replace("_", " ")), detail)
    return table


def record_phrase(rec: dict[str, Any], battle: dict[str, Any] | None = None) -> str:
    """One record in words (``tower log``): what happened, never the payload's Python form."""
    p, kind = rec["payload"], rec["kind"]
    if kind == "intent":
        return battle_title(p["battle"])
    if kind == "reading":
        return f"read {counts_phrase(p['reading']['cubes'])}" + (" (doubted)" if p.get("doubts") else "")
    if kind == "resolution":
        return summary(battle or {}, p["result"]) if battle else str(p["result"].get("outcome", "")).replace("_", " ")
    if kind == "correction":
        return f"by {p['who']}: {counts_phrase(p['before'])} -> {counts_phrase(p['after'])}"
    if kind in RELEASE_KINDS:
        return release_phrase(kind, p)
    if kind == "session_new":
        return (f"session {p.get('session_id')}: {', '.join(p.get('players', []))}"
                + (" with the Emperor's Court" if p.get("emperors_court") else ""))
    if kind == "session_end":
        return str(p.get("text") or "the game ends")
    if kind == "round":
        return round_phrase(p)
    if kind == "deploy":
        return f"{p.get('player')} deploys {plural(int(p.get('armies', 0)), 'army', 'armies')}"
    if kind == "court_convert":
        return str(p.get("why", ""))
    if kind == "court_return":
        return f"{p.get('player')} takes {plural(int(p.get('courtiers', 0)), 'courtier')} back"
    if kind == "tray_placement":
        return f"{p.get('player')} places {plural(int(p.get('placed', 0)), 'army', 'armies')} into the tray"
    if kind in ("tray_confirmed", "tray_corrected"):
        return f"{p.get('who')} vouches: the tray holds {counts_phrase(p.get('after'))}"
    if kind == "parry_card":
        return f"{p.get('player')} keeps favor card #4" if p.get("player") else "nobody keeps favor card #4"
    if kind == "undo":
        return str(p.get("text") or "undone")
    if kind == "cleaned":
        return "the tray is cleared" + (f" (vouched for by {p['vouched_by']})" if p.get("vouched_by") else "")
    words = []
    for key, value in p.items():
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            words.append(f"{key.replace('_', ' ')} {value}")
    return ", ".join(words)[:80]


RELEASE_KINDS = ("release_started", "released", "release_not_done", "release_failed", "release_unknown",
                 "cancelled", "resolve_refused")


def release_phrase(kind: str, p: dict[str, Any]) -> str:
    """A release's records in words: the beam counter, who said the cubes fell, why it failed."""
    counter = p.get("counter_before" if kind == "release_started" else "counter_after")
    beam = f" (beam counter {counter})" if isinstance(counter, int) else ""
    if kind == "release_started":
        return f"the funnel opens{beam}"
    if kind == "released":
        if p.get("how") == "host":
            return f"{p.get('who')} says the cubes fell"
        return f"the cubes fell{beam}" if p.get("how") == "funnel" else f"released: {p.get('how')}"
    if kind == "release_not_done":
        return f"{p.get('who')} says the cubes are still in the funnel" if p.get("how") == "host" else f"not released: {p.get('how')}"
    if kind == "release_failed":
        return f"the release failed: {p.get('error')}"
    if kind == "release_unknown":
        return str(p.get("why") or "the release may not have happened")
    if kind == "cancelled":
        return "the drop is cancelled: its cubes go back"
    return f"refused: {p.get('error')}"


class _SpokenConsole(Console):
    """A Rich console that puts each sentence it is given into the person's language before laying it
    out, so that a sentence Rich wraps onto two lines is still translated whole."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(say_markup(o) if isinstance(o, str) else o for o in objects), **kwargs)


def console() -> Console:
    return _SpokenConsole(highlight=False)
