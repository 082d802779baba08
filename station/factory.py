"""Open every device a configuration names, as one ``Station``.

The controller only ever sees the interfaces of ``hardware.interfaces`` and what ``Station`` offers;
this module is the one place that maps ``[funnel] backend = "gpio"`` and friends to classes, and the
only one outside ``simulation/`` that imports the simulation (as OctoPrint plugs its virtual printer
in at the serial factory: nothing above can tell). Opening is all or nothing: if the
camera fails after the servo was claimed, the servo's pin is released again before the error
propagates, so a retry does not find it busy.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration.profile import load_profile
from hardware import panel, servo_pulse
from hardware.cameras import OpenCVCamera, Picamera2Camera, ReplayCamera
from hardware.config import StationConfig, load_config
from hardware.errors import ConfigError
from hardware.funnel import GpioServoRelease
from hardware.interfaces import Buttons, Camera, Device, FunnelRelease, StatusLight, TrayBoard
from hardware.serial_board import SerialTrayBoard
from simulation.board import SimTrayBoard
from simulation.camera import SimCamera
from simulation.coupled import SimCoupledBoard, open_coupled_funnel, open_firmware_board
from simulation.funnel import SimFunnelRelease
from simulation.hands import SimHands
from simulation.panel import SimButtons, SimStatusLight
from simulation.synthetic_profile import synthetic_profile
from simulation.world import SimWorld
from station import serial_glue
from station.hands import Hands, NoHands
from vision.profile import ColourProfile


@dataclass
class Station:
    """The opened devices, and what the drop cycle needs besides them without knowing whether the
    station is simulated. ``tray_board``, ``buttons`` and ``status_led`` are ``None`` when not
    configured; ``hands`` are the simulated players' on a simulated station and ``NoHands`` at a
    real table; ``world`` is the simulated world (``None`` on real hardware) for tests and benches,
    never for the controller."""

    config: StationConfig
    funnel: FunnelRelease | None  # None only where it failed to open with tolerant=True
    camera: Camera | None  # likewise
    tray_board: TrayBoard | None = None
    buttons: Buttons | None = None
    status_led: StatusLight | None = None
    world: SimWorld | None = None
    extras: list[Any] = field(default_factory=list)  # helpers to close last (e.g. the firmware process)
    failures: dict[str, str] = field(default_factory=dict)  # only with open_station(..., tolerant=True)
    hands: Hands = field(default_factory=NoHands)

    @property
    def hands_simulated(self) -> bool:
        """Whether the station moves the cubes itself (a simulated station's hands), so that nobody
        need be asked to load the funnel or clear the tray."""
        return not isinstance(self.hands, NoHands)

    def colour_profile(self) -> ColourProfile:
        """The counter's colour profile: ``[station] profile`` where one is set, else the profile
        learned on the simulated station's synthetic calibration shots."""
        if self.config.station.profile:
            return load_profile(Path(self.config.station.profile).expanduser())
        return synthetic_profile()

    def tray_truth(self) -> Callable[[], dict[str, int]] | None:
        """What the tray really holds, asked of the simulated world (``[sim] tray_reading =
        "direct"``: long crash and soak runs skip the photos); ``None`` at a real table."""
        return self.world.tray_contents if self.world is not None else None

    def devices(self) -> dict[str, Device]:
        found: dict[str, Device | None] = {"funnel": self.funnel, "camera": self.camera, "board": self.tray_board,
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
        from gpiozero.pins.mock import MockFactory, MockPWMPin  # pin factories: only the one named is loaded

        return MockFactory(pin_class=MockPWMPin)
    module, cls = {"lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"), "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory"),
                   "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
                   "native": ("gpiozero.pins.native", "NativeFactory")}[name]
    return getattr(importlib.import_module(module), cls)()


def _open_camera(cfg: StationConfig, sim: SimWorld | None) -> Camera:
    c = cfg.camera
    if c.backend == "sim":
        assert sim is not None
        return SimCamera(sim, width=c.width, height=c.height, timeout_s=c.timeout_s, seed=cfg.sim.seed)
    if c.backend == "picamera2":
        return Picamera2Camera(width=c.width, height=c.height, timeout_s=c.timeout_s, settle_s=c.settle_s,
                               camera_num=c.device)
    if c.backend == "opencv":
        return OpenCVCamera(c.path or c.device, width=c.width, height=c.height, timeout_s=c.timeout_s)
    return ReplayCamera(c.path)


def _open_board(cfg: StationConfig, sim: SimWorld | None, extras: list[Any]) -> TrayBoard | None:
    b = cfg.board
    if b.backend == "none":
        return None
    if b.backend == "sim":
        assert sim is not None
        return SimTrayBoard(sim, retries=b.retries)
    if b.backend == "firmware-pty":
        assert sim is not None
        return open_firmware_board(cfg, sim, extras)
    return serial_glue.open_serial_board(cfg)


def _open_funnel(cfg: StationConfig, sim: SimWorld | None, board: TrayBoard | None) -> FunnelRelease:
    f = cfg.funnel
    if f.backend == "sim":
        assert sim is not None
        return SimFunnelRelease(sim)
    if f.backend == "gpio":
        return GpioServoRelease(f.pin, closed_angle=f.closed_angle, open_angle=f.open_angle, min_angle=f.min_angle,
                                max_angle=f.max_angle, min_pulse_s=f.min_pulse_ms / 1000,
                                max_pulse_s=f.max_pulse_ms / 1000, frame_s=f.frame_ms / 1000, dwell_s=f.dwell_s,
                                move_s=f.move_s, pin_factory=_pin_factory(f.pin_factory))
    if f.backend in ("hw-pwm", "lgpio-servo"):
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
    if isinstance(board, SimCoupledBoard):
        return open_coupled_funnel(cfg, board)
    assert isinstance(board, SerialTrayBoard), f"funnel.backend 'board' with a {type(board).__name__}"
    return serial_glue.open_board_funnel(cfg, board)


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
        sim = SimWorld.from_config(cfg) if needs_sim(cfg) else None
        board = attempt("board", lambda: _open_board(cfg, sim, extras))
        if board is None and cfg.funnel.backend == "board" and "board" in failures:
            failures["funnel"] = "the tray board that drives it did not open"
            funnel = None
        else:
            funnel = attempt("funnel", lambda: _open_funnel(cfg, sim, board))
        camera = attempt("camera", lambda: _open_camera(cfg, sim))
        def buttons_opener() -> Buttons | None:
            if cfg.buttons.backend == "gpio":
                return panel.GpioButtons(cfg.buttons.release_pin, bounce_s=cfg.buttons.bounce_s,
                                            pin_factory=_pin_factory(cfg.buttons.pin_factory))
            return SimButtons() if cfg.buttons.backend == "sim" else None

        def led_opener() -> StatusLight | None:
            if cfg.status_led.backend == "gpio":
                return panel.GpioStatusLight(cfg.status_led.pin, pin_factory=_pin_factory(cfg.status_led.pin_factory))
            return SimStatusLight() if cfg.status_led.backend == "sim" else None

        buttons = attempt("buttons", buttons_opener)
        status_led = attempt("status_led", led_opener)
        hands: Hands = SimHands(sim) if sim is not None else NoHands()
        return Station(cfg, funnel, camera, board, buttons, status_led, sim, extras, failures, hands)
    except BaseException:
        for dev in reversed([*extras, *opened]):
            with contextlib.suppress(Exception):
                dev.close()
        raise
