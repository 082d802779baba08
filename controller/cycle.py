"""The drop cycle: a state machine whose every step is a committed record.

Phases of a drop (``state["drop"]["phase"]``)::

    planned ──► releasing ──► released ──► counted ──► resolved ──► (cleaned: the drop is closed)
       ▲            │                        │  needs_confirmation ──► correct/confirm ──► resolved
       └────────────┘ release_not_done       └──► (host) ...
                    └──► release_unknown ──► host says "fell" ──► released / "still in funnel" ──► planned

Exactly once. The intent (``intent`` record, phase *planned*) is committed when the battle is
planned. Immediately before the funnel opens, ``release_started`` is committed with the funnel's
release counter where the station has one; immediately after, ``released``. A process that dies
anywhere is resumed by :meth:`DropCycle.resume`:

* *planned*: the funnel was never opened; the drop waits for its (first) release.
* *releasing*: the one unsure moment: the process died between committing ``release_started`` and
  committing ``released``, so the servo may or may not have moved. The station never guesses and
  never opens the funnel on a guess. It asks the funnel device's own release counter, which the
  device raises *before* its servo moves: the tray board's (kept on its flash across its resets,
  with a boot id) or the simulated servo's (saved atomically with the cubes' move). If the counter
  moved, the drop is *released*; if it did not, the release never happened and the drop is
  *planned* again (its first and only release is still to come). Where there is no counter, or it
  cannot be compared (the board reset and kept no count), the phase becomes *release_unknown* and
  the host says whether the funnel is empty (:meth:`DropCycle.confirm_release`); a break-beam count
  is kept with it as evidence, never taken as proof (a hand or one late cube breaks the beam too).
* *released*: finished by reading the tray; never released again.
* *counted*: a trusted reading is resolved; a doubted one waits for the host (confirm, correct,
  re-read). *resolved*: waits for the tray to be cleared. Nothing moves until asked.

A release that raises is settled the same way at once: the counter did not move, so the drop is
*planned* again; it moved, so the tray is read; no counter, so *release_unknown*.

Nothing here prints or prompts: the facade (``controller.table``) and the CLI do.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from controller import session as ses
from controller.records import RecordStore
from controller.session import SessionError, add, clean
from controller.verify import question_text, read_verified
from hardware.config import DEFAULT_BEAM_CLUMP
from hardware.interfaces import ReleaseCounter
from station.hands import Hands, NoHands

SESSION_KNOWS = ("tray_before", "tower_before", "supply", "tray_after")


class DropError(SessionError):
    """A drop request that does not fit the drop's phase (releasing twice, correcting a closed drop)."""


class TrayMismatch(SessionError):
    """The tray does not hold what the session expects: clear it before the next battle."""

    def __init__(self, message: str, expected: dict[str, int], seen: dict[str, int]) -> None:
        super().__init__(message)
        self.expected = expected
        self.seen = seen


def _engine() -> Any:
    from engine import api

    return api


class DropCycle:
    """Plans, releases, reads, verifies, resolves and closes drops, committing each step."""

    def __init__(self, store: RecordStore, *, funnel: Any, reader: Any, tray_board: Any = None,
                 hands: Hands | None = None, on_event: Any = None, beam_clump: float = DEFAULT_BEAM_CLUMP) -> None:
        self.store = store
        self.beam_clump = beam_clump  # how the break-beam undercounts clumps (controller.verify)
        self.funnel = funnel
        self.reader = reader
        self.tray_board = tray_board
        self.hands: Hands = hands if hands is not None else NoHands()
        self.on_event = on_event or (lambda event: None)
        self.emptied: dict[str, int] | None = None  # what the simulated hands took out at the last new session
        self.odds_model = "spielbyweb"  # the config's station.odds_model (controller/odds.py)

    # -- state --------------------------------------------------------------------------------
    @property
    def state(self) -> dict[str, Any]:
        state = self.store.state()
        if state is None:
            raise SessionError("no game session yet: start one with `tower session new --players ...`")
        return state

    def has_session(self) -> bool:
        return self.store.state() is not None

    def _commit(self, kind: str, payload: dict[str, Any], state: dict[str, Any], drop_id: int | None = None,
                images: dict[str, Any] | None = None) -> None:
        if kind in UNDOABLE and payload.get("performed", True):
            state = _with_undo(self.store.state(), state, kind, payload)
        elif kind == "intent":  # a battle ends what can be undone: its cubes fell on the state before it
            state = {k: v for k, v in state.items() if k != "undo"}
        self.store.append(kind, payload, drop_id=drop_id, images=images, state=state)
        self.on_event({"type": kind, "drop_id": drop_id,
                       "phase": (state.get("drop") or {}).get("phase") if drop_id is not None else None})

    def _drop(self, drop_id: int) -> dict[str, Any]:
        drop = self.state["drop"]
        if drop is None or drop["drop_id"] != drop_id:
            current = "none" if drop is None else str(drop["drop_id"])
            raise DropError(f"drop {drop_id} is not the drop in flight (current: {current})")
        return drop

    # -- the session -------------------------------------------------------------------------
    def new_session(self, players: list[str], emperors_court: bool = False, force: bool = False) -> dict[str, Any]:
        old = self.store.state()
        in_flight = old is not None and old.get("drop") is not None and old["drop"]["phase"] != "resolved"
        if old is not None and not force and not in_flight and under_way(old):  # a drop in flight says so below
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
        return state["round"]

    def keep_parry_card(self, player: str | None) -> str | None:
        """Who keeps favor card #4 (``None``: nobody); a revolt they win spends it."""
        state = ses.keep_parry_card(self.state, player)
        self._commit("parry_card", {"player": player}, state)
        return ses.parry_card_holder(state)

    def deploy(self, player: str, armies: int) -> None:
        state = ses.deploy(self.state, player, armies)
        self._commit("deploy", {"player": player, "armies": armies}, state)

    # -- plan ------------------------------------------------------------------------------------
    def battle_input(self, state: dict[str, Any], battle: dict[str, Any]) -> dict[str, Any]:
        """The spec's battle JSON: what the players said plus what the session knows."""
        for key in SESSION_KNOWS:
            if key in battle:
                raise SessionError(f"{key} is known to the session and must not be given")
        data = dict(battle)
        kind = data.get("battle")
        if kind == "initial_fill":
            if state["filled"]:
                raise SessionError("the tower was filled already in this session")
            data.setdefault("players", list(state["players"]))
            data.setdefault("emperors_court", state["emperors_court"])
        else:
            if not state["filled"]:
                raise SessionError("fill the tower first (`tower fill`): the ledger starts with the initial fill")
            ses.fill_in_round(state, data)
            data.setdefault("buildings", [])
            data.setdefault("revolt_markers", 0)
            for key in ("attacker", "defender"):
                if data.get(key) is not None:
                    ses.check_player(state, data[key], f"the {key}")
            data["tower_before"] = dict(state["tower"])
        data["tray_before"] = dict(state["tray"])
        data["supply"] = ses.supply_for_battle(state)
        return data

    def check_tray(self) -> dict[str, Any]:
        """Read the tray and compare it with the session's account (done before every plan)."""
        state = self.state
        self.hands.clear_tray(state["tray"])
        expected = clean(state["tray"])
        for _ in range(2):  # a second look before blaming the players (a hand leaving, a reflection)
            obs = self.reader.read("check", wait_settle=True, save=False)
            seen = clean(obs.cubes)
            if obs.usable and seen == expected:
                break
        return {"ok": obs.usable and seen == expected, "expected": expected, "seen": seen,
                "usable": obs.usable, "reason": obs.reason}

    def _close_or_raise(self) -> None:
        state = self.state
        drop = state["drop"]
        vouched = _vouched(state)
        if vouched is not None:
            self._commit("cleaned", {"tray": clean(state["tray"]), "vouched_by": vouched["who"]},
                         ses.finish_drop(state), drop_id=drop["drop_id"])
            return
        check = self.check_tray()
        if not check["ok"]:
            raise TrayMismatch(_mismatch_text(check), check["expected"], check["seen"])
        self._commit("cleaned", {"tray": check["seen"]}, ses.finish_drop(state), drop_id=drop["drop_id"])

    def close_resolved(self) -> bool:
        """Close a resolved drop once the tray holds what should remain. True when closed (or none open)."""
        state = self.state
        drop = state["drop"]
        if drop is None:
            return True
        if drop["phase"] != "resolved":
            return False
        check = self.check_tray()
        if not check["ok"]:
            return False
        new = ses.finish_drop(state)
        self._commit("cleaned", {"tray": check["seen"]}, new, drop_id=drop["drop_id"])
        return True

    def plan(self, battle: dict[str, Any], *, check_tray: bool = True) -> dict[str, Any]:
        state = self.state
        if state.get("ended"):
            raise SessionError(f"session {state['session_id']} has ended: start a new game for more battles")
        if state["drop"] is not None and state["drop"]["phase"] == "resolved":
            self._close_or_raise()
            state = self.state
        if state["drop"] is not None:
            d = state["drop"]
            raise DropError(f"drop {d['drop_id']} is still in flight (phase {d['phase']}): {finish_hint(d)}")
        assumed = ses.shortfall_on_board(state, ses.armies_named(battle))
        deployed = ses.apply_deployment(state, assumed)
        data = self.battle_input(deployed, battle)
        if data.get("battle") == "initial_fill":
            self.hands.empty_station()  # after a crash between `session new` and its emptying
        plan = _engine().plan(data)  # refuse bad input before photographing the tray: check first, then look
        vouched = _vouched(state)
        payload: dict[str, Any] = {}
        if check_tray and vouched is None:
            check = self.check_tray()
            if not check["ok"]:
                raise TrayMismatch(_mismatch_text(check), check["expected"], check["seen"])
        elif vouched is not None:
            payload["tray_check"] = {"vouched_by": vouched["who"], "when": vouched["when"]}
        else:
            payload["tray_check"] = "skipped"
        odds = self._odds(data)  # before the release, so that the record shows what was expected
        drop_id = state["next_drop_id"]
        new = ses.apply_plan(deployed, drop_id, data, plan)
        new["drop"]["odds"] = odds
        new.pop("tray_vouched", None)  # the host's word covers one plan, the tray it vouched for
        self._commit("intent", {"battle": data, "plan": plan, "assumed_deployed": assumed, "odds": odds, **payload},
                     new, drop_id=drop_id)
        return {"drop_id": drop_id, "battle": data, "plan": plan, "assumed_deployed": assumed, "odds": odds}

    def _odds(self, data: dict[str, Any]) -> dict[str, Any] | None:
        from controller.odds import odds_before_drop

        fitted = self.odds_model == "fitted"
        return odds_before_drop(data, self.odds_model, self.store.records() if fitted else None,
                                self.store.data_dir if fitted else None)

    def cancel(self, drop_id: int) -> None:
        """Give up a planned drop before its release: the cubes go back where they came from."""
        drop = self._drop(drop_id)
        if drop["phase"] != "planned":
            raise DropError(f"drop {drop_id} is {drop['phase']}: only a planned drop can be cancelled")
        if self.hands.funnel_contents():
            raise DropError(f"drop {drop_id}'s cubes are in the funnel already; release it instead")
        state = self.state
        plan = drop["plan"]
        new = dict(state)
        new["supply"] = add(state["supply"], plan.get("from_supply", {}))
        new["board"] = add(state["board"], plan.get("from_county", {}))
        new["tray"] = add(state["tray"], plan.get("from_tray", {}))
        new["drop"] = None
        self._commit("cancelled", {}, new, drop_id=drop_id)

    # -- release -----------------------------------------------------------------------------------
    def _release_counter(self) -> ReleaseCounter | None:
        """The funnel device's own release count (the tray board's, kept across its resets; the
        simulated servo's). ``None`` where it keeps none, or where the device cannot be asked now:
        never a guess from elsewhere."""
        try:
            return self.funnel.release_counter()
        except OSError:
            return None

    @staticmethod
    def _moved(before: ReleaseCounter | None, now: ReleaseCounter | None) -> bool | None:
        """Whether the funnel opened between two counter readings: None when they cannot say."""
        if before is None or now is None or not now.comparable(before) or now.count < before.count:
            return None
        return now.count > before.count

    def release(self, drop_id: int) -> dict[str, Any]:
        """Release the funnel once for this drop, then read, verify and resolve."""
        drop = self._drop(drop_id)
        if drop["phase"] != "planned":
            raise DropError(f"drop {drop_id} was released already (phase {drop['phase']}); it is never released twice")
        self.hands.load_funnel(drop["funnel"])
        beam_reset = False
        if self.tray_board is not None:
            try:
                self.tray_board.reset_beam()
                beam_reset = True
            except OSError:
                beam_reset = False
        counter = self._release_counter()
        known = _counter_fields(counter)
        self._commit("release_started", {"counter_before": counter.count if counter else None, **known,
                                         "beam_reset": beam_reset},
                     ses.set_phase(self.state, "releasing", counter_before=counter.count if counter else None,
                                   **known, beam_reset=beam_reset),
                     drop_id=drop_id)
        try:
            self.funnel.release()
        except Exception as exc:
            now = self._release_counter()
            moved = self._moved(counter, now)
            if moved is False:  # the trapdoor never moved: a release may follow
                self._commit("release_failed", {"error": str(exc), "moved": False},
                             ses.set_phase(self.state, "planned"), drop_id=drop_id)
                raise
            if moved is None:
                self._commit("release_failed", {"error": str(exc), "moved": None},
                             ses.set_phase(self.state, "release_unknown", error=str(exc)), drop_id=drop_id)
                raise
            assert now is not None
            self._commit("released", {"how": "funnel (it reported an error after moving)", "error": str(exc),
                                      "counter_after": now.count}, ses.set_phase(self.state, "released"),
                         drop_id=drop_id)
            return self.read_and_resolve(drop_id)
        after = self._release_counter()
        self._commit("released", {"how": "funnel", "counter_after": after.count if after else None},
                     ses.set_phase(self.state, "released"), drop_id=drop_id)
        return self.read_and_resolve(drop_id)

    def confirm_release(self, drop_id: int, fell: bool, who: str) -> dict[str, Any]:
        """The host's answer where the station cannot tell whether the funnel opened."""
        drop = self._drop(drop_id)
        if drop["phase"] != "release_unknown":
            raise DropError(f"drop {drop_id} is {drop['phase']}: nothing to confirm about its release")
        if fell:
            self._commit("released", {"how": "host", "who": who},
                         ses.set_phase(self.state, "released"), drop_id=drop_id)
            return self.read_and_resolve(drop_id)
        self._commit("release_not_done", {"how": "host", "who": who},
                     ses.set_phase(self.state, "planned"), drop_id=drop_id)
        return self.drop_view(drop_id)

    # -- read, verify, resolve ---------------------------------------------------------------------
    def read_and_resolve(self, drop_id: int) -> dict[str, Any]:
        drop = self._drop(drop_id)
        battle = drop["battle"]
        tower_before = battle.get("tower_before")
        # a host's re-read never overwrites a photo an earlier record vouches for
        readings_before = sum(1 for r in self.store.records(drop_id) if r.kind == "reading")
        tag = f"drop-{drop_id:06d}" + (f"-r{readings_before + 1}" if readings_before else "")
        verified = read_verified(self.reader, self.tray_board if drop.get("beam_reset") else None,
                                 tag, drop["funnel"], tower_before, funnel_left=self.hands.funnel_contents,
                                 clump=self.beam_clump)
        obs = verified.observation
        images = {k: v for k, v in (("raw", obs.raw), ("annotated", obs.annotated)) if v is not None}
        for i, early in enumerate(verified.earlier, start=1):  # the doubted reads are evidence too
            images.update({f"read{i}-{k}": v for k, v in (("raw", early.raw), ("annotated", early.annotated))
                           if v is not None})
        reading = obs.as_dict()
        needs = bool(verified.doubts)
        # the counter's alternatives weighed against the beam and the ledger: the tray used, and why
        reconciled = verified.reconciliation.as_dict() if verified.reconciliation is not None else None
        state = ses.set_phase(self.state, "counted", reading=reading, doubts=verified.doubts,
                              needs_confirmation=needs, reconciliation=reconciled, notes=verified.notes,
                              images={k: Path(v).resolve().relative_to(self.store.data_dir.resolve()).as_posix()
                                      for k, v in images.items()})
        self._commit("reading", {"reading": reading, "doubts": verified.doubts, "attempts": verified.attempts,
                                 "reconciliation": reconciled, "notes": verified.notes},
                     state, drop_id=drop_id, images=images)
        if needs:
            return self.drop_view(drop_id)
        return self._resolve(drop_id, clean(verified.counts))

    def reread(self, drop_id: int) -> dict[str, Any]:
        """Read the tray again at the host's request (a hand was in the way, a jammed trapdoor was
        freed by hand and its cubes went through the tower): a new reading, never a new release."""
        drop = self._drop(drop_id)
        if drop["phase"] != "counted":
            raise DropError(f"drop {drop_id} is {drop['phase']}: only a read, unresolved drop can be read again")
        return self.read_and_resolve(drop_id)

    def _resolve(self, drop_id: int, tray_after: dict[str, int]) -> dict[str, Any]:
        from engine.errors import BattleInputError

        state = self.state
        drop = state["drop"]
        data = dict(drop["battle"])
        data["tray_after"] = clean(tray_after)
        try:
            result = _engine().resolve(data)
        except BattleInputError as exc:
            new = ses.set_phase(state, "counted", needs_confirmation=True,
                                doubts=[*drop.get("doubts", []), f"the engine refuses the reading: {exc.message}"])
            self._commit("resolve_refused", {"error": exc.message, "field": exc.field}, new, drop_id=drop_id)
            return self.drop_view(drop_id)
        new = ses.apply_resolution(state, tray_after, result)
        new["drop"]["needs_confirmation"] = False
        self._commit("resolution", {"tray_after": clean(tray_after), "result": result}, new, drop_id=drop_id)
        return self.drop_view(drop_id)

    def correct(self, drop_id: int, counts: dict[str, int], who: str, note: str = "") -> dict[str, Any]:
        """The host corrects (or, with the same counts, confirms) a reading; the battle is re-resolved."""
        state = self.state
        drop = self._drop(drop_id)
        if drop["phase"] not in ("counted", "resolved"):
            raise DropError(f"drop {drop_id} is {drop['phase']}: only a read drop can be corrected")
        bad = {c: n for c, n in counts.items() if c not in ses.colours(state) and n}
        if bad or any((not isinstance(n, int)) or n < 0 for n in counts.values()):
            raise SessionError(f"a correction gives whole numbers >= 0 for the session's colours "
                               f"({', '.join(ses.colours(state))}), got {ses.given_counts(counts)}")
        before = drop.get("tray_after") or drop.get("reading", {}).get("cubes", {})
        if drop["phase"] == "resolved":
            state = _undo_resolution(state)
        new = ses.set_phase(state, "counted")
        payload = {"who": who, "when": time.time(), "before": clean(before), "after": clean(counts), "note": note}
        new["drop"]["corrections"] = [*drop.get("corrections", []), payload]
        self._commit("correction", payload, new, drop_id=drop_id)
        return self._resolve(drop_id, clean(counts))

    def answer(self, drop_id: int, counts: dict[str, int], who: str) -> dict[str, Any]:
        """The host answers the station's question ("Is it 6 or 7 red?") with the doubted colours'
        counts only; the rest of the tray is the reconciled reading. Recorded as a correction."""
        drop = self._drop(drop_id)
        question = (drop.get("reconciliation") or {}).get("question") or {}
        if drop["phase"] != "counted" or not drop.get("needs_confirmation") or not question:
            raise DropError(f"drop {drop_id} has no open question about its counts; correct the whole tray instead")
        unasked = sorted(set(counts) - set(question))
        if unasked or set(counts) != set(question):
            raise SessionError(f"the question is {question_text(question)}: answer {', '.join(sorted(question))} "
                               f"(got {', '.join(sorted(counts)) or 'nothing'}); correct the whole tray for other colours")
        tray = {**(drop["reconciliation"].get("best") or drop["reading"]["cubes"]), **counts}
        answer = ", ".join(f"{n} {c}" for c, n in sorted(counts.items()))
        return self.correct(drop_id, clean(tray), who, note=f"answered {question_text(question)} {answer}")

    # -- resume ------------------------------------------------------------------------------------
    def resume(self) -> dict[str, Any] | None:
        """Finish whatever a dead process left in flight, without ever releasing again."""
        state = self.store.state()
        if state is None or state["drop"] is None:
            return None
        drop = state["drop"]
        drop_id = drop["drop_id"]
        phase = drop["phase"]
        if phase == "releasing":
            before = _counter_from(drop)
            now = self._release_counter()
            moved = self._moved(before, now)
            if moved is True:
                assert now is not None
                self._commit("released", {"how": "recovered: the funnel's own release counter moved",
                                          "counter_after": now.count},
                             ses.set_phase(state, "released"), drop_id=drop_id)
                phase = "released"
            elif moved is False:
                self._commit("release_not_done", {"how": "recovered: the funnel's own release counter did not move"},
                             ses.set_phase(state, "planned"), drop_id=drop_id)
                return self.drop_view(drop_id)
            else:
                # No counter that can say. Cubes on the break-beam are evidence for the host, never
                # proof: a hand in the tray or one late cube would close the drop with its cubes
                # still in the funnel.
                evidence: dict[str, Any] = {}
                if self.tray_board is not None and drop.get("beam_reset"):
                    evidence["beam_count"] = _beam(self.tray_board)
                self._commit("release_unknown", {"why": "the process stopped while the funnel was being released",
                                                 **evidence},
                             ses.set_phase(state, "release_unknown"), drop_id=drop_id)
                return self.drop_view(drop_id)
        if phase == "released":
            return self.read_and_resolve(drop_id)
        if phase == "counted" and not drop.get("needs_confirmation"):
            # the reading was committed and trusted; the process died before resolving it
            return self._resolve(drop_id, _reading_counts(drop))
        return self.drop_view(drop_id)

    # -- the Emperor's Court -----------------------------------------------------------------------
    def court_convert(self, player: str, cubes: int) -> dict[str, Any]:
        state = self.state
        if state["drop"] is not None and state["drop"]["phase"] == "resolved":
            self._close_or_raise()
            state = self.state
        new, performed, why = ses.court_convert(state, player, cubes)
        if performed:
            _carry_vouched(state, new, "court_convert")
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

    # -- the tray between battles ------------------------------------------------------------------
    def place_into_tray(self, player: str, armies: int, source: str = "favor", who: str | None = None,
                        card: int | None = None) -> dict[str, Any]:
        """A favor card or the bonus-card benefit: armies from the player's supply into the tray.

        On a simulated station the simulated hands put the cubes in first, towards the tray the
        record will hold (so repeating it after a crash moves nothing twice, and a crash before the
        record leaves extra cubes that the next tray check takes out again); then the record."""
        from engine.tray import favor_card_places_armies

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
        _carry_vouched(state, new, "tray_placement")
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
        if counts is None:
            new, moved, after = dict(state), {}, before
        else:
            new, moved = ses.set_tray(state, counts)
            after = clean(counts)
        now = time.time()
        new["tray_vouched"] = {"tray": after, "who": who, "when": now}
        payload = {"who": who, "when": now, "before": before, "after": after, "camera": camera,
                   "from_supply": moved, "note": note,
                   "closes_drop": drop["drop_id"] if drop is not None else None}
        self._commit("tray_confirmed" if counts is None else "tray_corrected", payload, new)
        if drop is not None:
            self._close_or_raise()
        return payload

    def _look_at_tray(self) -> dict[str, Any]:
        """What the camera sees now, kept with the host's word as evidence (a dead camera is no reason
        to refuse the host)."""
        if self.reader is None:
            return {"usable": False, "reason": "no camera"}
        try:
            obs = self.reader.read("check", wait_settle=True, save=False)
        except (OSError, RuntimeError, ValueError) as exc:
            return {"usable": False, "reason": str(exc)}
        return {"usable": bool(obs.usable), "seen": clean(obs.cubes), "reason": obs.reason}

    # -- undo and the game's end -------------------------------------------------------------------
    def undo(self, who: str) -> dict[str, Any]:
        """Undo the last between-battle action (a round's settings, a deployment, a court conversion or
        return, armies placed into the tray, favor card #4, a wrong new session): the state goes back
        to what it was before it, and an ``undo`` record says so. Nothing is erased: the undone record
        stays in the log, and the undo is one more record, like a correction. A battle cannot be
        undone (its cubes fell): correct its reading instead."""
        if not who or not str(who).strip():
            raise SessionError("say who undoes it")
        state = self.state
        stack = list(state.get("undo") or [])
        if state["drop"] is not None and state["drop"]["phase"] != "resolved":
            raise DropError(f"drop {state['drop']['drop_id']} is in flight: finish it first")
        if not stack:
            raise SessionError("there is nothing to undo since the last battle (a battle itself is never undone: "
                               "correct its reading instead)")
        last = stack.pop()
        restored = {**last["before"], "undo": stack}
        if last["kind"] == "session_new":  # the old game comes back; drop ids stay unique
            restored["next_drop_id"] = max(restored["next_drop_id"], state["next_drop_id"])
        else:  # a resolved drop waiting for its clean-up (or cleaned since) stays as it is
            for key in ("drop", "drops_done", "next_drop_id"):
                restored[key] = state[key]
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
        from controller.game_end import summarise

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
        new = {k: v for k, v in state.items() if k != "undo"}
        new["ended"] = {"who": who, "when": time.time(), "summary": summary}
        self._commit("session_end", {"who": who, "session_id": state["session_id"], "summary": summary,
                                     "text": summary["text"]}, new)
        return new["ended"]

    # -- views -------------------------------------------------------------------------------------
    def drop_view(self, drop_id: int) -> dict[str, Any]:
        """A drop as the facade returns it (the drop in flight, or a closed one from the records)."""
        state = self.state
        drop = state["drop"] if state["drop"] and state["drop"]["drop_id"] == drop_id else None
        if drop is None:
            return closed_drop_view(self.store, drop_id)
        return _view(drop)


def _vouched(state: dict[str, Any]) -> dict[str, Any] | None:
    """The host's word on the tray (``tray_override``), while the tray is still the one vouched for."""
    vouched = state.get("tray_vouched")
    if vouched is None or clean(vouched["tray"]) != clean(state["tray"]):
        return None
    return vouched


UNDOABLE = ("round", "parry_card", "deploy", "court_convert", "court_return", "tray_placement", "session_new")
"""Between-battle actions that ``DropCycle.undo`` can take back (never a drop's own records)."""

UNDO_DEPTH = 20


def _with_undo(old: dict[str, Any] | None, new: dict[str, Any], kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """``new`` with the state before this action pushed onto its undo stack (the first session has no
    state before it, so it cannot be undone)."""
    from controller.wording import action_phrase

    if old is None:
        return new
    before = {k: v for k, v in old.items() if k != "undo"}
    stack = [] if kind == "session_new" else list(old.get("undo") or [])
    entry = {"kind": kind, "text": action_phrase(kind, payload), "before": before}
    return {**new, "undo": [*stack, entry][-UNDO_DEPTH:]}


def under_way(state: dict[str, Any]) -> bool:
    """A game someone would miss: the tower was filled or a drop planned, and it was not ended."""
    return not state.get("ended") and (bool(state.get("filled")) or state.get("drop") is not None
                                       or int(state.get("drops_done", 0)) > 0)


def _carry_vouched(state: dict[str, Any], new: dict[str, Any], why: str) -> None:
    """The host's word on the tray survives a change the station itself made to it (a court
    conversion, armies a card placed): the tray it vouched for, plus that known change, is still
    vouched for. Without a word in force there is nothing to carry."""
    vouched = _vouched(state)
    if vouched is None:
        new.pop("tray_vouched", None)
        return
    new["tray_vouched"] = {**vouched, "tray": clean(new["tray"]), "carried_over": why}


def _reading_counts(drop: dict[str, Any]) -> dict[str, int]:
    """The tray a committed, undoubted reading stands for: the reconciled one where the counter
    hesitated, else what it read."""
    reconciled = (drop.get("reconciliation") or {}).get("cubes")
    return dict(reconciled) if reconciled else dict(drop["reading"]["cubes"])


def _counter_fields(counter: ReleaseCounter | None) -> dict[str, Any]:
    """What a record keeps of a counter reading besides its count (to tell a reset from a move)."""
    if counter is None:
        return {}
    return {"counter_boot": counter.boot_id, "counter_persistent": counter.persistent}


def _counter_from(drop: dict[str, Any]) -> ReleaseCounter | None:
    """The counter reading a ``release_started`` record kept (records from before the boot id was
    kept were the simulated world's persisted count)."""
    count = drop.get("counter_before")
    if count is None:
        return None
    return ReleaseCounter(int(count), drop.get("counter_boot"), bool(drop.get("counter_persistent", True)))


def _beam(board: Any) -> int:
    try:
        return int(board.beam_count())
    except OSError:
        return 0


def _undo_resolution(state: dict[str, Any]) -> dict[str, Any]:
    drop = state["drop"]
    result = drop["result"]
    new = dict(state)
    new["tower"] = add(state["tower"], result.get("tower_delta", {}), -1)
    new["supply"] = add(state["supply"], result.get("to_supply", {}), -1)
    new["board"] = add(state["board"], result.get("to_county", {}), -1)
    new["tray"] = {}
    for colour in ses.colours(state):
        new["supply"].setdefault(colour, 0)
    if drop["battle"].get("battle") == "initial_fill":
        new["filled"] = False
        new["courtiers"] = add(state["courtiers"], result.get("courtiers") or {}, -1)
    new["drop"] = {k: v for k, v in drop.items() if k not in ("result", "tray_after")}
    return new


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


def _mismatch_text(check: dict[str, Any]) -> str:
    """In words, without a command: the CLI adds its commands, the page shows the host's buttons."""
    from controller.wording import counts_phrase, difference_phrase

    if not check["usable"]:
        return f"the tray cannot be read before the battle: {check['reason']}"
    return ("the tray does not hold what the session expects (expected "
            f"{counts_phrase(check['expected'])}, seen {counts_phrase(check['seen'])}: "
            f"{difference_phrase(check['seen'], check['expected'])}); "
            "clear it before the next battle, or, where the camera misreads it, the host vouches for the tray")


def _view(drop: dict[str, Any]) -> dict[str, Any]:
    from controller.summary import instructions, summary

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
        "resolution": result,
        "needs_confirmation": bool(drop.get("needs_confirmation")),
        "doubts": drop.get("doubts", []),
        "reconciliation": drop.get("reconciliation"),
        "question": ((drop.get("reconciliation") or {}).get("question") or {}) if drop.get("needs_confirmation") else {},
        "notes": drop.get("notes", []),
        "corrections": drop.get("corrections", []),
        # what the tray held as the battle was resolved: the host's correction where there is one
        "tray_read": (drop["corrections"][-1]["after"] if drop.get("corrections")
                      else drop.get("tray_after") or (drop.get("reading") or {}).get("cubes")),
        "summary": summary(drop["battle"], result) if result else None,
        "instructions": instructions(drop["battle"], result) if result else [],
    }


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
    view = _view(drop)
    view["ts"] = records[0].ts
    return view
