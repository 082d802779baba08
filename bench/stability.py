"""How stable the counter's reads are: every shared scene under small, harmless perturbations.

A count that flips when the frame moves by a pixel, the light dims by 3 % or the JPEG is re-encoded
was right (or wrong) by luck: the unseen scenes that judge the counter differ from the shared ones by
far more than that. So each scene of ``../shared/data/tray_dev/test`` is counted as shot and under
each perturbation below, and a read is exact when it equals the scene's truth (as in
``bench/tray_dev_table.py``: usable scenes read ``visible_cubes`` and ``visible_courtiers``, a
scene with a foreign object is unusable or counts it as nothing). A tuning aid, not a unit test.

    .venv/bin/python bench/stability.py [--extended] [TRAY_DEV_DIR]

The default set is 7 perturbations per scene (1 px shifts, 3 % dimmer, sensor noise, JPEG
re-encode, 1 % larger); ``--extended`` adds 7 more (half-pixel shift, 6 % dimmer, 4 % brighter,
another noise draw, JPEG quality 75, 1 % smaller, a slight blur). Prints the per-scene tally, each
misread and the exact rate.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from calibration.tray_dev import calibration_profile  # noqa: E402
from vision.counter import TrayCounter  # noqa: E402
from vision.geometry import ALL_COLOURS, PLAYER_COLOURS  # noqa: E402
from vision.imageio import read_image  # noqa: E402

Perturb = Callable[[np.ndarray], np.ndarray]


def _shift(dx: float, dy: float) -> Perturb:
    def f(im: np.ndarray) -> np.ndarray:
        m = np.float32([[1, 0, dx], [0, 1, dy]])
        return cv2.warpAffine(im, m, (im.shape[1], im.shape[0]), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return f


def _gain(k: float) -> Perturb:
    return lambda im: np.clip(im.astype(np.float32) * k, 0, 255).astype(np.uint8)


def _noise(sigma: float, seed: int) -> Perturb:
    def f(im: np.ndarray) -> np.ndarray:
        rng = np.random.default_rng(seed)
        return np.clip(im.astype(np.float32) + rng.normal(0, sigma, im.shape), 0, 255).astype(np.uint8)
    return f


def _jpeg(quality: int) -> Perturb:
    def f(im: np.ndarray) -> np.ndarray:
        ok, buf = cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        return cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return f


def _scale(k: float) -> Perturb:
    """Zoom about the frame's centre by ``k`` (the camera a few millimetres higher or lower)."""
    def f(im: np.ndarray) -> np.ndarray:
        h, w = im.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), 0.0, k)
        return cv2.warpAffine(im, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return f


def _blur(sigma: float) -> Perturb:
    return lambda im: cv2.GaussianBlur(im, (0, 0), sigma)


BASIC: dict[str, Perturb] = {
    "shift+x": _shift(1, 0),
    "shift+y": _shift(0, 1),
    "shift-xy": _shift(-1, -1),
    "dim3%": _gain(0.97),
    "noise": _noise(2.0, 1),
    "jpeg90": _jpeg(90),
    "scale+1%": _scale(1.01),
}
EXTENDED: dict[str, Perturb] = {
    "shift.5": _shift(0.5, 0.5),
    "dim6%": _gain(0.94),
    "bright4%": _gain(1.04),
    "noise2": _noise(3.0, 2),
    "jpeg75": _jpeg(75),
    "scale-1%": _scale(0.99),
    "blur": _blur(0.6),
}


def _truth(meta: dict) -> tuple[dict[str, int], dict[str, int], bool]:
    vis = {c: int(meta["visible_cubes"].get(c, 0)) for c in ALL_COLOURS}
    court = {c: int(meta.get("visible_courtiers", {}).get(c, 0)) for c in PLAYER_COLOURS}
    return vis, court, bool(meta.get("foreign_object"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", type=Path, default=REPO.parent / "shared" / "data" / "tray_dev")
    ap.add_argument("--extended", action="store_true", help="7 more perturbations per scene")
    args = ap.parse_args()
    perturbs = {"as shot": lambda im: im, **BASIC, **(EXTENDED if args.extended else {})}
    counter = TrayCounter(calibration_profile(args.root))
    total = exact = 0
    shot_total = shot_exact = 0
    for meta_path in sorted((args.root / "test").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        vis, court, foreign = _truth(meta)
        frame = read_image(meta_path.with_name(meta.get("image", meta_path.stem + ".jpg")))
        misses = []
        for name, fn in perturbs.items():
            r = counter.count(fn(frame))
            ok = (r.cubes == vis and r.courtiers == court) if r.usable else foreign
            if foreign and r.usable:
                ok = sum(r.cubes.values()) <= sum(vis.values()) and r.courtiers == court
            if name == "as shot":
                shot_total += 1
                shot_exact += bool(ok)
            else:
                total += 1
                exact += bool(ok)
            if not ok:
                diff = {c: r.cubes[c] - vis[c] for c in ALL_COLOURS if r.cubes[c] != vis[c]} if r.usable else "unusable"
                misses.append(f"{name}:{diff}")
        print(f"{meta_path.stem}: {len(perturbs) - len(misses)}/{len(perturbs)}  " + "  ".join(misses))
    print(f"as shot {shot_exact}/{shot_total}; perturbed {exact}/{total} exact ({100 * exact / total:.0f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
