"""The description of a synthetic tray scene: pieces at poses, the camera, the light, the camera's
post-processing. Plain frozen dataclasses, so scenes can be hashed, compared and changed with
``dataclasses.replace``.

Coordinates are the plate's (``vision.geometry``): millimetres, origin at the plate's top-left
corner as the camera sees it, x to the right, y down; heights are millimetres upwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vision import geometry as geo

from .palette import PIECE_BGR, SKIN_BGR

PIECE_KINDS = ("cube", "courtier", "coin", "finger")

# The clear tray's floor lifts everything in it this far above the plate (the rendered
# development set has cube centres at 7.2 mm, i.e. a 2.2 mm floor under 10 mm cubes).
TRAY_FLOOR_MM = 2.2


@dataclass(frozen=True)
class Piece:
    """One object in the tray.

    ``x_mm, y_mm``: the centre of its footprint on the plate (for a finger: its tip).
    ``z_mm``: resting height above the tray floor (0 on the floor, 10 on top of a cube; a finger's
    axis height, default 20, i.e. above the walls). ``yaw_deg``: rotation about the vertical (for a
    finger: the direction it points, 0 = +x). ``tilt_deg`` about a horizontal axis at
    ``tilt_axis_deg`` tips a cube leaning on another one. ``size_mm``: cube edge, coin diameter,
    courtier base, finger radius (None: the standard size). ``shade`` scales the albedo a little,
    as wooden pieces differ. ``colour``: one of the six colours for cubes and courtiers
    (courtiers: player colours), ``None`` for a coin, a skin tone (light/medium/dark) for a finger.
    """

    kind: str
    colour: str | None
    x_mm: float
    y_mm: float
    yaw_deg: float = 0.0
    z_mm: float = 0.0
    tilt_deg: float = 0.0
    tilt_axis_deg: float = 0.0
    size_mm: float | None = None
    shade: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in PIECE_KINDS:
            raise ValueError(f"unknown piece kind {self.kind!r}; expected one of {PIECE_KINDS}")
        if self.kind == "cube" and self.colour not in PIECE_BGR:
            raise ValueError(f"a cube needs one of the colours {tuple(PIECE_BGR)}, got {self.colour!r}")
        if self.kind == "courtier" and self.colour not in geo.PLAYER_COLOURS:
            raise ValueError(f"a courtier needs a player colour {geo.PLAYER_COLOURS}, got {self.colour!r}")
        if self.kind == "finger" and self.colour is not None and self.colour not in SKIN_BGR:
            raise ValueError(f"a finger's colour is a skin tone {tuple(SKIN_BGR)} or None, got {self.colour!r}")

    @property
    def size(self) -> float:
        if self.size_mm is not None:
            return self.size_mm
        return {"cube": geo.CUBE_EDGE_MM, "courtier": geo.COURTIER_BASE_MM, "coin": 20.0, "finger": 8.0}[self.kind]

    @property
    def height_mm(self) -> float:
        """Height of the piece's own body (without ``z_mm``)."""
        return {"cube": self.size, "courtier": geo.COURTIER_HEIGHT_MM, "coin": 2.0, "finger": 2 * self.size}[self.kind]


@dataclass(frozen=True)
class CameraPose:
    """A pinhole camera above the plate.

    The optical axis passes through the aim point (plate centre + ``aim_*_mm``); the camera sits
    ``height_mm`` above the plate, displaced from the vertical over the aim point by ``tilt_deg``
    towards the plate direction ``tilt_dir_deg`` (0 = +x, 90 = +y), then rolled ``roll_deg`` about
    its axis. ``focal_equiv_mm`` is the 36 mm-equivalent focal length across the frame's width
    (as in the development set's JSON), so the focal length in pixels is
    ``focal_equiv_mm / 36 * width``; ``None`` picks the lens a user would set up: the plate
    (plus a margin) fills about 80 % of the frame's short side, whatever the height and size
    (about 36 mm at 1280 x 960 and 27 mm at 1920 x 1080 from 300 mm, as in the development set).
    """

    height_mm: float = 300.0
    tilt_deg: float = 0.0
    tilt_dir_deg: float = 0.0
    roll_deg: float = 0.0
    width: int = 1280
    height: int = 960
    focal_equiv_mm: float | None = None
    aim_x_mm: float = 0.0
    aim_y_mm: float = 0.0

    def __post_init__(self) -> None:
        if self.width < 16 or self.height < 16:
            raise ValueError(f"frame size {self.width} x {self.height} is too small")
        if self.height_mm <= geo.TRAY_WALL_HEIGHT_MM + 20:
            raise ValueError(f"camera height {self.height_mm} mm is too low above the tray")

    @property
    def focal_px(self) -> float:
        if self.focal_equiv_mm is None:
            return default_focal_px(self.height, self.height_mm)
        return self.focal_equiv_mm / 36.0 * self.width


def default_focal_px(frame_height: int, height_mm: float) -> float:
    """A focal length (px) at which the plate, plus the aim offset and a margin (210 mm in all),
    fills 92 % of the frame's short side."""
    return 0.92 * frame_height * height_mm / (geo.PLATE_H_MM + 30.0)


@dataclass(frozen=True)
class Shadow:
    """A soft shadow (a player's arm): a polygon on the plate in millimetres, inside which the
    arm blocks ``strength`` (0..1) of the room light (the ring light around the lens still
    reaches), blurred over ``softness_mm``."""

    polygon_mm: tuple[tuple[float, float], ...]
    strength: float = 0.8
    softness_mm: float = 12.0


@dataclass(frozen=True)
class Lighting:
    """The neutral ring light plus the room's light: the room light's colour temperature and its
    share of the total (``cast_strength``, 0..1), an overall brightness, an optional arm shadow
    (which blocks room light), and the ring light's reflection in the clear tray floor (0 = none,
    1 = as strong as in the development set)."""

    kelvin: float = 5500.0
    cast_strength: float = 0.6
    brightness: float = 1.0
    shadow: Shadow | None = None
    ring_reflection: float = 0.5

    def __post_init__(self) -> None:
        if not 1500 <= self.kelvin <= 12000:
            raise ValueError(f"kelvin {self.kelvin} is outside 1500..12000")
        if not 0 < self.brightness <= 3:
            raise ValueError(f"brightness {self.brightness} is outside (0, 3]")
        if not 0 <= self.cast_strength <= 1:
            raise ValueError(f"cast_strength {self.cast_strength} is outside 0..1")


@dataclass(frozen=True)
class PostFX:
    """What the camera does to the image: vignette (relative darkening at the corners), Gaussian
    blur (sigma in px), an unsharp mask (amount), Gaussian noise (sigma in grey levels), an
    optional JPEG round trip. ``lens_k1`` is radial distortion (r_d = r_u (1 + k1 r_u^2), r in
    focal lengths; negative = barrel, as in the development set's -0.03..0). ``texture`` is the fine, fixed grain of wood and matte print
    (relative albedo spread); it lives here so that a test can switch every texture off at once."""

    vignette: float = 0.15
    blur_sigma: float = 0.6
    sharpen: float = 0.3
    noise_sigma: float = 2.0
    jpeg_quality: int | None = 92
    texture: float = 0.035
    lens_k1: float = 0.0


@dataclass(frozen=True)
class Scene:
    pieces: tuple[Piece, ...] = ()
    camera: CameraPose = field(default_factory=CameraPose)
    lighting: Lighting = field(default_factory=Lighting)
    postfx: PostFX = field(default_factory=PostFX)

    def __post_init__(self) -> None:
        if not isinstance(self.pieces, tuple):  # accept lists, keep the scene hashable
            object.__setattr__(self, "pieces", tuple(self.pieces))
