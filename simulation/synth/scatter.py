"""Scene generators: cubes lying where they fell in the tray, and the hard cases the counter must
handle (rows and clusters of touching cubes, a cube on another, pawns, coins, fingers, shadows).

``scatter_cubes`` drops cubes one by one around a landing point; a cube that lands on another
slides outwards (away from the pile) until it is free, so it ends up touching the pile, and one
that reaches a wall stops against it. This gives the touching clusters and wall contacts of real
drops without a physics engine, in a few milliseconds. Now and then (``stack_prob``) a landing cube
stays on top of the one it hit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from vision import geometry as geo

from .scene import CameraPose, Lighting, Piece, PostFX, Scene, Shadow, default_focal_px

_HALF = geo.CUBE_EDGE_MM / 2


def _extent(yaw_deg: float, half: float = _HALF) -> float:
    """Half-width of a square's axis-aligned bounding box."""
    r = np.radians(yaw_deg)
    return float(half * (np.abs(np.cos(r)) + np.abs(np.sin(r))))


def squares_overlap(x: float, y: float, yaw: float, xs: npt.NDArray[np.float64], ys: npt.NDArray[np.float64], yaws: npt.NDArray[np.float64],
                    half: float = _HALF, gap: float = 0.0) -> npt.NDArray[np.bool_]:
    """Which of the placed squares (xs, ys, yaws) the square (x, y, yaw) overlaps, by the
    separating-axis test on the four edge directions (``gap``: extra clearance in mm)."""
    if len(xs) == 0:
        return np.zeros(0, bool)
    dx = xs - x
    dy = ys - y
    overlap = np.hypot(dx, dy) < 2 * half * math.sqrt(2) + gap
    a = math.radians(yaw)
    b = np.radians(yaws)
    for axis in (a, a + math.pi / 2):
        ux, uy = math.cos(axis), math.sin(axis)
        dist = np.abs(dx * ux + dy * uy)
        reach = half + half * (np.abs(np.cos(b - axis)) + np.abs(np.sin(b - axis)))
        overlap &= dist < reach + gap
    for k in (0.0, math.pi / 2):
        vx, vy = np.cos(b + k), np.sin(b + k)
        dist = np.abs(dx * vx + dy * vy)
        reach = half + half * (np.abs(np.cos(a - b - k)) + np.abs(np.sin(a - b - k)))
        overlap &= dist < reach + gap
    return overlap


def _inside(x: float, y: float, yaw: float, margin: float = 0.0) -> tuple[float, float, bool]:
    """Clamp a square's centre into the tray interior; says whether it had to move."""
    x0, y0, x1, y1 = geo.TRAY_INNER_MM
    e = float(_extent(yaw)) + margin
    cx = min(max(x, x0 + e), x1 - e)
    cy = min(max(y, y0 + e), y1 - e)
    return cx, cy, (cx != x or cy != y)


def scatter_cubes(
    counts: Mapping[str, int],
    rng: np.random.Generator,
    *,
    mode: str = "pile",
    centre_mm: tuple[float, float] | None = None,
    spread_mm: float = 16.0,
    stack_prob: float = 0.04,
    existing: Sequence[Piece] = (),
) -> list[Piece]:
    """Cubes of the given colours lying in the tray as if they had fallen there.

    ``mode="pile"``: around a landing point (``centre_mm``, default random inside the tray) with a
    Gaussian ``spread_mm``, so they touch each other and the walls; ``mode="flat"``: spread over
    the whole tray (shaken flat), still touching where they meet. ``existing`` pieces (e.g. earlier
    drops) are kept and avoided. Returns only the new cubes, shuffled colours, in drop order.
    Raises ``ValueError`` for an unknown colour, a negative count or a tray too full to hold them.
    """
    if mode not in ("pile", "flat"):
        raise ValueError(f"mode must be 'pile' or 'flat', got {mode!r}")
    colours: list[str] = []
    for colour, n in counts.items():
        if colour not in geo.ALL_COLOURS:
            raise ValueError(f"unknown cube colour {colour!r}; expected one of {geo.ALL_COLOURS}")
        if n < 0:
            raise ValueError(f"negative count {n} for {colour}")
        colours += [colour] * int(n)
    rng.shuffle(colours)
    x0, y0, x1, y1 = geo.TRAY_INNER_MM
    if centre_mm is None:
        centre = np.array([rng.uniform(x0 + 20, x1 - 20), rng.uniform(y0 + 15, y1 - 15)])
    else:
        centre = np.array(centre_mm, float)

    floor = [p for p in existing if p.kind == "cube" and p.z_mm == 0]
    top = [p for p in existing if p.kind == "cube" and p.z_mm > 0]
    others = [p for p in existing if p.kind in ("courtier", "coin")]
    fx = [p.x_mm for p in floor] + [p.x_mm for p in others]
    fy = [p.y_mm for p in floor] + [p.y_mm for p in others]
    fyaw = [p.yaw_deg for p in floor] + [0.0 for _ in others]
    n_floor_cubes = len(floor)
    supports_used: set[int] = set()
    tx = [p.x_mm for p in top]
    ty = [p.y_mm for p in top]
    tyaw = [p.yaw_deg for p in top]
    out: list[Piece] = []
    for colour in colours:
        placed = False
        for _attempt in range(60):
            yaw = float(rng.uniform(0, 90))
            if mode == "pile":
                x, y = centre + rng.normal(0, spread_mm, 2)
            else:
                x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
            x, y, _ = _inside(float(x), float(y), yaw)
            hits = squares_overlap(x, y, yaw, np.array(fx), np.array(fy), np.array(fyaw))
            if hits.any() and stack_prob > 0 and rng.random() < stack_prob:
                j = int(np.flatnonzero(hits)[0])
                if j < n_floor_cubes + len([o for o in out if o.z_mm == 0]) and j not in supports_used \
                        and j < len(fx) and hits.sum() == 1:
                    # rest on the cube it hit, within 3.5 mm of its centre so it is supported
                    off = np.array([x - fx[j], y - fy[j]])
                    norm = float(np.hypot(*off))
                    if norm > 3.5:
                        off *= 3.5 / norm
                    sx, sy = fx[j] + off[0], fy[j] + off[1]
                    if not squares_overlap(sx, sy, yaw, np.array(tx), np.array(ty), np.array(tyaw)).any():
                        # one resting off-centre leans over the edge it overhangs
                        lean = float(rng.uniform(5, 25)) if norm > 2.0 and rng.random() < 0.6 else 0.0
                        axis = math.degrees(math.atan2(off[1], off[0])) + 90.0
                        out.append(Piece("cube", colour, sx, sy, yaw, z_mm=geo.CUBE_EDGE_MM, tilt_deg=lean,
                                         tilt_axis_deg=axis, shade=float(rng.uniform(0.94, 1.06))))
                        tx.append(sx)
                        ty.append(sy)
                        tyaw.append(yaw)
                        supports_used.add(j)
                        placed = True
                        break
            pos = _slide_free(x, y, yaw, centre if mode == "pile" else None, fx, fy, fyaw, rng)
            if pos is None:
                continue
            x, y = pos
            out.append(Piece("cube", colour, x, y, yaw, shade=float(rng.uniform(0.94, 1.06))))
            fx.append(x)
            fy.append(y)
            fyaw.append(yaw)
            placed = True
            break
        if not placed:
            raise ValueError(f"could not fit {len(colours)} cubes in the tray (placed {len(out)})")
    # floor cubes under a stacked one keep their order; stacked cubes come last (drawn on top)
    return [p for p in out if p.z_mm == 0] + [p for p in out if p.z_mm > 0]


def _slide_free(x: float, y: float, yaw: float, centre: npt.NDArray[np.float64] | None, fx: list[float], fy: list[float],
                fyaw: list[float], rng: np.random.Generator) -> tuple[float, float] | None:
    """Slide a square from (x, y) away from ``centre`` (or in a random direction) until it no
    longer overlaps, then back towards where it came from so that it touches what it hit."""
    axs, ays, ayaw = np.array(fx), np.array(fy), np.array(fyaw)

    def free(px: float, py: float) -> bool:
        return not squares_overlap(px, py, yaw, axs, ays, ayaw).any()

    if free(x, y):
        return x, y
    if centre is not None and np.hypot(x - centre[0], y - centre[1]) > 1e-6:
        d = np.array([x - centre[0], y - centre[1]])
    else:
        d = rng.normal(0, 1, 2)
    d = d / np.linalg.norm(d)
    # a little sideways jitter so cubes do not line up along rays
    ang = math.atan2(d[1], d[0]) + rng.normal(0, 0.35)
    d = np.array([math.cos(ang), math.sin(ang)])
    step = 1.0
    px, py = x, y
    for _ in range(160):
        nx, ny = px + d[0] * step, py + d[1] * step
        cx, cy, clamped = _inside(nx, ny, yaw)
        if clamped:
            # at a wall: slide along it instead
            d = np.array([cx - px, cy - py])
            if np.linalg.norm(d) < 1e-6:
                return None
            d /= np.linalg.norm(d)
            nx, ny = cx, cy
        if free(nx, ny):
            # bisect back to within 0.1 mm of touching
            lo, hi = 0.0, 1.0
            for _ in range(4):
                mid = (lo + hi) / 2
                if free(px + (nx - px) * mid, py + (ny - py) * mid):
                    hi = mid
                else:
                    lo = mid
            return px + (nx - px) * hi, py + (ny - py) * hi
        px, py = nx, ny
    return None


# --- hard cases ---------------------------------------------------------------------------------

def row_of_cubes(colour: str, n: int, x_mm: float, y_mm: float, direction_deg: float = 0.0,
                 gap_mm: float = 0.0, yaw_jitter_deg: float = 0.0,
                 rng: np.random.Generator | None = None) -> list[Piece]:
    """``n`` cubes in a straight row starting at (x, y), faces touching (``gap_mm`` = 0)."""
    a = math.radians(direction_deg)
    step = geo.CUBE_EDGE_MM + gap_mm
    out = []
    for i in range(n):
        jitter = float(rng.uniform(-yaw_jitter_deg, yaw_jitter_deg)) if rng is not None and yaw_jitter_deg else 0.0
        out.append(Piece("cube", colour, x_mm + i * step * math.cos(a), y_mm + i * step * math.sin(a),
                         direction_deg + jitter))
    return out


def cluster_of_cubes(colour: str, n: int, x_mm: float, y_mm: float, yaw_deg: float = 0.0,
                     columns: int = 3, gap_mm: float = 0.0) -> list[Piece]:
    """``n`` cubes packed in a block ``columns`` wide around (x, y), faces touching."""
    rows = math.ceil(n / columns)
    a = math.radians(yaw_deg)
    ux, uy = math.cos(a), math.sin(a)
    vx, vy = -math.sin(a), math.cos(a)
    step = geo.CUBE_EDGE_MM + gap_mm
    out = []
    for i in range(n):
        c, r = i % columns, i // columns
        du = (c - (columns - 1) / 2) * step
        dv = (r - (rows - 1) / 2) * step
        out.append(Piece("cube", colour, x_mm + du * ux + dv * vx, y_mm + du * uy + dv * vy, yaw_deg))
    return out


def cube_on_cube(bottom: str, top: str, x_mm: float, y_mm: float, offset_mm: tuple[float, float] = (2.0, 1.5),
                 yaw_bottom: float = 10.0, yaw_top: float = 35.0) -> list[Piece]:
    """A cube resting on another one, offset so both stay visible from above."""
    return [Piece("cube", bottom, x_mm, y_mm, yaw_bottom),
            Piece("cube", top, x_mm + offset_mm[0], y_mm + offset_mm[1], yaw_top, z_mm=geo.CUBE_EDGE_MM)]


def courtier(colour: str, x_mm: float, y_mm: float, yaw_deg: float = 0.0, lying: bool = False) -> Piece:
    """A courtier pawn standing at (x, y), or lying on its side with its head towards ``yaw_deg``."""
    if lying:
        return Piece("courtier", colour, x_mm, y_mm, yaw_deg, tilt_deg=80.0, tilt_axis_deg=yaw_deg + 90.0)
    return Piece("courtier", colour, x_mm, y_mm, yaw_deg)


def coin(x_mm: float, y_mm: float) -> Piece:
    return Piece("coin", None, x_mm, y_mm)


def finger(rng: np.random.Generator | None = None, *, side: str | None = None, reach_mm: float | None = None,
           tone: str | None = None) -> Piece:
    """A finger reaching into the tray from one side (``left/right/top/bottom``), its tip
    ``reach_mm`` inside the wall."""
    rng = rng or np.random.default_rng(0)
    side = side or str(rng.choice(["left", "right", "top", "bottom"]))
    reach = reach_mm if reach_mm is not None else float(rng.uniform(20, 55))
    x0, y0, x1, y1 = geo.TRAY_INNER_MM
    along = float(rng.uniform(0.25, 0.75))
    tip, yaw = {
        "left": ((x0 + reach, y0 + along * (y1 - y0)), 0.0),
        "right": ((x1 - reach, y0 + along * (y1 - y0)), 180.0),
        "top": ((x0 + along * (x1 - x0), y0 + reach), 90.0),
        "bottom": ((x0 + along * (x1 - x0), y1 - reach), -90.0),
    }[side]
    return Piece("finger", tone or str(rng.choice(["light", "medium", "dark"])), tip[0], tip[1],
                 yaw + float(rng.uniform(-20, 20)), z_mm=float(rng.uniform(16, 24)),
                 size_mm=float(rng.uniform(7.0, 9.0)))


def arm_shadow(rng: np.random.Generator, strength: float | None = None) -> Shadow:
    """A soft, elongated shadow of an arm coming over the plate from a random side, blocking
    30-75 % of the room light (with the room's share of the light, a plate 10-50 % darker: the
    development set's shadows are at the mild end of that)."""
    ang = rng.uniform(0, 2 * math.pi)
    cx, cy = geo.PLATE_W_MM / 2, geo.PLATE_H_MM / 2
    d = np.array([math.cos(ang), math.sin(ang)])
    n = np.array([-d[1], d[0]])
    start = np.array([cx, cy]) + d * 260
    end = np.array([cx, cy]) + d * rng.uniform(0, 70)
    w = rng.uniform(35, 60)
    poly = [start + n * w, end + n * w * 0.8, end - n * w * 0.8, start - n * w]
    return Shadow(tuple((float(p[0]), float(p[1])) for p in poly),
                  strength=float(strength if strength is not None else rng.uniform(0.3, 0.75)),
                  softness_mm=float(rng.uniform(8, 20)))


def random_camera(rng: np.random.Generator, size: tuple[int, int] | None = None) -> CameraPose:
    """A camera pose within the station's spec (height 270-330, tilt <= 8 deg, roll <= 5 deg),
    with a focal length that keeps the whole plate in view."""
    w, h = size or (tuple(geo.FRAME_SIZES[int(rng.integers(0, len(geo.FRAME_SIZES)))]))
    height = float(rng.uniform(*geo.CAMERA_HEIGHT_MM))
    focal_equiv = default_focal_px(int(h), height) * 36.0 / w
    return CameraPose(
        height_mm=height,
        tilt_deg=float(rng.uniform(0, geo.CAMERA_MAX_TILT_DEG)),
        tilt_dir_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.uniform(-geo.CAMERA_MAX_ROLL_DEG, geo.CAMERA_MAX_ROLL_DEG)),
        width=int(w), height=int(h), focal_equiv_mm=float(focal_equiv),
        aim_x_mm=float(rng.uniform(-5, 5)), aim_y_mm=float(rng.uniform(-5, 5)),
    )


def random_lighting(rng: np.random.Generator, shadow_prob: float = 0.25) -> Lighting:
    """Room light within the spec: 2700-6500 K making up 25-70 % of the light, brightness 0.7-1.3,
    sometimes an arm shadow."""
    return Lighting(
        kelvin=float(rng.uniform(2700, 6500)),
        cast_strength=float(rng.uniform(0.25, 0.7)),
        brightness=float(rng.uniform(0.7, 1.3)),
        shadow=arm_shadow(rng) if rng.random() < shadow_prob else None,
        ring_reflection=float(rng.uniform(0.0, 1.0)),
    )


def random_postfx(rng: np.random.Generator) -> PostFX:
    """Camera effects in the development set's ranges (vignette, blur, sharpening, barrel
    distortion, noise, JPEG quality)."""
    return PostFX(vignette=float(rng.uniform(0.05, 0.28)), blur_sigma=float(rng.uniform(0.4, 0.8)),
                  sharpen=float(rng.uniform(0.15, 0.55)), lens_k1=float(rng.uniform(-0.035, 0.005)),
                  noise_sigma=float(rng.uniform(1.0, 3.0)), jpeg_quality=int(rng.integers(85, 96)))


def random_scene(rng: np.random.Generator, counts: Mapping[str, int] | None = None, **scatter: object) -> Scene:
    """A whole random scene: cubes as they fell, a random camera, light and camera effects."""
    if counts is None:
        n = int(rng.integers(0, geo.MAX_CUBES_IN_TRAY + 1))
        picks = rng.choice(list(geo.ALL_COLOURS), size=n)
        counts = {c: int((picks == c).sum()) for c in geo.ALL_COLOURS}
    mode = "flat" if rng.random() < 0.3 else "pile"
    pieces = scatter_cubes(counts, rng, mode=mode, **scatter)  # type: ignore[arg-type]
    return Scene(tuple(pieces), random_camera(rng), random_lighting(rng), random_postfx(rng))
