"""Render a scene into a camera frame (BGR uint8), with optional ground truth.

Order of work, as light and a camera would do it: the cached static background (table, plate,
markers, tray floor), the pieces in depth order (painter's algorithm), the tray's translucent
walls, anything reaching in over the walls (a finger), then the light (colour cast, brightness,
arm shadow), the lens (vignette, blur) and the sensor (noise, JPEG).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, cast

import cv2
import numpy as np
import numpy.typing as npt

from vision import geometry as geo

from .background import background
from .camera import projector
from .pieces import Drawn, draw_list
from .scene import CameraPose, Lighting, PostFX, Scene, Shadow

# OpenCV's stubs type every returned image as ``MatLike`` (any dtype); where the dtype is known from
# the input and the call, the result is ``cast`` to it.
Image = npt.NDArray[np.uint8]  # H x W x 3 BGR
FloatMap = npt.NDArray[np.float32]
Points = npt.NDArray[np.float64]

_SHIFT = 4  # sub-pixel bits for OpenCV's polygon filling
VISIBLE_FRACTION_MIN = 0.25  # a piece at least this visible "can be asked to be counted"


@dataclass
class Truth:
    """What the renderer knows about the frame it drew (positions include lens distortion).

    ``visible_fraction[i]`` is the share of piece i's silhouette not hidden by other pieces (or a
    finger), as this camera sees it. ``visible_cubes`` / ``visible_courtiers`` count those at least
    a quarter visible, in all colours, as in the development set's JSON.
    """

    visible_fraction: list[float]
    cubes: dict[str, int]
    courtiers: dict[str, int]
    visible_cubes: dict[str, int]
    visible_courtiers: dict[str, int]
    foreign_object: bool
    marker_corners_px: dict[int, Points] = field(default_factory=dict)
    piece_centres_px: list[Points] = field(default_factory=list)  # rough centre of each drawn piece


def _blackbody_bgr(kelvin: float) -> npt.NDArray[np.float64]:
    """Tanner Helland's fit of a black body's colour (good to a few percent, 1000 to 40000 K)."""
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    return np.clip(np.array([b, g, r]), 1.0, 255.0)


def _luminance(bgr: npt.NDArray[np.float64]) -> float:
    return float(0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2])


def colour_cast(kelvin: float, strength: float) -> FloatMap:
    """BGR gains of the light on the tray: the neutral ring light (5500 K) plus room light at
    ``kelvin`` making up ``strength`` of it, normalised to unit luminance so that brightness stays
    a separate knob."""
    ratio = _blackbody_bgr(kelvin) / _blackbody_bgr(5500.0)
    gains = (1 - strength) + strength * ratio
    cast_gains: FloatMap = (gains / _luminance(gains)).astype(np.float32)
    return cast_gains


@lru_cache(maxsize=4)
def _vignette(width: int, height: int, amount: float) -> FloatMap:
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    r2 = ((xs - width / 2) ** 2 + (ys - height / 2) ** 2) / ((width / 2) ** 2 + (height / 2) ** 2)
    gain: FloatMap = (1.0 - amount * r2).astype(np.float32)
    return gain


def _fill(img: npt.NDArray[Any], poly: Points, colour: float | tuple[float, ...], aa: bool = True) -> None:
    """Fill a convex polygon (sub-pixel positions) into an image or mask of any dtype."""
    pts = np.round(poly * (1 << _SHIFT)).astype(np.int32)
    cv2.fillConvexPoly(img, pts, colour, cv2.LINE_AA if aa else cv2.LINE_8, _SHIFT)


# OpenCV's anti-aliased fill covers about 0.7 px beyond a polygon's true edge; pieces are shrunk
# by that much about their centre so that their silhouettes keep their true size in pixels
_AA_GROWTH_PX = 0.7


def inset_polygon(poly: Points, d: float) -> Points | None:
    """A convex polygon with every edge moved ``d`` px inwards, or None when nothing is left."""
    e = np.roll(poly, -1, axis=0) - poly
    length = np.linalg.norm(e, axis=1)
    if (length < 1e-9).any():
        return None
    n = np.column_stack([-e[:, 1], e[:, 0]]) / length[:, None]
    if float(n[0] @ (poly.mean(axis=0) - poly[0])) < 0:
        n = -n
    p = poly + d * n  # a point on each moved edge; edge i runs along e[i]
    pp, ep = np.roll(p, 1, axis=0), np.roll(e, 1, axis=0)  # the previous edge
    # p_prev + t e_prev = p + s e  ->  solve for t
    det = ep[:, 0] * (-e[:, 1]) - ep[:, 1] * (-e[:, 0])
    if (np.abs(det) < 1e-9).any():
        return None
    rhs = p - pp
    t = (rhs[:, 0] * (-e[:, 1]) - rhs[:, 1] * (-e[:, 0])) / det
    out: Points = pp + t[:, None] * ep
    # past the inradius the edges cross over and come out reversed: then nothing is left
    if (np.einsum("ij,ij->i", np.roll(out, -1, axis=0) - out, e) <= 0).any():
        return None
    return out


# A cube's edges are rounded: seen from above, each face has a darker rim, and two touching cubes
# show a dark groove between them (as in the rendered development set). Two steps of shading.
BEVEL_MM = (0.3, 0.6)
BEVEL_SHADE = (0.7, 0.86)


def _draw_piece(img: Image, drawn: Drawn) -> None:
    allp = np.vstack([p for p, _ in drawn.polys])
    hull = cv2.convexHull(allp.astype(np.float32))
    half = math.sqrt(max(cv2.contourArea(hull), 1e-6)) / 2
    centre = allp.mean(axis=0)
    k = max(0.0, 1.0 - _AA_GROWTH_PX / half)
    polys = [(centre + (p - centre) * k, c) for p, c in drawn.polys]
    if drawn.edge_mm is None:
        for poly, colour in polys:
            _fill(img, poly, colour)
        return
    top = polys[-1][0]  # the nearest face: px per mm from its size
    px_per_mm = math.sqrt(max(abs(cv2.contourArea(top.astype(np.float32))), 1e-6)) / drawn.edge_mm
    for poly, colour in polys:
        _fill(img, poly, tuple(BEVEL_SHADE[0] * c for c in colour))
        inner = inset_polygon(poly, BEVEL_MM[0] * px_per_mm)
        if inner is None:
            continue
        _fill(img, inner, tuple(BEVEL_SHADE[1] * c for c in colour))
        inner = inset_polygon(poly, BEVEL_MM[1] * px_per_mm)
        if inner is not None:
            _fill(img, inner, colour)


def _shadow_gain(camera: CameraPose, sh: Shadow | None, shape: tuple[int, int]) -> FloatMap | None:
    """The share (0..1) of room light an arm blocks at each pixel, or None without a shadow."""
    if sh is None or sh.strength <= 0:
        return None
    proj = projector(camera)
    poly = np.array(sh.polygon_mm, np.float64)
    uv, _ = proj.project(np.column_stack([poly, np.zeros(len(poly))]))
    mask: FloatMap = np.zeros(shape, np.float32)
    cv2.fillPoly(mask, [np.round(uv * (1 << _SHIFT)).astype(np.int32)], 1.0, cv2.LINE_AA, _SHIFT)
    sigma = max(sh.softness_mm * proj.px_per_mm() / 2, 0.5)
    # blur at quarter size: the shadow is soft, and this keeps it cheap
    small = cv2.resize(mask, (shape[1] // 4, shape[0] // 4), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / 4)
    mask = cast(FloatMap, cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR))
    return np.float32(min(sh.strength, 1.0)) * mask


CONTACT_SHADOW = 0.35  # how much the floor darkens right at a resting piece's foot
CONTACT_SHADOW_MM = 1.6  # and over how far that fades


def _contact_shadows(img: Image, drawn: list[Drawn], px_per_mm: float) -> None:
    """Darken the floor softly around where pieces rest (light is occluded near their feet), at
    quarter resolution over the region the pieces cover."""
    feet = [d.footprint for d in drawn if d.footprint is not None]
    if not feet:
        return
    pts = np.vstack(feet)
    pad = 4 * CONTACT_SHADOW_MM * px_per_mm
    h, w = img.shape[:2]
    x0 = int(max(0, pts[:, 0].min() - pad)) // 4 * 4
    y0 = int(max(0, pts[:, 1].min() - pad)) // 4 * 4
    x1 = min(w, int(pts[:, 0].max() + pad + 4))
    y1 = min(h, int(pts[:, 1].max() + pad + 4))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return
    sw, sh = (x1 - x0 + 3) // 4, (y1 - y0 + 3) // 4
    mask: FloatMap = np.zeros((sh, sw), np.float32)
    for foot in feet:
        c = foot.mean(axis=0)
        grown = c + (foot - c) * 1.08
        _fill(mask, (grown - np.array([x0, y0])) / 4, 1.0, aa=False)
    mask = cast(FloatMap, cv2.GaussianBlur(mask, (0, 0), max(CONTACT_SHADOW_MM * px_per_mm / 4, 0.5)))
    gain = cv2.resize(mask, (sw * 4, sh * 4), interpolation=cv2.INTER_LINEAR)[: y1 - y0, : x1 - x0]
    gain8 = cv2.convertScaleAbs(gain, alpha=-255.0 * CONTACT_SHADOW, beta=255.0)  # 255 * (1 - k * mask)
    roi = img[y0:y1, x0:x1]
    roi[:] = cv2.multiply(roi, cv2.merge([gain8, gain8, gain8]), scale=1.0 / 255)


def draw_scene(scene: Scene) -> tuple[Image, list[Drawn]]:
    """The frame under neutral light, before any camera effect, and what was drawn."""
    cam = scene.camera
    proj = projector(cam)
    bg = background(cam, round(scene.lighting.ring_reflection, 3))
    img = bg.image.copy()
    drawn = [draw_list(p, proj) for p in scene.pieces]
    _contact_shadows(img, drawn, proj.px_per_mm())
    order = sorted(range(len(drawn)), key=lambda i: (drawn[i].overlay, -drawn[i].depth))
    walls_done = False
    for i in order:
        if drawn[i].overlay and not walls_done:
            for w in bg.walls:
                w.apply(img)
            walls_done = True
        _draw_piece(img, drawn[i])
    if not walls_done:
        for w in bg.walls:
            w.apply(img)
    return img, drawn


@lru_cache(maxsize=4)
def _grain(width: int, height: int, amount: float) -> FloatMap:
    """A fixed fine texture (wood and matte print are not perfectly flat colours); fixed per
    frame size so that it never looks like motion between frames."""
    rng = np.random.default_rng(width * 7919 + height)
    g = rng.standard_normal((height, width), dtype=np.float32)
    g = cast(FloatMap, cv2.GaussianBlur(g, (0, 0), 0.7))
    g *= amount / max(float(g.std()), 1e-6)
    return 1.0 + g


@lru_cache(maxsize=4)
def _gain3(camera: CameraPose, vignette: float, light: Lighting, texture: float) -> npt.NDArray[np.uint16]:
    """Vignette, texture, colour cast, brightness and arm shadow as one cached 3-channel gain map
    (a simulated camera renders many frames under the same light, so this is built once).

    The light is the neutral ring light plus the room's light (``cast_strength`` of the total, at
    ``kelvin``). An arm blocks the room light, not the ring around the lens: in its shadow the
    tray is darker *and* closer to neutral, as in the rendered development set."""
    w, h = camera.width, camera.height
    g = _vignette(w, h, vignette) if vignette else np.ones((h, w), np.float32)
    if texture > 0:
        g = g * _grain(w, h, texture)
    a = light.cast_strength
    ratio = _blackbody_bgr(light.kelvin) / _blackbody_bgr(5500.0)
    norm = light.brightness / _luminance((1 - a) + a * ratio)
    blocked = _shadow_gain(camera, light.shadow, (h, w))  # 0..1: share of room light blocked
    channels = []
    for c in range(3):
        ring = np.float32((1 - a) * norm)
        room = np.float32(a * ratio[c] * norm)
        channels.append(g * (ring + room) if blocked is None else g * (ring + room * (1.0 - blocked)))
    # fixed point (x 4096) in uint16: OpenCV multiplies uint16 arrays several times faster than
    # float32 ones, and the rounding error stays below one grey level
    out = np.round(np.clip(cv2.merge(channels), 0, 15.99) * _GAIN_ONE).astype(np.uint16)
    out.setflags(write=False)
    return out


_GAIN_ONE = 4096


def apply_light(img: Image, scene: Scene) -> Image:
    """Colour cast, brightness, arm shadow, vignette and texture, as one gain (uint8 in and out)."""
    gain = _gain3(scene.camera, round(scene.postfx.vignette, 4), scene.lighting, round(scene.postfx.texture, 4))
    lit = cv2.multiply(img.astype(np.uint16), gain, scale=1.0 / _GAIN_ONE)
    return cast(Image, cv2.convertScaleAbs(lit))  # saturates at 255 like a sensor


# bilinear 2x upsampling of white noise keeps (0.75^2 + 0.25^2) of its variance per axis
_UPSAMPLED_NOISE_STD = (0.75**2 + 0.25**2)


def finish(img: Image, fx: PostFX, rng: np.random.Generator) -> Image:
    """Lens blur, the camera's sharpening, sensor noise, JPEG round trip (uint8 BGR in and out)."""
    if fx.blur_sigma > 0:
        img = cast(Image, cv2.GaussianBlur(img, (0, 0), fx.blur_sigma))
    if fx.sharpen > 0:  # the camera's own unsharp mask, as phone and Pi camera pipelines do
        soft = cv2.GaussianBlur(img, (0, 0), 1.2)
        img = cast(Image, cv2.addWeighted(img, 1.0 + fx.sharpen, soft, -fx.sharpen, 0.0))
    if fx.noise_sigma > 0:
        # Noise drawn at half resolution and upsampled: a demosaiced sensor's noise is correlated
        # over neighbouring pixels anyway, and this is four times less to draw. cv2.randn is
        # seeded from the caller's generator, so frames stay reproducible.
        h, w = img.shape[:2]
        cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
        half = np.empty(((h + 1) // 2, (w + 1) // 2, 3), np.int16)
        sigma = float(fx.noise_sigma) / _UPSAMPLED_NOISE_STD
        # a scalar would only reach channel 0; OpenCV takes a Scalar (tuple) here, its stubs only arrays
        cv2.randn(half, (0.0, 0.0, 0.0), (sigma, sigma, sigma))  # type: ignore[call-overload]
        noise = cv2.resize(half, (w, h), interpolation=cv2.INTER_LINEAR)
        img = cast(Image, cv2.add(img, noise, dtype=cv2.CV_8U))
    else:
        img = np.ascontiguousarray(img)
    if fx.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(fx.jpeg_quality)])
        if not ok:  # pragma: no cover - OpenCV always encodes a valid uint8 image
            raise RuntimeError("JPEG encoding failed")
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        if decoded is None:  # pragma: no cover - OpenCV decodes what it has just encoded
            raise RuntimeError("JPEG decoding failed")
        img = cast(Image, decoded)
    return img


@lru_cache(maxsize=4)
def _distortion_maps(camera: CameraPose, k1: float) -> tuple[FloatMap, FloatMap]:
    """``cv2.remap`` maps giving, for every pixel of the distorted frame, where it comes from in
    the ideal pinhole frame (radial model r_d = r_u (1 + k1 r_u^2), r in focal lengths)."""
    f = camera.focal_px
    cx, cy = camera.width / 2, camera.height / 2
    ys, xs = np.mgrid[0:camera.height, 0:camera.width].astype(np.float64)
    xd, yd = (xs - cx) / f, (ys - cy) / f
    rd2 = xd * xd + yd * yd
    scale = np.ones_like(rd2)
    for _ in range(8):  # fixed point: r_u = r_d / (1 + k1 r_u^2)
        scale = 1.0 / (1.0 + k1 * rd2 * scale * scale)
    return (xd * scale * f + cx).astype(np.float32), (yd * scale * f + cy).astype(np.float32)


def distort_points(camera: CameraPose, k1: float, uv: Points) -> Points:
    """Where ideal pinhole pixel positions land in a frame with radial distortion ``k1``."""
    if not k1:
        return uv
    f = camera.focal_px
    c = np.array([camera.width / 2, camera.height / 2])
    n = (np.asarray(uv, np.float64) - c) / f
    r2 = (n * n).sum(axis=-1, keepdims=True)
    distorted: Points = c + n * (1.0 + k1 * r2) * f
    return distorted


def expose(img: Image, scene: Scene, rng: np.random.Generator) -> Image:
    """Everything between the drawn scene and the captured frame: lens distortion, light, blur,
    sharpening, noise, JPEG."""
    k1 = scene.postfx.lens_k1
    if k1:
        mx, my = _distortion_maps(scene.camera, round(k1, 5))
        img = cast(Image, cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    return finish(apply_light(img, scene), scene.postfx, rng)


def render(scene: Scene, rng: np.random.Generator) -> Image:
    """Render ``scene`` as the camera would capture it: an ``H x W x 3`` BGR ``uint8`` frame.

    ``rng`` drives only the sensor noise; the same scene and seed give the same frame."""
    img, _ = draw_scene(scene)
    return expose(img, scene, rng)


def _silhouette_counts(scene: Scene, drawn: list[Drawn]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]]:
    """Visible and total silhouette pixels per piece, at half resolution."""
    cam = scene.camera
    scale = 0.5
    h, w = int(cam.height * scale), int(cam.width * scale)
    ids = np.zeros((h, w), np.int32)
    order = sorted(range(len(drawn)), key=lambda i: (drawn[i].overlay, -drawn[i].depth))
    total = np.zeros(len(drawn) + 1, np.int64)
    for i in order:
        polys = [p * scale for p, _ in drawn[i].polys]
        allp = np.vstack(polys)
        x0 = int(max(np.floor(allp[:, 0].min()) - 1, 0))
        y0 = int(max(np.floor(allp[:, 1].min()) - 1, 0))
        x1 = int(min(np.ceil(allp[:, 0].max()) + 2, w))
        y1 = int(min(np.ceil(allp[:, 1].max()) + 2, h))
        if x1 <= x0 or y1 <= y0:
            continue
        solo = np.zeros((y1 - y0, x1 - x0), np.uint8)
        for p in polys:
            _fill(solo, p - np.array([x0, y0]), 1, aa=False)
            _fill(ids, p, i + 1, aa=False)
        total[i + 1] = int(solo.sum())
    visible = np.bincount(ids.ravel(), minlength=len(drawn) + 1)
    return visible[1:], total[1:]


def render_with_truth(scene: Scene, rng: np.random.Generator) -> tuple[Image, Truth]:
    """``render`` plus the ground truth of what a camera above can be asked to count."""
    img, drawn = draw_scene(scene)
    frame = expose(img, scene, rng)
    visible, total = _silhouette_counts(scene, drawn)
    frac = [float(v / t) if t else 0.0 for v, t in zip(visible, total, strict=True)]
    cubes = dict.fromkeys(geo.ALL_COLOURS, 0)
    courtiers = dict.fromkeys(geo.PLAYER_COLOURS, 0)
    vis_cubes = dict.fromkeys(geo.ALL_COLOURS, 0)
    vis_courtiers = dict.fromkeys(geo.PLAYER_COLOURS, 0)
    foreign = False
    for piece, f in zip(scene.pieces, frac, strict=True):
        if piece.kind == "cube":
            cubes[piece.colour] += 1  # type: ignore[index]
            vis_cubes[piece.colour] += f >= VISIBLE_FRACTION_MIN  # type: ignore[index]
        elif piece.kind == "courtier":
            courtiers[piece.colour] += 1  # type: ignore[index]
            vis_courtiers[piece.colour] += f >= VISIBLE_FRACTION_MIN  # type: ignore[index]
        else:
            foreign = True
    proj = projector(scene.camera)
    k1 = scene.postfx.lens_k1
    corners = {
        mid: distort_points(scene.camera, k1,
                            proj.project(np.column_stack([np.array(geo.marker_corners_mm(mid)), np.zeros(4)]))[0])
        for mid in geo.MARKER_IDS
    }
    centres = [distort_points(scene.camera, k1, np.vstack([p for p, _ in d.polys]).mean(axis=0)) for d in drawn]
    return frame, Truth(frac, cubes, courtiers, vis_cubes, vis_courtiers, foreign, corners, centres)
