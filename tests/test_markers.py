"""The printable marker sheet: markers OpenCV can find, with the right ids, at true scale."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from calibration.markers import A4_LANDSCAPE_MM, MM_PER_INCH, write_marker_sheet
from vision import geometry as geo


def _centres(png: Path) -> dict[int, np.ndarray]:
    img = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geo.MARKER_DICT))
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(img)
    assert ids is not None, "no marker found on the sheet"
    return {int(i): c.reshape(4, 2).mean(axis=0) for i, c in zip(ids.ravel(), corners, strict=True)}


@pytest.mark.parametrize("dpi", [150, 300])
def test_sheet_markers_are_found_at_true_scale(tmp_path: Path, dpi: int) -> None:
    png, pdf = write_marker_sheet(tmp_path / "sheet.png", dpi=dpi)
    assert png.suffix == ".png" and pdf.suffix == ".pdf" and pdf.exists()
    with Image.open(png) as im:
        # PNG stores pixels per metre as an integer: the DPI comes back to within 0.05
        assert im.info["dpi"] == pytest.approx((dpi, dpi), abs=0.05)
        px_per_mm = dpi / MM_PER_INCH
        assert im.size == (round(geo.PLATE_W_MM * px_per_mm), round(geo.PLATE_H_MM * px_per_mm))
    centres = _centres(png)
    assert sorted(centres) == list(geo.MARKER_IDS)
    span_w = geo.MARKER_SPAN_W_MM * px_per_mm
    span_h = geo.MARKER_SPAN_H_MM * px_per_mm
    assert np.linalg.norm(centres[1] - centres[0]) == pytest.approx(span_w, abs=1.0)
    assert np.linalg.norm(centres[2] - centres[3]) == pytest.approx(span_w, abs=1.0)
    assert np.linalg.norm(centres[3] - centres[0]) == pytest.approx(span_h, abs=1.0)
    assert np.linalg.norm(centres[2] - centres[1]) == pytest.approx(span_h, abs=1.0)
    # and each marker where geometry.py puts it (pixel centres sit half a pixel in)
    for marker_id, (x, y) in geo.MARKER_CENTRES_MM.items():
        assert centres[marker_id] == pytest.approx((x * px_per_mm - 0.5, y * px_per_mm - 0.5), abs=1.0)


def test_pdf_page_is_a4_landscape_with_the_plate_at_true_scale(tmp_path: Path) -> None:
    _, pdf = write_marker_sheet(tmp_path / "plate", dpi=200)
    text = pdf.read_bytes().decode("latin-1")
    box = re.search(r"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", text)
    assert box, "the PDF has no page size"
    w_pt, h_pt = float(box.group(1)), float(box.group(2))
    assert w_pt == pytest.approx(A4_LANDSCAPE_MM[0] / MM_PER_INCH * 72, abs=0.5)
    assert h_pt == pytest.approx(A4_LANDSCAPE_MM[1] / MM_PER_INCH * 72, abs=0.5)


def test_bad_dpi_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="dpi"):
        write_marker_sheet(tmp_path / "x.png", dpi=20)
