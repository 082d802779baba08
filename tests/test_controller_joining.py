"""Reads of one tray joined by their likelihoods (``controller.joining``)."""

from __future__ import annotations

import pytest
from laid_out import laid_out

from controller import joining
from controller.joined_reads import JOINT_BAR, Witness, asked_as_joined, join_reads, joined_courtiers
from controller.joining import (
    FLOOR,
    FLOOR_DECAY,
    SPREAD_DOUBT,
    joint_chances,
    named_counts,
    sight_chance,
    spread_named,
)
from controller.rereads import contradicts
from controller.verify import Assessment, Reconciliation
from vision.reading import TrayReading


def _read(cubes: dict[str, int], alternatives: dict[str, list[tuple[int, float]]] | None = None,
          cover: float = 1.0) -> TrayReading:
    return TrayReading(cubes=cubes, trusted=not alternatives, alternatives=alternatives or {}, alternatives_cover=cover)


def test_a_colour_not_in_doubt_names_its_count_alone() -> None:
    read = _read({"red": 6, "blue": 3}, {"blue": [(3, 0.7), (4, 0.3)]})
    assert named_counts(read, "red") == {6: 1.0}
    assert named_counts(read, "blue") == {3: 0.7, 4: 0.3}
    assert named_counts(read, "green") == {0: 1.0}


def test_a_cube_more_in_the_tray_may_lie_hidden_more_so_in_a_full_tray() -> None:
    """A read sure of 6 red leaves 7 red in the tray possible, as a hidden cube: likelier where the
    read saw 40 cubes than where it saw 8; a cube fewer than it saw has only the floor."""
    small = _read({"red": 6, "blue": 2})
    full = _read({"red": 6, "blue": 34})
    assert sight_chance(small, "red", 6) == pytest.approx(sight_chance(full, "red", 6), rel=0.2)
    assert FLOOR < sight_chance(small, "red", 7) < sight_chance(full, "red", 7) < sight_chance(full, "red", 6)
    assert sight_chance(full, "red", 5) == pytest.approx(FLOOR, rel=0.2)
    assert sight_chance(full, "red", 5) < sight_chance(full, "red", 7)
    assert sight_chance(full, "red", 3) < sight_chance(full, "red", 4) < sight_chance(full, "red", 5)


def test_what_the_alternatives_leave_out_keeps_the_read_uncovered_share() -> None:
    unsure = _read({"red": 6}, cover=0.9)
    assert sight_chance(unsure, "red", 5) == pytest.approx(0.1, rel=0.01)


def test_joined_chances_sum_to_one_likeliest_first() -> None:
    reads = [_read({"red": 6, "blue": 3}, {"blue": [(3, 0.6), (4, 0.4)]}),
             _read({"red": 6, "blue": 4}, {"blue": [(4, 0.9), (3, 0.1)]})]
    chances = joint_chances(reads, None, 0.03, {}, None)
    assert sum(p for p, _ in chances) == pytest.approx(1.0)
    assert [p for p, _ in chances] == sorted((p for p, _ in chances), reverse=True)
    assert chances[0][1] == {"red": 6, "blue": 4}


def test_the_beam_rules_out_a_tray_with_fewer_cubes_than_it_counted() -> None:
    """The reads lean to 3 blue, but the beam counted 10 cubes falling: 9 cannot be, so 4 blue."""
    reads = [_read({"red": 6, "blue": 3}, {"blue": [(3, 0.7), (4, 0.3)]}),
             _read({"red": 6, "blue": 3}, {"blue": [(3, 0.7), (4, 0.3)]})]
    assert joint_chances(reads, None, 0.03, {}, None)[0][1] == {"red": 6, "blue": 3}
    chances = joint_chances(reads, 10, 0.03, {}, None)
    assert all(sum(tray.values()) >= 10 for _, tray in chances)
    assert chances[0][1] == {"red": 6, "blue": 4}


def test_the_ledger_bounds_each_colour() -> None:
    """No more blue than was dropped and inside the tower: the reads' 5 blue cannot be."""
    reads = [_read({"blue": 5}, {"blue": [(5, 0.8), (4, 0.2)]})] * 2
    chances = joint_chances(reads, None, 0.03, {"blue": 4}, {"blue": 0})
    assert chances and all(tray["blue"] <= 4 for _, tray in chances)


def test_a_pile_read_that_missed_a_hidden_cube_is_outweighed_by_spread_reads() -> None:
    """Tuning seed 5404 ``t0005`` in small: the pile's read is sure of 6 green among 15 cubes, the
    two reads of the spread tray see 7 at about 92 %, and the beam counted 15 (a clump). Joined, 7
    green is well over 95 %."""
    pile = _read({"yellow": 8, "black": 1, "green": 6}, {"yellow": [(8, 0.78), (9, 0.15), (7, 0.07)]}, 0.976)
    spread = [_read({"yellow": 8, "black": 1, "green": 7}, {"yellow": [(8, 0.8), (9, 0.15), (7, 0.05)],
                                                          "green": [(7, 0.92), (8, 0.08)]}, 0.98)] * 2
    share, tray = joint_chances([pile, *spread], 15, 0.03, {}, None)[0]
    assert tray == {"yellow": 8, "black": 1, "green": 7} and share > 0.95


def _spread(cubes: dict[str, int], shift_mm: float) -> TrayReading:
    """A read sure of ``cubes``, each cube's patch moved ``shift_mm``: a tray that moved."""
    return TrayReading(cubes=cubes, detections=laid_out(cubes, shift_mm))


def test_a_join_adds_no_cube_that_no_read_saw() -> None:
    """Every read saw 10 green; a beam of 11 leaves only 11 green possible, a cube hidden in every
    read, but no read named 11: nothing is settled on the model's word (the cycle shakes for a hidden
    cube instead). With the beam at 10 the reads settle 10."""
    pile, after = _spread({"green": 10}, 0.0), _spread({"green": 10}, 5.0)
    witness = Witness(Assessment([], dict(pile.cubes)), pile, False)
    assert joint_chances([pile, after], 11, 0.03, {}, None)[0][1] == {"green": 11}
    assert join_reads([witness], after, 11, 0.03, {}, None) is None
    settled = join_reads([witness], after, 10, 0.03, {}, None)
    assert settled is not None and settled[0] == {"green": 10} and "by the 2 reads together" in settled[1]


def _unsure(cubes: dict[str, int], alternatives: dict[str, list[tuple[int, float]]], shift_mm: float) -> TrayReading:
    """A read unsure of some colours, each cube's patch moved ``shift_mm``."""
    return TrayReading(cubes=cubes, trusted=False, alternatives=alternatives, detections=laid_out(cubes, shift_mm))


def test_a_question_after_joined_reads_asks_what_they_leave_open_with_their_odds() -> None:
    """Tuning seed 5405 ``t0019`` in small: three reads (the pile, two shaken spreads) all saw 25
    purple, each unsure of 26, and one also of 9 blue. Joined, 25 purple is likeliest but under the
    bar, and 9 blue is too unlikely to ask about: the host is asked about purple alone, with the
    joined odds, and the reads' likeliest tray is what an answer completes."""
    seen = {"purple": 25, "blue": 8}
    purple = [(25, 0.65), (26, 0.35)]
    pile = _unsure(seen, {"purple": purple, "blue": [(8, 0.8), (9, 0.2)]}, 0.0)
    first, second = _unsure(seen, {"purple": purple}, 5.0), _unsure(seen, {"purple": purple}, 17.0 + 6.0)
    witnesses = [Witness(Assessment([], seen), pile, False), Witness(Assessment([], seen), first, True)]
    assert join_reads(witnesses, second, None, 0.03, {}, None) is None  # not sure enough to use
    asked = asked_as_joined(witnesses, second, None, 0.03, {}, None, [])
    assert asked is not None and asked.reconciliation is not None
    assert asked.question == {"purple": [25, 26]}
    assert asked.reconciliation.best == {"purple": 25, "blue": 8}
    assert asked.doubts[0].startswith("Is it 25 or 26 purple? The counter cannot tell, and the 3 reads together")
    purple_share = asked.reconciliation.candidates[0]["posterior"]
    assert asked.reconciliation.candidates[0]["counts"] == {"purple": 25} and 0.5 < purple_share < JOINT_BAR


def test_a_read_after_a_shake_that_moved_nothing_leaves_the_question_of_the_reads_before() -> None:
    """The last shake moved nothing: that read repeats the look before it, so the question is the
    one the reads before it leave; with no read before to join, there is no joined question."""
    seen = {"red": 12}
    red = [(12, 0.6), (13, 0.4)]
    pile, moved = _unsure(seen, {"red": red}, 0.0), _unsure(seen, {"red": red}, 5.0)
    again = _unsure(seen, {"red": red}, 5.0)
    witnesses = [Witness(Assessment([], seen), pile, False), Witness(Assessment([], seen), moved, True)]
    asked = asked_as_joined(witnesses, again, None, 0.03, {}, None, [])
    assert asked is not None and asked.question == {"red": [12, 13]} and "the 2 reads together" in asked.doubts[0]
    assert asked_as_joined(witnesses[:1], _unsure(seen, {"red": red}, 0.0), None, 0.03, {}, None, []) is None


def test_joined_courtiers_are_read_with_the_joined_cubes_or_left_to_the_host() -> None:
    """Reads that disagree on a colour's courtiers, its cubes joined above the last read's count:
    the last read may have taken a cube for a courtier, so that colour's courtiers are those of the
    latest read that saw the joined count; where none saw it, None (the host's to say). A colour
    whose courtiers every read saw alike, or joined at the last read's count, keeps the last read's."""
    def read(cubes: dict[str, int], courtiers: dict[str, int]) -> TrayReading:
        return TrayReading(cubes=cubes, courtiers=courtiers)

    first, second = read({"purple": 2, "red": 4}, {"purple": 1, "red": 1}), read({"purple": 2, "red": 5}, {"purple": 0, "red": 1})
    last = read({"purple": 1, "red": 4}, {"purple": 2, "red": 1})
    assert joined_courtiers([first, second, last], {"purple": 2, "red": 5}) == {"purple": 0, "red": 1}
    assert joined_courtiers([first, last], {"purple": 2, "red": 4}) == {"purple": 1, "red": 1}
    assert joined_courtiers([first, second, last], {"purple": 1, "red": 4}) == {"purple": 2, "red": 1}
    assert joined_courtiers([first, second, last], {"purple": 3, "red": 4}) is None
    alike = [read({"purple": 2}, {"purple": 1}), read({"purple": 1}, {"purple": 1})]
    assert joined_courtiers(alike, {"purple": 2}) == {"purple": 1}


def test_a_read_after_a_shake_keeps_part_of_the_doubt_the_counter_states() -> None:
    """A spread tray is read right more often than the counter says (tuning seeds 5409 and 5414):
    its likeliest count gains what the others lose, and what the alternatives leave out shrinks too,
    down to the floor. A pile read keeps the counter's own odds."""
    assert 0.0 < SPREAD_DOUBT < 1.0
    named = {31: 0.75, 32: 0.2, 30: 0.05}
    surer = spread_named(named)
    assert sum(surer.values()) == pytest.approx(1.0)
    assert surer[32] == pytest.approx(0.2 * SPREAD_DOUBT) and surer[30] == pytest.approx(0.05 * SPREAD_DOUBT)
    assert surer[31] == pytest.approx(1.0 - 0.25 * SPREAD_DOUBT)
    read = _read({"black": 31}, {"black": [(31, 0.75), (32, 0.2), (30, 0.05)]}, cover=0.9)
    pile = sight_chance(read, "black", 32) / sight_chance(read, "black", 31)
    spread = sight_chance(read, "black", 32, spread=True) / sight_chance(read, "black", 31, spread=True)
    assert spread < pile
    assert sight_chance(read, "black", 28, spread=True) < sight_chance(read, "black", 28)
    assert sight_chance(read, "black", 20, spread=True) >= FLOOR * FLOOR_DECAY ** 9 * 0.5


def test_spread_reads_alike_settle_a_pile_the_counter_doubted_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tuning seed 5409 ``t0007`` (7 red, 31 black, the beam 38): the pile read and its three shaken
    twins all saw 31 black, each giving 32 a fifth to a quarter. Joined at the counter's own odds
    they stayed under the bar and the host was asked; taking the spread reads as sure as such reads
    are right, the four settle 31 black."""
    def seen(black: list[tuple[int, float]], cover: float) -> TrayReading:
        return _read({"red": 7, "black": 31}, {"black": black}, cover)

    reads = [seen([(31, 0.549), (32, 0.275), (30, 0.123), (33, 0.053)], 0.971),
             seen([(31, 0.737), (32, 0.222), (33, 0.03), (30, 0.011)], 0.983),
             seen([(31, 0.771), (32, 0.207), (33, 0.022)], 0.979),
             seen([(31, 0.635), (32, 0.245), (30, 0.082), (33, 0.038)], 0.981)]
    spread = [False, True, True, True]
    chances = joint_chances(reads, 38, 0.03, {}, None, spread)
    assert chances[0][1] == {"red": 7, "black": 31} and chances[0][0] >= JOINT_BAR
    monkeypatch.setattr(joining, "SPREAD_DOUBT", 1.0)  # the counter's own odds, as before
    as_stated = joint_chances(reads, 38, 0.03, {}, None, spread)
    assert as_stated[0][1] == {"red": 7, "black": 31} and as_stated[0][0] < JOINT_BAR


def test_a_read_after_a_joined_question_about_two_colours_is_held_against_each() -> None:
    """The reads joined may leave a question about two colours, its candidates one colour each
    (held-out seed 4756 stopped the drop cycle with a KeyError on such a witness). A later read is
    held against each colour's own candidates, and against the read's counts for the rest."""
    asked = Assessment(["Is it 16 or 17 blue, 11 or 12 purple?"], {"blue": 16, "purple": 12, "red": 3},
                       Reconciliation("the 2 reads together", [
                           {"counts": {"blue": 16}, "out": None}, {"counts": {"blue": 17}, "out": None},
                           {"counts": {"purple": 12}, "out": None}, {"counts": {"purple": 11}, "out": None}],
                           None, 0.03))
    assert contradicts(asked, {"blue": 17, "purple": 11, "red": 3}) == {}
    assert contradicts(asked, {"blue": 15, "purple": 12, "red": 4}) == {"blue": [15, 16, 17], "red": [3, 4]}


def _disagreeing() -> list[TrayReading]:
    """Two reads that disagree on every colour (not one tray's reads: a hand in the way, a read of
    another tray): their join weighs every colour's counts of both."""
    colours = ("red", "blue", "yellow", "purple", "black", "green")
    return [_read({c: 5 for c in colours}, {c: [(5, 0.4), (3, 0.3), (7, 0.3)] for c in colours}, 0.6),
            _read({c: 8 for c in colours}, {c: [(8, 0.4), (10, 0.3), (2, 0.3)] for c in colours}, 0.6)]


def test_a_join_of_reads_that_disagree_everywhere_weighs_at_most_its_bound_and_overstates_no_share(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Such reads once made the join enumerate millions of trays in Python (seconds a read, found by
    tests/test_controller_gate_properties.py). Cut to fewer contents, the trays kept keep their order
    and none is given more than the whole join gave it: the dropped trays' weight stays in the whole."""
    reads = _disagreeing()
    whole = joint_chances(reads, 40, 0.03, {}, None, [False, True])
    monkeypatch.setattr(joining, "MOST_TRAYS", 5_000)
    cut = joint_chances(reads, 40, 0.03, {}, None, [False, True])
    assert len(cut) <= 5_000 < len(whole)
    given = {tuple(sorted(tray.items())): share for share, tray in whole}
    assert all(share <= given[tuple(sorted(tray.items()))] * (1 + 1e-9) for share, tray in cut)
    assert cut[0][1] == whole[0][1]
    assert sum(share for share, _ in cut) < 1.0


def test_each_colour_s_shares_are_those_of_the_trays_that_hold_its_counts() -> None:
    reads = [_read({"red": 6, "blue": 3}, {"blue": [(3, 0.6), (4, 0.4)]}),
             _read({"red": 6, "blue": 4}, {"blue": [(4, 0.9), (3, 0.1)]})]
    chances = joint_chances(reads, 10, 0.03, {}, None)
    by_tray: dict[str, dict[int, float]] = {}
    for share, tray in chances:
        for colour, n in tray.items():
            by_tray.setdefault(colour, {})
            by_tray[colour][n] = by_tray[colour].get(n, 0.0) + share
    shares = chances.by_colour()
    assert shares.keys() == by_tray.keys()
    for colour, counts in by_tray.items():
        assert shares[colour] == pytest.approx(counts)
    assert chances[:2] == [chances[0], chances[1]]
