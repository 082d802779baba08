"""Expose a drawn scene as a camera would: the light (colour cast, brightness, an arm's shadow), the
lens (vignette, radial distortion, blur) and the sensor (grain, noise, JPEG).

``render.py`` draws the scene; this module turns that drawing into the frame a camera delivers.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from .camera import projector
from .scene import CameraPose, Lighting, PostFX, Scene, Shadow

# OpenCV's stubs type every returned image as ``MatLike`` (any dtype); where the dtype is known from
# the input and the call, the result is ``cast`` to it.
Image = npt.NDArray[np.uint8]  # H x W x 3 BGR
FloatMap = npt.NDArray[np.float32]
Points = npt.NDArray[np.float64]
_SHIFT = 4  # sub-pixel bits for OpenCV's polygon filling


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
