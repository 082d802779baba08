"""A game's end in numbers and words: the battles, who won what, the armies lost, the tower's contents.

Built from the session's own records (every resolution since its ``session_new``), so that the
summary the host reads at the end is the same one ``tower session end`` keeps in the records.
"""

from __future__ import annotations

from typing import Any

from controller.summary import summary as battle_summary
from controller.wording import counts_phrase, plural

KIND_NAMES = {"attack": "attack", "revolt": "revolt", "winter_revolt": "winter revolt"}


def _winner(battle: dict[str, Any], outcome: str | None) -> str | None:
    """Who won: a player's colour, "the peasants", or None for a tie."""
    kind = battle.get("battle")
    if outcome == "tie" or outcome is None:
        return None
    if kind in ("revolt", "winter_revolt"):
        return "the peasants" if outcome == "attacker_wins" else str(battle.get("defender"))
    if outcome == "attacker_wins":
        return str(battle.get("attacker"))
    return "the peasants" if battle.get("defender") is None else str(battle.get("defender"))


def summarise(state: dict[str, Any], records: list[Any]) -> dict[str, Any]:
    """The current session's battles from the records, with a text for people."""
    start = max((r.seq for r in records if r.kind == "session_new"), default=0)
    battles: dict[int, dict[str, Any]] = {}
    plans: dict[int, dict[str, Any]] = {}
    results: dict[int, dict[str, Any]] = {}
    for rec in records:
        if rec.seq < start or rec.drop_id is None:
            continue
        if rec.kind == "intent":
            battles[rec.drop_id] = rec.payload["battle"]
            plans[rec.drop_id] = rec.payload["plan"]
        elif rec.kind == "resolution":
            results[rec.drop_id] = rec.payload["result"]  # a corrected drop: its last resolution counts
    rows = []
    wins: dict[str, int] = {}
    lost: dict[str, int] = {}
    for drop_id in sorted(results):
        battle, result = battles.get(drop_id, {}), results[drop_id]
        if battle.get("battle") == "initial_fill":
            continue
        winner = _winner(battle, result.get("outcome"))
        if winner is not None:
            wins[winner] = wins.get(winner, 0) + 1
        # armies that stood in the counties and did not come back to them: lost in the battle
        from_county = plans.get(drop_id, {}).get("from_county", {})
        for colour, n in from_county.items():
            gone = n - result.get("to_county", {}).get(colour, 0)
            if gone > 0:
                lost[colour] = lost.get(colour, 0) + gone
        rows.append({"drop_id": drop_id, "kind": battle.get("battle"), "winner": winner,
                     "text": battle_summary(battle, result),
                     # enough to say it again in another language (``controller.summary.localise``)
                     "sides": {k: battle.get(k) for k in ("battle", "attacker", "defender")},
                     "score": {k: result.get(k) for k in ("outcome", "attacker_in_tray", "defender_in_tray")}})
    kinds: dict[str, int] = {}
    for row in rows:
        kinds[str(row["kind"])] = kinds.get(str(row["kind"]), 0) + 1
    tower = {c: n for c, n in state["tower"].items() if n}
    lines = [f"{plural(len(rows), 'battle')} in session {state['session_id']}"
             + (f" ({', '.join(plural(n, KIND_NAMES.get(k, k)) for k, n in sorted(kinds.items()))})" if kinds else "")]
    if wins:
        lines.append("won: " + ", ".join(f"{w} {plural(n, 'battle')}" for w, n in
                                         sorted(wins.items(), key=lambda kv: (-kv[1], kv[0]))))
    lines.append(f"armies lost: {counts_phrase(lost, empty='none')}")
    lines.append(f"in the tower: {counts_phrase(tower, empty='nothing')}")
    return {"session_id": state["session_id"], "players": list(state["players"]), "battles": rows,
            "kinds": kinds, "wins": wins, "armies_lost": lost, "tower": tower,
            "courtiers": dict(state.get("courtiers") or {}), "text": "; ".join(lines)}
