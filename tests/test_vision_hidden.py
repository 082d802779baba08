"""How many cubes a pile hides from the camera (vision/hidden.py), and the fit that sets it."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.hidden import (
    HIDDEN_LOG_SCALE,
    HIDDEN_POWER,
    colour_hidden_mean,
    hidden_chance,
    hidden_count_chance,
    hidden_mean,
)

TRAIN = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "tray_train"


def test_hidden_cubes_are_a_distribution_that_grows_with_the_pile() -> None:
    for seen in (0, 5, 20, 40):
        assert sum(hidden_chance(h, seen) for h in range(30)) == pytest.approx(1.0)
    assert hidden_chance(-1, 20) == 0.0 and hidden_chance(0, 0) == 1.0 and hidden_chance(1, 0) == 0.0
    means = [hidden_mean(n) for n in (5, 10, 20, 30, 40)]
    assert means == sorted(means) and means[0] < 0.02 and 0.8 < means[-1] < 1.5


def test_a_colour_hides_its_share_of_the_trays_hidden_cubes() -> None:
    assert colour_hidden_mean(10, 40) == pytest.approx(hidden_mean(40) / 4)
    assert colour_hidden_mean(0, 40) == 0.0 and colour_hidden_mean(3, 0) == 0.0
    for k in range(-1, 5):  # the colour's count is the same Poisson as the tray's, with its own mean
        assert hidden_count_chance(k, hidden_mean(40)) == hidden_chance(k, 40)
    assert hidden_count_chance(0, 0.0) == 1.0 and hidden_count_chance(1, 0.0) == 0.0


@pytest.mark.skipif(not (TRAIN / "test").is_dir(), reason="needs the shared training renders")
def test_the_shipped_constants_are_the_fit_on_the_tuning_renders() -> None:
    from calibration.fit_hidden_cubes import fit, tuning_counts

    seen, hidden = tuning_counts(TRAIN)
    assert len(seen) == 112 and int(hidden.sum()) == 45  # the tuning part only: NNNN % 3 != 0
    a, b = fit(seen, hidden)
    assert (a, b) == pytest.approx((HIDDEN_LOG_SCALE, HIDDEN_POWER), abs=2e-3)
