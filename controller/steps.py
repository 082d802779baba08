"""The ground every step of the drop cycle stands on: the state read from the records, one commit
per step (with its event for the page), the drop in flight, and the tray check that comes before
a battle and after one. ``DropCycle`` (``controller.cycle``) and its between-battle actions
(``controller.between``) are built on ``CycleSteps``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller import accounts as acc
from controller import session as ses
from controller.accounts import SessionError, clean
from controller.collaborators import BeamBoard, Funnel, Hands, NoHands, TrayReader
from controller.records import RecordStore
from controller.wording import counts_phrase, difference_phrase
from hardware.config import DEFAULT_BEAM_CLUMP
from hardware.interfaces import TRAY_LIGHT

EventSink = Callable[[dict[str, Any]], None]


class DropError(SessionError):
    """A drop request that does not fit the drop's phase (releasing twice, correcting a closed drop)."""


class TrayMismatch(SessionError):
    """The tray does not hold what the session expects: clear it before the next battle."""

    def __init__(self, message: str, expected: dict[str, int], seen: dict[str, int]) -> None:
        super().__init__(message)
        self.expected = expected
        self.seen = seen



class CycleSteps:
    """The records, the collaborators, and the steps every action of the cycle shares."""

    def __init__(self, store: RecordStore, *, funnel: Funnel | None, reader: TrayReader | None,
                 tray_board: BeamBoard | None = None, hands: Hands | None = None, on_event: EventSink | None = None,
                 beam_clump: float = DEFAULT_BEAM_CLUMP) -> None:
        self.store = store
        self.beam_clump = beam_clump  # how the break-beam undercounts clumps (controller.verify)
        self.funnel = funnel
        self.reader = reader
        self.tray_board = tray_board
        self.hands: Hands = hands if hands is not None else NoHands()
        self.on_event: EventSink = on_event or (lambda event: None)
        self.emptied: dict[str, int] | None = None  # what the simulated hands took out at the last new session
        self.odds_model = "spielbyweb"  # the config's station.odds_model (controller/odds.py)

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
        if kind in ses.UNDOABLE and payload.get("performed", True):
            state = ses.with_undo(self.store.state(), state, kind, payload)
        elif kind == "intent":
            state = ses.without_undo(state)
        self.store.append(kind, payload, drop_id=drop_id, images=images, state=state)
        self.on_event({"type": kind, "drop_id": drop_id,
                       "phase": (state.get("drop") or {}).get("phase") if drop_id is not None else None})

    def _lit_reader(self) -> tuple[TrayReader, str | None]:
        """The tray reader, with the tray board's LED ring switched on first, and a note where it
        could not be (:meth:`_light_tray`)."""
        if self.reader is None:
            raise DropError("the station's devices are not open here (a read-only view of the records)")
        return self.reader, self._light_tray()

    def _light_tray(self) -> str | None:
        """Switch the tray board's LED ring to full before the tray is read: the colour profile was
        learned under it, and the board switches it off whenever it boots or hears nothing from a
        host (its safe state), so after every command that ended, or a board restart, it is dark.
        A board that cannot answer leaves the tray in the room's light: the read goes on (the
        counter judges its frame) and the note says so."""
        if self.tray_board is None:
            return None
        try:
            self.tray_board.set_leds(TRAY_LIGHT)
        except OSError as exc:
            return f"the tray board did not switch its LED ring on ({exc}): the tray was read in the room's light"
        return None

    def _drop(self, drop_id: int) -> dict[str, Any]:
        drop = self.state["drop"]
        if drop is None or drop["drop_id"] != drop_id:
            current = "none" if drop is None else str(drop["drop_id"])
            raise DropError(f"drop {drop_id} is not the drop in flight (current: {current})")
        found: dict[str, Any] = drop
        return found

    def check_tray(self) -> dict[str, Any]:
        """Read the tray and compare it with the session's account (done before every plan). Where
        the tray board could not light the tray, ``light`` says so: a mismatch read in the room's
        light may be the light's, and the host is told (:func:`mismatch_text`)."""
        state = self.state
        self.hands.clear_tray(state["tray"])
        expected = clean(state["tray"])
        reader, light_note = self._lit_reader()
        for _ in range(2):  # a second look before blaming the players (a hand leaving, a reflection)
            obs = reader.read("check", wait_settle=True, save=False)
            seen = clean(obs.cubes)
            if obs.usable and seen == expected:
                break
        return {"ok": obs.usable and seen == expected, "expected": expected, "seen": seen,
                "usable": obs.usable, "reason": obs.reason, "light": light_note}

    def _close_or_raise(self) -> None:
        state = self.state
        drop = state["drop"]
        vouched = acc.vouched(state)
        if vouched is not None:
            self._commit("cleaned", {"tray": clean(state["tray"]), "vouched_by": vouched["who"]},
                         ses.finish_drop(state), drop_id=drop["drop_id"])
            return
        check = self.check_tray()
        if not check["ok"]:
            raise TrayMismatch(mismatch_text(check), check["expected"], check["seen"])
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

    def _look_at_tray(self) -> dict[str, Any]:
        """What the camera sees now, kept with the host's word as evidence (a dead camera is no reason
        to refuse the host). Where the tray board could not light the tray, ``light`` says so, as in
        :meth:`check_tray`: whoever reads the record later sees why the camera may have disagreed."""
        if self.reader is None:
            return {"usable": False, "reason": "no camera"}
        reader, light_note = self._lit_reader()
        lit = {"light": light_note} if light_note else {}
        try:
            obs = reader.read("check", wait_settle=True, save=False)
        except (OSError, RuntimeError, ValueError) as exc:
            return {"usable": False, "reason": str(exc), **lit}
        return {"usable": bool(obs.usable), "seen": clean(obs.cubes), "reason": obs.reason, **lit}


def mismatch_text(check: dict[str, Any]) -> str:
    """In words, without a command: the CLI adds its commands, the page shows the host's buttons.
    Where the tray was read unlit, that comes first, set apart by " · " (which the translation cuts
    at, so each part keeps its own sentence): it may be the whole cause."""
    light = f"{check['light']} · " if check.get("light") else ""
    if not check["usable"]:
        return f"{light}the tray cannot be read before the battle: {check['reason']}"
    return (f"{light}the tray does not hold what the session expects (expected "
            f"{counts_phrase(check['expected'])}, seen {counts_phrase(check['seen'])}: "
            f"{difference_phrase(check['seen'], check['expected'])}); "
            "clear it before the next battle, or, where the camera misreads it, the host vouches for the tray")
