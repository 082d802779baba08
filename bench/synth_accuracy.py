"""How exactly the counter reads rendered trays, per hard case (a tuning aid, not a unit test).

Renders N seeded scenes per case with ``simulation.synth`` (random camera pose, light, shadow and camera
effects within the station's spec), counts them with ``TrayCounter`` on the profile learned from
synthetic calibration shots (``simulation.synthetic_profile``), and prints, per case, how many were read
exactly (cubes equal to the renderer's ``visible_cubes``; for a finger or a coin: unusable, or the
cubes still exact), plus the first few misreadings. Tune the counter on the physics these cases
vary, never on one image.

    .venv/bin/python bench/synth_accuracy.py [--n 10] [--seed 0] [--case pile ...] [--save DIR]

``--save DIR`` writes every misread frame (``<case>_<seed>.jpg``), its annotation
(``..._annotated.png``) and the truth (``....json``) for a closer look.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from simulation.synth import (  # noqa: E402
    Lighting,
    Piece,
    Scene,
    arm_shadow,
    cluster_of_cubes,
    coin,
    courtier,
    cube_on_cube,
    finger,
    random_camera,
    random_lighting,
    random_postfx,
    render_with_truth,
    row_of_cubes,
    scatter_cubes,
)
from simulation.synthetic_profile import synthetic_profile  # noqa: E402
from vision import geometry as geo  # noqa: E402

X0, Y0, X1, Y1 = geo.TRAY_INNER_MM
CX, CY = (X0 + X1) / 2, (Y0 + Y1) / 2


def _counts(rng: np.random.Generator, n: int) -> dict[str, int]:
    picks = rng.choice(list(geo.ALL_COLOURS), size=n)
    return {c: int((picks == c).sum()) for c in geo.ALL_COLOURS}


def _scene(rng: np.random.Generator, pieces: list[Piece], lighting: Lighting | None = None) -> Scene:
    return Scene(tuple(pieces), random_camera(rng), lighting or random_lighting(rng), random_postfx(rng))


def _pile(rng: np.random.Generator) -> Scene:
    return _scene(rng, scatter_cubes(_counts(rng, int(rng.integers(10, 46))), rng, mode="pile"))


def _flat(rng: np.random.Generator) -> Scene:
    return _scene(rng, scatter_cubes(_counts(rng, int(rng.integers(5, 46))), rng, mode="flat"))


def _row(rng: np.random.Generator) -> Scene:
    n = int(rng.integers(2, 7))
    colour = str(rng.choice(geo.ALL_COLOURS))
    return _scene(rng, row_of_cubes(colour, n, CX - 5 * n + 5, CY + rng.uniform(-20, 20), float(rng.uniform(-30, 30))))


def _cluster(rng: np.random.Generator) -> Scene:
    colour = str(rng.choice(geo.ALL_COLOURS))
    return _scene(rng, cluster_of_cubes(colour, int(rng.integers(4, 10)), CX, CY, float(rng.uniform(0, 90))))


def _stack(rng: np.random.Generator) -> Scene:
    a, b = rng.choice(geo.ALL_COLOURS, size=2)
    off = (float(rng.uniform(-3, 3)), float(rng.uniform(-3, 3)))
    return _scene(rng, cube_on_cube(str(a), str(b), CX, CY, off, float(rng.uniform(0, 90)), float(rng.uniform(0, 90))))


def _warm_red(rng: np.random.Generator) -> Scene:
    light = Lighting(kelvin=float(rng.uniform(2700, 3000)), cast_strength=float(rng.uniform(0.6, 0.9)),
                     brightness=float(rng.uniform(0.7, 1.0)))
    return _scene(rng, scatter_cubes({"red": 6, "yellow": 3, "purple": 3}, rng, mode="flat"), light)


def _black_shadow(rng: np.random.Generator) -> Scene:
    light = Lighting(kelvin=float(rng.uniform(2700, 6500)), cast_strength=0.7, brightness=float(rng.uniform(0.7, 1.0)),
                     shadow=arm_shadow(rng, strength=0.7))  # the plate about half as bright
    return _scene(rng, scatter_cubes({"black": 8, "blue": 2}, rng, mode="flat"), light)


def _purple_blue(rng: np.random.Generator) -> Scene:
    pieces = row_of_cubes("purple", 2, CX - 20, CY, 0.0) + row_of_cubes("blue", 2, CX, CY, 0.0)
    pieces += scatter_cubes({"purple": 3, "blue": 3}, rng, mode="flat", existing=pieces)
    return _scene(rng, pieces)


def _pawn_cube(rng: np.random.Generator) -> Scene:
    colour = str(rng.choice(geo.PLAYER_COLOURS))
    pieces = [Piece("cube", colour, CX, CY, float(rng.uniform(0, 90))),
              courtier(colour, CX + 11.5, CY + rng.uniform(-3, 3), lying=bool(rng.random() < 0.3))]
    pieces += scatter_cubes(_counts(rng, 8), rng, mode="flat", existing=pieces)
    return _scene(rng, pieces)


def _finger(rng: np.random.Generator) -> Scene:
    pieces = scatter_cubes(_counts(rng, int(rng.integers(5, 25))), rng, mode="flat")
    return _scene(rng, [*pieces, finger(rng)])


def _coin(rng: np.random.Generator) -> Scene:
    pieces = scatter_cubes(_counts(rng, int(rng.integers(5, 25))), rng, mode="flat")
    c = coin(float(rng.uniform(X0 + 12, X1 - 12)), float(rng.uniform(Y0 + 12, Y1 - 12)))
    return _scene(rng, [c, *pieces])


CASES: dict[str, Callable[[np.random.Generator], Scene]] = {
    "pile": _pile, "flat": _flat, "row": _row, "cluster": _cluster, "stack": _stack, "warm-red": _warm_red,
    "black-shadow": _black_shadow, "purple-blue": _purple_blue, "pawn-cube": _pawn_cube, "finger": _finger,
    "coin": _coin,
}


def _save(stem: Path, frame: np.ndarray, reading, truth) -> None:  # type: ignore[no-untyped-def]
    import json

    import cv2

    from vision.annotate import annotate

    cv2.imwrite(str(stem) + ".jpg", frame)
    cv2.imwrite(str(stem) + "_annotated.png", annotate(frame, reading))
    stem.with_suffix(".json").write_text(json.dumps({
        "usable": reading.usable, "reason": reading.reason, "cubes": reading.cubes,
        "visible_cubes": truth.visible_cubes, "cubes_in_tray": truth.cubes,
        "visible_courtiers": truth.visible_courtiers, "foreign_object": truth.foreign_object,
    }, indent=1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10, help="scenes per case (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="only these cases")
    parser.add_argument("--save", type=Path, help="write misread frames, annotations and truth here")
    args = parser.parse_args(argv)
    from vision.counter import TrayCounter

    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)

    counter = TrayCounter(synthetic_profile())
    total_ok = total = 0
    print(f"{'case':14} exact   misreadings (seed: counted vs visible)")
    for name in args.case or list(CASES):
        ok, notes = 0, []
        for i in range(args.n):
            seed = args.seed * 100_003 + i
            rng = np.random.default_rng([seed, sum(map(ord, name))])
            scene = CASES[name](rng)
            frame, truth = render_with_truth(scene, rng)
            reading = counter.count(frame)
            if truth.foreign_object and not reading.usable:
                good = True
            else:
                good = reading.usable and reading.cubes == truth.visible_cubes
            ok += good
            if not good and args.save:
                _save(args.save / f"{name}_{seed}", frame, reading, truth)
            if not good and len(notes) < 3:
                if not reading.usable:
                    notes.append(f"{seed}: unusable ({reading.reason})")
                else:
                    diff = {c: (reading.cubes[c], truth.visible_cubes[c]) for c in geo.ALL_COLOURS
                            if reading.cubes[c] != truth.visible_cubes[c]}
                    notes.append(f"{seed}: {diff}")
        total_ok += ok
        total += args.n
        print(f"{name:14} {ok:3d}/{args.n:<3d} {'; '.join(notes)}")
    print(f"{'all':14} {total_ok:3d}/{total:<3d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
