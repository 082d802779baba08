"""The printable marker sheet for the base plate, at true scale.

The counter measures everything in millimetres through the four ArUco markers, so the sheet must
print at exactly the size in ``vision.geometry``: a 220 x 180 mm plate with the markers (20 mm,
4 mm white quiet zone) centred on the corners of a 170 x 130 mm rectangle. Two files:

- a PNG of the plate itself at ``dpi`` with that DPI in its metadata, for printing with any tool
  set to 100 % / "actual size";
- a PDF on an A4 landscape page with the plate centred and crop marks at its corners, so ordinary
  printers (which cannot print to the paper's edge) still print it at true scale.

The sheet also carries the tray's outline (where to put it), a 100 mm scale bar with 10 mm ticks
and a line stating the DPI, so the user can check the print with a ruler before gluing it down.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont

from vision import geometry as geo

MM_PER_INCH = 25.4
A4_LANDSCAPE_MM = (297.0, 210.0)
SCALE_BAR_MM = 100.0

_BLACK = 0
_GREY = 150
_LIGHT = 205


def _marker_bits(marker_id: int) -> NDArray[Any]:
    """The marker's 6 x 6 cells (border included), 1 = white, in the project's dictionary."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geo.MARKER_DICT))
    img = cv2.aruco.generateImageMarker(dictionary, marker_id, 6)
    return (img > 127).astype(np.uint8)


def _font(size_px: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=max(size_px, 8))


def render_plate(dpi: int = 300) -> Image.Image:
    """The plate at true scale as a greyscale image (``dpi`` pixels per inch)."""
    if not 72 <= dpi <= 1200:
        raise ValueError(f"dpi must be between 72 and 1200, got {dpi}")
    k = dpi / MM_PER_INCH

    def px(mm: float) -> int:
        return int(round(mm * k))

    w, h = px(geo.PLATE_W_MM), px(geo.PLATE_H_MM)
    img = Image.new("L", (w, h), 255)
    draw = ImageDraw.Draw(img)
    line = max(1, px(0.3))
    draw.rectangle([0, 0, w - 1, h - 1], outline=_GREY, width=line)  # the plate's edge: cut here

    # the tray: its outer footprint and, dashed, its interior
    x0, y0, x1, y1 = geo.TRAY_INNER_MM
    t = geo.TRAY_WALL_THICKNESS_MM
    draw.rectangle([px(x0 - t), px(y0 - t), px(x1 + t), px(y1 + t)], outline=_LIGHT, width=line)
    dash = 4.0
    x = x0
    while x < x1:
        e = min(x + dash, x1)
        draw.line([px(x), px(y0), px(e), px(y0)], fill=_LIGHT, width=line)
        draw.line([px(x), px(y1), px(e), px(y1)], fill=_LIGHT, width=line)
        x += 2 * dash
    y = y0
    while y < y1:
        e = min(y + dash, y1)
        draw.line([px(x0), px(y), px(x0), px(e)], fill=_LIGHT, width=line)
        draw.line([px(x1), px(y), px(x1), px(e)], fill=_LIGHT, width=line)
        y += 2 * dash
    label = _font(px(3.2))
    draw.text((px((x0 + x1) / 2), px((y0 + y1) / 2)), "tray", fill=_LIGHT, font=label, anchor="mm")

    # the markers: each cell's edges rounded from millimetres, so sizes and spacing are true to
    # within a pixel wherever the cells fall
    cell = geo.MARKER_SIZE_MM / 6
    for marker_id in geo.MARKER_IDS:
        cx, cy = geo.MARKER_CENTRES_MM[marker_id]
        left, top = cx - geo.MARKER_SIZE_MM / 2, cy - geo.MARKER_SIZE_MM / 2
        bits = _marker_bits(marker_id)
        for r in range(6):
            for c in range(6):
                if bits[r, c]:
                    continue
                draw.rectangle([px(left + c * cell), px(top + r * cell),
                                px(left + (c + 1) * cell) - 1, px(top + (r + 1) * cell) - 1], fill=_BLACK)
        # the quiet zone stays white; a faint corner tick outside it shows its extent
        q = geo.MARKER_QUIET_ZONE_MM
        draw.text((px(cx), px(top + geo.MARKER_SIZE_MM + q + 2.2)), f"id {marker_id}", fill=_GREY,
                  font=_font(px(2.5)), anchor="mm")

    # the scale bar between the bottom markers, with 10 mm ticks
    bar_y = geo.PLATE_H_MM - 9.0
    bx0 = geo.PLATE_W_MM / 2 - SCALE_BAR_MM / 2
    bx1 = bx0 + SCALE_BAR_MM
    draw.line([px(bx0), px(bar_y), px(bx1), px(bar_y)], fill=_BLACK, width=max(1, px(0.4)))
    for i in range(11):
        tick = 2.5 if i % 5 == 0 else 1.5
        xx = px(bx0 + i * 10)
        draw.line([xx, px(bar_y - tick), xx, px(bar_y)], fill=_BLACK, width=max(1, px(0.3)))
    text = _font(px(2.8))
    draw.text((px(geo.PLATE_W_MM / 2), px(bar_y + 3.2)),
              f"this bar is {SCALE_BAR_MM:.0f} mm: check it with a ruler  -  printed at {dpi} dpi", fill=_BLACK,
              font=text, anchor="mm")
    draw.text((px(geo.PLATE_W_MM / 2), px(7.0)),
              f"Wallenstein tower station - base plate {geo.PLATE_W_MM:.0f} x {geo.PLATE_H_MM:.0f} mm - "
              f"print at 100 % (actual size, no fit to page)", fill=_GREY, font=text, anchor="mm")
    return img


def _a4_page(plate: Image.Image, dpi: int) -> Image.Image:
    """The plate centred on an A4 landscape page, with crop marks at its corners."""
    k = dpi / MM_PER_INCH
    pw, ph = round(A4_LANDSCAPE_MM[0] * k), round(A4_LANDSCAPE_MM[1] * k)
    page = Image.new("L", (pw, ph), 255)
    ox, oy = (pw - plate.width) // 2, (ph - plate.height) // 2
    page.paste(plate, (ox, oy))
    draw = ImageDraw.Draw(page)
    gap, length = round(2 * k), round(8 * k)
    width = max(1, round(0.25 * k))
    for cx, cy, sx, sy in ((ox, oy, -1, -1), (ox + plate.width, oy, 1, -1), (ox, oy + plate.height, -1, 1),
                           (ox + plate.width, oy + plate.height, 1, 1)):
        draw.line([cx + sx * gap, cy, cx + sx * (gap + length), cy], fill=_BLACK, width=width)
        draw.line([cx, cy + sy * gap, cx, cy + sy * (gap + length)], fill=_BLACK, width=width)
    return page


def write_marker_sheet(out: Path, dpi: int = 300) -> list[Path]:
    """Write ``out`` as a PNG (suffix forced to .png) and a PDF beside it; returns both paths.

    Raises ``ValueError`` for a DPI outside 72..1200 and ``OSError`` when the folder is not
    writable."""
    out = Path(out)
    png = out if out.suffix.lower() == ".png" else out.with_suffix(".png")
    pdf = png.with_suffix(".pdf")
    png.parent.mkdir(parents=True, exist_ok=True)
    plate = render_plate(dpi)
    plate.save(png, format="PNG", dpi=(dpi, dpi))
    _a4_page(plate, dpi).save(pdf, format="PDF", resolution=float(dpi))
    return [png, pdf]
