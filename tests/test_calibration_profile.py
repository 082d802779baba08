"""The colour profile file: round trip, small, and a clear error for anything corrupt or foreign."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.profile import ColourModel, ColourProfile, ProfileError, load_profile, save_profile


def _model(mean: tuple[float, float, float], sd: float = 2.0) -> ColourModel:
    rng = np.random.default_rng(int(abs(sum(mean))))
    return ColourModel.fit(rng.normal(mean, sd, size=(500, 3)))


def _profile() -> ColourProfile:
    means = {"red": (37, 36, 17), "blue": (34, 8, -31), "yellow": (67, -2, 54), "purple": (34, 22, -24),
             "black": (24, 0, 0), "green": (42, -24, 18)}
    return ColourProfile(
        background=_model((71, -1, -1), 6),
        colours={c: _model(m) for c, m in means.items()},
        courtiers={"red": _model((28, 33, 18))},
    )


def test_round_trip_is_exact_and_small(tmp_path: Path) -> None:
    """The file keeps every bit of the models: a profile read back classifies exactly like the one
    learned (rounding had flipped a count on a scene where a patch sat on a gate's edge)."""
    p = _profile()
    save_profile(p, tmp_path / "p.json")
    assert (tmp_path / "p.json").stat().st_size < 8_000
    q = load_profile(tmp_path / "p.json")
    assert q.background == p.background and q.colours == p.colours and q.courtiers == p.courtiers
    assert set(q.courtiers) == {"red"}


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: "{not json", "corrupt JSON"),
        (lambda d: json.dumps({"hello": "world"}), "not a colour profile"),
        (lambda d: json.dumps({**d, "version": 99}), "version 99"),
        (lambda d: json.dumps({**d, "colours": {k: v for k, v in d["colours"].items() if k != "green"}}), "green"),
        (lambda d: json.dumps({**d, "colours": {**d["colours"], "pink": d["colours"]["red"]}}), "pink"),
        (lambda d: json.dumps({**d, "background": {"mean": [1, 2], "cov": [[1]], "pixels": 3}}), "background"),
        (lambda d: json.dumps({**d, "background": {**d["background"], "cov": [[1, 0, 0], [0, -1, 0], [0, 0, 1]]}}),
         "positive definite"),
        (lambda d: json.dumps({**d, "courtiers": {"green": d["colours"]["green"]}}), "player colours"),
    ],
)
def test_bad_files_are_refused_with_the_problem_named(tmp_path: Path, mutate, message: str) -> None:
    good = _profile().to_json()
    path = tmp_path / "bad.json"
    path.write_text(mutate(good))
    with pytest.raises(ProfileError, match=message) as info:
        load_profile(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_missing_file_and_binary_garbage(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="cannot read"):
        load_profile(tmp_path / "nope.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xd8\xff\xe0 jpeg, not json")
    with pytest.raises(ProfileError):
        load_profile(tmp_path / "bin.json")


def test_separations_name_the_nearest_colour() -> None:
    seps = _profile().separations()
    assert seps["purple"][0] in {"blue", "red"}
    assert all(d > 3 for _, d in seps.values())
