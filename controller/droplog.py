"""The station's records as drop logs (``spec/tower-model.md``): one per game session, because every
session starts with the tower emptied, which is what a drop log assumes of its first line.

A drop enters the log once it is resolved: ``dropped`` is the plan's funnel load, ``came_out`` the
tray as finally settled (the last resolution, so a host's correction replaces the camera's reading).
Cancelled drops and drops never resolved are left out. Each line also carries the session, the drop
id, the time, the battle and its outcome, and the odds stored before the release; readers of the
format ignore keys they do not know.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.records import Record


def session_drops(records: list[Record]) -> dict[int, list[dict[str, Any]]]:
    """Every session's resolved drops, oldest first, as drop log entries (with the extra keys)."""
    sessions: dict[int, list[dict[str, Any]]] = {}
    session: int | None = None
    open_drops: dict[int, dict[str, Any]] = {}
    for rec in records:
        p = rec.payload
        if rec.kind == "session_new":
            session = int(p["session_id"])
            sessions.setdefault(session, [])
            open_drops = {}
        elif session is None or rec.drop_id is None:
            continue
        elif rec.kind == "intent":
            battle = p.get("battle", {})
            open_drops[rec.drop_id] = {
                "dropped": {c: n for c, n in p.get("plan", {}).get("drop", {}).items() if n},
                "came_out": None, "session": session, "drop_id": rec.drop_id, "ts": rec.ts,
                "battle": battle.get("battle"), "attacker": battle.get("attacker"),
                "defender": battle.get("defender"), "odds": p.get("odds"), "outcome": None,
            }
            sessions[session].append(open_drops[rec.drop_id])
        elif rec.kind == "resolution" and rec.drop_id in open_drops:
            entry = open_drops[rec.drop_id]
            entry["came_out"] = {c: n for c, n in p.get("tray_after", {}).items() if n}
            entry["outcome"] = p.get("result", {}).get("outcome")
            entry["resolution"] = p.get("result")
        elif rec.kind == "cancelled" and rec.drop_id in open_drops:
            open_drops[rec.drop_id]["came_out"] = None
    return {s: [e for e in entries if e["came_out"] is not None] for s, entries in sessions.items()}


def records_by_drop(records: list[Record], session: int | None = None) -> dict[int, list[Record]]:
    """Each drop's records in the order written, of one session (``session``) or of every one."""
    out: dict[int, list[Record]] = {}
    current: int | None = None
    for rec in records:
        if rec.kind == "session_new":
            current = int(rec.payload["session_id"])
        if rec.drop_id is not None and (session is None or current == session):
            out.setdefault(rec.drop_id, []).append(rec)
    return out


@dataclass
class DropOutcome:
    """What one drop's records say of how it ended: its last reading's payload, whether the host gave
    his word (an answer, a confirmation, a correction) before its first resolution, each change
    (before, after) he made after one, the tray of its last resolution, and whether it was cancelled."""

    reading: dict[str, Any] | None = None
    asked: bool = False
    changes: list[tuple[dict[str, int], dict[str, int]]] = field(default_factory=list)
    tray_after: dict[str, int] | None = None
    cancelled: bool = False

    @property
    def settled(self) -> bool:
        """Read and resolved, not cancelled: a drop the station acted on."""
        return self.reading is not None and self.tray_after is not None and not self.cancelled

    @property
    def host_spoke(self) -> bool:
        return self.asked or bool(self.changes)


def drop_outcome(kept: list[Record]) -> DropOutcome:
    """:class:`DropOutcome` of one drop's records, in the order written (:func:`records_by_drop`)."""
    out = DropOutcome()
    for rec in kept:
        if rec.kind == "reading":
            out.reading = rec.payload
        elif rec.kind == "correction":
            if out.tray_after is None:
                out.asked = True
            else:
                out.changes.append((rec.payload.get("before", {}), rec.payload.get("after", {})))
        elif rec.kind == "resolution":
            out.tray_after = dict(rec.payload.get("tray_after", {}))
        elif rec.kind == "cancelled":
            out.cancelled = True
    return out


def current_session(records: list[Record]) -> int | None:
    """The id of the newest session in the records, or None."""
    ids = [int(r.payload["session_id"]) for r in records if r.kind == "session_new"]
    return ids[-1] if ids else None


def log_entries(records: list[Record], session: int | None = None) -> list[dict[str, Any]]:
    """One session's drop log entries (default: the current session); ValueError for an unknown session."""
    drops = session_drops(records)
    wanted = current_session(records) if session is None else session
    if wanted is None:
        raise ValueError("there is no game session in the records yet")
    if wanted not in drops:
        known = ", ".join(str(s) for s in sorted(drops)) or "none"
        raise ValueError(f"there is no session {wanted} in the records (sessions: {known})")
    return drops[wanted]


EXPORT_KEYS = ("dropped", "came_out", "session", "drop_id", "ts", "battle", "outcome")
"""The keys an exported drop log line carries (the contract's two, then context for readers)."""


def export_entry(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: entry[key] for key in EXPORT_KEYS}
