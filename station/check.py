"""The hardware self-test behind ``tower hw check``: exercise every configured device once.

Each check returns a ``CheckResult`` (device, what was tried, pass/fail/skip, a detail line, time
taken) and never raises for a device fault: a station with a dead camera still reports on its
servo. The checks are gentle on a station in use: the beam counter is read, not reset; the servo
sweep is refused when the records say cubes are loaded for a drop (``funnel_loaded``: the caller
reads the records) and skipped on a simulated station whose funnel holds cubes (they would fall).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hardware.config import StationConfig
from station.factory import Station, open_station

PASS, FAIL, SKIP = "pass", "fail", "skip"
DEVICE_NAMES = {"funnel": "funnel", "camera": "camera", "board": "tray board", "buttons": "buttons",
                "status_led": "status LED"}
BLACK_LEVEL = 8.0  # mean grey level below which a frame is taken as black (cap on, cable loose)


def bgr_frame(img: Any) -> Any:
    """``img`` where it is a camera frame as the station takes them (H x W x 3 uint8 BGR), else a
    ``ValueError`` saying what came instead."""
    if not isinstance(img, np.ndarray) or img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        raise ValueError(f"frame is not H x W x 3 uint8 BGR: {getattr(img, 'shape', None)}")
    return img


def black_frame(mean_grey: float) -> str | None:
    """Why a frame of this mean grey level is black (the lens cap, the cable, the ring), or ``None``."""
    if mean_grey < BLACK_LEVEL:
        return f"black frame (mean grey {mean_grey:.1f}): lens cap, ribbon cable or LED ring?"
    return None


@dataclass(frozen=True)
class CheckResult:
    device: str
    check: str
    status: str
    detail: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.status != FAIL


def _run(device: str, check: str, fn: Callable[[], str | tuple[str, str]]) -> CheckResult:
    start = time.monotonic()
    try:
        out = fn()
        status, detail = (PASS, out) if isinstance(out, str) else out
    except Exception as exc:  # a device fault is a result, not a crash
        status, detail = FAIL, f"{type(exc).__name__}: {exc}"
    return CheckResult(device, check, status, detail, time.monotonic() - start)


def check_station(station: Station, *, settle: Callable[[float], None] = time.sleep,
                  funnel_loaded: str | None = None) -> list[CheckResult]:
    """Exercise every device of ``station``. ``funnel_loaded``: why the funnel may hold a drop's
    cubes (from the records), in which case the servo is not swept: it would drop them."""
    results: list[CheckResult] = []
    board = station.tray_board
    if board is not None:
        def handshake() -> str:
            info = board.hello()
            return f"{info.firmware}, protocol {info.protocol_version}, boot id {info.boot_id:08x}"

        def leds() -> str:
            for level in (0.2, 1.0):
                board.set_leds(level)
                settle(0.1)
            return "LED ring dimmed to 20 % and back to full"

        def beam() -> str:
            n = board.beam_count()
            if n < 0:
                raise ValueError(f"impossible beam count {n}")
            return f"beam counter answers: {n} cubes since the last reset"

        def vibration() -> str:
            board.vibrate(0.2)
            return "vibration motor ran 0.2 s"

        results += [_run("tray board", "handshake", handshake), _run("tray board", "LED ring", leds),
                    _run("tray board", "break-beam", beam), _run("tray board", "vibration", vibration)]

    funnel, camera = station.funnel, station.camera

    def sweep() -> str | tuple[str, str]:
        if funnel_loaded:
            return SKIP, f"refused: {funnel_loaded}; a sweep would drop its cubes (finish or cancel the drop first)"
        in_funnel = station.hands.funnel_contents()
        if in_funnel:
            held = sum(in_funnel.values())
            return SKIP, f"{held} cubes lie in the funnel; a sweep would drop them"
        assert funnel is not None
        funnel.sweep()
        pulses = getattr(funnel, "pulse_report", None)
        widths = "; pulse " + ", ".join(r.text() for r in pulses()) if pulses is not None and pulses() else ""
        return f"closed -> open -> closed ({funnel.describe()}){widths}"

    if funnel is not None:
        results.append(_run("funnel", "servo sweep", sweep))

    def frame() -> str:
        start = time.monotonic()
        assert camera is not None
        img = bgr_frame(camera.capture())
        took = time.monotonic() - start
        mean = float(img.mean())
        black = black_frame(mean)
        if black:
            raise ValueError(black)
        return f"{img.shape[1]}x{img.shape[0]} BGR in {took:.2f} s, mean grey {mean:.0f}"

    if camera is not None:
        results.append(_run("camera", "one frame", frame))

    if station.status_led is not None:
        led = station.status_led

        def status_led() -> str:
            for state in ("busy", "attention", "ready"):
                led.show(state)
                settle(0.3)
            return "busy, attention, ready"

        results.append(_run("status LED", "states", status_led))
    if station.buttons is not None:
        results.append(CheckResult("buttons", "present", PASS, station.buttons.describe(), 0.0))
    if station.world is not None:
        sim = station.world
        results.append(CheckResult(
            "simulated world", "state", PASS,
            f"{sim.tower.name} tower holds {sum(sim.tower_contents().values())}, tray "
            f"{sum(sim.tray_contents().values())}, funnel {sum(sim.funnel_contents().values())}; "
            f"{sim.release_count} releases so far ({sim.state_file})", 0.0))
    return results


def run_check(config: StationConfig, **kw: Any) -> list[CheckResult]:
    """Open the station of ``config`` (every device tried, failures kept), check it, close it.

    ``kw`` goes to ``check_station`` (``settle``, ``funnel_loaded``)."""
    start = time.monotonic()
    try:
        station = open_station(config, tolerant=True)
    except Exception as exc:  # the simulated world itself could not be restored
        return [CheckResult("station", "open devices", FAIL, f"{type(exc).__name__}: {exc}",
                            time.monotonic() - start)]
    took = time.monotonic() - start
    opened = [CheckResult(DEVICE_NAMES[name], "open", PASS, dev.describe(), took)
              for name, dev in station.devices().items()]
    failed = [CheckResult(DEVICE_NAMES[name], "open", FAIL, why, took) for name, why in station.failures.items()]
    try:
        return [*opened, *failed, *check_station(station, **kw)]
    finally:
        station.close()
