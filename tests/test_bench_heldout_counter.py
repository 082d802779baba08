"""The held-out bench's summary of the station's gate (bench/heldout_counter.py)."""

from __future__ import annotations

from typing import Any

from bench_scripts import load


def _bench() -> Any:
    return load("heldout_counter")


def _row(bench: Any, name: str, station: str, *, foreign: bool = False, right: bool = True) -> Any:
    return bench.Scored(name, foreign, station != "refuses", right, right, station == "acts", 0, 0, 10,
                        float("nan"), (1280, 960), 1.0, 1.0, {}, {}, {}, None, station=station,
                        station_right=right)


def test_the_gate_is_also_given_on_the_clean_trays_where_a_set_has_foreign_objects() -> None:
    bench = _bench()
    rows = [_row(bench, "t1", "acts"), _row(bench, "t2", "acts"), _row(bench, "t3", "asks"),
            _row(bench, "t4", "refuses", foreign=True)]
    lines = bench.station_summary(rows)
    assert "acts without asking 2/4 (50.0 %), wrong 0" in lines[0]
    assert lines[1] == "  on the clean trays: acts without asking 2/3 (66.7 %)"
    clean_only = bench.station_summary(rows[:3])
    assert not any("clean trays" in line for line in clean_only)  # the first line says it already


def _meta(cubes: dict[str, int], courtiers: dict[str, int]) -> dict[str, Any]:
    return {"cubes": cubes, "visible_cubes": cubes, "courtiers": courtiers, "visible_courtiers": courtiers}


def test_the_gate_acting_on_a_reading_that_missed_a_courtier_is_wrong_with_its_cubes_right() -> None:
    """Courtiers never go into the tower and the battle is resolved from the cubes: a trusted read
    that missed a courtier is acted on wrongly, but the battle is right, and the summary says so."""
    from vision.reading import TrayReading

    bench = _bench()
    meta = _meta({"red": 3, "blue": 2}, {"purple": 1})
    missed_courtier = TrayReading(cubes={"red": 3, "blue": 2}, courtiers={"purple": 0})
    assert bench.station_gate(meta, missed_courtier, "t1", 0.0) == ("acts", False, 0, True, 0)
    one_cube_short = TrayReading(cubes={"red": 2, "blue": 2}, courtiers={"purple": 1})
    # the beam (no clumps) counted 5 where 4 are seen: a cube hidden, nothing acted on
    assert bench.station_gate(meta, one_cube_short, "t2", 0.0) == ("shakes", False, 0, False, 0)
    rows = [_row(bench, "t1", "acts", right=False), _row(bench, "t3", "acts")]
    rows[0].station_cubes_right = True
    assert "wrong 1 (a courtier only, the cubes right: 1); asks" in bench.station_summary(rows)[0]
    assert "wrong 0; asks" in bench.station_summary(rows[1:])[0]


def test_every_shaken_twin_read_alone_is_summed_where_a_set_has_twins() -> None:
    bench = _bench()
    rows = [_row(bench, "t1", "acts"), _row(bench, "t2", "asks"), _row(bench, "t3", "acts")]
    rows[0].twins_alone = [(True, True), (True, False)]
    rows[1].twins_alone = [(False, True), (True, True)]
    assert ("  every shaken twin read alone: 4; right 3, trusted 3, wrong but trusted 1"
            in bench.station_summary(rows))
    assert not any(line.startswith("  every shaken twin") for line in bench.station_summary(rows[2:]))


def test_joined_reads_are_scored_against_the_tray_hidden_cubes_included() -> None:
    """A pile read that missed a hidden green cube, joined with two spread reads that see it: the
    likeliest tray content is the tray's, by more as each twin is joined; the table bins it."""
    from vision.reading import TrayReading

    bench = _bench()
    meta = {"cubes": {"yellow": 8, "green": 7}, "visible_cubes": {"yellow": 8, "green": 6}}
    pile = TrayReading(cubes={"yellow": 8, "green": 6}, trusted=False, alternatives={"yellow": [(8, 0.8), (9, 0.2)]})
    spread = TrayReading(cubes={"yellow": 8, "green": 7}, trusted=False,
                         alternatives={"yellow": [(8, 0.8), (9, 0.2)], "green": [(7, 0.9), (8, 0.1)]})
    joins = bench.joined_reads(meta, pile, [spread, spread], "t1")
    assert [ok for _, ok in joins] == [True, True] and joins[0][0] < joins[1][0]
    wrong_twin = TrayReading(cubes={"yellow": 9, "green": 7}, trusted=True)
    assert bench.joined_reads(meta, pile, [wrong_twin], "t1")[0][1] is False
    rows = [_row(bench, "t1", "acts"), _row(bench, "t2", "asks")]
    rows[0].joins, rows[1].joins = joins, [(0.6, False)]
    lines = bench.join_reliability(rows)
    assert lines[2].startswith("[0.50, 0.80]") and lines[2].split()[2:5] == ["1", "0", "0.0"]
    assert sum(int(line.split()[2]) for line in lines[2:]) == 3
    assert bench.join_reliability([_row(bench, "t3", "acts")]) == []  # no twins, no table


def test_an_ask_is_scored_by_what_the_host_answers_complete() -> None:
    """The host answers only the colours asked about; the rest of the tray is kept as read. So an
    ask is right where the read's other colours are, and wrong where one the question leaves out
    was misread: the summary says how many asks the answers complete right."""
    from vision.reading import TrayReading

    bench = _bench()
    meta = _meta({"red": 6, "blue": 3}, {})

    def unsure_of_red(blue: int) -> TrayReading:
        return TrayReading(cubes={"red": 6, "blue": blue}, trusted=False, alternatives={"red": [(6, 0.5), (7, 0.5)]})

    asked = bench.station_gate(meta, unsure_of_red(3), "t1", 0.03)
    assert asked.station == "asks" and asked.right and asked.cubes_right and asked.colours_asked == 1
    misread = bench.station_gate(meta, unsure_of_red(4), "t1", 0.03)
    assert misread.station == "asks" and not misread.right and not misread.cubes_right
    rows = [_row(bench, "t1", "asks"), _row(bench, "t2", "asks", right=False)]
    assert "asks the host 2 (answered, the tray is right on 1); a cube left" in bench.station_summary(rows)[0]
    rows[0].station_asked, rows[1].station_asked = 1, 2
    assert "(answered, the tray is right on 1; 3 colours asked about); a cube left" in bench.station_summary(rows)[0]
    rows[1].station_asked = 0
    assert "(answered, the tray is right on 1; 1 colour asked about); a cube left" in bench.station_summary(rows)[0]


def test_a_scene_the_game_cannot_hold_is_named() -> None:
    """The renderer may put 21 green cubes in a tray; the game has 20. The summary names the scene."""
    bench = _bench()
    rows = [_row(bench, "t1", "acts"), _row(bench, "t2", "asks")]
    rows[1].cubes = {"green": 21, "red": 3}
    assert bench.beyond_the_game(rows) == ["  scenes the game cannot hold (more cubes of a colour than it has): 1 (t2)"]
    rows[1].cubes = {"green": 20, "red": 3}
    assert bench.beyond_the_game(rows) == []


def test_the_gate_is_also_given_on_the_clean_trays_the_game_can_hold() -> None:
    """A tray holding more cubes of a colour than the game has is rightly asked about; the share on
    the trays a table can hold is given beside the clean trays' share, where a set has such a tray."""
    bench = _bench()
    rows = [_row(bench, "t1", "acts"), _row(bench, "t2", "asks"), _row(bench, "t3", "asks"),
            _row(bench, "t4", "refuses", foreign=True)]
    rows[1].cubes = {"green": 21, "red": 3}
    lines = bench.station_summary(rows)
    assert lines[1] == "  on the clean trays: acts without asking 1/3 (33.3 %)"
    assert lines[2] == "  on the clean trays the game can hold: acts without asking 1/2 (50.0 %)"
    rows[1].cubes = {"green": 20, "red": 3}
    assert not any("game can hold" in line for line in bench.station_summary(rows))


def test_a_missed_courtier_is_wrong_by_the_bench_and_right_by_the_issues_measure() -> None:
    """The bench judges courtiers too; the issue's measure judges the cubes alone: both are printed."""
    from vision.reading import TrayReading

    bench = _bench()
    meta = _meta({"red": 3, "blue": 2}, {"purple": 1})
    missed_courtier = bench.score(meta, TrayReading(cubes={"red": 3, "blue": 2}, courtiers={"purple": 0}),
                                  1.0, "t1", (1280, 960))
    assert (missed_courtier.right, missed_courtier.cubes_right) == (False, True)
    courtier_as_cube = bench.score(meta, TrayReading(cubes={"red": 3, "blue": 2, "purple": 1}, courtiers={}),
                                   1.0, "t2", (1280, 960))
    assert (courtier_as_cube.right, courtier_as_cube.cubes_right) == (False, False)
    lines = bench.summary([missed_courtier, courtier_as_cube], "set")
    assert "  by the issue's measure (the cubes alone, courtiers not judged): 1/2 (50.0 %)" in lines


def test_the_gate_s_time_names_its_worst_scene_and_leaves_out_scenes_it_did_not_time() -> None:
    bench = _bench()
    rows = [_row(bench, "t1", "acts"), _row(bench, "t2", "asks"), _row(bench, "t3", "acts")]
    rows[0].gate_ms, rows[1].gate_ms = 2.0, 40.0  # t3 was not timed
    assert bench.gate_time(rows) == ["  the gate's CPU per scene, its reads given: median 21.0 ms, worst 40.0 ms (t2)"]
    assert bench.gate_time(rows[2:]) == []
