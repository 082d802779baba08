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

The release settling (a release that raised, and one a dead process left unfinished) is written
once, in :meth:`DropCycle._settle_release`. Nothing here prints or prompts: the facade
(``controller.table``) and the CLI do.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from controller import accounts as acc
from controller import session as ses
from controller.accounts import SessionError, clean
from controller.between import BetweenBattles
from controller.collaborators import BeamBoard, Funnel
from controller.odds import odds_before_drop
from controller.rereads import read_verified
from controller.steps import DropError, TrayMismatch, mismatch_text
from controller.verify import question_text
from controller.views import closed_drop_view, drop_view_of, finish_hint
from engine import api
from engine.errors import BattleInputError
from hardware.interfaces import ReleaseCounter

SESSION_KNOWS = ("tray_before", "tower_before", "supply", "tray_after")
__all__ = ["DropCycle", "DropError", "TrayMismatch", "closed_drop_view", "finish_hint"]


class DropCycle(BetweenBattles):
    """Plans, releases, reads, verifies, resolves and closes drops, committing each step (the
    actions between battles are ``BetweenBattles``'s, the views ``controller.views``'s)."""

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
            acc.fill_in_round(state, data)
            data.setdefault("buildings", [])
            data.setdefault("revolt_markers", 0)
            for key in ("attacker", "defender"):
                if data.get(key) is not None:
                    acc.check_player(state, data[key], f"the {key}")
            data["tower_before"] = dict(state["tower"])
        data["tray_before"] = dict(state["tray"])
        data["supply"] = acc.supply_for_battle(state)
        return data

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
        assumed = acc.shortfall_on_board(state, acc.armies_named(battle))
        deployed = ses.apply_deployment(state, assumed)
        data = self.battle_input(deployed, battle)
        if data.get("battle") == "initial_fill":
            self.hands.empty_station()  # after a crash between `session new` and its emptying
        plan = api.plan(data)  # refuse bad input before photographing the tray: check first, then look
        vouched = acc.vouched(state)
        payload: dict[str, Any] = {}
        if check_tray and vouched is None:
            check = self.check_tray()
            if not check["ok"]:
                raise TrayMismatch(mismatch_text(check), check["expected"], check["seen"])
        elif vouched is not None:
            payload["tray_check"] = {"vouched_by": vouched["who"], "when": vouched["when"]}
        else:
            payload["tray_check"] = "skipped"
        odds = self._odds(data)  # before the release, so that the record shows what was expected
        drop_id = state["next_drop_id"]
        new = ses.apply_plan(deployed, drop_id, data, plan, odds)  # the host's word covered this one plan
        self._commit("intent", {"battle": data, "plan": plan, "assumed_deployed": assumed, "odds": odds, **payload},
                     new, drop_id=drop_id)
        return {"drop_id": drop_id, "battle": data, "plan": plan, "assumed_deployed": assumed, "odds": odds}

    def _odds(self, data: dict[str, Any]) -> dict[str, Any] | None:
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
        self._commit("cancelled", {}, ses.cancel_plan(self.state), drop_id=drop_id)

    def _release_counter(self) -> ReleaseCounter | None:
        """The funnel device's own release count (the tray board's, kept across its resets; the
        simulated servo's). ``None`` where it keeps none, or where the device cannot be asked now:
        never a guess from elsewhere."""
        try:
            return self._funnel().release_counter()
        except OSError:
            return None

    def _funnel(self) -> Funnel:
        if self.funnel is None:
            raise DropError("the station's devices are not open here (a read-only view of the records)")
        return self.funnel

    def _settle_release(self, drop_id: int, before: ReleaseCounter | None, error: str | None) -> str:
        """Whether the funnel opened, after a release that raised (``error``) or that a dead process
        left unfinished (``error`` None), as its own release counter says; committed, and the new
        phase returned: *released* (read the tray, never release again), *planned* (it never
        opened: its one release is still to come) or *release_unknown* (the host must say)."""
        now = self._release_counter()
        moved = _moved(before, now)
        state = self.state
        if moved is True:
            assert now is not None
            how = ({"how": "recovered: the funnel's own release counter moved"} if error is None
                   else {"how": "funnel (it reported an error after moving)", "error": error})
            self._commit("released", {**how, "counter_after": now.count}, ses.set_phase(state, "released"),
                         drop_id=drop_id)
            return "released"
        if moved is False:
            if error is None:
                self._commit("release_not_done", {"how": "recovered: the funnel's own release counter did not move"},
                             ses.set_phase(state, "planned"), drop_id=drop_id)
            else:
                self._commit("release_failed", {"error": error, "moved": False}, ses.set_phase(state, "planned"),
                             drop_id=drop_id)
            return "planned"
        if error is not None:
            self._commit("release_failed", {"error": error, "moved": None},
                         ses.set_phase(state, "release_unknown", error=error), drop_id=drop_id)
            return "release_unknown"
        # No counter that can say. Cubes on the break-beam are evidence for the host, never proof: a
        # hand in the tray or one late cube would close the drop with its cubes still in the funnel.
        evidence: dict[str, Any] = {}
        if self.tray_board is not None and self._beam_stands(state["drop"])[0]:
            evidence["beam_count"] = _beam(self.tray_board)
        self._commit("release_unknown", {"why": "the process stopped while the funnel was being released", **evidence},
                     ses.set_phase(state, "release_unknown"), drop_id=drop_id)
        return "release_unknown"

    def release(self, drop_id: int) -> dict[str, Any]:
        """Release the funnel once for this drop, then read, verify and resolve."""
        drop = self._drop(drop_id)
        if drop["phase"] != "planned":
            raise DropError(f"drop {drop_id} was released already (phase {drop['phase']}); it is never released twice")
        self.hands.load_funnel(drop["funnel"])
        beam_reset, beam_boot = False, None
        if self.tray_board is not None:
            try:
                self.tray_board.reset_beam()
                beam_boot = int(self.tray_board.hello().boot_id)  # the count lives until the board restarts
                beam_reset = True
            except OSError:
                beam_reset = False
        counter = self._release_counter()
        known = _counter_fields(counter)
        beam = {"beam_reset": beam_reset, "beam_boot": beam_boot}
        self._commit("release_started", {"counter_before": counter.count if counter else None, **known, **beam},
                     ses.set_phase(self.state, "releasing", counter_before=counter.count if counter else None,
                                   **known, **beam),
                     drop_id=drop_id)
        try:
            self._funnel().release()
        except Exception as exc:
            if self._settle_release(drop_id, counter, str(exc)) != "released":
                raise
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

    def read_and_resolve(self, drop_id: int) -> dict[str, Any]:
        drop = self._drop(drop_id)
        battle = drop["battle"]
        tower_before = battle.get("tower_before")
        # a host's re-read never overwrites a photo an earlier record vouches for
        readings_before = sum(1 for r in self.store.records(drop_id) if r.kind == "reading")
        tag = f"drop-{drop_id:06d}" + (f"-r{readings_before + 1}" if readings_before else "")
        beam_stands, beam_note = self._beam_stands(drop)
        reader, light_note = self._lit_reader()
        verified = read_verified(reader, self.tray_board, tag, drop["funnel"], tower_before,
                                 funnel_left=self.hands.funnel_contents, clump=self.beam_clump,
                                 count_beam=beam_stands)
        verified.notes[:0] = [note for note in (light_note, beam_note) if note]
        obs = verified.observation
        images = {k: v for k, v in (("raw", obs.raw), ("annotated", obs.annotated)) if v is not None}
        images.update({f"annotated-{lang}": path for lang, path in obs.annotated_in.items()})
        for i, early in enumerate(verified.earlier, start=1):  # the doubted reads are evidence too
            images.update({f"read{i}-{k}": v for k, v in (("raw", early.raw), ("annotated", early.annotated))
                           if v is not None})
        reading = obs.to_record()
        needs = bool(verified.doubts)
        # the counter's alternatives weighed against the beam and the ledger: the tray used, and why
        reconciled = verified.reconciliation.as_dict() if verified.reconciliation is not None else None
        if reconciled is not None and reconciled["question"]:
            # which asked colours the photo shown with the question circles, so that the host is
            # not sent to look for a circle that is not there
            reconciled["circled"] = sorted(set(reconciled["question"]) & obs.circled_colours)
        state = ses.set_phase(self.state, "counted", reading=reading, doubts=verified.doubts,
                              needs_confirmation=needs, reconciliation=reconciled, notes=verified.notes,
                              images={k: Path(v).resolve().relative_to(self.store.data_dir.resolve()).as_posix()
                                      for k, v in images.items()})
        # the beam's count is kept with every reading, not only where it weighed in: the drops a
        # station has seen measure how its beam undercounts (controller.beam_rate)
        self._commit("reading", {"reading": reading, "doubts": verified.doubts, "attempts": verified.attempts,
                                 "reconciliation": reconciled, "notes": verified.notes, "beam": verified.beam},
                     state, drop_id=drop_id, images=images)
        if needs:
            return self.drop_view(drop_id)
        return self._resolve(drop_id, clean(verified.counts))

    def _beam_stands(self, drop: dict[str, Any]) -> tuple[bool, str | None]:
        """Whether the tray board's break-beam count stands for this drop: zeroed before its
        release, by a board that has not restarted since. A restart (a power dip, the board's
        watchdog, a new host process starting a simulated board) zeroes the count, so a beam that
        reads too few cubes would make the station doubt a right reading. With it the note that
        says why the count is not used. Records from before the boot id was kept: as then."""
        if self.tray_board is None or not drop.get("beam_reset"):
            return False, None
        then = drop.get("beam_boot")
        if then is None:
            return True, None
        try:
            now: int | None = int(self.tray_board.hello().boot_id)
        except OSError:
            now = None
        if now == then:
            return True, None
        since = "" if now is None else f" (boot id {then:08x}, now {now:08x})"
        return False, f"the tray board restarted after its break-beam was zeroed for this drop{since}: its count is not used"

    def reread(self, drop_id: int) -> dict[str, Any]:
        """Read the tray again at the host's request (a hand was in the way, a jammed trapdoor was
        freed by hand and its cubes went through the tower): a new reading, never a new release."""
        drop = self._drop(drop_id)
        if drop["phase"] != "counted":
            raise DropError(f"drop {drop_id} is {drop['phase']}: only a read, unresolved drop can be read again")
        return self.read_and_resolve(drop_id)

    def _resolve(self, drop_id: int, tray_after: dict[str, int]) -> dict[str, Any]:
        state = self.state
        drop = state["drop"]
        data = dict(drop["battle"])
        data["tray_after"] = clean(tray_after)
        try:
            result = api.resolve(data)
        except BattleInputError as exc:
            new = ses.set_phase(state, "counted", needs_confirmation=True,
                                doubts=[*drop.get("doubts", []), f"the engine refuses the reading: {exc.message}"])
            self._commit("resolve_refused", {"error": exc.message, "field": exc.field}, new, drop_id=drop_id)
            return self.drop_view(drop_id)
        new = ses.apply_resolution(state, tray_after, result)
        self._commit("resolution", {"tray_after": clean(tray_after), "result": result}, new, drop_id=drop_id)
        return self.drop_view(drop_id)

    def correct(self, drop_id: int, counts: dict[str, int], who: str, note: str = "") -> dict[str, Any]:
        """The host corrects (or, with the same counts, confirms) a reading; the battle is re-resolved."""
        state = self.state
        drop = self._drop(drop_id)
        if drop["phase"] not in ("counted", "resolved"):
            raise DropError(f"drop {drop_id} is {drop['phase']}: only a read drop can be corrected")
        bad = {c: n for c, n in counts.items() if c not in acc.colours(state) and n}
        if bad or any((not isinstance(n, int)) or n < 0 for n in counts.values()):
            raise SessionError(f"a correction gives whole numbers >= 0 for the session's colours "
                               f"({', '.join(acc.colours(state))}), got {acc.given_counts(counts)}")
        before = drop.get("tray_after") or drop.get("reading", {}).get("cubes", {})
        if drop["phase"] == "resolved":
            state = ses.undo_resolution(state)
        payload = {"who": who, "when": time.time(), "before": clean(before), "after": clean(counts), "note": note}
        self._commit("correction", payload, ses.add_correction(state, payload), drop_id=drop_id)
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

    def resume(self) -> dict[str, Any] | None:
        """Finish whatever a dead process left in flight, without ever releasing again."""
        state = self.store.state()
        if state is None or state["drop"] is None:
            return None
        drop = state["drop"]
        drop_id = drop["drop_id"]
        phase = drop["phase"]
        if phase == "releasing":
            phase = self._settle_release(drop_id, _counter_from(drop), None)
            if phase != "released":
                return self.drop_view(drop_id)
        if phase == "released":
            return self.read_and_resolve(drop_id)
        if phase == "counted" and not drop.get("needs_confirmation"):
            # the reading was committed and trusted; the process died before resolving it
            return self._resolve(drop_id, _reading_counts(drop))
        return self.drop_view(drop_id)

    def drop_view(self, drop_id: int) -> dict[str, Any]:
        """A drop as the facade returns it (the drop in flight, or a closed one from the records)."""
        state = self.state
        drop = state["drop"] if state["drop"] and state["drop"]["drop_id"] == drop_id else None
        if drop is None:
            return closed_drop_view(self.store, drop_id)
        return drop_view_of(drop)


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


def _beam(board: BeamBoard) -> int:
    try:
        return int(board.beam_count())
    except OSError:
        return 0


def _moved(before: ReleaseCounter | None, now: ReleaseCounter | None) -> bool | None:
    """Whether the funnel opened between two counter readings: None when they cannot say."""
    if before is None or now is None or not now.comparable(before) or now.count < before.count:
        return None
    return now.count > before.count
