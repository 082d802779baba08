"""A reconciliation of many combinations stays readable for the host and small in the records.

A reading unsure of all six colours, four counts each, weighs 4096 combinations. Its reason named
every one of them and the record kept every one, about 0.8 MB, once more for each read of a shaken
tray: on the simulated station such a drop asked the host in 620 000 characters and kept a reading
record of 11 MB. The reason now
names the likeliest three and sums up the rest; the record keeps the likeliest 64 and a tally of
the others, which :func:`controller.verify.reconcile` weighs again from what the record keeps.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from stations import deployed_station

from controller.i18n import translate
from controller.verify import NAMED_COMBINATIONS, RECORDED_COMBINATIONS, assess, reconcile
from vision.geometry import ALL_COLOURS
from vision.reading import TrayReading

ALTERNATIVES = [(7, 0.5), (8, 0.25), (6, 0.15), (9, 0.1)]
ATTACK = {"battle": "attack", "attacker": "blue", "attacking_armies": 6, "defender": "yellow",
          "defending_armies": 5}


def _unsure_of(colours: tuple[str, ...], cubes: int = 7) -> TrayReading:
    return TrayReading(cubes={c: cubes for c in ALL_COLOURS}, confidence=0.5, trusted=False,
                       alternatives={c: list(ALTERNATIVES) for c in colours}, alternatives_cover=0.8)


def _named_combinations(reason: str) -> int:
    """How many combinations of all six colours a reason names (each names "... yellow")."""
    return reason.count(" yellow")


def test_six_colours_in_doubt_are_recorded_as_the_likeliest_64_and_a_tally() -> None:
    obs = _unsure_of(ALL_COLOURS)
    rec = reconcile(obs, {}, None, beam=44)
    assert rec is not None and len(rec.candidates) == 4 ** 6  # the station still weighs them all
    kept = rec.as_dict()
    assert len(kept["candidates"]) == RECORDED_COMBINATIONS
    rest = kept["unrecorded"]
    assert rest["combinations"] == 4 ** 6 - RECORDED_COMBINATIONS
    # the likeliest are kept: none left out is likelier than the least of those kept
    shares = sorted((c["posterior"] for c in rec.candidates), reverse=True)
    assert [c["posterior"] for c in kept["candidates"]] == shares[:RECORDED_COMBINATIONS]
    assert abs(sum(shares[:RECORDED_COMBINATIONS]) + rest["posterior"] - 1.0) < 1e-3
    assert rest["fitting"] == sum(c["out"] is None for c in rec.candidates) - RECORDED_COMBINATIONS
    assert len(json.dumps(kept)) < 20_000  # was about 845 000 characters
    # the record is enough to weigh them all again: the reconciliation is a function of the reading
    again = reconcile(TrayReading.from_record(obs.to_record()), {}, None, beam=kept["beam"])
    assert again is not None and again.as_dict() == kept


def test_a_few_combinations_are_all_recorded_as_they_were_weighed() -> None:
    rec = reconcile(_unsure_of(("red",)), {}, None, beam=42)
    assert rec is not None
    kept = rec.as_dict()
    assert kept["candidates"] == rec.candidates and "unrecorded" not in kept
    assert all(f"{n} red" in kept["reason"] for n, _ in ALTERNATIVES)  # four: every one named


def test_the_question_names_the_colours_and_the_reason_only_the_likeliest_combinations() -> None:
    seen = assess(_unsure_of(ALL_COLOURS), {}, None, beam=42)
    assert seen.reconciliation is not None and set(seen.reconciliation.question) == set(ALL_COLOURS)
    doubt = seen.doubts[0]
    question, reason = doubt.split(" The counter cannot tell, and ")
    assert question.startswith("Is it ") and _named_combinations(reason) == NAMED_COMBINATIONS
    assert "other combinations (" in doubt and len(doubt) < 1000, doubt


def test_a_combination_used_names_only_three_it_was_chosen_over() -> None:
    # a beam of 30 under 42 cubes read: only the smallest combination (36) is left by the clumps
    rec = reconcile(_unsure_of(ALL_COLOURS), {}, None, beam=30)
    assert rec is not None and rec.cubes == {c: 6 for c in ALL_COLOURS}
    assert rec.reason.startswith("read as 6 black") and rec.reason.endswith("and 4092 more, each ruled out too")
    assert _named_combinations(rec.reason) == 1 + NAMED_COMBINATIONS


def test_no_combination_fitting_names_three_and_counts_the_rest() -> None:
    rec = reconcile(_unsure_of(ALL_COLOURS), {}, None, beam=3)
    assert rec is not None and rec.cubes is None and rec.best is None
    assert rec.reason.startswith("no combination of the counter's alternatives fits: ")
    assert _named_combinations(rec.reason) == NAMED_COMBINATIONS and rec.reason.endswith("and 4093 more, each ruled out too")


def test_the_summed_up_reasons_read_in_german() -> None:
    for beam in (42, 30, 3):
        rec = reconcile(_unsure_of(ALL_COLOURS), {}, None, beam=beam)
        assert rec is not None
        german = translate(rec.reason, "de")
        for english in ("other combinations", "together", "more, each", "ruled out", "cubes in all", "yellow"):
            assert english not in german, german


class _SixColoursUnsure:
    """A reader that reads every drop's tray unsure of all six colours."""

    def read(self, tag: str, *, wait_settle: bool = True, save: bool = True) -> TrayReading:
        return _unsure_of(ALL_COLOURS) if tag.startswith("drop-") else TrayReading(cubes={}, source="direct")


def test_a_drop_unsure_of_six_colours_keeps_a_small_record(tmp_path: Path) -> None:
    _, cyc = deployed_station(tmp_path)
    cyc.reader = _SixColoursUnsure()
    view = cyc.release(cyc.plan(ATTACK)["drop_id"])
    assert view["needs_confirmation"] and view["phase"] == "counted"
    record: Any = next(r for r in cyc.store.records(view["drop_id"]) if r.kind == "reading")
    assert len(record.payload["attempts"]) > 1  # read again (and shaken) before asking
    assert len(json.dumps(record.payload)) < 200_000  # was about 11 MB
    assert all(len(d) < 1000 for d in record.payload["doubts"]), record.payload["doubts"]
