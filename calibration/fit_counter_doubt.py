"""Fit the counter's doubt model (``vision/counter/doubt_model.json``) on the tuning renders.

Only the tuning part (``bench/heldout.py``): ``tray_train/test`` scenes with ``NNNN % 3 != 0`` and
``tray_dev/test``, each set calibrated on its own calibration shots. Every counted patch is matched
with the pieces of its colour whose top lies in it (ground truth: centre, layer, visible fraction);
the patch was right when its count lies between the pieces in it that are at least a quarter
visible and all the pieces in it. The off-by (delta) is tallied per kind of reading, with a
Laplace-like prior so that a kind seen rarely is not taken for certain; visible cubes that no patch
stands for give the missed rate. Then ``trust_p`` is set on the same scenes: the smallest
probability above every wrong reading's, with a margin. CI never runs this; rerun it after
changing a stage::

    .venv/bin/python -m calibration.fit_counter_doubt [--shared ../shared]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from calibration.tray_dev import calibration_profile
from vision import geometry as g
from vision.counter import TrayCounter
from vision.counter.doubt import DELTAS, MODEL_PATH, DoubtModel, model_key
from vision.counter.tuning import PPM
from vision.geometry import ALL_COLOURS
from vision.imageio import read_image
from vision.plate import TRAY_VIEW

PRIOR_WEIGHT = 2.0  # pseudo-observations spread like the faces' table
MATCH_MM = 2.0  # a piece's top this far outside a patch still belongs to it
PARTIAL_MATCH_MM = 7.0  # ... and a partly hidden one's top this far (its visible part is off-centre)
TRUST_MARGIN = 0.01
UNSEEN_KINDS = ("corner", "quarter", "strip", "stacked", "small", "tilted", "big_face")


def tuning_scenes(shared: Path) -> list[tuple[Path, list[Path]]]:
    """(set root, its tuning scenes): the held-out rule of bench/heldout.py, restated here so
    that the package does not import the bench."""
    train = shared / "data" / "tray_train"
    out = []
    if train.is_dir():
        scenes = [p for p in sorted((train / "test").glob("t*.jpg"))
                  if int(re.fullmatch(r"t(\d+)", p.stem).group(1)) % 3 != 0]  # type: ignore[union-attr]
        out.append((train, scenes))
    dev = shared / "data" / "tray_dev"
    if dev.is_dir():
        out.append((dev, sorted((dev / "test").glob("*.jpg"))))
    return out


def _view_px(piece: dict, camera: dict) -> tuple[float, float]:
    """Where a piece's top centre lies in the tray view. The renders put the plate's centre at the
    origin with y up; plate coordinates here start at its top-left corner with y down. The view is
    the plane one cube edge above the plate, seen from the rendered camera."""
    cx, cy = g.PLATE_W_MM / 2, g.PLATE_H_MM / 2
    x, y, z = piece["center_mm"]
    cam_x, cam_y, height = camera["position_mm"]
    top = z + g.CUBE_EDGE_MM / 2
    s = (height - TRAY_VIEW.plane_mm) / max(height - top, 1.0)
    vx = cx + cam_x + (x - cam_x) * s
    vy = cy - (cam_y + (y - cam_y) * s)
    return (vx - TRAY_VIEW.x0) * PPM - 0.5, (vy - TRAY_VIEW.y0) * PPM - 0.5


def tally(counter: TrayCounter, scenes: list[Path], counts: dict[str, np.ndarray], stats: dict) -> list[dict]:
    """Adds each patch's delta to ``counts`` (per model key); returns per-scene records."""
    records = []
    for image in scenes:
        meta = json.loads(image.with_suffix(".json").read_text())
        reading, frame = counter.read(read_image(image))
        if not reading.usable or frame is None or meta.get("foreign_object") or "pieces" not in meta:
            records.append({"name": image.stem, "usable": reading.usable, "meta": meta, "reading": reading,
                            "p_right": 0.0})
            continue
        items = [c for c in frame.debug["counted"] if c.kind == "cube"]
        assigned: dict[int, list[float]] = defaultdict(list)
        for piece in meta["pieces"]:
            if piece.get("type") != "cube":
                continue
            pt = _view_px(piece, meta["camera"])
            # A partly hidden cube's visible part lies off its centre, towards its uncovered side.
            best, best_d = None, -(MATCH_MM if piece["visible_fraction"] >= 0.9 else PARTIAL_MATCH_MM) * PPM
            for i, it in enumerate(items):
                if it.core.colour != piece["colour"]:
                    continue
                d = cv2.pointPolygonTest(it.core.contour.reshape(-1, 1, 2).astype(np.float32), pt, True)
                if d >= best_d:
                    best, best_d = i, d
            if best is not None:
                assigned[best].append(piece["visible_fraction"])
            elif piece["visible_fraction"] >= 0.25:
                stats["missed"] += 1
        for i, it in enumerate(items):
            fracs = assigned.get(i, [])
            lo, hi = sum(f >= 0.25 for f in fracs), len(fracs)
            n = it.count.n
            delta = lo - n if n < lo else (hi - n if n > hi else 0)
            counts[model_key(it.count)][int(np.clip(delta, -2, 2)) + 2] += 1
        stats["counted"] += sum(reading.cubes.values())
        records.append({"name": image.stem, "usable": True, "meta": meta, "reading": reading,
                        "p_right": frame.debug["verdict"].p_right})
    return records


def fit(shared: Path) -> tuple[DoubtModel, list[dict]]:
    counts: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(len(DELTAS)))
    stats = {"missed": 0, "counted": 0}
    sets = tuning_scenes(shared)
    for root, scenes in sets:
        tally(TrayCounter(calibration_profile(root)), scenes, counts, stats)
    for key in UNSEEN_KINDS:  # kinds the tuning renders may not show: the prior alone
        counts[key] += 0.0
    face = counts["face"] + 1.0
    prior = face / face.sum()
    deltas = {}
    for key, row in counts.items():
        smoothed = row + PRIOR_WEIGHT * prior + np.array([0.05, 0.25, 0.0, 0.25, 0.05])  # never certain
        deltas[key] = list(smoothed / smoothed.sum())
    model = DoubtModel(deltas, stats["missed"] / max(stats["counted"], 1), trust_p=0.0,
                       notes={"patches": {k: [int(v) for v in row] for k, row in sorted(counts.items())},
                              "missed": stats["missed"], "counted_cubes": stats["counted"],
                              "scenes": sum(len(s) for _, s in sets)})
    # Trust: re-run with the fitted tables and find the probability above every wrong reading.
    records = []
    for root, scenes in sets:
        records += tally(TrayCounter(calibration_profile(root), model=model), scenes,
                         defaultdict(lambda: np.zeros(len(DELTAS))), {"missed": 0, "counted": 0})
    return model, records


def right(meta: dict, cubes: dict[str, int]) -> bool:
    return all(meta["visible_cubes"].get(c, 0) <= cubes.get(c, 0) <= meta["cubes"].get(c, 0) for c in ALL_COLOURS)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parent.parent.parent / "shared")
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    model, records = fit(args.shared)
    wrong_p = []
    right_p = []
    for r in records:
        if not r["usable"] or r["meta"].get("foreign_object"):
            continue
        reading = r["reading"]
        p = r["p_right"]
        (right_p if right(r["meta"], reading.cubes) else wrong_p).append(p)
    model.trust_p = round(min(0.999, max(wrong_p, default=0.9) + TRUST_MARGIN), 4)
    model.notes["tuning_right"] = len(right_p)
    model.notes["tuning_wrong"] = len(wrong_p)
    model.notes["tuning_trusted"] = sum(p >= model.trust_p for p in right_p)
    args.out.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    print(f"wrote {args.out}: trust_p {model.trust_p}; on the tuning scenes {model.notes['tuning_trusted']} of "
          f"{len(right_p)} right readings trusted, none of {len(wrong_p)} wrong ones")
    for k, v in sorted(model.notes["patches"].items()):  # type: ignore[union-attr]
        print(f"  {k:<15} deltas -2..+2 {v}")
    print(f"  missed {model.notes['missed']} of {model.notes['counted_cubes']} counted cubes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
