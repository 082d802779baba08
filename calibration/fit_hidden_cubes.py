"""Fit how many cubes a pile hides (``vision/hidden.py``) on the tuning renders.

For every tuning scene of ``tray_train`` (``bench/heldout.py``'s split: ``tNNNN`` with
``NNNN % 3 != 0``) the ground truth gives the cubes in the tray and the cubes at least a quarter
visible; their difference is the number hidden. The model is Poisson with mean
``exp(a) * seen ** b`` in the cubes seen, fitted by maximum likelihood (SciPy). It prints the two
constants for ``vision/hidden.py`` and the expected hidden cubes by tray size beside what the
renders show.

Usage::

    .venv/bin/python calibration/fit_hidden_cubes.py [--data ../shared/data/tray_train]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize

from calibration.fit_counter_doubt import is_tuning_scene

REPO = Path(__file__).resolve().parent.parent


def tuning_counts(data: Path) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(seen, hidden)`` per tuning scene: cubes at least a quarter visible, cubes in the tray less those."""
    seen, hidden = [], []
    for path in sorted((data / "test").glob("t*.json")):
        if not is_tuning_scene(path):  # held out: never fitted on
            continue
        meta = json.loads(path.read_text())
        in_tray, visible = sum(meta["cubes"].values()), sum(meta["visible_cubes"].values())
        seen.append(visible)
        hidden.append(in_tray - visible)
    return np.asarray(seen, np.float64), np.asarray(hidden, np.float64)


def fit(seen: NDArray[np.float64], hidden: NDArray[np.float64]) -> tuple[float, float]:
    """Maximum-likelihood ``(log scale, power)`` of the Poisson mean ``exp(a) * seen ** b``."""
    logs = np.log(np.maximum(seen, 1.0))

    def negative_log_likelihood(p: NDArray[np.float64]) -> float:
        mean = np.exp(p[0] + p[1] * logs)
        return float((mean - hidden * np.log(mean)).sum())

    result = minimize(negative_log_likelihood, np.array([-10.0, 3.0]), method="Nelder-Mead",
                      options={"xatol": 1e-6, "fatol": 1e-9, "maxiter": 4000})
    return float(result.x[0]), float(result.x[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "tray_train")
    args = ap.parse_args(argv)
    if not (args.data / "test").is_dir():
        print(f"{args.data / 'test'} is missing: the fit needs the shared training renders")
        return 1
    seen, hidden = tuning_counts(args.data)
    a, b = fit(seen, hidden)
    print(f"{len(seen)} tuning scenes, {int(hidden.sum())} hidden cubes of {int(seen.sum() + hidden.sum())}")
    print(f"HIDDEN_LOG_SCALE = {a:.3f}\nHIDDEN_POWER = {b:.3f}")
    print("seen   scenes  hidden per scene (renders)  model")
    for lo, hi in ((0, 10), (10, 20), (20, 30), (30, 40), (40, 60)):
        sel = (seen >= lo) & (seen < hi)
        if sel.any():
            model = float(np.mean([math.exp(a + b * math.log(max(s, 1.0))) for s in seen[sel]]))
            print(f"{lo:>2}-{hi - 1:<3} {int(sel.sum()):>7}  {hidden[sel].mean():>25.2f}  {model:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
