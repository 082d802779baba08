"""What the drop cycle shows: a drop as the facade returns it (the drop in flight, or a closed one
rebuilt from its records), with the rule notes where the rulebooks are silent, and how the host
finishes a drop left in flight. Nothing here changes the state or the records."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, overload

from controller.accounts import conservation, parry_card_holder
from controller.records import Record, RecordStore
from controller.steps import DropError
from controller.summary import instructions, summary
from engine import api
from engine.errors import BattleInputError


def finish_hint(drop: dict[str, Any]) -> str:
    """How the host finishes a drop left in flight, from the CLI or the page (the refusal says it)."""
    n, phase = drop["drop_id"], drop["phase"]
    if phase == "planned":
        return (f"release it with `tower drop release {n}` or give it up with `tower drop cancel {n}` "
                "(or the host's buttons on the page)")
    if phase == "release_unknown":
        return (f"say whether its cubes fell: `tower drop confirm-release {n} --fell` or "
                f"`tower drop confirm-release {n} --still-in-funnel` (or on the page)")
    if phase == "counted":
        return f"confirm or correct its reading with `tower correct {n} --who NAME [COLOUR=N ...]` (or on the page)"
    return "finish it first (any `tower` command that opens the station finishes it, never releasing twice)"


def drop_view_of(drop: dict[str, Any]) -> dict[str, Any]:
    """A drop of the state (or rebuilt from the records) as the facade returns it."""
    result = drop.get("result")
    images = drop.get("images", {})
    return {
        "drop_id": drop["drop_id"],
        "phase": drop["phase"],
        "battle": drop["battle"],
        "plan": drop["plan"],
        "odds": drop.get("odds"),
        "reading": drop.get("reading"),
        "tray_after": drop.get("tray_after"),
        "image": images.get("raw"),
        "annotated": images.get("annotated"),
        # the same photo captioned in another language ("de" -> its path), for the page's readers
        "annotated_in": {role.removeprefix("annotated-"): path for role, path in images.items()
                         if role.startswith("annotated-")},
        "resolution": result,
        "needs_confirmation": bool(drop.get("needs_confirmation")),
        "doubts": drop.get("doubts", []),
        "reconciliation": drop.get("reconciliation"),
        "question": ((drop.get("reconciliation") or {}).get("question") or {}) if drop.get("needs_confirmation") else {},
        # the colours asked about that the photo circles no patch of (a record from before this was
        # kept says nothing: none listed)
        "question_uncircled": _uncircled(drop) if drop.get("needs_confirmation") else [],
        "notes": drop.get("notes", []),
        "corrections": drop.get("corrections", []),
        # what the tray held as the battle was resolved: the host's correction where there is one
        "tray_read": (drop["corrections"][-1]["after"] if drop.get("corrections")
                      else drop.get("tray_after") or (drop.get("reading") or {}).get("cubes")),
        "summary": summary(drop["battle"], result) if result else None,
        "instructions": instructions(drop["battle"], result) if result else [],
    }


def _uncircled(drop: dict[str, Any]) -> list[str]:
    rec = drop.get("reconciliation") or {}
    if "circled" not in rec:
        return []
    return sorted(set(rec.get("question") or {}) - set(rec["circled"]))


def closed_drop_view(store: RecordStore, drop_id: int) -> dict[str, Any]:
    """Rebuild a drop's view from its records (history, and drops closed since)."""
    records = store.records(drop_id)
    if not records:
        raise DropError(f"there is no drop {drop_id}")
    drop: dict[str, Any] = {"drop_id": drop_id, "phase": "planned", "corrections": []}
    for rec in records:
        p = rec.payload
        if rec.kind == "intent":
            drop.update(battle=p["battle"], plan=p["plan"], funnel=p["plan"].get("drop", {}), odds=p.get("odds"))
        elif rec.kind == "reading":
            drop.update(reading=p["reading"], doubts=p["doubts"], needs_confirmation=bool(p["doubts"]),
                        reconciliation=p.get("reconciliation"), notes=p.get("notes", []),
                        images={k: v["path"] for k, v in rec.images.items()}, phase="counted")
        elif rec.kind == "correction":
            drop["corrections"].append(p)
        elif rec.kind == "resolution":
            drop.update(result=p["result"], tray_after=p["tray_after"], phase="resolved", needs_confirmation=False)
        elif rec.kind in ("cleaned", "cancelled"):
            drop["phase"] = "cleaned" if rec.kind == "cleaned" else "cancelled"
        elif rec.kind in ("release_started", "released", "release_unknown", "release_not_done"):
            drop["phase"] = {"release_started": "releasing", "release_not_done": "planned"}.get(rec.kind, rec.kind)
    view = drop_view_of(drop)
    view["ts"] = records[0].ts
    return view


@overload
def with_notes(view: dict[str, Any]) -> dict[str, Any]: ...


@overload
def with_notes(view: None) -> None: ...


def with_notes(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """A drop view with ``notes``: the drop cycle's own (how a doubted reading was settled) and, where
    the rulebooks are silent and the engine's decision shapes this battle (``engine.decisions``), one
    sentence each, for the CLI and the page to show."""
    if not isinstance(view, dict) or not isinstance(view.get("battle"), dict):
        return view
    data = dict(view["battle"])
    if view.get("resolution") is not None and view.get("tray_after") is not None:
        data["tray_after"] = view["tray_after"]
    try:
        rule_notes = api.notes(data)
    except BattleInputError:  # a refused reading is the drop's doubt already; it has no notes
        rule_notes = []
    kept = list(view.get("notes") or [])  # the drop cycle's own (how its reading was settled)
    return {**view, "notes": kept + [n for n in rule_notes if n not in kept]}


def status_view(state: dict[str, Any], drop: dict[str, Any] | None) -> dict[str, Any]:
    """The session as ``tower status`` and the page show it (``drop``: the drop in flight's view)."""
    vouched = state.get("tray_vouched")
    return {
        "session": {"session_id": state["session_id"], "players": state["players"],
                    "emperors_court": state["emperors_court"], "filled": state["filled"],
                    "started": state["started"],
                    # the ledger starts from an empty tower: say so until the fill
                    "empty_before_fill": not state["filled"]},
        "tray_vouched": vouched if vouched and vouched["tray"] == state["tray"] else None,
        "supply": state["supply"], "board": state["board"], "tray": state["tray"],
        "tower": state["tower"], "courtiers": state["courtiers"], "round": state["round"],
        "parry_card": parry_card_holder(state),
        "drop": drop,
        "drops_done": state["drops_done"],
        "conservation": conservation(state),
        # the game's end (``tower session end``) and the between-battle action an undo takes back
        "ended": state.get("ended"),
        "undo": (state.get("undo") or [{}])[-1].get("text") if state.get("undo") else None,
    }


LIGHT = {"intent": "ready", "release_started": "busy", "released": "busy", "reading": "busy",
         "resolution": "ready", "cleaned": "ready", "cancelled": "ready", "release_unknown": "attention",
         "release_failed": "attention", "resolve_refused": "attention"}
"""The status LED's state after each committed step (none: it stays as it is)."""


def light_for(event: dict[str, Any], state: dict[str, Any] | None) -> str | None:
    """The status LED's state for an event: busy while a drop is in the air, attention while the
    host must act (a doubted reading, a release nobody can vouch for)."""
    light = LIGHT.get(event.get("type", ""))
    if event.get("type") == "reading" and event.get("phase") == "counted":
        drop = (state or {}).get("drop") or {}
        light = "attention" if drop.get("needs_confirmation") else "busy"
    return light


def session_drop_ids(records: Iterable[Record]) -> list[int]:
    """The drops planned in the current session (the last ``session_new`` on), oldest first."""
    session_start = None
    drop_ids: list[int] = []
    for rec in records:
        if rec.kind == "session_new":
            session_start = rec.seq
            drop_ids = []
        elif rec.kind == "intent" and rec.drop_id is not None and session_start is not None:
            drop_ids.append(rec.drop_id)
    return drop_ids
