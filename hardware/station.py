"""Open every device a configuration names, as one ``Station``.

The controller only ever sees the interfaces of ``hardware.interfaces``; this module is the one place
that maps ``[funnel] backend = "gpio"`` and friends to classes. Opening is all or nothing: if the
camera fails after the servo was claimed, the servo's pin is released again before the error
propagates, so a retry does not find it busy.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from hardware.config import StationConfig, load_config
from hardware.errors import ConfigError
from hardware.interfaces import Buttons, Camera, Device, FunnelRelease, StatusLight, TrayBoard
from hardware.sim.table import SimTable


@dataclass
class Station:
    """The opened devices. ``board``, ``buttons`` and ``status_led`` are ``None`` when not configured;
    ``sim`` is the simulated world on simulated stations (``None`` on real hardware)."""

    config: StationConfig
    funnel: FunnelRelease
    camera: Camera
    board: TrayBoard | None = None
    buttons: Buttons | None = None
    status_led: StatusLight | None = None
    sim: SimTable | None = None
    extras: list[Any] = field(default_factory=list)  # helpers to close last (e.g. the firmware process)
    failures: dict[str, str] = field(default_factory=dict)  # only with open_station(..., tolerant=True)

    def devices(self) -> dict[str, Device]:
        found: dict[str, Device | None] = {"funnel": self.funnel, "camera": self.camera, "board": self.board,
                                           "buttons": self.buttons, "status_led": self.status_led}
        return {name: dev for name, dev in found.items() if dev is not None}

    def close(self) -> None:
        """Close every device (each once, even if another's close fails), then the helpers."""
        errors: list[BaseException] = []
        seen: set[int] = set()
        for dev in [*self.devices().values(), *reversed(self.extras)]:
            if id(dev) in seen:
                continue
            seen.add(id(dev))
            try:
                dev.close()
            except Exception as exc:  # keep closing the rest
                errors.append(exc)
        if errors:
            raise errors[0]

    def __enter__(self) -> Station:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def needs_sim(cfg: StationConfig) -> bool:
    """Whether the configuration involves the simulated world."""
    return (cfg.funnel.backend == "sim" or cfg.camera.backend == "sim" or cfg.board.backend in ("sim", "firmware-pty")
            or cfg.buttons.backend == "sim" or cfg.status_led.backend == "sim")


def _pin_factory(name: str) -> Any:
    if not name:
        return None
    if name == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    module, cls = {"lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"), "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory"),
                   "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
                   "native": ("gpiozero.pins.native", "NativeFactory")}[name]
    import importlib

    return getattr(importlib.import_module(module), cls)()


def _open_camera(cfg: StationConfig, sim: SimTable | None) -> Camera:
    c = cfg.camera
    if c.backend == "sim":
        from hardware.sim.camera import SimCamera

        assert sim is not None
        return SimCamera(sim, width=c.width, height=c.height, timeout_s=c.timeout_s, seed=cfg.sim.seed)
    if c.backend == "picamera2":
        from hardware.cameras import Picamera2Camera

        return Picamera2Camera(width=c.width, height=c.height, timeout_s=c.timeout_s, settle_s=c.settle_s,
                               camera_num=c.device)
    if c.backend == "opencv":
        from hardware.cameras import OpenCVCamera

        return OpenCVCamera(c.path or c.device, width=c.width, height=c.height, timeout_s=c.timeout_s)
    from hardware.cameras import ReplayCamera

    return ReplayCamera(c.path)


def _open_board(cfg: StationConfig, sim: SimTable | None, extras: list[Any]) -> TrayBoard | None:
    b = cfg.board
    if b.backend == "none":
        return None
    if b.backend == "sim":
        from hardware.sim.board import SimTrayBoard

        assert sim is not None
        return SimTrayBoard(sim, retries=b.retries)
    from hardware import serial_glue

    return serial_glue.open_serial_board(cfg, sim, extras)


def _open_funnel(cfg: StationConfig, sim: SimTable | None, board: TrayBoard | None) -> FunnelRelease:
    f = cfg.funnel
    if f.backend == "sim":
        from hardware.funnel import SimFunnelRelease

        assert sim is not None
        return SimFunnelRelease(sim)
    if f.backend == "gpio":
        from hardware.funnel import GpioServoRelease

        return GpioServoRelease(f.pin, closed_angle=f.closed_angle, open_angle=f.open_angle, min_angle=f.min_angle,
                                max_angle=f.max_angle, min_pulse_s=f.min_pulse_ms / 1000,
                                max_pulse_s=f.max_pulse_ms / 1000, frame_s=f.frame_ms / 1000, dwell_s=f.dwell_s,
                                move_s=f.move_s, pin_factory=_pin_factory(f.pin_factory))
    if f.backend in ("hw-pwm", "lgpio-servo"):
        from hardware import servo_pulse

        frame_us = f.frame_ms * 1000
        output: servo_pulse.PulseOutput
        if f.backend == "hw-pwm":
            channel = f.pwm_channel if f.pwm_channel >= 0 else servo_pulse.PI5_PWM_CHANNELS[f.pin]
            output = servo_pulse.SysfsPwmOutput(channel, chip=f.pwm_chip, frame_us=frame_us)
        else:
            output = servo_pulse.LgpioServoOutput(f.pin, gpiochip=f.gpiochip, frame_us=frame_us)
        return servo_pulse.PulseServoRelease(output, closed_angle=f.closed_angle, open_angle=f.open_angle,
                                             min_angle=f.min_angle, max_angle=f.max_angle,
                                             min_pulse_us=f.min_pulse_ms * 1000, max_pulse_us=f.max_pulse_ms * 1000,
                                             dwell_s=f.dwell_s, move_s=f.move_s)
    if board is None:
        raise ConfigError("funnel.backend: 'board' needs a tray board, but board.backend is 'none'")
    from hardware import serial_glue

    return serial_glue.open_board_funnel(cfg, board, sim)


def open_station(config: StationConfig | None = None, *, tolerant: bool = False) -> Station:
    """Open the devices of ``config`` (default: the packaged simulated station).

    ``tolerant=False`` (the controller): all or nothing, the first failure closes what was opened
    and propagates. ``tolerant=True`` (``tower hw check``): every device is tried; one that fails is
    left ``None`` and its error is kept in ``station.failures`` so the check can report them all.
    """
    cfg = config if config is not None else load_config(None)
    opened: list[Any] = []
    extras: list[Any] = []
    failures: dict[str, str] = {}

    def attempt(name: str, opener: Any) -> Any:
        try:
            device = opener()
        except Exception as exc:
            if not tolerant:
                raise
            failures[name] = f"{type(exc).__name__}: {exc}"
            return None
        if device is not None:
            opened.append(device)
        return device

    try:
        sim = SimTable.from_config(cfg) if needs_sim(cfg) else None
        board = attempt("board", lambda: _open_board(cfg, sim, extras))
        if board is None and cfg.funnel.backend == "board" and "board" in failures:
            failures["funnel"] = "the tray board that drives it did not open"
            funnel = None
        else:
            funnel = attempt("funnel", lambda: _open_funnel(cfg, sim, board))
        camera = attempt("camera", lambda: _open_camera(cfg, sim))
        from hardware import table_io

        def buttons_opener() -> Buttons | None:
            if cfg.buttons.backend == "gpio":
                return table_io.GpioButtons(cfg.buttons.release_pin, bounce_s=cfg.buttons.bounce_s,
                                            pin_factory=_pin_factory(cfg.buttons.pin_factory))
            return table_io.SimButtons() if cfg.buttons.backend == "sim" else None

        def led_opener() -> StatusLight | None:
            if cfg.status_led.backend == "gpio":
                return table_io.GpioStatusLight(cfg.status_led.pin, pin_factory=_pin_factory(cfg.status_led.pin_factory))
            return table_io.SimStatusLight() if cfg.status_led.backend == "sim" else None

        buttons = attempt("buttons", buttons_opener)
        status_led = attempt("status_led", led_opener)
        return Station(cfg, funnel, camera, board, buttons, status_led, sim, extras, failures)
    except BaseException:
        for dev in reversed([*extras, *opened]):
            with contextlib.suppress(Exception):
                dev.close()
        raise
