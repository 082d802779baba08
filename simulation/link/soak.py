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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from firmware import tray_protocol as tp
from hardware.errors import BoardResetError, LinkError, ReleaseError
from hardware.link.client import BoardLink, LinkStats
from hardware.serial_board import SerialFunnelRelease, SerialTrayBoard
from simulation.link.faults import FaultCounts, FaultInjectingTransport
from simulation.link.loopback import InProcessBoard, VirtualClock


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
    resets_injected: int = 0
    resets_reported: int = 0
    late_copies_dropped: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.lost_actions or self.duplicated_actions or self.wrong_reads or self.failures) and (
            self.resets_reported == self.link.resets == self.resets_injected
        )

    def lines(self) -> list[str]:
        f, s = self.faults, self.link
        return [
            f"commands sent (link requests)   {self.commands}",
            f"host operations                 {self.operations}",
            f"frames sent by host             {s.frames_sent}",
            f"  dropped on the way            {f.sent_dropped}",
            f"  corrupted on the way          {f.sent_corrupted}",
            f"  delivered late (reordered)    {f.sent_reordered}",
            f"responses dropped               {f.received_dropped}",
            f"responses corrupted             {f.received_corrupted}",
            f"responses delivered late        {f.received_reordered}",
            f"board resets injected           {self.resets_injected}",
            f"  noticed by the link / told to the caller  {s.resets} / {self.resets_reported}",
            f"heartbeats (PING) sent          {s.heartbeats}",
            f"retransmissions                 {s.retransmissions}",
            f"timeouts                        {s.timeouts}",
            f"NAKs received                   {s.naks} (board sent {self.naks_sent_by_board})",
            f"damaged responses rejected      {s.rejected_frames}",
            f"stale responses ignored         {s.stale_responses}",
            f"retransmissions answered from the board's memory  {self.duplicates_answered_from_memory}",
            f"late copies dropped by the board  {self.late_copies_dropped}",
            f"expected actions                {self.expected_actions}",
            f"actions carried out by board    {self.board_actions}",
            f"LOST actions                    {self.lost_actions}",
            f"DUPLICATED actions              {self.duplicated_actions}",
            f"wrong reads                     {self.wrong_reads}",
            f"commands failed (LinkError)     {self.failures}",
            f"virtual time                    {self.virtual_s:.1f} s",
            f"wall time                       {self.wall_s:.2f} s ({self.commands / max(self.wall_s, 1e-9):.0f} commands/s)",
        ]


class _ResettingBoard:
    """Between the fault injector and the in-process board: with probability ``p`` per frame the
    board power-cycles (keeping its flash), just before the frame arrives or just after it was
    carried out (its answer is then lost). Only a board whose boot id the host has seen resets, so
    every reset must be noticed by the host (a new boot id) before the next one."""

    def __init__(self, end: InProcessBoard, p: float, rng: random.Random) -> None:
        self.end, self.p, self.rng = end, p, rng
        self.host_knows: Callable[[], bool] = lambda: True  # set once the link exists: has the host seen this boot id?
        self.name = end.name
        self.resets = 0
        # what boards that have since been reset did: late copies dropped, retransmissions answered
        # from memory, NAKs sent
        self.stale = self.duplicates = self.naks = 0

    def write(self, data: bytes) -> None:
        if self.p and self.end.board.session and self.host_knows() and self.rng.random() < self.p:
            self.resets += 1
            before = self.rng.random() < 0.5
            if not before:
                self.end.write(data)
            self.stale += self.end.board.stale
            self.duplicates += self.end.board.duplicates
            self.naks += self.end.board.naks
            self.end.reset(seed=self.rng.getrandbits(32))
            if before:
                self.end.write(data)
            return
        self.end.write(data)

    def read_some(self, timeout_s: float) -> bytes:
        return self.end.read_some(timeout_s)

    def close(self) -> None:
        self.end.close()


def reset_in(exc: BaseException | None) -> int:
    """How many board resets are among the causes of ``exc`` (the caller was told of each: one
    operation may meet two, e.g. a reset during a release and another while its count is asked)."""
    resets = 0
    while exc is not None:
        if isinstance(exc, BoardResetError):
            resets += 1
        exc = exc.__cause__ or exc.__context__
    return resets


def run_soak(
    commands: int = 10_000,
    corrupt: float = 0.05,
    loss: float = 0.05,
    seed: int = 1,
    retries: int = 8,
    *,
    reset: float = 0.0,
    reorder: float = 0.0,
    heartbeat_s: float = 0.0,
) -> SoakReport:
    """Drive ``commands`` link requests through faults; account for every action.

    ``reset``: probability per frame that the board power-cycles around it; ``reorder``: probability
    per chunk that it is delivered late; ``heartbeat_s``: the link's background PING (virtual idle
    seconds; 0: none), running in its own thread as on the station.
    """
    rng = random.Random(seed)
    clock = VirtualClock()
    board_end = InProcessBoard(clock=clock, seed=seed)
    resetting = _ResettingBoard(board_end, reset, random.Random(seed + 2))
    transport = FaultInjectingTransport(
        resetting, corrupt=corrupt, loss=loss, seed=seed + 1, sleep=clock.sleep, reorder=reorder
    )
    link = BoardLink(
        transport, timeout_s=0.05, retries=retries, heartbeat_s=heartbeat_s, clock=clock.now, sleep=clock.sleep,
        silence_s=60.0,
    )
    resetting.host_knows = lambda: link.info is not None and link.info.boot_id == board_end.board.boot_id
    link.hello()
    link.start_heartbeat()
    board = SerialTrayBoard(link)
    funnel = SerialFunnelRelease(board, open_angle=95, closed_angle=12, dwell_s=0.5, move_s=0.2)
    expected: list[tuple[str, tuple[Any, ...]]] = []
    beam = 0
    releases = 0
    operations = wrong_reads = failures = resets_reported = 0
    errors: list[str] = []
    started = time.perf_counter()
    base = link.stats.commands
    while link.stats.commands - base < commands:
        operations += 1
        op = rng.randrange(7) if not heartbeat_s or rng.random() > 0.02 else 7
        action: tuple[str, tuple[Any, ...]] | None = None
        resets_before = resetting.resets
        try:
            if op == 7:  # the host idles: the heartbeat thread keeps the board's session alive
                clock.sleep(heartbeat_s * 2)
                time.sleep(heartbeat_s * 1.5)
                link.request(tp.PING)  # any error the heartbeat met is raised here
            elif op == 0:
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
                if resetting.resets == resets_before:
                    wrong_reads += got != beam
            elif op == 3:
                got = board.beam_count()
                if resetting.resets == resets_before:
                    wrong_reads += got != beam
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
                if resetting.resets == resets_before:
                    wrong_reads += status.beam_count != beam
                wrong_reads += status.releases != releases
        except (LinkError, ReleaseError) as exc:
            # Not silent: the caller was told. Whether the action happened is then unknown to the
            # host (a real controller asks the board); the soak looks at the board's own log so that
            # its bookkeeping stays right, and counts the failure (or the reset the caller was told of).
            told = reset_in(exc)
            if told:
                resets_reported += told
            else:
                failures += 1
                errors.append(f"operation {operations}: {exc}")
            done = board_end.all_actions[len(expected) :]
            if action is not None and done == [action]:
                expected.append(action)
                if action[0] == "BEAM_RESET":
                    beam = 0
                elif action[0] == "SIM_BEAM":
                    beam += action[1][0]
                elif action[0] == "RELEASE":
                    releases += 1
            if resetting.resets != resets_before:
                beam = 0  # the reset lost the board's beam count
            continue
        if resetting.resets != resets_before:
            beam = 0
        if action is not None:
            expected.append(action)
    link.stop_heartbeat()
    try:  # a reset in the last operation (or the last heartbeat) is noticed by the next exchange
        link.ping()
    except BoardResetError:
        resets_reported += 1
    except LinkError as exc:
        failures += 1
        errors.append(f"final ping: {exc}")
    link.close()
    wall = time.perf_counter() - started
    actions = board_end.all_actions
    asked_count, done_count = Counter(expected), Counter(actions)
    lost = sum((asked_count - done_count).values())
    duplicated = sum((done_count - asked_count).values())
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
        duplicates_answered_from_memory=resetting.duplicates + board_end.board.duplicates,
        naks_sent_by_board=resetting.naks + board_end.board.naks,
        link=link.stats,
        faults=transport.counts,
        wall_s=wall,
        virtual_s=clock.now() - 1000.0,
        resets_injected=resetting.resets,
        resets_reported=resets_reported,
        late_copies_dropped=resetting.stale + board_end.board.stale,
        errors=errors,
    )
    funnel.close()
    board.close()
    return report
