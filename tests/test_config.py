"""The station configuration: defaults, the shipped examples, and rejection of every kind of mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.config import DEFAULT_CONFIG, ConfigError, StationConfig, load_config, parse_config

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((REPO / "examples").glob("*.toml"))


def test_packaged_default_is_examples_sim() -> None:
    assert DEFAULT_CONFIG.read_text(encoding="utf-8") == (REPO / "examples" / "sim.toml").read_text(encoding="utf-8")


def test_default_config_is_fully_simulated() -> None:
    cfg = load_config(None)
    assert (cfg.funnel.backend, cfg.camera.backend, cfg.board.backend) == ("sim", "sim", "sim")
    assert cfg.sim.tower_model == "spielbyweb"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_loads(path: Path) -> None:
    cfg = load_config(path)
    assert isinstance(cfg, StationConfig)
    assert cfg.source == str(path)


def test_examples_cover_the_issue() -> None:
    names = {p.name for p in EXAMPLES}
    assert {"sim.toml", "pi-gpio.toml", "pi-serial.toml", "sim-firmware.toml"} <= names


def _load(tmp_path: Path, text: str) -> StationConfig:
    path = tmp_path / "tower.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[funnel]\nopen_angle = 200\n", "funnel.open_angle: 200 is outside 0..180"),
        ("[funnel]\nopen_angel = 20\n", "funnel.open_angel: unknown key"),
        ("[camera]\nbackend = 'webcam'\n", "camera.backend: 'webcam' is not one of"),
        ("[camera]\nwidth = 'wide'\n", "camera.width: 'wide' is not a whole number"),
        ("[camera]\nwidth = 1.5\n", "camera.width: 1.5 is not a whole number"),
        ("[board]\ntimeout_s = true\n", "board.timeout_s: True is not a number"),
        ("[board]\nbeam_clump = 0.9\n", "board.beam_clump: 0.9 is outside 0..0.5"),
        ("[board]\nbeam_clump = 'often'\n", "board.beam_clump: 'often' is not a number"),
        ("[stations]\n", "stations: unknown key"),
        ("[sim.faults]\nservo_jam = 1.5\n", "sim.faults.servo_jam: 1.5 is outside 0..1"),
        ("[sim.faults]\ngremlins = 1\n", "sim.faults.gremlins: unknown key"),
        ("[sim]\ntower_model = 'funnel'\n", "sim.tower_model: 'funnel' is not one of"),
        ("funnel = 3\n", "funnel: expected a table"),
        ("[funnel]\nmin_angle = 90\nmax_angle = 40\n", "funnel.min_angle: 90 must be below funnel.max_angle"),
        ("[funnel]\nbackend = 'gpio'\npin = 17\n", "funnel.pin: GPIO17 cannot carry hardware PWM"),
        ("[funnel]\nbackend = 'board'\n[board]\nbackend = 'none'\n", "funnel.backend: 'board' needs a tray board"),
        ("[camera]\nbackend = 'replay'\n", "camera.path: the replay camera needs"),
        ("[board]\nbackend = 'serial'\n", "board.port: the serial board needs a port"),
        ("[funnel]\nbackend = 'gpio'\npin = 18\n[buttons]\nbackend = 'gpio'\nrelease_pin = 18\n",
         "buttons.release_pin: GPIO18 is already used by funnel.pin"),
        ("[funnel\n", "not valid TOML"),
    ],
)
def test_mistakes_are_rejected_naming_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, text)
    assert message in str(info.value)
    assert str(tmp_path / "tower.toml") in str(info.value)


def test_config_error_is_a_value_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        _load(tmp_path, "[funnel]\nopen_angle = -1\n")


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "nope.toml")


def test_a_binary_file_is_a_config_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "tower.toml"
    path.write_bytes(b"\xff\xfe[station]\n")
    with pytest.raises(ConfigError, match="not UTF-8") as info:
        load_config(path)
    assert str(path) in str(info.value)


def test_integers_are_accepted_for_floats_and_missing_keys_keep_defaults(tmp_path: Path) -> None:
    cfg = _load(tmp_path, "[funnel]\nopen_angle = 95\n")
    assert cfg.funnel.open_angle == 95.0 and isinstance(cfg.funnel.open_angle, float)
    assert cfg.funnel.closed_angle == StationConfig().funnel.closed_angle


def test_sections_are_frozen() -> None:
    cfg = load_config(None)
    with pytest.raises(AttributeError):
        cfg.funnel.open_angle = 5  # type: ignore[misc]


def test_replace_validates_and_resolves_state_file(tmp_path: Path) -> None:
    cfg = load_config(None).replace(station={"data_dir": str(tmp_path)})
    assert cfg.sim_state_file == tmp_path / "sim-world.json"
    with pytest.raises(ConfigError, match="station.settle_frames"):
        cfg.replace(station={"settle_frames": 0})


def test_parse_config_accepts_a_dict() -> None:
    cfg = parse_config({"sim": {"tower_model": "shelves", "faults": {"camera_black": 0.5}}})
    assert cfg.sim.tower_model == "shelves" and cfg.sim.faults.camera_black == 0.5


def test_every_key_is_documented_in_the_pi_guide() -> None:
    from hardware.config import config_reference

    guide = (REPO / "docs" / "raspberry-pi.md").read_text(encoding="utf-8")
    missing = [key for key, *_ in config_reference() if f"| `{key}` |" not in guide]
    assert not missing, f"docs/raspberry-pi.md lacks {missing}"
    assert all(doc for *_, doc in config_reference()), "every key says what it is for"


def test_the_beam_clump_rate_reaches_the_simulated_beam_and_the_drop_cycle(tmp_path: Path) -> None:
    from controller.table import Table
    from hardware.config import DEFAULT_BEAM_CLUMP

    assert load_config(None).board.beam_clump == DEFAULT_BEAM_CLUMP > 0  # a real beam misses clumps
    cfg = _load(tmp_path, f"[station]\ndata_dir = '{tmp_path / 'data'}'\n[board]\nbackend = 'sim'\nbeam_clump = 0.25\n")
    with Table.open(config=cfg, reader="direct") as table:
        assert table.station.world.beam_clump == 0.25 and table.cycle.beam_clump == 0.25
