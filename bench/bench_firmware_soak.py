"""Firmware soak (issue 14, must-show 4): the board logic under real MicroPython for 100,000 hardware
events in a heap the size of the Pico's, with its memory measured all along.

The firmware's own modules (``tray_board``, ``tray_protocol``, ``ring``, ``hal_sim``) run under the
MicroPython unix port with ``-X heapsize`` set to the RP2040 port's usable heap (about 160 KB;
``--heap``). A driver fed by a seeded generator sends them command frames the way the USB link
would (LED levels, beam pulses, vibration, servo moves, timed releases with their count saved to a
simulated flash file, status and count queries, now and then line noise and a corrupted frame) on a
simulated clock, until the simulated hardware has logged ``--events`` output changes. It checks:

* every command is answered, and answered OK (a corrupted frame with a NAK);
* the heap in use after a collection stays flat: the figure after the last event is within
  ``--slack`` bytes of the figure after the first 2,000 (every buffer on the board is bounded);
* the HAL's event ring holds its fixed 64 entries, and the board's saved release count equals the
  releases it carried out.

Before the bounded rings, the same run died with ``MemoryError`` after 512-1,024 events.

    .venv/bin/python bench/bench_firmware_soak.py [--events 100000] [--heap 160k] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
FIRMWARE = REPO / "firmware"

DRIVER = r"""
import gc
import sys
sys.path.insert(0, FIRMWARE)
import hal_sim
import tray_board
import tray_protocol as tp

now = [0]
hal = hal_sim.SimHal(clock=lambda: now[0], seed=7, state_path=STATE)
board = tray_board.Board(hal, "soak")
seq = [0]
answered = [0]
bad = [0]
first_bad = [""]
naks = [0]
releases = [0]
x = [SEED * 2654435761 & 0xFFFFFFFF or 1]


def rand(n):
    # xorshift32: the same sequence on every interpreter, no allocation beyond small ints
    v = x[0]
    v ^= (v << 13) & 0xFFFFFFFF
    v ^= v >> 17
    v ^= (v << 5) & 0xFFFFFFFF
    x[0] = v
    return v % n


def send(cmd, payload, corrupt=False):
    seq[0] = (seq[0] + 1) & 0xFF
    frame = tp.encode_frame(seq[0], cmd, payload)
    if corrupt:
        frame = bytearray(frame)
        frame[5 + rand(len(frame) - 9) if len(frame) > 9 else 3] ^= 0x5A
        frame = bytes(frame)
    out = board.receive(frame)
    frames = [f for f in tp.decode_all(out) if f[1] != tp.NAK or corrupt]  # a late NAK for line noise is fine
    if corrupt:
        if frames and frames[0][1] == tp.NAK:
            naks[0] += 1
        return None
    if len(frames) != 1 or frames[0][0] != seq[0] or frames[0][1] != cmd | tp.RESPONSE_BIT:
        bad[0] += 1
        first_bad[0] = first_bad[0] or "cmd %d seq %d: answers %r" % (cmd, seq[0], [(f[0], f[1]) for f in frames])
        return None
    status, data = tp.split_response(frames[0][2])
    if status != tp.OK and not (status == tp.BUSY and cmd in (tp.RELEASE, tp.SERVO)):
        bad[0] += 1
        first_bad[0] = first_bad[0] or "cmd %d: status %d" % (cmd, status)
    answered[0] += 1
    return status


def tick(ms):
    now[0] += ms
    board.receive(b"")
    board.tick()


def used():
    gc.collect()
    return gc.mem_alloc()


send(tp.HELLO, tp.pack_request(tp.HELLO, tp.PROTOCOL_VERSION, 60000, 1000))
baseline = None
at_events = [0] * (EVENTS // 10000 + 2)  # allocated up front: the driver's own figures do not grow
in_use = [0] * (EVENTS // 10000 + 2)
taken = 0
mark = 0
while hal.events.total < EVENTS:
    op = rand(100)
    if op < 30:
        send(tp.LEDS, tp.pack_request(tp.LEDS, rand(1001)))
    elif op < 50:
        send(tp.SIM_BEAM, tp.pack_request(tp.SIM_BEAM, 1 + rand(20)))
    elif op < 58:
        send(tp.VIBRATE, tp.pack_request(tp.VIBRATE, 1 + rand(200)))
    elif op < 66:
        send(tp.SERVO, tp.pack_request(tp.SERVO, rand(18001), 1 + rand(300)))
    elif op < 74:
        if send(tp.RELEASE, tp.pack_request(tp.RELEASE, 9000, 1000, rand(50), rand(20))) == tp.OK:
            releases[0] += 1
    elif op < 80:
        send(tp.BEAM_RESET, b"")
    elif op < 86:
        send(tp.STATUS, b"")
    elif op < 90:
        send(tp.RELEASE_COUNT, b"")
    elif op < 95:
        board.receive(bytes([rand(256) for _ in range(1 + rand(40))]).replace(b"\xa5", b"\x00"))
    else:
        send(tp.LEDS, tp.pack_request(tp.LEDS, rand(1001)), corrupt=True)
    tick(1 + rand(120))
    if baseline is None and hal.events.total >= 2000:
        baseline = used()
    if hal.events.total >= mark and taken < len(in_use):
        in_use[taken] = used()
        at_events[taken] = hal.events.total
        taken += 1
        mark += 10000
for _ in range(100):
    tick(100)  # let the last release, hold and vibration run out
final = used()
count = board.releases
print(RESULT_TAG + " " + "{" + '"events": %d, "answered": %d, "bad": %d, "naks": %d, "releases": %d, "saved_count": %d, "ring": %d, "baseline": %d, "final": %d, "heap_free": %d, "samples": [%s], "first_bad": "%s"' % (
    hal.events.total, answered[0], bad[0], naks[0], releases[0], count, len(hal.events), baseline,
    final, gc.mem_free(), ", ".join("[%d, %d]" % (at_events[i], in_use[i]) for i in range(taken)), first_bad[0].replace('"', "'")) + "}")
"""

RESULT_TAG = "SOAK-RESULT"


def run_firmware_soak(events: int = 100_000, heap: str = "160k", seed: int = 1, slack: int = 2048,
                      timeout_s: float = 1200.0) -> dict[str, Any]:
    """Run the driver under MicroPython; its figures and a list of problems (empty: it held)."""
    from simulation.firmware_pty import find_micropython

    with tempfile.TemporaryDirectory(prefix="fw-soak-") as tmp:
        script = Path(tmp) / "soak.py"
        script.write_text(
            f"FIRMWARE = {str(FIRMWARE)!r}\nSTATE = {str(Path(tmp) / 'flash.bin')!r}\nEVENTS = {events}\n"
            f"SEED = {seed}\nRESULT_TAG = {RESULT_TAG!r}\n" + DRIVER, encoding="utf-8")
        started = time.monotonic()
        done = subprocess.run([find_micropython(), "-X", f"heapsize={heap}", str(script)], capture_output=True,
                              text=True, timeout=timeout_s)
        seconds = time.monotonic() - started
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith(RESULT_TAG)), None)
    if done.returncode != 0 or line is None:
        return {"events": 0, "seconds": round(seconds, 1), "heap": heap,
                "problems": [f"MicroPython stopped (status {done.returncode}): "
                             f"{(done.stdout + done.stderr).strip()[-600:]}"]}
    figures: dict[str, Any] = json.loads(line[len(RESULT_TAG):])
    figures.update(seconds=round(seconds, 1), heap=heap, slack=slack)
    problems = []
    if figures["events"] < events:
        problems.append(f"only {figures['events']} events")
    if figures["bad"]:
        problems.append(f"{figures['bad']} commands unanswered or refused (first: {figures['first_bad']})")
    if figures["final"] - figures["baseline"] > slack:
        problems.append(f"the heap in use grew from {figures['baseline']} to {figures['final']} bytes")
    if figures["ring"] != 64:
        problems.append(f"the HAL's event ring holds {figures['ring']} entries, not 64")
    if figures["saved_count"] != figures["releases"]:
        problems.append(f"the saved release count is {figures['saved_count']} for {figures['releases']} releases")
    figures["problems"] = problems
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--heap", default="160k", help="MicroPython heap (the Pico's is about 160-190 KB)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--slack", type=int, default=2048, help="bytes the heap in use may differ by")
    args = parser.parse_args(argv)
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    f = run_firmware_soak(args.events, args.heap, args.seed, args.slack)
    print(f"firmware soak under MicroPython, heap {f['heap']}: {f['events']} hardware events in {f['seconds']} s")
    if "answered" in f:
        print(f"  commands answered {f['answered']} (refused or unanswered {f['bad']}), corrupted frames NAKed "
              f"{f['naks']}, releases {f['releases']} (saved count {f['saved_count']})")
        print(f"  heap in use after a collection: {f['baseline']} bytes after 2,000 events, {f['final']} at the end "
              f"({f['final'] - f['baseline']:+d}); free at the end {f['heap_free']}")
        print("  heap in use every 10,000 events: " + ", ".join(str(b) for _, b in f["samples"]))
        print(f"  HAL event ring: {f['ring']} entries")
    print("  problems: " + ("none" if not f["problems"] else "; ".join(f["problems"])))
    print(f"  RESULT: {'PASS' if not f['problems'] else 'FAIL'}")
    return 0 if not f["problems"] else 1


if __name__ == "__main__":
    sys.exit(main())
