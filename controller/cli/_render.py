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

from engine.colours import PALETTE

SWATCH = {"red": "red", "blue": "blue", "yellow": "yellow", "purple": "magenta", "black": "bright_black",
          "green": "green"}
ORDER = PALETTE  # the engine's palette order, so tables list colours as its outputs do


def colour_text(colour: str, n: int | None = None) -> Text:
    label = colour if n is None else f"{n} {colour}"
    return Text("■ ", style=SWATCH.get(colour, "white")) + Text(label)


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
        return f"Revolt against {battle['defender']} ({battle.get('revolt_markers', 0)} revolt markers)"
    return f"Winter revolt against {battle['defender']} ({battle.get('unsupplied_counties')} unsupplied counties)"


def plan_panel(planned: dict[str, Any]) -> Panel:
    plan = planned["plan"]
    table = RichTable(show_header=True, header_style="bold", expand=False)
    table.add_column("into the funnel")
    table.add_column("from")
    for key, label in (("from_county", "the county"), ("from_supply", "the supplies"), ("from_tray", "the tray")):
        if plan.get(key):
            table.add_row(counts_text(plan[key]), label)
    table.add_row(Text("all together", style="bold") + Text(": ") + counts_text(plan["drop"]), "")
    from controller.odds import describe_odds

    extra = [Text(line, style="bold magenta" if k == 0 else "magenta")
             for k, line in enumerate(describe_odds(planned.get("odds")))]
    if planned.get("assumed_deployed"):
        extra.append(Text(f"(taken as deployed from supply earlier: {planned['assumed_deployed']})", style="dim"))
    return Panel(Group(table, *extra), title=f"Drop {planned['drop_id']}: {battle_title(planned['battle'])}",
                 border_style="cyan")


def result_panel(view: dict[str, Any]) -> Panel:
    rows: list[Any] = []
    reading = view.get("reading") or {}
    rows.append(Text("tray read: ") + counts_text(reading.get("cubes")) +
                Text(f"   (confidence {reading.get('confidence', 0):.2f}, {reading.get('source', '?')})", style="dim"))
    if view.get("corrections"):
        last = view["corrections"][-1]
        rows.append(Text("corrected by ", style="yellow") + Text(str(last["who"]), style="bold yellow") +
                    Text(": ") + counts_text(last["after"]))
    reconciled = view.get("reconciliation") or {}
    if reconciled.get("cubes") and not view.get("needs_confirmation"):
        rows.append(Text(f"settled without asking: {reconciled['reason']}", style="cyan"))
    for doubt in view.get("doubts") or []:
        rows.append(Text(f"doubt: {doubt}", style="yellow"))
    if view.get("summary"):
        rows.append(Text(view["summary"], style="bold green"))
    for step in view.get("instructions") or []:
        rows.append(Text(f"  • {step}"))
    if view.get("annotated"):
        rows.append(Text(f"photo: {view['annotated']}", style="dim"))
    question = view.get("question") or {}
    if question:
        example = " ".join(f"{c}={n[-1]}" for c, n in sorted(question.items()))
        rows.append(Text(reconciled.get("question_text") or "", style="bold red") +
                    Text("  The doubted patch is circled on the photo. Answer with "
                         f"`tower answer {view['drop_id']} {example} --who NAME`, or confirm or correct "
                         "the whole tray (tower correct).", style="red"))
    elif view.get("needs_confirmation"):
        rows.append(Text("The host must confirm or correct this reading (tower correct).", style="bold red"))
    return Panel(Group(*rows), title=f"Drop {view['drop_id']}: {view['phase']}",
                 border_style="green" if view.get("resolution") else "yellow")


def status_table(status: dict[str, Any]) -> RichTable:
    session = status.get("session")
    table = RichTable(title="Where every cube is" if session else "No session", header_style="bold")
    if not session:
        return table
    table.add_column("colour")
    for col in ("supply", "map", "tray", "tower", "in flight", "total", "courtiers"):
        table.add_column(col, justify="right")
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
        table.add_column(col)
    for rec in records:
        try:
            when = dt.datetime.fromtimestamp(rec["ts"], tz=dt.UTC).strftime("%H:%M:%S")
        except (TypeError, ValueError, OverflowError, OSError):  # an edited time: shown, never a traceback
            when = f"?{str(rec['ts'])[:12]}"
        try:
            detail = _record_detail(rec["kind"], rec["payload"])
        except (KeyError, TypeError, AttributeError, IndexError):  # a hand-edited payload
            detail = str(rec["payload"])[:80]
        table.add_row(str(rec["seq"]), when, "" if rec["drop_id"] is None else str(rec["drop_id"]), rec["kind"], detail)
    return table


def _record_detail(kind: str, p: dict[str, Any]) -> str:
    if kind == "intent":
        detail = battle_title(p["battle"])
    elif kind == "reading":
        detail = f"{p['reading']['cubes']}" + (" (doubted)" if p["doubts"] else "")
    elif kind == "resolution":
        detail = f"{p['result'].get('outcome')}"
    elif kind == "correction":
        detail = f"by {p['who']}: {p['before']} -> {p['after']}"
    else:
        detail = ", ".join(f"{k}={v}" for k, v in p.items())[:80]
    return detail


def console() -> Console:
    return Console(highlight=False)
