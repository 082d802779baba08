"""The link soak against the real firmware under MicroPython on a pty, checked through the
firmware's hardware log (``bench/bench_link_soak.py --pty``, and bounded by the tests). The
in-process soak on a virtual clock is ``simulation/link/soak.py``.
"""

from __future__ import annotations

import random
import tempfile
import time
from dataclasses import dataclass, field

from firmware import tray_protocol as tp
from hardware.errors import BoardResetError, LinkError, ReleaseError
from hardware.link.client import BoardLink, LinkStats
from hardware.link.transport import SerialTransport
from hardware.serial_board import SerialFunnelRelease, SerialTrayBoard
from simulation.firmware_pty import FirmwarePty
from simulation.link.faults import FaultCounts, FaultInjectingTransport
from simulation.link.soak import reset_in


@dataclass
class PtySoakReport:
    """The soak against the real firmware under MicroPython, checked through its hardware log."""

    commands: int
    leds_expected: int
    leds_seen: int
    beam_pulses_expected: int
    beam_pulses_seen: int
    releases_expected: int
    releases_seen: int
    failures: int
    link: LinkStats
    faults: FaultCounts
    wall_s: float
    sequence_ok: bool
    resets_injected: int = 0
    resets_reported: int = 0
    board_count: int | None = None
    firmware_alive: bool = True
    safe_trips: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.sequence_ok
            and self.firmware_alive
            and not self.failures
            and self.leds_seen == self.leds_expected
            and self.beam_pulses_seen == self.beam_pulses_expected
            and self.releases_seen == self.releases_expected
            and self.board_count == self.releases_seen
            and self.resets_reported == self.link.resets == self.resets_injected
        )

    def lines(self) -> list[str]:
        f, s = self.faults, self.link
        return [
            f"commands sent (link requests)   {self.commands}",
            f"frames sent / retransmissions   {s.frames_sent} / {s.retransmissions}",
            f"faults: sent dropped/corrupted/late  {f.sent_dropped} / {f.sent_corrupted} / {f.sent_reordered}",
            f"faults: recv dropped/corrupted/late  {f.received_dropped} / {f.received_corrupted} / {f.received_reordered}",
            f"board resets (firmware restarted)    {self.resets_injected}, noticed {s.resets}, "
            f"told to the caller {self.resets_reported}",
            f"heartbeats (PING) / safe-state trips {s.heartbeats} / {self.safe_trips}",
            f"LED changes   expected/seen     {self.leds_expected} / {self.leds_seen}",
            f"beam pulses   expected/seen     {self.beam_pulses_expected} / {self.beam_pulses_seen}",
            f"releases      expected/seen     {self.releases_expected} / {self.releases_seen} "
            f"(board's saved count {self.board_count})",
            f"same order as sent              {self.sequence_ok}",
            f"firmware still running          {self.firmware_alive}",
            f"commands failed (LinkError)     {self.failures}",
            f"wall time                       {self.wall_s:.1f} s",
        ]


def run_pty_soak(
    commands: int = 1000,
    corrupt: float = 0.05,
    loss: float = 0.05,
    seed: int = 1,
    retries: int = 8,
    *,
    reset: float = 0.0,
    reorder: float = 0.0,
    heartbeat_s: float = 0.0,
) -> PtySoakReport:
    """The same idea against the firmware under real MicroPython on a pty, in real time.

    The board's own account is its simulated hardware's log (``FirmwarePty.events()``): every LED
    level written, the running beam total after each injection, every servo move. A duplicated
    command would show as an extra LED write, beam step or servo opening; a lost one as a gap.
    ``reset``: probability per operation that the firmware process is restarted (a board reset; its
    simulated flash keeps the release count); ``reorder``: chunks delivered late; ``heartbeat_s``:
    the link's background PING, with the host idling now and then. A firmware that dies ends the run
    at once (it is reported, never waited on).
    """
    rng = random.Random(seed)
    leds: list[int] = []
    beam_totals: list[int] = []
    total = 0
    pulses_sent = 0
    releases = 0
    failures = resets = resets_reported = 0
    errors: list[str] = []
    open_cdeg = 9100
    alive = True
    board_count: int | None = None
    with tempfile.TemporaryDirectory(prefix="pty-soak-") as state, FirmwarePty(state_dir=state) as fw:
        assert fw.port is not None
        transport = FaultInjectingTransport(
            SerialTransport(fw.port), corrupt=corrupt, loss=loss, seed=seed, reorder=reorder
        )
        link = BoardLink(transport, timeout_s=0.05, retries=retries, heartbeat_s=heartbeat_s,
                         first_seq=rng.randrange(256))
        started = time.perf_counter()
        link.hello()
        link.start_heartbeat()
        board = SerialTrayBoard(link)
        funnel = SerialFunnelRelease(
            board, open_angle=open_cdeg / 100, closed_angle=15, dwell_s=0.03, move_s=0.01
        )
        base = link.stats.commands
        while link.stats.commands - base < commands:
            if not fw.running():
                alive = False
                errors.append("the firmware died: " + fw.log_tail(5))
                break
            if reset and rng.random() < reset:
                with link._lock:  # a board reset between two commands (never inside one)
                    fw.restart()
                resets += 1
                total = 0
            op = rng.randrange(6) if not heartbeat_s or rng.random() > 0.02 else 6
            try:
                if op == 6:
                    time.sleep(heartbeat_s * 1.5)  # idle: the heartbeat keeps the session
                    link.request(tp.PING)
                elif op == 0:
                    level = rng.randrange(1001)
                    board.set_leds(level / 1000)
                    leds.append(level)
                elif op == 1:
                    pulses = rng.randrange(1, 9)
                    board.simulate_beam(pulses)
                    total += pulses
                    pulses_sent += pulses
                    beam_totals.append(total)
                elif op == 2:
                    board.reset_beam()
                elif op == 3:
                    board.vibrate(rng.randrange(1, 50) / 1000, wait=False)
                elif op == 4:
                    funnel.release()
                    releases += 1
                else:
                    board.status()
            except (LinkError, ReleaseError) as exc:
                told = reset_in(exc)
                if told:
                    resets_reported += told
                else:
                    failures += 1
                    errors.append(str(exc))
        link.stop_heartbeat()
        try:
            link.ping()
        except BoardResetError:
            resets_reported += 1
        except LinkError as exc:
            failures += 1
            errors.append(f"final ping: {exc}")
        try:
            board_count = link.release_count().count
        except LinkError as exc:
            errors.append(f"final release count: {exc}")
        wall = time.perf_counter() - started
        commands_sent = link.stats.commands - base
        funnel.close()
        board.close()
        time.sleep(0.05)
        events = fw.events()
    seen_leds: list[int] = []
    after_safe = False
    safe_trips = 0
    for e in events:
        if e["ev"] == "safe":
            after_safe, safe_trips = True, safe_trips + 1
        elif e["ev"] == "leds":
            if after_safe and e["v"] == 0:
                after_safe = False  # the safe state's own "LEDs off", not a command
                continue
            seen_leds.append(e["v"])
    seen_beam = [e["v"] for e in events if e["ev"] == "beam"]
    boots = [i for i, e in enumerate(events) if e["ev"] == "boot"]
    # each boot's beam totals start again from 0: the pulses the board saw are the sum of the steps
    seen_pulses, last = 0, 0
    for i, e in enumerate(events):
        if i in boots:
            last = 0
        elif e["ev"] == "beam":
            seen_pulses += e["v"] - last
            last = e["v"]
    for what, want, got in (("LED levels", leds, seen_leds), ("beam totals", beam_totals, seen_beam)):
        if want != got:
            at = next((i for i, (a, b) in enumerate(zip(want, got, strict=False)) if a != b), min(len(want), len(got)))
            errors.append(f"{what} differ from #{at}: sent {want[at - 2:at + 3]}, the board did {got[at - 2:at + 3]}")
    seen_releases = sum(1 for e in events if e["ev"] == "servo" and e["v"] == open_cdeg)
    return PtySoakReport(
        commands=commands_sent,
        leds_expected=len(leds),
        leds_seen=len(seen_leds),
        beam_pulses_expected=pulses_sent,
        beam_pulses_seen=seen_pulses,
        releases_expected=releases,
        releases_seen=seen_releases,
        failures=failures,
        link=link.stats,
        faults=transport.counts,
        wall_s=wall,
        sequence_ok=seen_leds == leds and seen_beam == beam_totals,
        resets_injected=resets,
        resets_reported=resets_reported,
        board_count=board_count,
        firmware_alive=alive,
        safe_trips=safe_trips,
        errors=errors,
    )


__all__ = ["PtySoakReport", "run_pty_soak"]
