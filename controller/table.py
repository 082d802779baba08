"""The station at the table, as one object: what the CLI and the web app both drive.

``Table`` joins the records, the session, the drop cycle and the devices. Every method returns
JSON-able dicts, so the web layer only serialises them; every method holds one lock, so the web
app's threads and a background job never interleave half-steps. One process at a time may hold a
data directory (an exclusive lock file): two controllers releasing the same funnel would break
"exactly once" in a way no record could repair.

Opening a table resumes a drop left in flight by a process that died (see ``controller.cycle``).
The station (``station.factory``) gives the cycle its devices and the players' hands: on a
simulated station they are played on the simulated world (the funnel is loaded just before the
release and the tray is cleared before the next battle); at a real table they do nothing.
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from controller.cycle import DropCycle
from controller.data_dir import lock_data_dir as _lock_data_dir
from controller.data_dir import open_records
from controller.readers import CameraReader, DirectReader, TrayReader
from controller.records import RecordsError, RecordsReadOnly, RecordStore
from controller.report import build_report
from controller.views import closed_drop_view, light_for, session_drop_ids, status_view, with_notes
from engine.decisions import tray_placement_note
from hardware.config import StationConfig, load_config
from station.factory import Station, open_station
from vision.counter import TrayCounter

F = TypeVar("F", bound=Callable[..., Any])


def _writes(method: F) -> F:
    """A change to the table: refused at once, naming the damage, while damaged records keep the
    station read-only (rather than failing for another reason first, or half-way)."""

    @functools.wraps(method)
    def guarded(self: Table, *args: Any, **kwargs: Any) -> Any:
        reason = self.store.read_only_reason
        if reason is not None:
            raise RecordsReadOnly(reason)
        return method(self, *args, **kwargs)

    return guarded  # type: ignore[return-value]


def _build_cycle(cfg: StationConfig, store: RecordStore, station: Station, reader: str) -> DropCycle:
    """The drop cycle over the station's devices; the tray read by the camera and the vision counter,
    or (``reader="direct"``, a simulated station only) as the station says the tray truly is."""
    tray_reader: TrayReader
    if reader == "direct":
        truth = station.tray_truth()
        if truth is None:
            raise ValueError("the direct tray reading needs a simulated station")
        tray_reader = DirectReader(truth)
    else:
        tray_reader = CameraReader(station.camera, lambda: TrayCounter(station.colour_profile()),
                                   cfg.data_dir / "images", settle_frames=cfg.station.settle_frames,
                                   settle_timeout_s=cfg.station.settle_timeout_s)
    cycle = DropCycle(store, funnel=station.funnel, reader=tray_reader, tray_board=station.tray_board,
                      hands=station.hands, beam_clump=cfg.board.beam_clump)
    cycle.odds_model = cfg.station.odds_model
    return cycle


class Table:
    """The facade (docs/architecture.md, "Controller")."""

    def __init__(self, store: RecordStore, cycle: DropCycle, *, station: Any = None, config: Any = None,
                 lock_fd: int | None = None) -> None:
        self.store = store
        self.cycle = cycle
        self.station = station
        self.config = config
        self.data_dir = store.data_dir
        self._lock = threading.RLock()
        self._lock_fd = lock_fd
        self._subscribers: list[queue.Queue[dict[str, Any]]] = []
        cycle.on_event = self._publish
        self.resumed: dict[str, Any] | None = None

    # -- opening -----------------------------------------------------------------------------------
    @classmethod
    def open(cls, config_path: str | Path | None = None, data_dir: str | Path | None = None, *,
             reader: str | None = None, config: Any = None, resume: bool = True) -> Table:
        """Load the config, open the records and the devices, and finish a drop left in flight.

        ``reader="direct"`` reads a simulated tray's contents instead of photographing it (long
        crash and soak runs); it needs a simulated station. ``None``: the config's
        ``[sim] tray_reading`` (``"camera"`` unless a benchmark's config says otherwise)."""
        cfg = config if config is not None else load_config(config_path)
        if data_dir is not None:
            cfg = cfg.replace(station={"data_dir": str(Path(data_dir).resolve())})
        if reader is None:
            reader = cfg.sim.tray_reading
        lock_fd = _lock_data_dir(cfg.data_dir)
        try:
            store = RecordStore.open(cfg.data_dir)  # a corrupt or foreign file stops us before any device moves
            station = open_station(cfg)
        except BaseException:
            os.close(lock_fd)
            raise
        try:
            cycle = _build_cycle(cfg, store, station, reader)
        except BaseException:
            store.close()
            station.close()
            os.close(lock_fd)
            raise
        table = cls(store, cycle, station=station, config=cfg, lock_fd=lock_fd)
        if resume and store.damage is None:  # damaged records: read-only until acknowledged, no resuming
            try:
                table.resumed = table.resume()
            except BaseException:  # e.g. the camera fails while finishing the drop: the records keep it
                table.close()      # in flight; free the devices and the lock for the next try
                raise
        return table

    def close(self) -> None:
        with self._lock:
            if self.station is not None and hasattr(self.station, "close"):
                self.station.close()
            self.store.close()
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- events ------------------------------------------------------------------------------------
    def subscribe(self) -> queue.Queue[dict[str, Any]]:
        q: queue.Queue[dict[str, Any]] = queue.Queue()
        with self._lock:
            self._subscribers.append(q)
        return q

    def unsubscribe(self, q: queue.Queue[dict[str, Any]]) -> None:
        with self._lock:
            if q in self._subscribers:
                self._subscribers.remove(q)

    def _publish(self, event: dict[str, Any]) -> None:
        self._show_light(event)
        for q in list(self._subscribers):
            q.put(event)

    def _show_light(self, event: dict[str, Any]) -> None:
        """The table's status LED, where there is one (``controller.views.light_for``)."""
        light = self.station.status_led if self.station is not None else None
        state = light_for(event, self.store.state() if event.get("type") == "reading" else None)
        if light is None or state is None:
            return
        with contextlib.suppress(OSError):  # a dead LED must not stop a battle
            light.show(state)

    # -- the session -------------------------------------------------------------------------------
    @_writes
    def new_session(self, players: list[str], emperors_court: bool = False, force: bool = False) -> dict[str, Any]:
        """A new game. Its record says the tower, the tray and the funnel must be emptied before the
        initial fill (the ledger starts from an empty tower); on a simulated station the simulated
        hands empty them, and ``emptied`` says what they took out (None at a real table)."""
        with self._lock:
            self.cycle.new_session(players, emperors_court, force)
            return {**self.status(), "emptied": self.cycle.emptied}

    @_writes
    def set_round(self, event: str | None = None, bonus_tiles: dict[str, str | None] | None = None,
                  immune: list[str] | dict[str, str] | None = None) -> dict[str, Any]:
        """The round's event, bonus tiles and immune players: ``immune`` maps a player to the action
        their favor card (#10, #11, #18) protects against, ``"A"``, ``"B"`` or ``"both"`` (a list:
        both)."""
        with self._lock:
            return self.cycle.set_round(event, bonus_tiles, immune)

    @_writes
    def keep_parry_card(self, player: str | None) -> dict[str, Any]:
        """Who keeps favor card #4 to parry the next revolt marker (``None``: nobody). The session
        marks each revolt against them, and the revolt they win spends the card."""
        with self._lock:
            return {"parry_card": self.cycle.keep_parry_card(player)}

    @_writes
    def deploy(self, player: str, armies: int) -> dict[str, Any]:
        with self._lock:
            self.cycle.deploy(player, armies)
            return self.status()

    def status(self) -> dict[str, Any]:
        with self._lock:
            state = self.store.state()
            if state is None:
                return {"session": None, "drop": None, "records": self.records_health()}
            drop = state["drop"]
            shown = with_notes(self.cycle.drop_view(drop["drop_id"])) if drop else None
            return {**status_view(state, shown), "records": self.records_health()}

    def records_health(self) -> dict[str, Any]:
        """Whether the station may write: damaged records make it read-only until acknowledged."""
        damage = self.store.damage
        return {"read_only": damage is not None, "problem": damage.problem if damage else None,
                "bad_seq": damage.bad_seq if damage else None,
                "problems": len(damage.problems) if damage else 0,
                "message": self.store.read_only_reason}

    # -- the drop cycle ----------------------------------------------------------------------------
    @_writes
    def plan(self, battle: dict[str, Any], *, check_tray: bool = True) -> dict[str, Any]:
        """Battle JSON minus what the session knows -> the drop id, the full battle, and the plan."""
        with self._lock:
            planned = self.cycle.plan(battle, check_tray=check_tray)
            return with_notes({"drop_id": planned["drop_id"], "battle": planned["battle"], "plan": planned["plan"],
                               "assumed_deployed": planned["assumed_deployed"], "odds": planned["odds"]})

    def report(self, session: int | None = None, lang: str = "en") -> dict[str, Any]:
        """The luck report of a session (default: the current one), plots drawn in ``lang``."""
        with self._lock:
            records = self.store.records()
        return build_report(records, self.data_dir, session, lang=lang, beam_clump=self.cycle.beam_clump)

    def fill(self) -> dict[str, Any]:
        """Plan the initial fill (players and the Emperor's Court come from the session)."""
        return self.plan({"battle": "initial_fill"})

    @_writes
    def release(self, drop_id: int) -> dict[str, Any]:
        with self._lock:
            return with_notes(self.cycle.release(drop_id))

    @_writes
    def correct(self, drop_id: int, counts: dict[str, int], who: str, note: str = "") -> dict[str, Any]:
        with self._lock:
            return with_notes(self.cycle.correct(drop_id, counts, who, note))

    @_writes
    def confirm(self, drop_id: int, who: str) -> dict[str, Any]:
        """Accept a doubted reading as it is (a correction that changes nothing, kept as such)."""
        with self._lock:
            view = self.cycle.drop_view(drop_id)
            counts = (view.get("reading") or {}).get("cubes", {})
            return with_notes(self.cycle.correct(drop_id, counts, who, note="confirmed as read"))

    @_writes
    def answer(self, drop_id: int, counts: dict[str, int], who: str) -> dict[str, Any]:
        """The host's answer to the station's question about the colours in doubt ("6 or 7 red?")."""
        with self._lock:
            return self.cycle.answer(drop_id, counts, who)

    @_writes
    def reread(self, drop_id: int) -> dict[str, Any]:
        """Read the tray of a doubted drop again (never a new release)."""
        with self._lock:
            return with_notes(self.cycle.reread(drop_id))

    @_writes
    def confirm_release(self, drop_id: int, fell: bool, who: str) -> dict[str, Any]:
        with self._lock:
            return with_notes(self.cycle.confirm_release(drop_id, fell, who))

    @_writes
    def cancel(self, drop_id: int) -> dict[str, Any]:
        with self._lock:
            self.cycle.cancel(drop_id)
            return self.status()

    @_writes
    def clean(self) -> dict[str, Any]:
        """Check the tray against what should remain; close the resolved drop when it agrees."""
        with self._lock:
            state = self.cycle.state
            drop = state["drop"]
            check = self.cycle.check_tray()
            closed = False
            if drop is not None and drop["phase"] == "resolved" and check["ok"]:
                closed = self.cycle.close_resolved()
            return {**check, "closed": closed, "drop_id": drop["drop_id"] if drop else None}

    def resume(self) -> dict[str, Any] | None:
        with self._lock:
            return with_notes(self.cycle.resume())

    @_writes
    def court_convert(self, player: str, cubes: int) -> dict[str, Any]:
        with self._lock:
            return self.cycle.court_convert(player, cubes)

    @_writes
    def court_return(self, player: str, courtiers: int) -> dict[str, Any]:
        """Courtiers spent at the Emperor's Court go back to the player's supply."""
        with self._lock:
            return self.cycle.court_return(player, courtiers)

    @_writes
    def place_into_tray(self, player: str, armies: int, source: str = "favor", who: str | None = None,
                        card: int | None = None) -> dict[str, Any]:
        """A favor card (#3, #8, #14) or the bonus-card benefit puts ``armies`` of the player's own
        supply into the tray (a short supply pays what it has); recorded as ``tray_placement``."""
        with self._lock:
            result = self.cycle.place_into_tray(player, armies, source, who, card)
            note = tray_placement_note(player, result["armies"], result["placed"])
            return {**result, "notes": [note] if note else []}

    @_writes
    def confirm_tray(self, who: str, note: str = "") -> dict[str, Any]:
        """The host vouches that the tray holds what the station expects (the camera misreads it):
        the next plan trusts it instead of the camera. Recorded as ``tray_confirmed``."""
        with self._lock:
            return self.cycle.tray_override(None, who, note)

    @_writes
    def set_tray(self, counts: dict[str, int], who: str, note: str = "") -> dict[str, Any]:
        """The host says what the tray holds; the difference comes from (or goes back to) the
        supplies, and the next plan trusts it. Recorded as ``tray_corrected``."""
        with self._lock:
            return self.cycle.tray_override(counts, who, note)

    @_writes
    def undo(self, who: str) -> dict[str, Any]:
        """Take back the last between-battle action (recorded as an ``undo``; nothing is erased)."""
        with self._lock:
            return self.cycle.undo(who)

    @_writes
    def end_session(self, who: str) -> dict[str, Any]:
        """The game's end: its summary, recorded as ``session_end``."""
        with self._lock:
            return self.cycle.end_session(who)

    # -- records -----------------------------------------------------------------------------------
    def drop(self, drop_id: int) -> dict[str, Any]:
        with self._lock:
            return with_notes(self.cycle.drop_view(drop_id))

    def history(self) -> list[dict[str, Any]]:
        """Every drop of the current session, newest first."""
        with self._lock:
            state = self.store.state()
            if state is None:
                return []
            current = state["drop"]["drop_id"] if state["drop"] else None
            return [self.cycle.drop_view(d) if d == current else closed_drop_view(self.store, d)
                    for d in reversed(session_drop_ids(self.store.records()))]

    def log(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r.as_dict() for r in self.store.records()]

    def verify(self) -> dict[str, Any]:
        with self._lock:
            return self.store.verify().as_dict()

    def acknowledge(self, who: str, note: str = "") -> dict[str, Any]:
        """The host acknowledges the damage a verification found; the station writes again. The
        acknowledgement is a record naming who and which problems (``damage_acknowledged``)."""
        with self._lock:
            before = self.store.acknowledge(who, note)
            self._publish({"type": "damage_acknowledged", "drop_id": None})
            return {**before.as_dict(), "records_now": self.records_health()}


def read_only(data_dir: str | Path) -> Table:
    """A table over the records alone, for looking (``tower status``, ``tower log``) while another
    process (the web server) holds the station: no devices, no lock, no resuming."""
    store = open_records(data_dir)
    try:
        store.verify(images=False)  # so that the status says whether the station is read-only
    except BaseException:
        store.close()
        raise
    return Table(store, DropCycle(store, funnel=None, reader=None))


def acknowledge_damage(data_dir: str | Path, who: str, note: str = "") -> dict[str, Any]:
    """``tower log acknowledge``: the records alone, under the station's lock (never beside a running
    server, which offers the same on its page)."""
    path = Path(data_dir)
    if not (path / "records.sqlite3").exists():
        raise RecordsError(f"there are no records in {path}")
    lock_fd = _lock_data_dir(path)
    try:
        store = RecordStore.open(path)
        try:
            return Table(store, DropCycle(store, funnel=None, reader=None)).acknowledge(who, note)
        finally:
            store.close()
    finally:
        os.close(lock_fd)


