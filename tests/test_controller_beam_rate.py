"""The station measures its own break-beam: how often two cubes cross it as one (``tower model beam``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from controller.beam_rate import (
    LEFT_OUT_BEAM_DECIDED,
    LEFT_OUT_NO_BEAM,
    LEFT_OUT_OVER_HOST,
    BeamDrop,
    beam_drops,
    fit_clump,
)
from controller.cli import main
from controller.records import Record
from controller.selfplay import play
from controller.table import Table
from hardware.config import load_config
from vision.hidden import hidden_mean

REPO = Path(__file__).resolve().parent.parent


def _clumped(cubes: int, rate: float, rng: random.Random) -> int:
    """What a beam with clump rate ``rate`` counts of ``cubes`` falling."""
    return cubes - sum(rng.random() < rate for _ in range(cubes - 1))


@pytest.mark.parametrize("rate", [0.0, 0.03, 0.12])
def test_the_fit_finds_the_rate_that_made_the_drops(rate: float) -> None:
    rng, hidden = random.Random(5), np.random.default_rng(5)
    host = [BeamDrop(i, _clumped(n, rate, rng), n, "host") for i, n in enumerate(rng.randint(2, 40) for _ in range(250))]
    fit = fit_clump(host)
    assert fit.low <= rate <= fit.high and fit.high - fit.low < 0.04, fit
    assert fit.drops == 250 and fit.chances == sum(d.cubes - 1 for d in host)
    # Trays the counter settled miss the cubes a pile hides, as the renders measured them: the fit
    # allows for them, so a beam above the reading does not read as a beam that never clumps.
    counter = []
    for i in range(250):
        seen = rng.randint(2, 40)
        cubes = seen + int(hidden.poisson(hidden_mean(seen)))
        counter.append(BeamDrop(i, _clumped(cubes, rate, rng), seen, "counter"))
    fit = fit_clump(counter)
    assert fit.low <= rate <= fit.high, fit


def test_a_beam_that_never_fell_short_measures_a_rate_near_zero_and_no_drops_measure_nothing() -> None:
    fit = fit_clump([BeamDrop(i, 20, 20, "host") for i in range(30)])
    assert fit.rate == 0.0 and fit.low == 0.0 and 0.0 < fit.high < 0.01 and fit.short == 0
    with pytest.raises(ValueError, match="no drop on record"):
        fit_clump([])
    with pytest.raises(ValueError, match="no clump rate explains"):
        fit_clump([BeamDrop(1, 41, 40, "host")])  # more than a whole tray: no clump explains it


def _record(seq: int, kind: str, drop_id: int | None, **payload: object) -> Record:
    return Record(seq, float(seq), kind, drop_id, dict(payload), {}, "", "")


def test_drops_the_beam_helped_decide_are_left_out_unless_the_host_settled_them() -> None:
    records = [
        _record(1, "session_new", None, session_id=1),
        _record(2, "reading", 1, beam=9, reconciliation=None),  # the counter alone
        _record(3, "resolution", 1, tray_after={"red": 5, "blue": 5}),
        _record(4, "reading", 2, beam=7, reconciliation={"beam": 7, "cubes": {"red": 7}}),  # the beam chose
        _record(5, "resolution", 2, tray_after={"red": 7}),
        _record(6, "reading", 3, reconciliation={"beam": 4, "cubes": None, "question": {"red": [4, 5]}}),  # older
        _record(7, "correction", 3, after={"red": 5}),
        _record(8, "resolution", 3, tray_after={"red": 5}),
        _record(9, "reading", 4, beam=None, reconciliation=None),  # no beam stood
        _record(10, "resolution", 4, tray_after={"red": 3}),
        _record(11, "reading", 5, beam=3, reconciliation=None),
        _record(12, "cancelled", 5),
        _record(13, "session_new", None, session_id=2),
        _record(14, "reading", 6, beam=6, reconciliation=None),
        _record(15, "resolution", 6, tray_after={"blue": 6}),
        _record(16, "reading", 7, beam=9, reconciliation=None),
        _record(17, "correction", 7, after={"blue": 8}),  # the host's tray, under the beam's count
        _record(18, "resolution", 7, tray_after={"blue": 8}),
    ]
    found = beam_drops(records)
    assert found.used == [BeamDrop(1, 9, 10, "counter"), BeamDrop(3, 4, 5, "host"), BeamDrop(6, 6, 6, "counter")]
    assert found.left_out == {LEFT_OUT_BEAM_DECIDED: 1, LEFT_OUT_NO_BEAM: 1, LEFT_OUT_OVER_HOST: 1}
    assert [d.drop_id for d in beam_drops(records, session=2).used] == [6]


def test_a_station_measures_its_beam_on_the_drops_it_played(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A simulated station whose beam misses one cube in five that follow another: every reading
    record keeps the beam's count, and `tower model beam` finds the rate and says the default setting
    does not fit it, while the station's own config does."""
    config = tmp_path / "station.toml"
    config.write_text((REPO / "examples" / "sim.toml").read_text(encoding="utf-8")
                      .replace('backend = "sim"\n\n[buttons]', 'backend = "sim"\nbeam_clump = 0.2\n\n[buttons]')
                      .replace('data_dir = "tower-data"', f'data_dir = "{tmp_path / "data"}"'), encoding="utf-8")
    assert load_config(config).board.beam_clump == 0.2
    with Table.open(config_path=config, reader="direct") as table:
        play(table, 25, seed=3)
        readings = [r for r in table.store.records() if r.kind == "reading"]
    assert readings and all(isinstance(r.payload["beam"], int) for r in readings)
    assert main(["model", "beam", "--config", str(config), "--json"]) == 0
    fit = json.loads(capsys.readouterr().out)
    assert fit["drops"] >= 20 and fit["low"] <= 0.2 <= fit["high"] and fit["configured_fits"], fit
    assert main(["model", "beam", "--data-dir", str(tmp_path / "data")]) == 0  # the default config: 0.03
    said = capsys.readouterr().out
    assert "break-beam clump rate: 0." in said and "set board.beam_clump = 0." in said, said
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(key, raising=False)
    assert main(["model", "beam", "--data-dir", str(tmp_path / "data")]) == 0
    said = capsys.readouterr().out
    assert "Klumpenrate der Lichtschranke: 0," in said and "Würfe ausgewertet" in said and "clump rate" not in said, said
