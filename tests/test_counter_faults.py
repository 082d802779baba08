"""A fault inside the counter (a bug in one of its stages, not a bad photo) at the table and in
`tower count`: an unusable reading that names it, the photos and the records kept, never a traceback
that stops the drop (it would fail again on every resume)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from controller.cli import main
from vision.batch import count_files
from vision.reading import TrayReading

FAULT = "OpenCV(4.12.0) mean.dispatch.cpp:232: error: (-215:Assertion failed) mask.empty()"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_battle_whose_reads_the_counter_fails_on_waits_for_the_host(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The tray is checked before the battle (that read works), the cubes are released, and every
    read after the release fails inside the counter: the drop reads again (shaking the tray between
    reads, as for any unusable frame), then waits for the host's count; nothing is lost."""
    from vision.counter import TrayCounter

    d = ["--data-dir", str(tmp_path)]
    assert _run(capsys, "session", "new", "--players", "red,blue,yellow", *d)[0] == 0
    assert _run(capsys, "fill", *d)[0] == 0
    real = TrayCounter.count
    calls: list[int] = []

    def fails_after_the_check(self: TrayCounter, frame: Any) -> TrayReading:
        calls.append(1)
        if len(calls) == 1:
            return real(self, frame)
        raise cv2.error(FAULT)

    monkeypatch.setattr(TrayCounter, "count", fails_after_the_check)
    code, out, err = _run(capsys, "battle", "attack", "--attacker", "red", "--armies", "3", "--defender", "blue",
                          "--defending", "1", *d)
    assert "Traceback" not in out + err
    said = " ".join(out.replace("│", " ").split())  # the panel's lines joined
    assert "the counter failed on this photo (cv2.error: " in said and "count the tray by hand" in said
    assert "The host must confirm or correct this reading (tower correct)." in said
    assert len(calls) > 2  # read again after the first fault
    images = tmp_path / "images"
    assert (images / "drop-000002-raw.png").is_file() and (images / "drop-000002-annotated.jpg").is_file()
    status = json.loads(_run(capsys, "status", "--json", *d)[1])
    assert status["drop"] is not None and status["drop"]["drop_id"] == 2  # in flight, for the host to count
    assert _run(capsys, "log", "verify", *d)[0] == 0


class FailsOnBlue:
    """A counter that fails on frames with much blue in them and reads every other frame as empty."""

    def count(self, frame: Any) -> TrayReading:
        if float(frame[..., 0].mean()) > 100:
            raise cv2.error(FAULT)
        return TrayReading(True, None, trusted=True, confidence=1.0)


def test_tower_count_reports_a_counter_fault_on_one_photo_and_counts_the_others(tmp_path: Path) -> None:
    paths = []
    for name, blue in (("a", 20), ("b", 200), ("c", 20)):
        frame = np.zeros((960, 1280, 3), np.uint8)
        frame[..., 0], frame[..., 2] = blue, 150
        frame[::2, :, 1] = 90
        cv2.imwrite(str(tmp_path / f"{name}.png"), frame)
        paths.append(str(tmp_path / f"{name}.png"))
    results = list(count_files(FailsOnBlue(), paths))  # type: ignore[arg-type]
    assert [r.reading.usable for r in results] == [True, False, True]
    assert not results[1].unreadable  # the photo was read; the counter failed on it
    assert "the counter failed on this photo (cv2.error: " in (results[1].reading.reason or "")


def test_the_fault_is_said_in_german_too() -> None:
    from controller.i18n import translate
    from vision.reading import COUNTER_FAULT

    said = translate("the frame is unusable: " + COUNTER_FAULT.format(why=f"cv2.error: {FAULT}"), "de")
    assert said.startswith("das Bild ist unbrauchbar: der Zähler ist an diesem Foto gescheitert (cv2.error: ")
    assert said.endswith("die Schale von Hand zählen") and FAULT in said


def test_the_calibration_check_shot_says_a_counter_fault_and_still_writes_its_picture(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import simulation.synthetic_profile as synthetic
    from calibration.colours import check_image
    from vision.counter import TrayCounter

    def broken(self: TrayCounter, frame: Any) -> TrayReading:
        raise cv2.error(FAULT)

    monkeypatch.setattr(TrayCounter, "count", broken)
    frame = np.zeros((960, 1280, 3), np.uint8)
    frame[..., 2] = 150
    frame[::2, :, 1] = 90
    cv2.imwrite(str(tmp_path / "check.png"), frame)
    line = check_image(synthetic.synthetic_profile(), str(tmp_path / "check.png"), tmp_path / "out" / "check.png")
    assert line["usable"] is False and "the counter failed on this photo (cv2.error: " in line["reason"]
    assert (tmp_path / "out" / "check.png").is_file()
