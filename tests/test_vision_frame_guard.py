"""Frames are checked where they enter the counter: too large (refused from the header, before
decoding), too small, grayscale, damaged inside; and images that cannot be written say so.
`tower count` reports such a frame as unusable and goes on with the batch."""

from __future__ import annotations

import errno
import json
import random
import struct
import time
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.tray_dev import calibration_profile
from controller.cli import main
from vision import imageio
from vision.errors import UnreadableImage
from vision.imageio import (
    ImageWriteError,
    check_frame,
    decode_image,
    image_size,
    read_frame,
    read_image,
    write_image,
)
from vision.profile import save_profile


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def huge_png(width: int = 30_000, height: int = 30_000, rows: int = 64) -> bytes:
    """A small PNG that declares ``width`` x ``height`` RGB pixels (only its first rows are stored:
    the point is that nothing reads past the header)."""
    scanlines = zlib.compress((b"\x00" + b"\x00" * 3 * width) * rows, 9)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + _chunk(b"IDAT", scanlines) + _chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def profile_path(tray_dev: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("profile") / "profile.json"
    save_profile(calibration_profile(tray_dev), path)
    return path


def _count(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, Any]], str]:
    code = main(["count", *argv, "--json"])  # the JSON lines (the default is a table for people)
    captured = capsys.readouterr()
    return code, [json.loads(line) for line in captured.out.splitlines()], captured.err


# -- too large -------------------------------------------------------------------------------------------
def test_a_30000_by_30000_png_is_refused_from_its_header_quickly_and_in_little_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = huge_png()
    assert len(data) < 1_000_000
    path = tmp_path / "bomb.png"
    path.write_bytes(data)

    def no_decoding(*_: Any) -> None:
        raise AssertionError("the huge frame was decoded")

    monkeypatch.setattr(imageio.cv2, "imdecode", no_decoding)
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(UnreadableImage, match="too large"):
        read_image(path)
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20 * 1024 * 1024, peak
    print(f"refused in {elapsed * 1000:.1f} ms, peak {peak / 1e6:.1f} MB of Python memory")


@pytest.mark.parametrize(("width", "height", "refused"), [
    (8000, 6000, False),  # 48 MP: a phone photo is still read
    (9000, 6000, True),   # 54 MP
    (20_000, 100, True),  # a strip over the longest side
    (100_000, 100_000, True),  # beyond Pillow's own bomb limit
])
def test_the_size_limit_is_read_from_the_header(width: int, height: int, refused: bool) -> None:
    data = huge_png(width, height, rows=1)
    if width * height < 100_000_000:
        assert image_size(data) == (width, height)
    if refused:
        with pytest.raises(UnreadableImage, match="too large"):
            imageio._check_size(data, Path("x.png"))
    else:
        imageio._check_size(data, Path("x.png"))


# -- too small, grayscale ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("width", "height"), [(319, 240), (320, 239), (1, 1), (10, 4000), (100, 50)])
def test_a_frame_under_320_by_240_is_refused_as_too_small(width: int, height: int) -> None:
    frame = np.zeros((height, width, 3), np.uint8)
    frame[..., 2] = 200  # colourful, so only the size is wrong
    with pytest.raises(UnreadableImage, match="too small"):
        check_frame(frame, "tiny.png")


def test_320_by_240_either_way_round_is_enough() -> None:
    for shape in ((240, 320, 3), (320, 240, 3)):
        frame = np.zeros(shape, np.uint8)
        frame[::2, :, 1] = 180
        check_frame(frame)


def test_grayscale_photos_are_refused_however_they_are_stored(tray_dev: Path, tmp_path: Path) -> None:
    colour = read_image(tray_dev / "test" / "t0038.jpg")
    read_frame(tray_dev / "test" / "t0038.jpg")  # the colour photo itself is a frame
    gray = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)
    as_l = tmp_path / "gray-l.jpg"
    as_colour = tmp_path / "gray-in-colour.jpg"
    as_png = tmp_path / "gray.png"
    cv2.imwrite(str(as_l), gray)
    cv2.imwrite(str(as_colour), cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR), [cv2.IMWRITE_JPEG_QUALITY, 85])
    cv2.imwrite(str(as_png), gray)
    for path in (as_l, as_colour, as_png):
        with pytest.raises(UnreadableImage, match="no colour"):
            read_frame(path)


def test_every_calibration_and_test_photo_passes_the_guard(tray_dev: Path) -> None:
    photos = sorted((tray_dev / "test").glob("*.jpg")) + sorted((tray_dev / "calibration").glob("*.jpg"))
    assert len(photos) > 20
    for photo in photos:
        read_frame(photo)


# -- damaged inside ---------------------------------------------------------------------------------------
def _damage(data: bytes, rng: random.Random, n: int = 64) -> bytes:
    damaged = bytearray(data)
    start = rng.randrange(len(damaged) // 10, len(damaged) - 200)
    for i in range(n):
        damaged[start + i] = rng.randrange(256)
    return bytes(damaged)


def test_64_damaged_bytes_inside_a_jpeg_are_refused(tray_dev: Path) -> None:
    data = (tray_dev / "test" / "t0038.jpg").read_bytes()
    damaged = bytearray(data)
    middle = len(data) // 2
    damaged[middle:middle + 64] = bytes([0xFF, 0xD0 + 3]) * 32  # stray restart markers in the scan
    with pytest.raises(UnreadableImage, match="corrupt JPEG"):
        decode_image(bytes(damaged), "damaged.jpg")


def test_most_random_64_byte_damage_is_refused(tray_dev: Path) -> None:
    """JPEG has no checksum: damage that decodes into valid codes and ends in step cannot be seen in
    the file (docs/controller.md says so). Over random damage of the test photos, libjpeg's own
    warnings refuse the great majority; this pins that share."""
    rng = random.Random(14)
    photos = sorted((tray_dev / "test").glob("*.jpg"))
    refused = 0
    trials = 60
    for i in range(trials):
        try:
            decode_image(_damage(photos[i % len(photos)].read_bytes(), rng))
        except UnreadableImage:
            refused += 1
    print(f"refused {refused} of {trials} JPEGs with 64 random bytes damaged")
    assert refused >= 0.8 * trials


def test_damage_the_decoder_cannot_see_is_never_a_trusted_wrong_count(tray_dev: Path) -> None:
    """What decodes despite the damage reaches the counter: it must read the same counts as the
    undamaged photo, or refuse, or doubt them (a trusted wrong count would decide a battle)."""
    from calibration.tray_dev import calibration_profile
    from vision.counter import TrayCounter

    counter = TrayCounter(calibration_profile(tray_dev))
    rng = random.Random(0)
    photos = sorted((tray_dev / "test").glob("*.jpg"))
    clean = {p: counter.count(read_image(p)).cubes for p in photos}
    decoded = 0
    for i in range(60):
        photo = photos[i % len(photos)]
        try:
            frame = decode_image(_damage(photo.read_bytes(), rng))
        except UnreadableImage:
            continue
        decoded += 1
        reading = counter.count(frame)
        if reading.usable and reading.cubes != clean[photo]:
            assert not reading.trusted, f"{photo.name}: damaged, read {reading.cubes} and trusted"
    assert decoded > 0  # the decoder let some damage through: this test saw the counter judge it


# -- tower count on a batch of bad frames ----------------------------------------------------------------
def test_tower_count_reports_each_bad_frame_and_goes_on(
        tray_dev: Path, profile_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tray_dev / "test" / "t0038.jpg"
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.full((200, 300, 3), (0, 0, 255), np.uint8))
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(huge_png())
    gray = tmp_path / "gray.jpg"
    cv2.imwrite(str(gray), cv2.cvtColor(read_image(good), cv2.COLOR_BGR2GRAY))
    code, lines, err = _count(capsys, str(tiny), str(bomb), str(gray), str(good), "--profile", str(profile_path))
    assert code == 1 and "Traceback" not in err
    assert [x["usable"] for x in lines] == [False, False, False, True]
    assert "too small" in lines[0]["reason"] and "too large" in lines[1]["reason"]
    assert "no colour" in lines[2]["reason"]


def test_an_annotate_path_under_a_file_is_a_clear_error(
        tray_dev: Path, profile_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    for target in (blocker, blocker / "annotated"):
        code, lines, err = _count(capsys, str(tray_dev / "test" / "t0038.jpg"), "--profile", str(profile_path),
                                  "--annotate", str(target))
        assert code == 2 and lines == [] and "--annotate" in err and "cannot create the directory" in err
        assert "Traceback" not in err


def _full_disk(monkeypatch: pytest.MonkeyPatch, suffix: str = "") -> None:
    """Writing an image file fails with ENOSPC (the disk is full)."""
    real_open = open

    def full(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if "w" in mode and str(file).endswith(".tmp") and suffix in str(file):
            raise OSError(errno.ENOSPC, "No space left on device", str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(imageio, "open", full, raising=False)


def test_a_full_disk_while_annotating_is_reported_and_the_batch_goes_on(
        tray_dev: Path, profile_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _full_disk(monkeypatch)
    photos = [tray_dev / "test" / "t0038.jpg", tray_dev / "test" / "t0088.jpg"]
    code, lines, err = _count(capsys, *map(str, photos), "--profile", str(profile_path), "--annotate",
                              str(tmp_path / "ann"))
    assert code == 1 and len(lines) == 2 and all(x["usable"] for x in lines)
    assert err.count("the disk is full") == 2 and "No such file" not in err
    assert list((tmp_path / "ann").iterdir()) == []  # no half-written file left behind


def test_write_image_names_the_file_and_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    frame = np.zeros((10, 10, 3), np.uint8)
    assert write_image(tmp_path / "ok.png", frame).read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ImageWriteError, match="could not encode"):
        write_image(tmp_path / "x.unknown-format", frame)
    with pytest.raises(ImageWriteError, match="No such file"):
        write_image(tmp_path / "missing" / "x.png", frame)
    _full_disk(monkeypatch)
    with pytest.raises(ImageWriteError, match="x.png: the disk is full") as full:
        write_image(tmp_path / "x.png", frame)
    assert full.value.errno == errno.ENOSPC


def test_a_full_disk_while_saving_the_drops_photo_loses_nothing_and_releases_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    d = ["--data-dir", str(tmp_path)]
    assert main(["session", "new", "--players", "red,blue,yellow", *d]) == 0
    capsys.readouterr()
    with monkeypatch.context() as m:
        _full_disk(m, "-raw.png")
        code = main(["fill", *d])
    err = capsys.readouterr().err
    assert code == 2 and "the disk is full" in err and "-raw.png" in err and "Traceback" not in err
    status = json.loads(_status(capsys, d))
    assert status["drop"]["phase"] == "released"  # released once, its reading still to come
    assert main(["battle", "attack", "--attacker", "red", "--armies", "2", *d]) == 0  # finishes it first
    out = capsys.readouterr().out
    assert "without a second" in out
    assert main(["log", "--json", *d]) == 0
    log = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sum(r["kind"] == "release_started" and r["drop_id"] == 1 for r in log) == 1
    assert main(["log", "verify", *d]) == 0


def _status(capsys: pytest.CaptureFixture[str], d: list[str]) -> str:
    assert main(["status", "--json", *d]) == 0
    return capsys.readouterr().out
