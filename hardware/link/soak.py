"""The link soak: many commands through a lossy, corrupting link, then an exact account of what the
board actually did. Used by ``bench/bench_link_soak.py`` (10,000 commands) and, bounded, by the
tests.

The host side is the production code (``SerialTrayBoard``, ``SerialFunnelRelease``, ``BoardLink``);
the board is the firmware's own logic (``firmware.tray_board.Board``) running in-process on a
virtual clock, so waiting for timeouts and release dwells costs no real time. A
``FaultInjectingTransport`` in between loses and corrupts whole frames in both directions.

Every state-changing call the host makes is logged as the action it expects the board to carry out;
the board logs what it carried out. The two lists must be equal: an action missing from the
board's list was lost, an extra one was duplicated by a retransmission. Every read (beam count,
release number) is also checked against the expected value.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field

from hardware.errors import LinkError, ReleaseError
from hardware.link.client import BoardLink, LinkStats
from hardware.link.faults import FaultCounts, FaultInjectingTransport
from hardware.link.loopback import InProcessBoard, VirtualClock


@dataclass
class SoakReport:
    commands: int
    operations: int
    expected_actions: int
    board_actions: int
    lost_actions: int
    duplicated_actions: int
    wrong_reads: int
    failures: int
    duplicates_answered_from_memory: int
    naks_sent_by_board: int
    link: LinkStats
    faults: FaultCounts
    wall_s: float
    virtual_s: float
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.lost_actions or self.duplicated_actions or self.wrong_reads or self.failures)

    def lines(self) -> list[str]:
        f, s = self.faults, self.link
        return [
            f"commands sent (link requests)   {self.commands}",
            f"host operations                 {self.operations}",
            f"frames sent by host             {s.frames_sent}",
            f"  dropped on the way            {f.sent_dropped}",
            f"  corrupted on the way          {f.sent_corrupted}",
            f"responses dropped               {f.received_dropped}",
            f"responses corrupted             {f.received_corrupted}",
            f"retransmissions                 {s.retransmissions}",
            f"timeouts                        {s.timeouts}",
            f"NAKs received                   {s.naks} (board sent {self.naks_sent_by_board})",
            f"damaged responses rejected      {s.rejected_frames}",
            f"stale responses ignored         {s.stale_responses}",
            f"retransmissions answered from the board's memory  {self.duplicates_answered_from_memory}",
            f"expected actions                {self.expected_actions}",
            f"actions carried out by board    {self.board_actions}",
            f"LOST actions                    {self.lost_actions}",
            f"DUPLICATED actions              {self.duplicated_actions}",
            f"wrong reads                     {self.wrong_reads}",
            f"commands failed (LinkError)     {self.failures}",
            f"virtual time                    {self.virtual_s:.1f} s",
            f"wall time                       {self.wall_s:.2f} s ({self.commands / max(self.wall_s, 1e-9):.0f} commands/s)",
        ]


def run_soak(
    commands: int = 10_000, corrupt: float = 0.05, loss: float = 0.05, seed: int = 1, retries: int = 8
) -> SoakReport:
    """Drive ``commands`` link requests through faults; account for every action."""
    from hardware.serial_board import SerialFunnelRelease, SerialTrayBoard

    rng = random.Random(seed)
    clock = VirtualClock()
    board_end = InProcessBoard(clock=clock, seed=seed)
    transport = FaultInjectingTransport(
        board_end, corrupt=corrupt, loss=loss, seed=seed + 1, sleep=clock.sleep
    )
    link = BoardLink(
        transport, timeout_s=0.05, retries=retries, heartbeat_s=0, clock=clock.now, sleep=clock.sleep
    )
    link.hello()
    board = SerialTrayBoard(link)
    funnel = SerialFunnelRelease(board, open_angle=95, closed_angle=12, dwell_s=0.5, move_s=0.2)
    expected: list[tuple[str, tuple]] = []
    beam = 0
    releases = 0
    operations = wrong_reads = failures = 0
    errors: list[str] = []
    started = time.perf_counter()
    base = link.stats.commands
    while link.stats.commands - base < commands:
        operations += 1
        op = rng.randrange(7)
        action: tuple[str, tuple] | None = None
        try:
            if op == 0:
                level = rng.randrange(1001)
                action = ("LEDS", (level,))
                board.set_leds(level / 1000)
            elif op == 1:
                action = ("BEAM_RESET", ())
                board.reset_beam()
                beam = 0
            elif op == 2:
                pulses = rng.randrange(1, 20)
                action = ("SIM_BEAM", (pulses,))
                got = board.simulate_beam(pulses)
                beam += pulses
                wrong_reads += got != beam
            elif op == 3:
                wrong_reads += board.beam_count() != beam
            elif op == 4:
                ms = rng.randrange(1, 3000)
                action = ("VIBRATE", (ms,))
                board.vibrate(ms / 1000, wait=False)
            elif op == 5:
                action = ("RELEASE", (9500, 1200, 500, 200))
                funnel.release()
                releases += 1
                wrong_reads += funnel.last_release_number != releases
            else:
                status = board.status()
                wrong_reads += status.beam_count != beam or status.releases != releases
        except (LinkError, ReleaseError) as exc:
            # Not silent: the caller was told. Whether the action happened is then unknown to the
            # host (a real controller asks the board); the soak looks at the board's own log so that
            # its bookkeeping stays right, and counts the failure.
            failures += 1
            errors.append(f"operation {operations}: {exc}")
            done = (board_end.all_actions)[len(expected) :]
            if action is not None and done == [action]:
                expected.append(action)
                if action[0] == "BEAM_RESET":
                    beam = 0
                elif action[0] == "SIM_BEAM":
                    beam += action[1][0]
                elif action[0] == "RELEASE":
                    releases += 1
            continue
        if action is not None:
            expected.append(action)
    wall = time.perf_counter() - started
    actions = board_end.all_actions
    want, got = Counter(expected), Counter(actions)
    lost = sum((want - got).values())
    duplicated = sum((got - want).values())
    if actions != expected and not (lost or duplicated):
        errors.append("the board carried out the right actions in the wrong order")
        wrong_reads += 1
    report = SoakReport(
        commands=link.stats.commands - base,
        operations=operations,
        expected_actions=len(expected),
        board_actions=len(actions),
        lost_actions=lost,
        duplicated_actions=duplicated,
        wrong_reads=wrong_reads,
        failures=failures,
        duplicates_answered_from_memory=board_end.board.duplicates,
        naks_sent_by_board=board_end.board.naks,
        link=link.stats,
        faults=transport.counts,
        wall_s=wall,
        virtual_s=clock.now() - 1000.0,
        errors=errors,
    )
    funnel.close()
    board.close()
    return report


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
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.sequence_ok
            and not self.failures
            and self.leds_seen == self.leds_expected
            and self.beam_pulses_seen == self.beam_pulses_expected
            and self.releases_seen == self.releases_expected
        )

    def lines(self) -> list[str]:
        f, s = self.faults, self.link
        return [
            f"commands sent (link requests)   {self.commands}",
            f"frames sent / retransmissions   {s.frames_sent} / {s.retransmissions}",
            f"faults: sent dropped/corrupted  {f.sent_dropped} / {f.sent_corrupted}",
            f"faults: recv dropped/corrupted  {f.received_dropped} / {f.received_corrupted}",
            f"LED changes   expected/seen     {self.leds_expected} / {self.leds_seen}",
            f"beam pulses   expected/seen     {self.beam_pulses_expected} / {self.beam_pulses_seen}",
            f"releases      expected/seen     {self.releases_expected} / {self.releases_seen}",
            f"same order as sent              {self.sequence_ok}",
            f"commands failed (LinkError)     {self.failures}",
            f"wall time                       {self.wall_s:.1f} s",
        ]


def run_pty_soak(
    commands: int = 1000, corrupt: float = 0.05, loss: float = 0.05, seed: int = 1, retries: int = 8
) -> PtySoakReport:
    """The same idea against the firmware under real MicroPython on a pty, in real time.

    The board's own account is its simulated hardware's log (``FirmwarePty.events()``): every LED
    level written, the running beam total after each injection, every servo move. A duplicated
    command would show as an extra LED write, beam step or servo opening; a lost one as a gap.
    """
    from hardware.firmware_pty import FirmwarePty
    from hardware.link.transport import SerialTransport
    from hardware.serial_board import SerialFunnelRelease, SerialTrayBoard

    rng = random.Random(seed)
    leds: list[int] = []
    beam_totals: list[int] = []
    total = 0
    releases = 0
    failures = 0
    errors: list[str] = []
    open_cdeg = 9100
    with FirmwarePty() as fw:
        assert fw.port is not None
        transport = FaultInjectingTransport(SerialTransport(fw.port), corrupt=corrupt, loss=loss, seed=seed)
        link = BoardLink(transport, timeout_s=0.05, retries=retries, heartbeat_s=0)
        started = time.perf_counter()
        link.hello()
        board = SerialTrayBoard(link)
        funnel = SerialFunnelRelease(
            board, open_angle=open_cdeg / 100, closed_angle=15, dwell_s=0.03, move_s=0.01
        )
        base = link.stats.commands
        while link.stats.commands - base < commands:
            op = rng.randrange(6)
            try:
                if op == 0:
                    level = rng.randrange(1001)
                    board.set_leds(level / 1000)
                    leds.append(level)
                elif op == 1:
                    pulses = rng.randrange(1, 9)
                    board.simulate_beam(pulses)
                    total += pulses
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
                failures += 1
                errors.append(str(exc))
        wall = time.perf_counter() - started
        commands_sent = link.stats.commands - base
        funnel.close()
        board.close()
        time.sleep(0.05)
        events = fw.events()
    seen_leds = [e["v"] for e in events if e["ev"] == "leds"]
    seen_beam = [e["v"] for e in events if e["ev"] == "beam"]
    for what, want, got in (("LED levels", leds, seen_leds), ("beam totals", beam_totals, seen_beam)):
        if want != got:
            at = next((i for i, (a, b) in enumerate(zip(want, got, strict=False)) if a != b), min(len(want), len(got)))
            errors.append(f"{what} differ from #{at}: sent {want[at - 2:at + 3]}, the board did {got[at - 2:at + 3]}")
    seen_releases = sum(1 for e in events if e["ev"] == "servo" and e["v"] == open_cdeg)
    return PtySoakReport(
        commands=commands_sent,
        leds_expected=len(leds),
        leds_seen=len(seen_leds),
        beam_pulses_expected=total,
        beam_pulses_seen=seen_beam[-1] if seen_beam else 0,
        releases_expected=releases,
        releases_seen=seen_releases,
        failures=failures,
        link=link.stats,
        faults=transport.counts,
        wall_s=wall,
        sequence_ok=seen_leds == leds and seen_beam == beam_totals,
        errors=errors,
    )


__all__ = ["PtySoakReport", "SoakReport", "run_pty_soak", "run_soak"]
