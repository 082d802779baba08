"""Scoring the counter on a folder of rendered scenes with ground truth (the tray_dev layout).

``calibration/`` holds the calibration shots (``empty.jpg``, ``<colour>_<n>.jpg``,
``courtier_<colour>.jpg``) and ``test/`` the scenes, each with a JSON of its true contents. Used by
``bench/tray_dev_table.py`` and the data-driven tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from calibration.colours import learn_from_files, shots_in_folder
from vision.counter import TrayCounter
from vision.geometry import ALL_COLOURS, PLAYER_COLOURS
from vision.imageio import read_image
from vision.profile import ColourProfile


@dataclass
class SceneResult:
    name: str
    usable: bool
    foreign: str | None
    ok: bool
    counted: str
    truth: str
    confidence: float
    cubes: dict[str, int]
    visible_cubes: dict[str, int]
    courtiers: dict[str, int]
    visible_courtiers: dict[str, int]
    reason: str | None
    in_tray: dict[str, int] | None = None  # every cube in the tray, seen or not (the truth's ``cubes``)

    @property
    def right(self) -> bool:
        """The issue 9 measure: every colour between what a camera must see and what is in the tray."""
        tray = self.in_tray or self.visible_cubes
        return all(self.visible_cubes[c] <= self.cubes.get(c, 0) <= tray.get(c, 0) for c in self.visible_cubes)


def calibration_profile(root: Path) -> ColourProfile:
    """Learn a profile from ``root/calibration`` (every shot named as :func:`shots_in_folder` reads
    them, as ``tower calibrate colours --shots`` does)."""
    shots = shots_in_folder(root / "calibration")
    profile, _ = learn_from_files(shots.empty, shots.samples, shots.courtiers)
    # Exactly what `tower calibrate colours` writes and `tower count` reads back (the JSON round trip).
    return ColourProfile.from_json(json.loads(json.dumps(profile.to_json())))


def _fmt(cubes: dict[str, int], court: dict[str, int]) -> str:
    c = " ".join(str(cubes.get(k, 0)) for k in ALL_COLOURS)
    p = ",".join(f"{k}:{v}" for k, v in court.items() if v)
    return f"{c} | {p or '-'}"


def evaluate_tray_dev(root: Path, counter: TrayCounter | None = None) -> list[SceneResult]:
    counter = counter or TrayCounter(calibration_profile(root))
    rows = []
    for meta_path in sorted((root / "test").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        image = meta_path.with_name(meta.get("image", meta_path.stem + ".jpg"))
        reading = counter.count(read_image(image))
        vis = {c: int(meta["visible_cubes"].get(c, 0)) for c in ALL_COLOURS}
        vis_court = {c: int(meta.get("visible_courtiers", {}).get(c, 0)) for c in PLAYER_COLOURS}
        foreign = (meta.get("foreign_detail") or {}).get("type") if meta.get("foreign_object") else None
        in_tray = {c: int(meta.get("cubes", {}).get(c, 0)) for c in ALL_COLOURS}
        if reading.usable:
            # Right (issue 9): each colour between its visible cubes and its cubes in the tray; a
            # cube showing less than a quarter may be counted or not.
            ok = (all(vis[c] <= reading.cubes.get(c, 0) <= in_tray[c] for c in ALL_COLOURS)
                  and reading.courtiers == vis_court)
        else:
            ok = foreign is not None
        rows.append(SceneResult(
            meta_path.stem, reading.usable, foreign, ok,
            _fmt(reading.cubes, reading.courtiers) if reading.usable else f"unusable: {(reading.reason or '')[:30]}",
            _fmt(vis, vis_court), reading.confidence, dict(reading.cubes), vis, dict(reading.courtiers),
            vis_court, reading.reason, in_tray,
        ))
    return rows
