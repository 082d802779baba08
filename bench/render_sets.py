"""Render a set of tray scenes for the counter's benchmarks with the shared renderer, including what
the renderer does not make by itself.

The renderer (``../shared/tools/tray_render/render.py``, Blender as a Python module) makes its own
mix of test scenes from a seed. The counter's figures also need:

* ``--twins K``: K shaken twins of every clean scene (``tNNNNs``, ``tNNNNs2``). A twin has the same
  cubes, courtiers, camera, light and capture, spread in one layer anew each time, as the drop
  cycle's shake leaves them. ``bench/heldout_counter.py`` reads them as the reads after a shake.
* ``--spread``: every scene spread in one layer, with no foreign object. This is the kind of tray
  the counter reads after a shake, for tuning.
* ``--foreign coin,finger``: every scene given a coin or a finger, in turn, for the guards.
* ``--courtiers``: every scene given one to three courtiers of its own (not green) colours, where
  the renderer gives them to only six scenes of a set: courtiers lying on piles are the counter's
  commonest miss, and a set of ordinary size holds too few of them to tune on.

A set that judges the counter must be declared held out (``HELD_OUT_RENDER_SEEDS`` in
``calibration/fit_counter_doubt.py``) and committed before it is rendered; the script says whether
the seed is. Calibration shots are not rendered: the set's ``calibration/`` links to
``tray_train``'s, the renderer's standard calibration, as every set in ``docs/counter-figures.md``
was read.

It runs under the renderer's own Python (its README: a Python 3.11 venv with ``bpy``), not the
project's, in the background. Made in the checkout as ``.blender-venv`` and rendering to
``.renders/`` (both ignored by git), the venv and the sets stay with the checkout::

    .blender-venv/bin/python bench/render_sets.py --seed 4730 --n-test 30 --data .renders/r4730 --twins 2

An image already rendered (its ``.jpg`` and ``.json``) is skipped, so a stopped run resumes.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
RENDERER = SHARED / "tools" / "tray_render"
SAMPLES = 16  # the renderer's default, as tray_dev and tray_train were rendered
TWIN_SUFFIXES = ("s", "s2", "s3")
FOREIGN = ("coin", "finger")
COURTIERS_PER_SCENE = (1, 3)  # as the renderer gives its six scenes with courtiers

Spec = dict[str, Any]


def spread_placement(rng: np.random.Generator) -> dict[str, Any]:
    """The renderer's own shaken placement: one layer, cubes up to a quarter millimetre apart."""
    return {"mode": "flat", "min_gap": float(rng.uniform(0.0, 0.25)), "standing_p": 0.6}


def with_courtiers(scene: Spec, rng: np.random.Generator) -> None:
    """Give ``scene`` courtiers, if it has none and has cubes of a player's colour: one to three,
    each of a colour its cubes have (a courtier joins a battle with its player's army)."""
    colours = sorted({c for c in scene["cube_list"] if c != "green"})
    if scene["courtier_list"] or not colours:
        return
    lo, hi = COURTIERS_PER_SCENE
    scene["courtier_list"] = [str(c) for c in rng.choice(colours, int(rng.integers(lo, hi + 1)))]


def variants(specs: list[Spec], seed: int, *, twins: int = 0, spread: bool = False,
             foreign: tuple[str, ...] = (), courtiers: bool = False) -> list[Spec]:
    """The specs to render from the renderer's test ``specs`` of ``seed``: the scenes themselves
    (spread in one layer and clean with ``spread``; each given ``foreign[i % len(foreign)]`` with
    ``foreign``; each given courtiers with ``courtiers``), then ``twins`` shaken twins of every
    clean scene. Every random choice is seeded by ``(seed, scene)``, so a set is the same each time
    it is made; the courtiers draw from a stream of their own, so a set made without them is the
    same as before they could be asked for."""
    if twins > len(TWIN_SUFFIXES):
        raise ValueError(f"at most {len(TWIN_SUFFIXES)} twins a scene, not {twins}")
    if spread and foreign:
        raise ValueError("a spread set is clean: give --spread or --foreign, not both")
    unknown = [f for f in foreign if f not in FOREIGN]
    if unknown:
        raise ValueError(f"no foreign object called {unknown[0]!r}: one of {', '.join(FOREIGN)}")
    out = []
    for i, spec in enumerate(s for s in specs if s["name"].startswith("test/")):
        rng = np.random.default_rng(np.random.SeedSequence([seed, 7, i]))
        scene = copy.deepcopy(spec)
        if spread:
            scene.update(foreign=None, sim=spread_placement(rng), scene_seed=int(rng.integers(2**31)))
        elif foreign:
            scene["foreign"] = foreign[i % len(foreign)]
        if courtiers:
            with_courtiers(scene, np.random.default_rng(np.random.SeedSequence([seed, 8, i])))
        out.append(scene)
        if scene["foreign"] is not None:
            continue  # a frame with a coin or a finger is refused: it is not read again after a shake
        for suffix in TWIN_SUFFIXES[:twins]:
            twin = copy.deepcopy(scene)
            twin.update(name=scene["name"] + suffix, sim=spread_placement(rng),
                        scene_seed=int(rng.integers(2**31)), render_seed=int(rng.integers(2**31)))
            out.append(twin)
    return out


def declared_held_out(seed: int) -> bool:
    """Whether ``seed`` is in ``HELD_OUT_RENDER_SEEDS`` (read from the file: the project's package
    needs another NumPy than Blender's)."""
    text = (REPO / "calibration" / "fit_counter_doubt.py").read_text()
    match = re.search(r"^HELD_OUT_RENDER_SEEDS = \(([^)]*)\)", text, re.MULTILINE)
    return match is not None and seed in {int(v) for v in re.findall(r"\d+", match.group(1))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True, help="the renderer's master seed")
    ap.add_argument("--n-test", type=int, default=30, help="test scenes in the renderer's mix (at least 11)")
    ap.add_argument("--cubes", help="LO,HI: cubes per scene from LO..HI instead of the mix (piles: 30,45)")
    ap.add_argument("--data", type=Path, required=True, help="output folder (test/ is made in it)")
    ap.add_argument("--twins", type=int, default=0, help="shaken twins of every clean scene (0-3)")
    ap.add_argument("--spread", action="store_true", help="every scene spread in one layer, clean")
    ap.add_argument("--foreign", default="", help="coin,finger: every scene given one of these, in turn")
    ap.add_argument("--courtiers", action="store_true", help="every scene given 1-3 courtiers of its colours")
    ap.add_argument("--only", default="", help="comma-separated name prefixes to render (test/t0007 and its twins)")
    args = ap.parse_args(argv)
    if not (RENDERER / "render.py").is_file():
        print(f"the renderer is not at {RENDERER}", file=sys.stderr)
        return 1
    sys.path.insert(0, str(RENDERER))
    try:
        render = importlib.import_module("render")
    except ImportError as exc:
        print(f"the renderer needs Blender as a Python module ({exc}): run this with the Python of its venv "
              f"({RENDERER / 'README.md'})", file=sys.stderr)
        return 1
    cubes = tuple(int(v) for v in args.cubes.split(",")) if args.cubes else None
    try:
        todo = variants(render.make_specs(args.seed, args.n_test, cubes), args.seed, twins=args.twins,
                        spread=args.spread, foreign=tuple(f for f in args.foreign.split(",") if f),
                        courtiers=args.courtiers)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.only:
        todo = [spec for spec in todo if spec["name"].startswith(tuple(args.only.split(",")))]
    print(f"seed {args.seed} is {'declared held out' if declared_held_out(args.seed) else 'NOT declared held out: tuning only'};"
          f" {len(todo)} images to {args.data}", flush=True)
    (args.data / "test").mkdir(parents=True, exist_ok=True)
    calibration = args.data / "calibration"
    if not calibration.exists():
        calibration.symlink_to(SHARED / "data" / "tray_train" / "calibration")
    markers = render.marker_texture_paths()
    with tempfile.TemporaryDirectory() as tmp:
        for k, spec in enumerate(todo):
            if all((args.data / f"{spec['name']}{ext}").exists() for ext in (".jpg", ".json")):
                continue
            t0 = time.time()
            render.render_one(spec, str(args.data), SAMPLES, markers, tmp)
            print(f"[{k + 1}/{len(todo)}] {spec['name']} {time.time() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
