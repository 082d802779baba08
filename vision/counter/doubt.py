"""The decision model: how sure a reading is, in probabilities fitted on renders.

Every counted patch carries the kind of reading it was (``Count.kind``: a whole face, a tilted
cube, a cube on another, touching faces ...). On the tuning renders, each patch was matched with
the pieces under it (ground truth), which says how often a reading of each kind is off and by how
much: ``P(delta | kind)`` for delta in -2..+2 cubes (``doubt_model.json``, written by
``calibration/fit_counter_doubt.py``). Cubes that no patch stood for are a rate per counted cube
(Poisson). A colour's possible counts are its count plus the sum of its patches' deltas and the
missed cubes; the frame is right with the product of each colour's most probable count's
probability. ``trusted`` is that product at or above ``trust_p``, set on the tuning renders so
that no trusted reading there was wrong (with a margin); a colour whose counts other than the
likeliest have together at least ``doubt_min`` goes into ``alternatives``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision.counter.frame import Core, Frame
from vision.counter.merged import Count
from vision.counter.patch_model import PatchModel, blend, features
from vision.counter.patch_net import PatchNet, fits

MODEL_PATH = Path(__file__).with_name("doubt_model.json")
DELTAS = (-2, -1, 0, 1, 2)
MAX_ALTERNATIVES = 4
MIN_SHOWN_P = 0.01  # counts less probable than this are left out of the alternatives


# Bins of a patch's area (in faces' cores, per cube it was read as) that split a kind's table: a
# "face" much smaller than a face is often a sliver of a cube already counted, one much larger
# often hides a second cube's visible part; touching faces larger per cube than a whole face often
# hold one cube more. Chosen on the tuning renders' error cases (calibration/fit_counter_doubt.py).
FACE_PART_BELOW = 0.75
FACE_LARGE_FROM = 1.2
TOUCHING_FULL_FROM = 1.12
TOUCHING_OVER_FROM = 1.25
# A patch read as two cubes, one partly on another, that is much dimmer than a flat top of its
# colour is more often one cube leaning on the pile: its faces turn away from the ring light.
MERGED_DIM_BELOW = 0.68


def net_looks(forest_p: npt.NDArray[np.float64], patches: list[tuple[Core, Count]]) -> npt.NDArray[np.bool_]:
    """The patches the patch net is asked about: cube patches the forest is not certain of.

    Where every tree votes "right" (four patches in five on the tuning renders, nearly all isolated
    faces) the net is not run: it costs about 0.3 ms a patch on this machine's CPU, and on the
    tuning renders, out of fold, asking it about every patch trusted fewer scenes (149 of 415) than
    asking it only here (157; the forest alone 131; docs/counter.md, *The patch net*). Pawns (a
    patch read as no cube) are left to the stages that measure a courtier whole: the tuning renders
    hold 78 such patches and few courtiers lying down, and the net took drawn courtiers lying beside
    a cube of their colour for cubes (tests/test_vision_synth_cases.py). Nor is it asked about a
    patch it cannot see whole (``patch_net.fits``): shown part of a row of seven touching faces,
    it counted four and pulled a shared scene's count one short (tray_dev t0042)."""
    unsure = forest_p[:, 1] < 1.0 - 1e-9
    return np.array([bool(u) and count.n >= 1 and fits(core, count) for u, (core, count) in zip(unsure, patches, strict=True)],
                    bool)


def model_key(count: Count) -> str:
    """The table a reading's deltas come from: its kind, binned by its area per cube."""
    per_cube = count.faces / max(count.n, 1)
    if count.kind == "face" and count.faces > 0:
        if per_cube < FACE_PART_BELOW:
            return "face_part"
        return "face_large" if per_cube >= FACE_LARGE_FROM else "face"
    if count.kind == "merged" and count.shade < MERGED_DIM_BELOW:
        return "merged_dim"
    if count.kind == "touching":
        if per_cube >= TOUCHING_OVER_FROM:
            return "touching_over"
        return "touching_full" if per_cube >= TOUCHING_FULL_FROM else "touching"
    return count.kind


@dataclass
class Verdict:
    cubes: dict[str, int]
    trusted: bool
    p_right: float
    alternatives: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    doubtful: set[int] = field(default_factory=set)  # indices (as given) of the patches in doubt
    # P(the true counts are among the combinations of ``alternatives``, every other colour as
    # read): what the alternatives leave out (a colour not in doubt one off, a count too unlikely
    # to show) is 1 minus this, and the drop cycle must not settle on a combination it cannot beat.
    cover: float = 1.0


@dataclass
class DoubtModel:
    deltas: dict[str, list[float]]  # kind -> P(delta) for DELTAS
    missed_per_cube: float = 0.0
    trust_p: float = 0.97
    doubt_min: float = 0.02
    notes: dict[str, object] = field(default_factory=dict)
    # Share of the kind's table mixed into the patch forest's votes (1: the kind tables alone, and
    # the forest is not used); the forest itself (vision.counter.patch_model), when shipped.
    kind_weight: float = 1.0
    patches: PatchModel | None = None
    # Uncounted colour this wide (inscribed radius, mm) may be a missed cube; fitted with the tables
    # (calibration.fit_counter_doubt.LEFTOVER_RADIUS_MM). A model without it: a quarter face's
    # 5 mm corner, 2.5 mm.
    leftover_radius_mm: float = 2.5
    # Share of the patch net's P(off by) in the learned votes (the rest the forest's); the net
    # itself (vision.counter.patch_net), when shipped. 0: the forest's votes alone.
    net_weight: float = 0.0
    net: PatchNet | None = None

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> DoubtModel:
        data = json.loads(Path(path).read_text())
        kind_weight = float(data.get("kind_weight", 1.0))
        forest = PatchModel.load(Path(path).with_name(str(data["patch_model"]))) if data.get("patch_model") else None
        if forest is None:
            kind_weight = 1.0
        net = PatchNet.load(Path(path).with_name(str(data["patch_net"]))) if data.get("patch_net") and forest else None
        if data.get("patch_net") and forest and net is None:
            raise FileNotFoundError(f"the doubt model {path} was fitted with the patch net {data['patch_net']}, "
                                    "which is missing beside it: reinstall the package or refit the model")
        return cls({k: [float(v) for v in vs] for k, vs in data["deltas"].items()},
                   float(data["missed_per_cube"]), float(data["trust_p"]), float(data["doubt_min"]),
                   dict(data.get("notes", {})), kind_weight, forest,
                   float(data.get("leftover_radius_mm", cls.leftover_radius_mm)),
                   float(data.get("net_weight", 0.0)) if net else 0.0, net)

    def to_json(self, patch_model: str | None = None, patch_net: str | None = None) -> dict[str, object]:
        out: dict[str, object] = {
            "deltas": {k: [round(v, 5) for v in vs] for k, vs in sorted(self.deltas.items())},
            "missed_per_cube": round(self.missed_per_cube, 5), "trust_p": self.trust_p,
            "doubt_min": self.doubt_min, "kind_weight": self.kind_weight,
            "leftover_radius_mm": self.leftover_radius_mm}
        if patch_model:
            out["patch_model"] = patch_model
        if patch_model and patch_net:
            out["patch_net"] = patch_net
            out["net_weight"] = self.net_weight
        out["notes"] = self.notes
        return out

    def _table(self, count: Count) -> npt.NDArray[np.float64]:
        probs = self.deltas.get(model_key(count)) or self.deltas.get(count.kind) or self.deltas["face"]
        return np.asarray(probs, np.float64)

    def tables(self, patches: list[tuple[Core, Count]], forest_p: npt.NDArray[np.float64] | None = None,
               frame: Frame | None = None) -> list[npt.NDArray[np.float64]]:
        """Each patch's ``P(delta)`` over -2..+2: its kind's table, blended with the patch forest's
        votes when there is a forest (``forest_p`` overrides its votes: the fitting script passes
        votes of forests that never saw the patch, or those votes with the net's blended in;
        ``frame``: the frame the patches are of)."""
        kind = [self._table(count) for _, count in patches]
        if forest_p is None:
            forest_p = self.forest_votes(patches, frame)
            if forest_p is None:
                return kind
        if len(kind) != len(forest_p):
            raise ValueError(f"{len(forest_p)} patches' votes for {len(kind)} patches")
        if not kind:
            return []
        return list(blend(forest_p, np.array(kind), self.kind_weight))  # all rows at once

    def forest_votes(self, patches: list[tuple[Core, Count]], frame: Frame | None = None) -> npt.NDArray[np.float64] | None:
        """The forest's ``P(off by -1, 0, +1)`` per patch; None without a forest."""
        if self.patches is None or self.kind_weight >= 1.0 or not patches:
            return None
        return self.patches.probabilities(features(patches, frame.gray if frame is not None else None))

    def with_net(self, patches: list[tuple[Core, Count]], forest_p: npt.NDArray[np.float64],
                 frame: Frame | None = None, net_p: npt.NDArray[np.float64] | None = None) -> npt.NDArray[np.float64] | None:
        """The forest's votes with ``net_weight`` of the patch net's blended in, on the cube patches
        the forest is not certain of (:func:`net_looks`); None when the net has nothing to add. The
        net is run on ``frame``'s patches, unless ``net_p`` gives its votes for every patch (the
        fitting script passes votes of nets that never saw the scene)."""
        if self.net_weight <= 0.0 or (net_p is None and (self.net is None or frame is None)):
            return None
        looked = np.flatnonzero(net_looks(forest_p, patches))
        if not len(looked):
            return None
        if net_p is not None:
            seen = net_p[looked]
        else:
            assert self.net is not None and frame is not None
            seen = self.net.deltas(frame, [patches[i] for i in looked])
        out = forest_p.copy()
        out[looked] = (1.0 - self.net_weight) * forest_p[looked] + self.net_weight * seen
        return out

    def judge(self, cubes: dict[str, int], patches: list[tuple[Core, Count]], complete: bool,
              leftover: dict[str, tuple[float, float]] | None, frame: Frame | None = None,
              forest_p: npt.NDArray[np.float64] | None = None,
              net_p: npt.NDArray[np.float64] | None = None) -> tuple[Verdict, list[npt.NDArray[np.float64]]]:
        """The verdict on a reading's patches and the tables it rests on: the forest's votes (run on
        ``frame``'s patches unless ``forest_p`` gives them), and where the patch net adds to them
        (:meth:`with_net`; ``net_p`` as there), the verdict on the blended votes, which the forest's
        alone may veto (:meth:`assess`, ``alone``). The counter and the fitting script both judge
        so, so that the tuning figures are the counter's."""
        items = [(core.colour, count) for core, count in patches]
        if forest_p is None:
            forest_p = self.forest_votes(patches, frame)
        tables = self.tables(patches, forest_p, frame)
        verdict = self.assess(cubes, items, complete, tables, leftover)
        seen = self.with_net(patches, forest_p, frame, net_p) if forest_p is not None else None
        if seen is not None:  # the net moves counts; the forest's verdict alone may trust
            tables = self.tables(patches, seen, frame)
            verdict = self.assess(cubes, items, complete, tables, leftover, alone=verdict)
        return verdict, tables

    def colour_distribution(self, n: int, items: list[Count], tables: list[npt.NDArray[np.float64]] | None = None) -> dict[int, float]:
        """P(the camera should count k) for one colour read as ``n`` from ``items`` (with their
        tables over deltas, when given; else each kind's)."""
        dist = np.array([1.0])  # over deltas, offset so that index ``off`` is delta 0
        off = 0
        for i, count in enumerate(items):
            dist = np.convolve(dist, tables[i] if tables is not None else self._table(count))
            off += 2
        lam = self.missed_per_cube * max(n, 1)
        if lam > 0:
            poisson = np.exp(-lam) * np.array([1.0, lam, lam * lam / 2, lam**3 / 6])
            poisson[-1] += max(0.0, 1.0 - poisson.sum())
            dist = np.convolve(dist, poisson)
        out: dict[int, float] = {}
        for i, p in enumerate(dist):
            if p <= 1e-9:
                continue
            k = max(0, n + i - off)
            out[k] = out.get(k, 0.0) + float(p)
        total = sum(out.values())
        return {k: p / total for k, p in out.items()}

    def assess(self, cubes: dict[str, int], items: list[tuple[str, Count]], complete: bool = True,
               tables: list[npt.NDArray[np.float64]] | None = None,
               leftover: dict[str, tuple[float, float]] | None = None, alone: Verdict | None = None) -> Verdict:
        """The verdict on a usable reading: ``cubes`` as counted, ``items`` every counted cube patch
        (colour, count) in the order of the reading's patches, ``tables`` their ``P(delta)`` (see
        :meth:`tables`; each kind's table when None), ``leftover`` each colour's uncounted colour
        (:func:`vision.counter.leftover.leftover`): a piece wider than ``leftover_radius_mm`` adds
        the ``leftover`` table's odds of a cube missed.

        ``alone``: where ``tables`` hold the patch net's votes, the verdict of the forest's alone.
        The net may move a count, but only the forest's verdict trusts: the reading is trusted when
        that verdict is and both read the same counts, and is as sure as it says (on the held-out
        renders the net's sharper probabilities trusted two wrong readings; docs/counter.md)."""
        table = tables if tables is not None else [self._table(count) for _, count in items]
        by_colour: dict[str, list[tuple[int, Count]]] = {}
        for i, (colour, count) in enumerate(items):
            by_colour.setdefault(colour, []).append((i, count))
        extra: dict[str, list[npt.NDArray[np.float64]]] = {}
        if leftover and "leftover" in self.deltas:
            wide = np.asarray(self.deltas["leftover"], np.float64)
            extra = {c: [wide] for c, (_, r) in leftover.items() if r >= self.leftover_radius_mm}
        out_cubes = dict(cubes)
        alternatives: dict[str, list[tuple[int, float]]] = {}
        doubtful: set[int] = set()
        p_right = 1.0 if complete else 0.95
        cover = p_right
        weakest: tuple[float, str, list[tuple[int, float]]] | None = None
        for colour, n in cubes.items():
            mine = by_colour.get(colour, [])
            pseudo = extra.get(colour, [])
            dist = self.colour_distribution(n, [c for _, c in mine] + [Count(0, "leftover")] * len(pseudo),
                                            [table[i] for i, _ in mine] + pseudo)
            ranked = sorted(dist.items(), key=lambda kv: (-kv[1], abs(kv[0] - n)))
            best, p_best = ranked[0]  # the stages' count unless the model finds another more probable
            out_cubes[colour] = best
            p_right *= p_best
            # The count and its likeliest rivals: at least the runner-up, at most four in all.
            shown = ranked[:1] + [kv for kv in ranked[1:MAX_ALTERNATIVES] if kv[1] >= MIN_SHOWN_P]
            if len(shown) == 1 and len(ranked) > 1:
                shown.append(ranked[1])
            if len(shown) > 1 and (weakest is None or p_best < weakest[0]):
                weakest = (p_best, colour, shown)
            if 1.0 - p_best < self.doubt_min:
                cover *= p_best
                continue
            alternatives[colour] = _rounded(shown)
            cover *= sum(p for _, p in shown)
            wrong = [(1.0 - float(table[i][2]), i) for i, _ in mine]
            if wrong:
                worst = max(w for w, _ in wrong)
                doubtful |= {i for w, i in wrong if w >= 0.5 * worst and w >= self.doubt_min}
        trusted = p_right >= self.trust_p
        if alone is not None:
            agreed = alone.cubes == out_cubes
            trusted = alone.trusted and agreed
            p_right = alone.p_right if agreed else min(p_right, alone.p_right)
        if not trusted and not alternatives and weakest is not None:
            # Many colours each a little unsure: the frame is not trusted, so name the least sure.
            alternatives[weakest[1]] = _rounded(weakest[2])
            cover *= sum(p for _, p in weakest[2]) / max(weakest[0], 1e-12)  # its options, not its count alone
        if trusted:
            alternatives, doubtful, cover = {}, set(), p_right
        return Verdict(out_cubes, trusted, p_right, alternatives, doubtful, min(cover, 1.0))


def _rounded(options: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """Probabilities renormalised and rounded to 3 places, summing to exactly 1 (the first absorbs
    the rounding)."""
    total = sum(p for _, p in options)
    out = [(k, round(p / total, 3)) for k, p in options]
    rest = round(1.0 - sum(p for _, p in out[1:]), 3)
    return [(out[0][0], rest)] + out[1:]
