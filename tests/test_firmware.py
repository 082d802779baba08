"""The firmware under real MicroPython: every file compiles with mpy-cross, the shared codec passes the
test vectors under the unix port, the Pico HAL drives (fake) pins correctly, and the firmware on a pty
answers the host's handshake, servo, LED, beam, vibration and release commands through pyserial
(issue 4, must-show 1, the firmware half of it)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware import tray_protocol as tp
from hardware.errors import BoardResetError
from hardware.link import open_link
from hardware.serial_board import SerialFunnelRelease, SerialTrayBoard
from simulation.firmware_pty import FirmwarePty, find_micropython
from simulation.link.soak_pty import run_pty_soak

FIRMWARE = Path(tp.__file__).resolve().parent
FIRMWARE_FILES = sorted(p for p in FIRMWARE.glob("*.py"))

pytestmark = pytest.mark.micropython


@pytest.fixture(scope="module")
def micropython() -> str:
    try:
        return find_micropython()
    except OSError as exc:
        pytest.skip(str(exc))


def run_micropython(micropython: str, script: str, tmp_path: Path, *, path: list[Path]) -> str:
    file = tmp_path / "check.py"
    paths = ", ".join(repr(str(p)) for p in path)
    file.write_text(f"import sys\nsys.path[:0] = [{paths}]\n" + script, encoding="utf-8")
    done = subprocess.run([micropython, str(file)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"MicroPython failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def mpy_cross() -> list[str]:
    beside = Path(sys.executable).parent / "mpy-cross"
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "mpy_cross"]


@pytest.mark.parametrize("source", FIRMWARE_FILES, ids=lambda p: p.name)
def test_every_firmware_file_compiles_with_mpy_cross(source: Path, tmp_path: Path) -> None:
    out = tmp_path / (source.stem + ".mpy")
    done = subprocess.run([*mpy_cross(), "-o", str(out), str(source)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"mpy-cross rejected {source.name}:\n{done.stderr}"
    assert out.stat().st_size > 0 and out.read_bytes()[:1] == b"M"  # the .mpy magic


def test_firmware_files_include_the_expected_modules() -> None:
    names = {p.name for p in FIRMWARE_FILES}
    assert {"main.py", "tray_protocol.py", "tray_board.py", "saved_count.py", "ring.py", "hal_pico.py", "hal_sim.py"} <= names


VECTOR_CHECK = """
import json
import tray_protocol as tp
v = json.load(open(VECTORS))
n = 0
for c in v["crc32"]:
    data = bytes.fromhex(c["data"])
    assert tp.crc32(data) == c["crc"], c
    assert tp.crc32_pure(data) == c["crc"], c
    n += 1
for c in v["frames"]:
    payload = bytes.fromhex(c["payload"])
    wire = bytes.fromhex(c["hex"])
    assert tp.encode_frame(c["seq"], c["cmd"], payload) == wire, c["name"]
    assert tp.decode_all(wire) == [(c["seq"], c["cmd"], payload)], c["name"]
    if "args" in c:
        assert tp.pack_request(c["cmd"], *c["args"]) == payload, c["name"]
        assert list(tp.unpack_request(c["cmd"], payload)) == c["args"], c["name"]
    n += 1
for c in v["bad"]:
    assert tp.decode_all(bytes.fromhex(c["hex"])) == [], c["why"]
    n += 1
s = v["stream"]
assert tp.decode_all(bytes.fromhex(s["hex"])) == [(a, b, bytes.fromhex(p)) for a, b, p in s["frames"]]
n += 1
print("vectors ok", n)
"""


def test_codec_passes_the_shared_vectors_under_micropython(micropython: str, tmp_path: Path) -> None:
    script = f"VECTORS = {str(FIRMWARE / 'test_vectors.json')!r}\n" + VECTOR_CHECK
    out = run_micropython(micropython, script, tmp_path, path=[FIRMWARE])
    vectors = json.loads((FIRMWARE / "test_vectors.json").read_text(encoding="utf-8"))
    expected = len(vectors["crc32"]) + len(vectors["frames"]) + len(vectors["bad"]) + 1
    assert out.strip() == f"vectors ok {expected}"


FAKE_MACHINE = '''
log = []
grounded = set()
class Pin:
    IN = 0; OUT = 1; PULL_UP = 2; IRQ_FALLING = 4
    def __init__(self, n, mode=None, pull=None, value=None):
        self.n = n
        if value is not None:
            log.append(("pin", n, value))
    def value(self, v=None):
        if v is None:
            return 0 if self.n in grounded else 1
        log.append(("pin", self.n, v))
    def irq(self, trigger=None, handler=None, hard=False):
        log.append(("irq", self.n, trigger, hard))
        self.handler = handler
class PWM:
    def __init__(self, pin):
        self.n = pin.n
    def freq(self, f):
        log.append(("freq", self.n, f))
    def duty_u16(self, d):
        log.append(("u16", self.n, d))
    def duty_ns(self, ns):
        log.append(("ns", self.n, ns))
class WDT:
    def __init__(self, timeout):
        log.append(("wdt", timeout))
    def feed(self):
        pass
'''

PICO_CHECK = """
import time
import machine
import hal_pico
hal = hal_pico.PicoHal()
machine.log.clear()
hal.servo_write(0); hal.servo_write(9000); hal.servo_write(18000); hal.servo_detach()
hal.leds_set(1000); hal.leds_set(500); hal.vibration_set(True); hal.vibration_set(False)
beam = hal._beam
time.sleep_ms(2)
beam.handler(beam)
beam.handler(beam)  # a bounce right after: not a second cube
time.sleep_ms(2)
beam.handler(beam)
hal.watchdog(2000)
print(machine.log)
print(hal.beam_total())
print(hal_pico.repl_requested())
machine.grounded.add(hal_pico.REPL_PIN)
print(hal_pico.repl_requested())
"""


def test_pico_hal_drives_the_pins(micropython: str, tmp_path: Path) -> None:
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "machine.py").write_text(FAKE_MACHINE, encoding="utf-8")
    out = run_micropython(micropython, PICO_CHECK, tmp_path, path=[fake, FIRMWARE]).splitlines()
    log = out[0]
    assert "('ns', 15, 500000)" in log  # 0 deg: 0.5 ms pulse on GP15
    assert "('ns', 15, 1500000)" in log  # 90 deg: 1.5 ms
    assert "('ns', 15, 2500000)" in log  # 180 deg: 2.5 ms
    assert "('u16', 15, 0)" in log  # detached: no pulses
    assert "('u16', 16, 65535)" in log and "('u16', 16, 32767)" in log  # LED ring PWM on GP16
    assert "('pin', 17, 1)" in log and "('pin', 17, 0)" in log  # vibration motor on GP17
    assert "('wdt', 2000)" in log
    assert out[1] == "2"  # two cubes: the bounce was debounced
    assert out[2:] == ["False", "True"]  # the REPL jumper on GP22


@pytest.fixture
def firmware():
    with FirmwarePty() as fw:
        yield fw


def test_firmware_on_a_pty_answers_the_host(firmware: FirmwarePty) -> None:
    assert firmware.port is not None and firmware.port.startswith("/dev/")
    link = open_link(firmware.port, baudrate=115200, timeout_s=0.2, retries=5, heartbeat_s=0.2)
    board = SerialTrayBoard(link)
    funnel = SerialFunnelRelease(board, open_angle=100, closed_angle=10, dwell_s=0.2, move_s=0.05)
    try:
        info = board.hello()
        assert info.protocol_version == tp.PROTOCOL_VERSION and "sim-linux" in info.firmware
        board.set_leds(0.6)
        board.reset_beam()
        assert board.simulate_beam(5) == 5
        assert board.beam_count() == 5
        assert board.vibrate(0.1) == 0.1
        funnel.sweep()
        funnel.release()
        assert funnel.last_release_number == 1
        status = board.status()
        assert (status.leds, status.beam_count, status.releases, status.releasing) == (0.6, 5, 1, False)
        time.sleep(0.5)  # the heartbeat keeps the firmware out of its safe state
        assert not board.status().safe_tripped
        assert link.stats.heartbeats > 0 and link.stats.failures == 0
    finally:
        funnel.close()
        board.close()
    events = [(e["ev"], e["v"]) for e in firmware.events() if e["ev"] != "boot"]
    assert ("leds", 600) in events and ("beam", 5) in events
    assert events.count(("vibration", True)) == 1 and ("vibration", False) in events
    servo = [v for ev, v in events if ev == "servo"]
    # sweep: closed, open, closed (then detached when the hold runs out), then one release
    assert servo[:3] == [1000, 10000, 1000]
    assert servo[-3:] == [10000, 1000, None]
    assert servo.count(10000) == 2


def test_firmware_reset_is_noticed_over_the_pty(firmware: FirmwarePty) -> None:
    link = open_link(firmware.port or "", timeout_s=0.1, retries=5, heartbeat_s=0)
    board = SerialTrayBoard(link)
    try:
        first = link.info
        board.set_leds(0.3)
        firmware.restart()
        with pytest.raises(BoardResetError, match="restarted"):
            board.beam_count()
        assert link.info is not None and first is not None and link.info.boot_id != first.boot_id
        assert board.beam_count() == 0
    finally:
        board.close()
    assert firmware.boots == 2


def test_firmware_goes_safe_when_the_host_falls_silent(firmware: FirmwarePty) -> None:
    link = open_link(firmware.port or "", timeout_s=0.1, retries=5, heartbeat_s=0, silence_s=0.5)
    board = SerialTrayBoard(link)
    funnel = SerialFunnelRelease(board, open_angle=120, closed_angle=20)
    try:
        board.set_leds(0.9)
        board.vibrate(5.0, wait=False)
        link.request(tp.SERVO, 12000, 10000)  # hold the trapdoor open for up to 10 s
        time.sleep(1.6)  # silence: 0.5 s to trip, then 0.5 s holding closed before detaching
        status = board.status()
        assert status.safe_tripped and status.safe_trips == 1
        assert (status.leds, status.vibrating, status.servo_attached) == (0.0, False, False)
    finally:
        funnel.close()
        board.close()
    events = [(e["ev"], e["v"]) for e in firmware.events()]
    tail = events[events.index(("servo", 12000)) + 1 :]
    assert tail[:5] == [("safe", 1), ("servo", 2000), ("leds", 0), ("vibration", False), ("servo", None)]


@pytest.mark.slow
def test_soak_against_micropython_bounded() -> None:
    """The link soak against the real firmware, bounded (bench/bench_link_soak.py runs 1,000): 10 %
    corruption + 10 % loss each way, late frames, board resets, heartbeat. It completes, and the
    firmware's own log shows every action exactly once."""
    report = run_pty_soak(150, corrupt=0.1, loss=0.1, seed=2, retries=12, reset=0.02, reorder=0.05, heartbeat_s=0.2)
    print("\n".join(report.lines()))
    assert report.ok, report.errors
    assert report.commands >= 150 and report.link.retransmissions > 0 and report.firmware_alive


def test_the_firmware_survives_twenty_thousand_events_in_a_pico_sized_heap() -> None:
    """Issue 14, must-show 4, shortened (bench/bench_firmware_soak.py runs 100,000): every command
    answered, the heap in use flat, the event ring at its fixed size, the saved count right."""
    from bench_scripts import load

    bench = load("bench_firmware_soak")
    figures = bench.run_firmware_soak(20_000, heap="160k", seed=3)
    assert figures["problems"] == [], figures
    assert figures["events"] >= 20_000 and figures["ring"] == 64
    assert figures["final"] - figures["baseline"] <= 2048


FAULT_CHECK = """
import hal_sim, tray_board, tray_protocol as tp
hal = hal_sim.SimHal(clock=lambda: 0, seed=1)
def boom(level):
    raise MemoryError("no room")
hal.leds_set = boom
board = tray_board.Board(hal)
board.receive(tp.encode_frame(1, tp.HELLO, tp.pack_request(tp.HELLO, tp.PROTOCOL_VERSION, 3000, 1000)))
out = board.receive(tp.encode_frame(2, tp.LEDS, tp.pack_request(tp.LEDS, 500)))
frames = tp.decode_all(out)
assert len(out) == 11 and len(frames) == 1, out  # one FAULT frame on the link, no traceback text
print(tp.split_response(frames[0][2]), board.faults, hal.faults)
"""


def test_a_memory_error_on_the_board_is_a_fault_frame_not_a_traceback(micropython: str, tmp_path: Path) -> None:
    out = run_micropython(micropython, FAULT_CHECK, tmp_path, path=[FIRMWARE]).strip()
    assert out == f"({tp.FAULT}, b'\\x0{tp.FAULT_MEMORY}') 1 1"
