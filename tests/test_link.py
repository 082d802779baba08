"""The host end of the link (hardware/link, hardware/serial_board.py) against the firmware's own board
logic in-process: retransmission, exactly-once actions, backoff, reset detection, safe state."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import tray_protocol as tp
from firmware.hal_sim import SimHal
from firmware.tray_board import Board
from hardware.errors import BoardResetError, LinkError, ReleaseError
from hardware.interfaces import FunnelRelease, TrayBoard
from hardware.link import BoardBusyError, BoardLink, BoardRejectedError, open_link
from hardware.serial_board import SerialFunnelRelease, SerialTrayBoard
from simulation.link.faults import FaultInjectingTransport
from simulation.link.loopback import InProcessBoard, VirtualClock
from simulation.link.soak import run_soak


class Scripted:
    """Wraps a transport; drops the writes / responses whose 1-based index is listed."""

    def __init__(self, inner, drop_writes=(), drop_reads=(), corrupt_writes=()):
        self.inner, self.name = inner, inner.name
        self.drop_writes, self.drop_reads, self.corrupt_writes = set(drop_writes), set(drop_reads), set(corrupt_writes)
        self.writes = self.reads = 0

    def write(self, data):
        self.writes += 1
        if self.writes in self.drop_writes:
            return
        if self.writes in self.corrupt_writes:
            data = data[:-1] + bytes([data[-1] ^ 0xFF])
        self.inner.write(data)

    def read_some(self, timeout_s):
        data = self.inner.read_some(timeout_s)
        if data:
            self.reads += 1
            if self.reads in self.drop_reads:
                return b""
        return data

    def close(self):
        self.inner.close()


class Silent:
    name = "silent port"

    def __init__(self, clock):
        self.clock, self.writes = clock, 0

    def write(self, data):
        self.writes += 1

    def read_some(self, timeout_s):
        self.clock.sleep(timeout_s)
        return b""

    def close(self):
        pass


def link_over(transport, clock, **kwargs):
    kwargs.setdefault("heartbeat_s", 0)
    return BoardLink(transport, clock=clock.now, sleep=clock.sleep, **kwargs)


@pytest.fixture
def rig():
    clock = VirtualClock()
    end = InProcessBoard(clock=clock, seed=0x1234ABCD)
    link = link_over(end, clock)
    link.hello()
    return clock, end, link


def test_hello_reports_version_boot_id_and_firmware(rig) -> None:
    _, _, link = rig
    info = link.info
    assert info is not None
    assert (info.protocol_version, info.boot_id) == (tp.PROTOCOL_VERSION, 0x1234ABCD)
    assert info.firmware.startswith("tray-fw ")


def test_devices_implement_the_interfaces_and_drive_the_board(rig) -> None:
    clock, end, link = rig
    board = SerialTrayBoard(link)
    funnel = SerialFunnelRelease(board, open_angle=95, closed_angle=12, dwell_s=1.5, move_s=0.3)
    assert isinstance(board, TrayBoard) and isinstance(funnel, FunnelRelease)
    board.set_leds(0.25)
    assert end.hal.leds == 250
    board.reset_beam()
    assert board.simulate_beam(6) == 6 and board.beam_count() == 6
    board.reset_beam()
    assert board.beam_count() == 0
    started = clock.now()
    assert board.vibrate(0.8) == 0.8
    assert clock.now() - started == pytest.approx(0.8)  # waited for the motor
    assert not board.status().vibrating and not end.hal.vibrating
    assert board.vibrate(12.0, wait=False) == 5.0  # capped on the board
    assert "tray board on in-process board" in board.describe()


def test_release_is_timed_on_the_board_and_fires_once(rig) -> None:
    clock, end, link = rig
    funnel = SerialFunnelRelease(link, open_angle=95, closed_angle=12, dwell_s=1.5, move_s=0.3)
    end.hal.events.clear()
    t0 = clock.ms()
    funnel.release()
    servo = [(name, value) for name, value in end.hal.events if name == "servo"]
    assert servo == [("servo", 9500), ("servo", 1200), ("servo", None)]  # open, close, detach
    assert funnel.last_release_number == 1
    assert end.actions.count(("RELEASE", (9500, 1200, 1500, 300))) == 1
    assert clock.ms() - t0 >= 300 + 1500 + 300
    assert link.status().releasing is False


def test_angles_are_clamped_to_the_calibrated_range(rig) -> None:
    _, end, link = rig
    funnel = SerialFunnelRelease(link, open_angle=170, closed_angle=2, min_angle=10, max_angle=120, dwell_s=0, move_s=0)
    funnel.release()
    assert end.actions[-1] == ("RELEASE", (12000, 1000, 0, 0))
    assert end.board.closed_cdeg == 1000


def test_lost_acknowledgement_is_retransmitted_and_not_acted_twice() -> None:
    clock = VirtualClock()
    end = InProcessBoard(clock=clock, seed=7)
    link = link_over(end, clock)
    link.hello()
    scripted = Scripted(end, drop_reads={1, 2})  # the first two RELEASE acknowledgements vanish
    link.transport = scripted
    number = link.request(tp.RELEASE, 9000, 1000, 100, 50)["number"]
    assert number == 1
    assert link.stats.retransmissions == 2
    assert end.board.duplicates == 2
    assert [a for a in end.actions if a[0] == "RELEASE"] == [("RELEASE", (9000, 1000, 100, 50))]
    assert end.board.releases == 1


@pytest.mark.parametrize(
    "cmd,args,name",
    [
        (tp.RELEASE, (9000, 1000, 0, 0), "RELEASE"),
        (tp.BEAM_RESET, (), "BEAM_RESET"),
        (tp.VIBRATE, (100,), "VIBRATE"),
        (tp.SERVO, (4500, 200), "SERVO"),
        (tp.LEDS, (300,), "LEDS"),
        (tp.SIM_BEAM, (3,), "SIM_BEAM"),
    ],
)
def test_a_duplicate_frame_gets_the_same_answer_without_acting(cmd, args, name) -> None:
    hal = SimHal(clock=lambda: 0, seed=1)
    acts: list = []
    board = Board(hal, on_action=lambda name, args: acts.append((name, args)))
    board.handle_frame(1, tp.HELLO, tp.pack_request(tp.HELLO, tp.PROTOCOL_VERSION, 3000, 1000))
    frame = (2, cmd, tp.pack_request(cmd, *args))
    first = board.handle_frame(*frame)
    again = board.handle_frame(*frame)
    assert first == again
    assert tp.split_response(tp.decode_all(first)[0][2])[0] == tp.OK
    assert [a[0] for a in acts] == [name]
    # the same command as a *new* command (next seq) is carried out again
    board.tick()  # a zero-length release: open -> closed
    board.tick()  # closed -> detached, done
    board.handle_frame(3, tp.STATUS, b"")
    board.handle_frame(4, *frame[1:])
    assert [a[0] for a in acts] == [name, name]


def test_nak_triggers_an_early_retransmission(rig) -> None:
    clock, end, link = rig
    link.transport = Scripted(end, corrupt_writes={1})
    t0 = clock.now()
    link.request(tp.LEDS, 500)
    assert link.stats.naks == 1 and link.stats.retransmissions == 1
    assert clock.now() - t0 < link.timeout_s  # no waiting for the timeout
    assert end.actions.count(("LEDS", (500,))) == 1


def test_no_answer_gives_a_clear_error_after_backoff() -> None:
    clock = VirtualClock()
    port = Silent(clock)
    link = link_over(port, clock, timeout_s=0.2, retries=5, max_timeout_s=2.0)
    t0 = clock.now()
    with pytest.raises(LinkError, match=r"silent port did not answer HELLO \(seq 1\) after 6 tries over 7\.0 s"):
        link.hello()
    assert port.writes == 6
    assert clock.now() - t0 == pytest.approx(0.2 + 0.4 + 0.8 + 1.6 + 2.0 + 2.0)
    assert isinstance(LinkError("x"), OSError)


def test_board_reset_is_noticed_and_the_command_not_replayed(rig) -> None:
    _, end, link = rig
    board = SerialTrayBoard(link)
    board.set_leds(0.5)
    end.reset(seed=0xBEEF)
    with pytest.raises(BoardResetError, match="1234abcd -> 0000beef"):
        board.set_leds(0.75)
    assert end.actions == []  # nothing was done on the new board
    board.set_leds(0.75)  # the next command opens a new session and works
    assert end.actions == [("LEDS", (750,))]
    assert link.info is not None and link.info.boot_id == 0xBEEF


def test_reset_noticed_by_ping(rig) -> None:
    _, end, link = rig
    end.reset(seed=99)
    with pytest.raises(BoardResetError):
        link.ping()


def test_refusals_and_busy_are_reported(rig) -> None:
    _, _, link = rig
    with pytest.raises(BoardRejectedError, match="refused LEDS: BAD_VALUE") as err:
        link.request(tp.LEDS, 1001)
    assert isinstance(err.value, ValueError)
    link.request(tp.RELEASE, 9000, 1000, 1000, 100)
    with pytest.raises(BoardBusyError):
        link.request(tp.RELEASE, 9000, 1000, 1000, 100)
    with pytest.raises(BoardBusyError):
        link.request(tp.SERVO, 9000, 100)
    board = SerialTrayBoard(link)
    with pytest.raises(ValueError, match="LED level"):
        board.set_leds(1.5)
    with pytest.raises(ValueError, match="vibration"):
        board.vibrate(-1)


def test_release_that_cannot_be_confirmed_is_a_release_error() -> None:
    clock = VirtualClock()
    link = link_over(Silent(clock), clock, retries=1)
    with pytest.raises(LinkError):
        SerialFunnelRelease(link)  # the handshake itself fails, loudly
    end = InProcessBoard(clock=clock)
    link = link_over(end, clock, retries=1)
    funnel = SerialFunnelRelease(link, dwell_s=0.1, move_s=0.1)
    funnel.release()
    link.transport = Silent(clock)
    with pytest.raises(ReleaseError, match="may or may not have opened") as err:
        funnel.release()
    assert err.value.released is None


def test_lost_release_acknowledgements_are_settled_by_the_release_counter() -> None:
    clock = VirtualClock()
    end = InProcessBoard(clock=clock)
    link = link_over(end, clock, retries=1)
    funnel = SerialFunnelRelease(link, dwell_s=0.1, move_s=0.1)
    funnel.release()
    link.transport = Scripted(end, drop_reads={1, 2})  # both answers to the RELEASE are lost
    funnel.release()  # STATUS shows the counter moved: it fired once, and that is success
    assert funnel.last_release_number == 2
    assert [a[0] for a in end.actions].count("RELEASE") == 2


def test_a_release_that_never_arrived_is_reported_as_not_released() -> None:
    clock = VirtualClock()
    end = InProcessBoard(clock=clock)
    link = link_over(end, clock, retries=1)
    funnel = SerialFunnelRelease(link, dwell_s=0.1, move_s=0.1)
    funnel.release()
    link.transport = Scripted(end, drop_writes={1, 2})  # both RELEASE frames are lost
    with pytest.raises(ReleaseError, match="did not open") as err:
        funnel.release()
    assert err.value.released is False
    assert end.board.releases == 1
    link.transport = end
    funnel.release()  # safe to try again: it fires exactly once
    assert end.board.releases == 2 and funnel.last_release_number == 2


def test_host_silence_puts_the_board_in_its_safe_state() -> None:
    now = [0]
    hal = SimHal(clock=lambda: now[0], seed=3)
    board = Board(hal)
    board.handle_frame(1, tp.HELLO, tp.pack_request(tp.HELLO, tp.PROTOCOL_VERSION, 1000, 1500))
    board.handle_frame(2, tp.LEDS, tp.pack_request(tp.LEDS, 800))
    board.handle_frame(3, tp.VIBRATE, tp.pack_request(tp.VIBRATE, 5000))
    board.handle_frame(4, tp.SERVO, tp.pack_request(tp.SERVO, 9000, 10000))
    now[0] = 999
    board.tick()
    assert (hal.leds, hal.vibrating, hal.servo) == (800, True, 9000)
    now[0] = 1000
    board.tick()
    assert (hal.leds, hal.vibrating, hal.servo) == (0, False, 1500)  # closed, off, off
    now[0] = 1000 + 500
    board.tick()
    assert hal.servo is None  # held at closed, then detached
    flags, *_rest, trips, _faults = tp.unpack_result(
        tp.STATUS, tp.split_response(tp.decode_all(board.handle_frame(5, tp.STATUS, b""))[0][2])[1]
    )
    assert flags & tp.FLAG_SAFE and trips == 1
    flags = tp.unpack_result(tp.STATUS, tp.split_response(tp.decode_all(board.handle_frame(6, tp.STATUS, b""))[0][2])[1])[0]
    assert not flags & tp.FLAG_SAFE  # reported once


def test_before_hello_only_hello_and_ping_are_served() -> None:
    board = Board(SimHal(clock=lambda: 0, seed=5))
    response = tp.decode_all(board.handle_frame(1, tp.LEDS, tp.pack_request(tp.LEDS, 10)))[0]
    assert tp.split_response(response[2])[0] == tp.NO_SESSION
    response = tp.decode_all(board.handle_frame(2, tp.PING, b""))[0]
    assert tp.split_response(response[2])[0] == tp.OK
    response = tp.decode_all(board.handle_frame(3, tp.HELLO, tp.pack_request(tp.HELLO, 1, 1000, 0)))[0]
    status, data = tp.split_response(response[2])
    assert status == tp.VERSION and tp.unpack_result(tp.HELLO, data)[0] == tp.PROTOCOL_VERSION


def test_servo_hold_is_limited_on_the_board() -> None:
    now = [0]
    hal = SimHal(clock=lambda: now[0], seed=5)
    board = Board(hal)
    board.handle_frame(1, tp.HELLO, tp.pack_request(tp.HELLO, tp.PROTOCOL_VERSION, 60000, 1000))
    board.handle_frame(2, tp.SERVO, tp.pack_request(tp.SERVO, 9000, 250))
    now[0] = 249
    board.tick()
    assert hal.servo == 9000
    now[0] = 250
    board.tick()
    assert hal.servo is None
    bad = tp.decode_all(board.handle_frame(3, tp.SERVO, tp.pack_request(tp.SERVO, 9000, 20000)))[0]
    assert tp.split_response(bad[2])[0] == tp.BAD_VALUE


def test_heartbeat_keeps_the_board_awake_in_real_time() -> None:
    end = InProcessBoard(seed=11)
    link = BoardLink(end, timeout_s=0.05, heartbeat_s=0.05, silence_s=1.0)
    link.hello()
    link.start_heartbeat()
    try:
        time.sleep(0.8)
    finally:
        link.close()
    assert link.stats.heartbeats >= 3
    assert end.board.safe_trips == 0


def test_without_heartbeat_the_board_goes_safe_in_real_time() -> None:
    end = InProcessBoard(seed=12)
    link = BoardLink(end, timeout_s=0.05, heartbeat_s=0, silence_s=0.5)
    link.hello()
    link.request(tp.LEDS, 700)
    time.sleep(0.6)
    status = link.status()
    assert status.safe_tripped and status.safe_trips == 1 and status.leds == 0.0


def test_fault_injector_validates_and_counts() -> None:
    clock = VirtualClock()
    with pytest.raises(ValueError, match="loss must be a probability"):
        FaultInjectingTransport(InProcessBoard(clock=clock), loss=1.5)
    faulty = FaultInjectingTransport(InProcessBoard(clock=clock), corrupt=1.0, seed=1)
    link = link_over(faulty, clock, retries=2, timeout_s=0.01)
    with pytest.raises(LinkError, match="after 3 tries"):
        link.hello()
    assert faulty.counts.sent_corrupted == 3


def test_pyserial_port_that_does_not_answer(tmp_path) -> None:
    # pyserial's loop:// hands our own frames back: never a response, so a clear error
    with pytest.raises(LinkError, match=r"loop:// did not answer HELLO .* after 3 tries"):
        open_link("loop://", timeout_s=0.01, retries=2)
    with pytest.raises(LinkError, match="cannot open the tray board's serial port"):
        open_link(str(tmp_path / "no-such-tty"))


def test_soak_bounded() -> None:
    """Must-show 2, bounded: 2,000 commands with 5% corruption and 5% loss each way."""
    report = run_soak(2000, corrupt=0.05, loss=0.05, seed=3)
    print("\n".join(report.lines()))
    assert report.commands >= 2000
    assert report.faults.sent_dropped > 0 and report.faults.received_corrupted > 0
    assert report.link.retransmissions > 0 and report.duplicates_answered_from_memory > 0
    assert (report.lost_actions, report.duplicated_actions, report.wrong_reads, report.failures) == (0, 0, 0, 0)
    assert report.board_actions == report.expected_actions > 0


def test_soak_with_board_resets_late_frames_and_a_heartbeat_loses_and_repeats_nothing() -> None:
    """10 % loss + 10 % corruption each way, frames delivered late (a first try after its own
    retransmission, or after the next command), the board power-cycling around frames, and the
    heartbeat thread pinging while the host idles: every action exactly once, every reset told."""
    report = run_soak(3000, corrupt=0.1, loss=0.1, seed=4, retries=12, reset=0.01, reorder=0.05, heartbeat_s=0.02)
    print("\n".join(report.lines()))
    assert report.faults.sent_reordered > 0 and report.faults.received_reordered > 0
    assert report.resets_injected > 5 and report.link.heartbeats > 0 and report.late_copies_dropped > 0
    assert report.resets_reported == report.link.resets == report.resets_injected
    assert (report.lost_actions, report.duplicated_actions, report.wrong_reads, report.failures) == (0, 0, 0, 0)
    assert report.ok


def test_a_late_copy_of_an_older_command_is_dropped_not_carried_out() -> None:
    acts: list = []
    board = Board(SimHal(clock=lambda: 0, seed=1), on_action=lambda name, args: acts.append((name, args)))
    hello = tp.encode_frame(9, tp.HELLO, tp.pack_request(tp.HELLO, tp.PROTOCOL_VERSION, 60000, 1000))
    board.receive(hello)
    first = tp.encode_frame(10, tp.LEDS, tp.pack_request(tp.LEDS, 100))
    second = tp.encode_frame(11, tp.LEDS, tp.pack_request(tp.LEDS, 200))
    assert board.receive(first) and board.receive(second)
    assert board.receive(first) == b""  # held up on the way, arriving after the next command
    assert board.receive(hello) == b""  # a late HELLO must not wipe the memory of command 11
    assert board.receive(second) and acts == [("LEDS", (100,)), ("LEDS", (200,))]
    assert board.stale == 2


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 1000), st.integers(1, 4), st.binary(max_size=12)),
        min_size=1,
        max_size=30,
    )
)
def test_any_pattern_of_retransmissions_acts_exactly_once(commands) -> None:
    """Each new command is sent 1-4 times (its answers lost), with line noise before it: the board
    carries out each exactly once, in order, and answers every copy identically."""
    acts: list = []
    board = Board(SimHal(clock=lambda: 0, seed=1), on_action=lambda name, args: acts.append((name, args)))
    board.receive(tp.encode_frame(0, tp.HELLO, tp.pack_request(tp.HELLO, tp.PROTOCOL_VERSION, 60000, 1000)))
    for i, (level, copies, noise) in enumerate(commands):
        frame = tp.encode_frame((i + 1) & 0xFF, tp.LEDS, tp.pack_request(tp.LEDS, level))
        answers = set()
        for _ in range(copies):
            board.receive(noise.replace(bytes((tp.SYNC,)), b""))  # noise that cannot start a frame
            out = board.receive(frame)
            answers.add(out)
        assert len(answers) == 1
    assert acts == [("LEDS", (level,)) for level, _, _ in commands]


# -- the board's own release count (issue 14, item 1) ------------------------------------------------


def test_the_release_count_survives_a_board_reset_and_says_so(rig) -> None:
    clock, end, link = rig
    funnel = SerialFunnelRelease(link, dwell_s=0.1, move_s=0.05)
    funnel.release()
    funnel.release()
    count = link.release_count()
    assert (count.count, count.since_boot, count.persistent, count.releasing) == (2, 2, True, False)
    end.reset(seed=0xB0B)  # power cycle: the flash keeps the count
    with pytest.raises(BoardResetError):
        link.release_count()
    after = link.release_count()
    assert (after.count, after.since_boot, after.boot_id) == (2, 0, 0xB0B)
    assert funnel.release_counter().count == 2 and funnel.release_counter().persistent
    funnel.release()
    assert funnel.last_release_number == 3
    end.reset(seed=0xC0C, keep_flash=False)  # a new board: it has released nothing
    with pytest.raises(BoardResetError):
        link.ping()
    assert link.release_count().count == 0


def test_a_damaged_saved_count_is_not_trusted() -> None:
    hal = SimHal(clock=lambda: 0, seed=1)
    hal._blob = b"TRC1" + bytes(8)  # a count whose check sum is wrong
    board = Board(hal)
    assert (board.releases, board.count_persistent) == (0, False)
    hal._blob = None  # a blank flash: a board that never released
    assert Board(hal).count_persistent is True


def test_a_release_the_board_cannot_count_is_refused_and_nothing_moves(rig) -> None:
    _, end, link = rig
    funnel = SerialFunnelRelease(link, dwell_s=0.1, move_s=0.05)
    end.hal.fail_saves = True
    end.hal.events.clear()
    with pytest.raises(ReleaseError, match="storage") as err:
        funnel.release()
    assert err.value.released is False  # FAULT/storage: certainly nothing dropped
    assert [e for e in end.hal.events if e[0] == "servo"] == []
    assert ("fault", tp.FAULT_STORAGE) in list(end.hal.events)
    status = link.status()
    assert status.faulted and status.faults == 1 and status.releases == 0
    end.hal.fail_saves = False
    funnel.release()
    assert funnel.last_release_number == 1


def test_a_board_reset_during_the_release_is_settled_by_the_saved_count() -> None:
    """The board carried out the RELEASE and then restarted before answering: its saved count says
    the trapdoor opened (released=True), so the host never opens it a second time."""

    class ResetAfterRelease(Scripted):
        def write(self, data):
            super().write(data)
            frames = tp.decode_all(data)
            if frames and frames[0][1] == tp.RELEASE and self.inner.boots == 1:
                self.inner.reset(seed=0xD00D)  # the answer is lost with the reset

    clock = VirtualClock()
    end = InProcessBoard(clock=clock, seed=1)
    link = link_over(end, clock, retries=2)
    funnel = SerialFunnelRelease(link, dwell_s=0.1, move_s=0.05)
    link.transport = ResetAfterRelease(end)
    with pytest.raises(ReleaseError, match="opened, but the tray board restarted") as err:
        funnel.release()
    assert err.value.released is True
    assert [a[0] for a in end.all_actions].count("RELEASE") == 1


def test_an_exception_in_the_firmware_answers_fault_and_keeps_the_board_up(rig) -> None:
    _, end, link = rig

    def broken(level):
        raise MemoryError("no room")

    end.hal.leds_set = broken
    with pytest.raises(LinkError, match="out of memory") as err:
        link.request(tp.LEDS, 300)
    assert err.value.code == tp.FAULT_MEMORY
    status = link.status()  # still answering, with the fault counted
    assert status.faulted and status.faults == 1
    assert not link.status().faulted  # reported once
    assert ("fault", tp.FAULT_MEMORY) in list(end.hal.events)
