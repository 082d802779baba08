"""What happens between battles: a new game, the round's settings and deployments, the Emperor's
Court, armies a card places into the tray, the host's word on the tray, undo, and the game's end.

Each is one committed record whose state ``controller.session`` computes; on a simulated station the
simulated hands then move the cubes to match (so repeating one after a crash moves nothing twice).
"""

from __future__ import annotations

import time
from typing import Any

from controller import accounts as acc
from controller import session as ses
from controller.accounts import SessionError, clean
from controller.game_end import summarise
from controller.steps import CycleSteps, DropError
from controller.views import finish_hint
from engine.tray import favor_card_places_armies


class BetweenBattles(CycleSteps):
    """The actions between battles (``DropCycle`` adds the battles themselves)."""

    def new_session(self, players: list[str], emperors_court: bool = False, force: bool = False) -> dict[str, Any]:
        old = self.store.state()
        in_flight = old is not None and old.get("drop") is not None and old["drop"]["phase"] != "resolved"
        if old is not None and not force and not in_flight and acc.under_way(old):  # a drop in flight says so below
            raise SessionError(
                f"a game is under way (session {old['session_id']}: {', '.join(old['players'])}, "
                f"{old['drops_done']} drop{'' if old['drops_done'] == 1 else 's'} done): end it first, or start a new "
                "one anyway with --force (the records keep the old game)")
        if old is not None and old.get("drop") is not None and old["drop"]["phase"] == "resolved":
            # the last battle is over; its clean-up is the emptying that the new session asks for
            self._commit("cleaned", {"tray": None, "why": "a new session: the tray is emptied"},
                         ses.finish_drop(old), drop_id=old["drop"]["drop_id"])
            old = self.store.state()
        if old is not None and old.get("drop") is not None:
            raise SessionError(f"drop {old['drop']['drop_id']} of the current session is still in flight; "
                               f"finish it before starting a new session: {finish_hint(old['drop'])}")
        session_id = 1 if old is None else old["session_id"] + 1
        state = ses.new_state(players, emperors_court, session_id)
        if old is not None:
            state["next_drop_id"] = old["next_drop_id"]  # drop ids stay unique across the records
        # The tower ledger starts from an empty tower at the initial fill: the record says that the
        # tower, the tray and the funnel must be emptied first (a real host is told so).
        self._commit("session_new", {"session_id": session_id, "players": players,
                                     "emperors_court": bool(emperors_court),
                                     "must_be_empty": ["tower", "tray", "funnel"]}, state)
        self.emptied = self.hands.empty_station()
        return state

    def set_round(self, event: str | None, bonus_tiles: dict[str, str | None] | None,
                  immune: list[str] | dict[str, str] | None) -> dict[str, Any]:
        state = ses.set_round(self.state, event, bonus_tiles, immune)
        self._commit("round", state["round"], state)
        settings: dict[str, Any] = state["round"]
        return settings

    def keep_parry_card(self, player: str | None) -> str | None:
        """Who keeps favor card #4 (``None``: nobody); a revolt they win spends it."""
        state = ses.keep_parry_card(self.state, player)
        self._commit("parry_card", {"player": player}, state)
        return acc.parry_card_holder(state)

    def deploy(self, player: str, armies: int) -> None:
        state = ses.deploy(self.state, player, armies)
        self._commit("deploy", {"player": player, "armies": armies}, state)

    def court_convert(self, player: str, cubes: int) -> dict[str, Any]:
        state = self.state
        if state["drop"] is not None and state["drop"]["phase"] == "resolved":
            self._close_or_raise()
            state = self.state
        new, performed, why = ses.court_convert(state, player, cubes)
        if performed:
            ses.carry_vouched(state, new, "court_convert")
        self._commit("court_convert", {"player": player, "cubes": cubes, "performed": performed, "why": why},
                     new if performed else state)
        if performed:
            self.hands.clear_tray(new["tray"])
        return {"player": player, "cubes": cubes, "performed": performed, "message": why,
                "courtiers": new["courtiers"] if performed else state["courtiers"]}

    def court_return(self, player: str, courtiers: int) -> dict[str, Any]:
        new = ses.court_return(self.state, player, courtiers)
        self._commit("court_return", {"player": player, "courtiers": courtiers}, new)
        return {"player": player, "courtiers": new["courtiers"]}

    def place_into_tray(self, player: str, armies: int, source: str = "favor", who: str | None = None,
                        card: int | None = None) -> dict[str, Any]:
        """A favor card or the bonus-card benefit: armies from the player's supply into the tray.

        On a simulated station the simulated hands put the cubes in first, towards the tray the
        record will hold (so repeating it after a crash moves nothing twice, and a crash before the
        record leaves extra cubes that the next tray check takes out again); then the record."""
        if card is not None and (source != "favor" or not favor_card_places_armies(card)):
            raise SessionError(f"favor card #{card} does not place armies into the tray (those are #3, #8 and #14)")
        state = self.state
        if state["drop"] is not None and state["drop"]["phase"] == "resolved":
            self._close_or_raise()
            state = self.state
        new, placed = ses.place_into_tray(state, player, armies, source)
        self.hands.fill_tray(new["tray"])
        payload = {"player": player, "armies": armies, "placed": placed, "source": source, "card": card,
                   "who": who, "when": time.time(), "tray": new["tray"]}
        ses.carry_vouched(state, new, "tray_placement")
        self._commit("tray_placement", payload, new)
        short = f" (the supply held only {placed})" if placed < armies else ""
        return {**payload, "supply": new["supply"].get(player, 0),
                "message": f"{player} places {placed} arm{'y' if placed == 1 else 'ies'} into the tray{short}"}

    def tray_override(self, counts: dict[str, int] | None, who: str, note: str = "") -> dict[str, Any]:
        """The host's word on the tray where the camera keeps misreading it before a battle.

        ``counts`` None: the tray holds what the station expects (confirm). Otherwise the tray holds
        these counts (correct): the session's tray becomes them, the difference taken from (or given
        back to) the supplies. Either is recorded like a correction (who, when, before, after, and
        what the camera saw); a resolved drop waiting for its clean-up is closed, and the next plan
        trusts this tray instead of the camera. Never during a drop's own reading: that is
        ``correct``."""
        if not who or not str(who).strip():
            raise SessionError("say who vouches for the tray")
        state = self.state
        drop = state["drop"]
        if drop is not None and drop["phase"] != "resolved":
            raise DropError(f"drop {drop['drop_id']} is {drop['phase']}: the tray belongs to its reading now "
                            "(confirm or correct the reading instead)")
        camera = self._look_at_tray()
        before = clean(state["tray"])
        now = time.time()
        new, moved = ses.vouch_tray(state, counts, who, now)
        after = new["tray_vouched"]["tray"]
        payload = {"who": who, "when": now, "before": before, "after": after, "camera": camera,
                   "from_supply": moved, "note": note,
                   "closes_drop": drop["drop_id"] if drop is not None else None}
        self._commit("tray_confirmed" if counts is None else "tray_corrected", payload, new)
        if drop is not None:
            self._close_or_raise()
        return payload

    def undo(self, who: str) -> dict[str, Any]:
        """Undo the last between-battle action (a round's settings, a deployment, a court conversion or
        return, armies placed into the tray, favor card #4, a wrong new session): the state goes back
        to what it was before it, and an ``undo`` record says so. Nothing is erased: the undone record
        stays in the log, and the undo is one more record, like a correction. A battle cannot be
        undone (its cubes fell): correct its reading instead."""
        if not who or not str(who).strip():
            raise SessionError("say who undoes it")
        state = self.state
        if state["drop"] is not None and state["drop"]["phase"] != "resolved":
            raise DropError(f"drop {state['drop']['drop_id']} is in flight: finish it first")
        if not state.get("undo"):
            raise SessionError("there is nothing to undo since the last battle (a battle itself is never undone: "
                               "correct its reading instead)")
        restored, last = ses.undo_last(state)
        payload = {"who": who, "when": time.time(), "undoes": last["kind"], "text": f"undone: {last['text']}"}
        self.store.append("undo", payload, state=restored)
        self.on_event({"type": "undo", "drop_id": None, "phase": None})
        if restored.get("drop") is None:
            self.hands.clear_tray(restored["tray"])  # the simulated hands put the tray back as it was
            self.hands.fill_tray(restored["tray"])
        return {**payload, "message": payload["text"]}

    def end_session(self, who: str) -> dict[str, Any]:
        """The game ends: a summary (battles, who won what, armies lost, the tower's contents) is
        recorded as ``session_end`` and kept in the state for the page. A resolved drop still
        waiting for the tray to be cleared is closed first; one in flight must be finished."""
        state = self.state
        if state.get("ended"):
            raise SessionError(f"session {state['session_id']} has ended already")
        drop = state["drop"]
        if drop is not None and drop["phase"] == "resolved":
            self._commit("cleaned", {"tray": None, "why": "the game ends"}, ses.finish_drop(state),
                         drop_id=drop["drop_id"])
            state = self.state
        elif drop is not None:
            raise DropError(f"drop {drop['drop_id']} is still in flight (phase {drop['phase']}): finish it first")
        summary = summarise(state, self.store.records())
        new = ses.end_game(state, who, time.time(), summary)
        self._commit("session_end", {"who": who, "session_id": state["session_id"], "summary": summary,
                                     "text": summary["text"]}, new)
        ended: dict[str, Any] = new["ended"]
        return ended
