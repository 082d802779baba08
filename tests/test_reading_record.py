"""One shape for a tray reading from the counter to the records: the readers hand the drop cycle the
counter's own ``TrayReading``, and ``to_record``/``from_record`` is its one conversion to and from
the records."""

from __future__ import annotations

import numpy as np

from controller.readers import DirectReader
from vision.reading import TrayReading


def test_the_readers_reading_is_the_counters_reading() -> None:
    reading = DirectReader(lambda: {"red": 2}).read("drop-1")
    assert type(reading) is TrayReading
    assert reading.cubes == {"red": 2} and reading.source == "direct" and reading.trusted


def test_a_reading_goes_to_the_records_and_back_unchanged() -> None:
    reading = TrayReading(True, "counted, with doubt: red", cubes={"red": 6, "blue": 0, "green": 2},
                          courtiers={"red": 1, "blue": 0}, confidence=np.float64(0.61234), trusted=False,
                          alternatives={"red": [(np.int64(6), np.float64(0.6213)), (7, 0.3787)]},
                          source="camera", settled=False)
    record = reading.to_record()
    assert record == {"cubes": {"red": 6, "green": 2}, "courtiers": {"red": 1}, "usable": True,
                      "reason": "counted, with doubt: red", "confidence": 0.6123, "source": "camera",
                      "settled": False, "trusted": False, "alternatives": {"red": [[6, 0.621], [7, 0.379]]}}
    back = TrayReading.from_record(record)
    assert back.to_record() == record
    assert back.cubes == {"red": 6, "green": 2} and back.alternatives == {"red": [(6, 0.621), (7, 0.379)]}


def test_a_certain_reading_is_the_default_and_an_unusable_one_is_never_trusted() -> None:
    direct = TrayReading(cubes={"blue": 3}, source="direct")
    assert direct.usable and direct.trusted and direct.confidence == 1.0
    assert not TrayReading(False, "a hand over the tray").trusted
    assert not TrayReading.unusable("no markers").trusted
