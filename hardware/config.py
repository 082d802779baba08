"""The station configuration (``tower.toml``): which backend drives each device, pins, ports, timings.

A typo in a config file must never be ignored (a misspelt ``open_angel`` would silently keep the
default and the trapdoor would open to the wrong angle), so every section is a frozen dataclass
whose fields are the only keys accepted, and each field carries its allowed range or choices. Errors
are ``ConfigError`` (a ``ValueError``) and name the key: ``funnel.open_angle: 200 is outside 0..180``.

Relative paths in the file (``data_dir``, ``profile``, ``camera.path``, ``sim.state_file``) are kept
as written; :meth:`StationConfig.resolve` turns them into absolute paths against the directory the
station runs in, so the packaged default config works from any checkout or installation.

With no path, :func:`load_config` reads the packaged default (``hardware/default_sim.toml``, the
same text as ``examples/sim.toml``; a test keeps them identical): a fully simulated station.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from hardware.errors import ConfigError
from towermodel.models import NAMED_MODELS

DEFAULT_CONFIG = Path(__file__).resolve().parent / "default_sim.toml"

#: Raspberry Pi GPIOs that can carry hardware PWM (PWM0/PWM1 on the 40-pin header). A servo on any
#: other pin gets software-timed pulses that jitter, and the trapdoor twitches.
HARDWARE_PWM_PINS = (12, 13, 18, 19)
TOWER_MODELS = ("spielbyweb", "wallenstein-online", "shelves")
#: Chance that a cube leaving the tower right behind another crosses the break-beam with it and is
#: not counted. A guess for a single beam at the tower's exit until a station measures its own.
DEFAULT_BEAM_CLUMP = 0.03
BEAM_CLUMP_MAX = 0.5  # a beam that misses more than one cube in two is out of line, not clumping


def _spec(default: Any, *, lo: float | None = None, hi: float | None = None,
          choices: tuple[Any, ...] | None = None, doc: str = "") -> Any:
    """A dataclass field with its validation rule in the metadata."""
    return field(default=default, metadata={"lo": lo, "hi": hi, "choices": choices, "doc": doc})


@dataclass(frozen=True)
class StationSection:
    data_dir: str = _spec("tower-data", doc="where records, photos and the sim state live")
    profile: str = _spec("", doc="colour profile file; empty: the synthetic profile (simulated camera)")
    settle_frames: int = _spec(3, lo=1, hi=100, doc="still frames in a row before the tray is read")
    settle_timeout_s: float = _spec(8.0, lo=0.1, hi=120.0, doc="give up waiting for a still tray")
    odds_model: str = _spec("spielbyweb", choices=(*NAMED_MODELS, "fitted"),
                            doc="the tower model of the odds before a drop; fitted: fitted to this station's drops")


@dataclass(frozen=True)
class FunnelSection:
    backend: str = _spec("sim", choices=("gpio", "hw-pwm", "lgpio-servo", "board", "sim"),
                         doc="who moves the servo: gpio (gpiozero), hw-pwm (kernel hardware PWM, "
                             "microsecond pulses; Pi 5), lgpio-servo (lgpio's microsecond servo pulses), "
                             "board (the tray board), sim")
    pin: int = _spec(18, lo=0, hi=27, doc="BCM GPIO of the servo signal (gpio, hw-pwm, lgpio-servo)")
    pwm_chip: int = _spec(0, lo=0, hi=9, doc="hw-pwm: the pwmchip number (Pi 5 and Pi 4: 0; early Pi 5 kernels: 2)")
    pwm_channel: int = _spec(-1, lo=-1, hi=3, doc="hw-pwm: the PWM channel; -1: from the pin, Pi 5 numbering "
                                                   "(GPIO12 0, 13 1, 18 2, 19 3)")
    gpiochip: int = _spec(0, lo=0, hi=9, doc="lgpio-servo: the gpiochip of the header (0; early Pi 5 kernels: 4)")
    pin_factory: str = _spec("", choices=("", "lgpio", "pigpio", "rpigpio", "native", "mock"),
                             doc="gpiozero pin factory; empty: gpiozero's own choice")
    closed_angle: float = _spec(10.0, lo=0.0, hi=180.0, doc="trapdoor shut (degrees)")
    open_angle: float = _spec(100.0, lo=0.0, hi=180.0, doc="trapdoor fully open (degrees)")
    min_angle: float = _spec(0.0, lo=0.0, hi=180.0, doc="calibrated mechanical range: every angle is clamped")
    max_angle: float = _spec(180.0, lo=0.0, hi=180.0, doc="upper end of the calibrated range")
    min_pulse_ms: float = _spec(0.5, lo=0.3, hi=3.0, doc="pulse width at 0 degrees")
    max_pulse_ms: float = _spec(2.5, lo=0.3, hi=3.0, doc="pulse width at 180 degrees")
    frame_ms: float = _spec(20.0, lo=5.0, hi=50.0, doc="servo frame period")
    dwell_s: float = _spec(1.5, lo=0.0, hi=10.0, doc="time open so every cube falls")
    move_s: float = _spec(0.4, lo=0.0, hi=5.0, doc="time the servo needs to travel")


@dataclass(frozen=True)
class CameraSection:
    backend: str = _spec("sim", choices=("picamera2", "opencv", "replay", "sim"), doc="camera kind")
    device: int = _spec(0, lo=0, hi=63, doc="OpenCV VideoCapture index")
    path: str = _spec("", doc="replay: a folder of images or a video file")
    width: int = _spec(1280, lo=64, hi=4608, doc="frame width in pixels")
    height: int = _spec(960, lo=48, hi=3496, doc="frame height in pixels")
    timeout_s: float = _spec(3.0, lo=0.05, hi=60.0, doc="no frame within this long: CameraTimeout")
    settle_s: float = _spec(1.0, lo=0.0, hi=10.0, doc="picamera2: let exposure and white balance settle, then lock")


@dataclass(frozen=True)
class BoardSection:
    backend: str = _spec("none", choices=("none", "serial", "firmware-pty", "sim"),
                         doc="firmware-pty: the firmware under MicroPython on a pseudo-terminal")
    port: str = _spec("", doc="serial device, e.g. /dev/ttyACM0")
    baudrate: int = _spec(115200, choices=(9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600),
                          doc="ignored by USB CDC (the Pico), used by a UART")
    timeout_s: float = _spec(0.3, lo=0.01, hi=10.0, doc="wait for an acknowledgement")
    retries: int = _spec(5, lo=0, hi=20, doc="retransmissions before a LinkError")
    heartbeat_s: float = _spec(1.0, lo=0.05, hi=60.0, doc="PING after this long without traffic")
    beam_clump: float = _spec(DEFAULT_BEAM_CLUMP, lo=0.0, hi=BEAM_CLUMP_MAX,
                              doc="chance that a cube right behind another passes the break-beam with it and "
                                  "counts once (the simulated beam does so; the drop cycle weighs the beam by it)")


@dataclass(frozen=True)
class ButtonsSection:
    backend: str = _spec("none", choices=("none", "gpio", "sim"), doc="optional release button")
    release_pin: int = _spec(17, lo=0, hi=27, doc="BCM GPIO, button to ground")
    bounce_s: float = _spec(0.05, lo=0.0, hi=1.0, doc="debounce time")
    pin_factory: str = _spec("", choices=("", "lgpio", "pigpio", "rpigpio", "native", "mock"), doc="as funnel.pin_factory")


@dataclass(frozen=True)
class StatusLedSection:
    backend: str = _spec("none", choices=("none", "gpio", "sim"), doc="optional status LED")
    pin: int = _spec(27, lo=0, hi=27, doc="BCM GPIO, LED through 330 ohm to ground")
    pin_factory: str = _spec("", choices=("", "lgpio", "pigpio", "rpigpio", "native", "mock"), doc="as funnel.pin_factory")


@dataclass(frozen=True)
class FaultsSection:
    """Starting fault rates of the simulated world (tests change them at run time on ``SimWorld.faults``)."""

    servo_jam: float = _spec(0.0, lo=0.0, hi=1.0, doc="share of releases whose trapdoor sticks")
    camera_timeout: float = _spec(0.0, lo=0.0, hi=1.0, doc="share of captures that time out")
    camera_black: float = _spec(0.0, lo=0.0, hi=1.0, doc="share of captures that come back black")
    serial_corrupt: float = _spec(0.0, lo=0.0, hi=1.0, doc="share of frames with a flipped byte")
    serial_loss: float = _spec(0.0, lo=0.0, hi=1.0, doc="share of frames lost")
    serial_delay_s: float = _spec(0.0, lo=0.0, hi=5.0, doc="added to every exchange")
    board_reset: float = _spec(0.0, lo=0.0, hi=1.0, doc="share of board commands interrupted by a reset")


@dataclass(frozen=True)
class SimSection:
    tower_model: str = _spec("spielbyweb", choices=TOWER_MODELS, doc="simulation/tower.py")
    seed: int = _spec(1, lo=0, hi=2**31 - 1, doc="the simulated world's random seed (tower, tray, camera)")
    state_file: str = _spec("", doc="persisted world; empty: sim-world.json in station.data_dir")
    motion_frames: int = _spec(4, lo=0, hi=50, doc="frames with cubes still rolling after a release")
    tray_reading: str = _spec("camera", choices=("camera", "direct"),
                              doc="direct: read the simulated tray's contents instead of photographing it "
                                  "(long crash and soak benchmarks through the CLI)")
    faults: FaultsSection = field(default_factory=FaultsSection)


@dataclass(frozen=True)
class StationConfig:
    station: StationSection = field(default_factory=StationSection)
    funnel: FunnelSection = field(default_factory=FunnelSection)
    camera: CameraSection = field(default_factory=CameraSection)
    board: BoardSection = field(default_factory=BoardSection)
    buttons: ButtonsSection = field(default_factory=ButtonsSection)
    status_led: StatusLedSection = field(default_factory=StatusLedSection)
    sim: SimSection = field(default_factory=SimSection)
    source: str = field(default="<defaults>", compare=False)

    @property
    def data_dir(self) -> Path:
        return Path(self.station.data_dir).expanduser().resolve()

    @property
    def sim_state_file(self) -> Path:
        if self.sim.state_file:
            return Path(self.sim.state_file).expanduser().resolve()
        return self.data_dir / "sim-world.json"

    def replace(self, **sections: Any) -> StationConfig:
        """A copy with whole sections or single keys changed: ``cfg.replace(station={"data_dir": d})``."""
        changes: dict[str, Any] = {}
        for name, value in sections.items():
            current = getattr(self, name)
            if isinstance(value, dict):
                raw = {**dataclasses.asdict(current), **value}
                changes[name] = _build(type(current), raw, name)
            else:
                changes[name] = value
        result = dataclasses.replace(self, **changes)
        _cross_checks(result)
        return result


def _num(value: float) -> str:
    """200.0 -> '200', 0.05 -> '0.05' (messages quote limits as a person would write them)."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _check_value(key: str, value: Any, hint: Any, meta: dict[str, Any]) -> Any:
    written = value  # quoted in messages as the user wrote it (200, not 200.0)
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: {value!r} is not true or false")
    elif hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: {value!r} is not a whole number")
    elif hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key}: {value!r} is not a number")
        value = float(value)
    elif hint is str and not isinstance(value, str):
        raise ConfigError(f"{key}: {value!r} is not a string")
    choices = meta.get("choices")
    if choices is not None and value not in choices:
        raise ConfigError(f"{key}: {value!r} is not one of {', '.join(repr(c) for c in choices)}")
    lo, hi = meta.get("lo"), meta.get("hi")
    if lo is not None and hi is not None and not lo <= value <= hi:
        raise ConfigError(f"{key}: {written!r} is outside {_num(lo)}..{_num(hi)}")
    return value


def _build(cls: type, raw: Any, prefix: str) -> Any:
    if not isinstance(raw, dict):
        raise ConfigError(f"{prefix}: expected a table [{prefix}], got {raw!r}")
    hints = get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.name != "source"}
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        where = f"{prefix}.{unknown[0]}" if prefix else unknown[0]
        raise ConfigError(f"{where}: unknown key (known: {', '.join(sorted(fields))})")
    values: dict[str, Any] = {}
    for name, value in raw.items():
        key = f"{prefix}.{name}" if prefix else name
        hint = hints[name]
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            values[name] = value if isinstance(value, hint) else _build(hint, value, key)
        else:
            values[name] = _check_value(key, value, hint, dict(fields[name].metadata))
    return cls(**values)


def _cross_checks(cfg: StationConfig) -> None:
    f = cfg.funnel
    if f.min_angle >= f.max_angle:
        raise ConfigError(f"funnel.min_angle: {f.min_angle:g} must be below funnel.max_angle ({f.max_angle:g})")
    if f.min_pulse_ms >= f.max_pulse_ms:
        raise ConfigError(f"funnel.min_pulse_ms: {f.min_pulse_ms:g} must be below funnel.max_pulse_ms ({f.max_pulse_ms:g})")
    if f.max_pulse_ms >= f.frame_ms:
        raise ConfigError(f"funnel.max_pulse_ms: {f.max_pulse_ms:g} must be shorter than funnel.frame_ms ({f.frame_ms:g})")
    if f.closed_angle == f.open_angle:
        raise ConfigError("funnel.open_angle: equals funnel.closed_angle, the trapdoor would never open")
    if f.backend == "hw-pwm" and f.pin not in HARDWARE_PWM_PINS:
        raise ConfigError(f"funnel.pin: GPIO{f.pin} has no hardware PWM; use one of "
                          f"{', '.join(map(str, HARDWARE_PWM_PINS))}")
    if f.backend != "hw-pwm" and f.pwm_channel != -1:
        raise ConfigError("funnel.pwm_channel: only the hw-pwm backend uses a PWM channel")
    if f.backend == "gpio" and f.pin not in HARDWARE_PWM_PINS and f.pin_factory != "mock":
        raise ConfigError(f"funnel.pin: GPIO{f.pin} cannot carry hardware PWM; use one of "
                          f"{', '.join(map(str, HARDWARE_PWM_PINS))}")
    if f.backend == "board" and cfg.board.backend == "none":
        raise ConfigError("funnel.backend: 'board' needs a tray board, but board.backend is 'none'")
    if cfg.camera.backend == "replay" and not cfg.camera.path:
        raise ConfigError("camera.path: the replay camera needs a folder of images or a video file")
    if cfg.board.backend == "serial" and not cfg.board.port:
        raise ConfigError("board.port: the serial board needs a port, e.g. /dev/ttyACM0")
    pins = {"funnel.pin": f.pin if f.backend in ("gpio", "hw-pwm", "lgpio-servo") else None,
            "buttons.release_pin": cfg.buttons.release_pin if cfg.buttons.backend == "gpio" else None,
            "status_led.pin": cfg.status_led.pin if cfg.status_led.backend == "gpio" else None}
    seen: dict[int, str] = {}
    for key, pin in pins.items():
        if pin is None:
            continue
        if pin in seen:
            raise ConfigError(f"{key}: GPIO{pin} is already used by {seen[pin]}")
        seen[pin] = key


def parse_config(data: dict[str, Any], source: str = "<dict>") -> StationConfig:
    """Validate an already-parsed TOML document (a dict of sections)."""
    cfg: StationConfig = _build(StationConfig, data, "")
    cfg = dataclasses.replace(cfg, source=source)
    _cross_checks(cfg)
    return cfg


def load_config(path: Path | str | None = None) -> StationConfig:
    """Read and validate ``tower.toml``; ``None`` reads the packaged simulated-station default."""
    path = DEFAULT_CONFIG if path is None else Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}), so not a TOML file") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    try:
        return parse_config(data, source=str(path))
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def config_reference() -> list[tuple[str, Any, str, str]]:
    """Every key with its default, allowed values and meaning: ``(key, default, allowed, doc)``;
    the configuration table of ``docs/raspberry-pi.md`` is made from it (a test keeps them in step)."""
    rows: list[tuple[str, Any, str, str]] = []

    def walk(obj: Any, prefix: str) -> None:
        for f in dataclasses.fields(obj):
            if f.name == "source":
                continue
            value = getattr(obj, f.name)
            key = f"{prefix}.{f.name}" if prefix else f.name
            if dataclasses.is_dataclass(value):
                walk(value, key)
                continue
            meta = f.metadata
            if meta.get("choices"):
                allowed = ", ".join(repr(c) for c in meta["choices"])
            elif meta.get("lo") is not None:
                allowed = f"{_num(meta['lo'])}..{_num(meta['hi'])}"
            else:
                allowed = "text"
            rows.append((key, value, allowed, meta.get("doc", "")))

    walk(StationConfig(), "")
    return rows
