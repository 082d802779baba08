"""When a tray reading is doubted, and when it is not."""

from __future__ import annotations

from controller.readers import Observation
from controller.verify import doubts


def test_a_clean_reading_has_no_doubt() -> None:
    assert doubts(Observation(cubes={"blue": 3, "green": 1}), {"blue": 4, "yellow": 3}, {"green": 2}, beam=4) == []


def test_an_unusable_frame_is_doubted_with_its_reason() -> None:
    found = doubts(Observation(cubes={}, usable=False, reason="a hand over the tray"), {"blue": 1}, {}, None)
    assert found == ["the frame is unusable: a hand over the tray"]


def test_more_than_could_come_out_is_doubted_per_colour() -> None:
    found = doubts(Observation(cubes={"blue": 5, "red": 1}), {"blue": 2}, {"blue": 1, "red": 1}, None)
    assert found == ["5 blue read, but only 3 could have come out (2 dropped + 1 inside)"]


def test_the_break_beam_must_agree_with_the_camera() -> None:
    found = doubts(Observation(cubes={"blue": 2}), {"blue": 4}, {}, beam=3)
    assert found == ["the break-beam counted 3 cubes falling but the camera sees 2"]


def test_low_confidence_and_an_unsettled_tray_are_doubts() -> None:
    obs = Observation(cubes={"blue": 1}, confidence=0.5, reason="two faces merged", settled=False)
    found = doubts(obs, {"blue": 1}, {}, None)
    assert len(found) == 2 and "unsure" in found[0] and "settle" in found[1]


def test_nothing_out_is_a_jam_only_where_the_funnel_cannot_be_seen() -> None:
    empty = Observation(cubes={})
    assert doubts(empty, {"blue": 2}, {}, beam=0, funnel_left={}) == []  # all stuck in the tower: it happens
    assert "may have jammed" in doubts(empty, {"blue": 2}, {}, beam=0, funnel_left=None)[0]
    assert "still in the funnel" in doubts(empty, {"blue": 2}, {}, beam=0, funnel_left={"blue": 2})[0]
