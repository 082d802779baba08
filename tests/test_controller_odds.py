"""The odds at the table: computed before each release, stored with the drop's intent, shown with the
drop; the station's records as drop logs; the config's choice of model, `fitted` included."""

from __future__ import annotations

from pathlib import Path

from controller.droplog import log_entries, session_drops
from controller.odds import choose_model, odds_before_drop
from controller.table import Table
from hardware.config import parse_config
from towermodel.droplog import drops_from_lines
from towermodel.models import named_model
from towermodel.odds import battle_odds

ATTACK = {"battle": "attack", "attacker": "blue", "attacking_armies": 4, "defender": "yellow",
          "defending_armies": 3}


def _play(table: Table, battles: int) -> None:
    table.new_session(["red", "blue", "yellow"])
    table.release(table.fill()["drop_id"])
    for p in ("red", "blue", "yellow"):
        table.deploy(p, 30)
    for k in range(battles):
        attacker, defender = ("blue", "yellow") if k % 2 == 0 else ("yellow", "red")
        table.release(table.plan({**ATTACK, "attacker": attacker, "defender": defender})["drop_id"])


def test_odds_are_stored_before_the_release_and_shown_with_the_drop(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _play(table, 0)
        planned = table.plan(ATTACK)
        odds = planned["odds"]
        assert odds == battle_odds(planned["battle"], named_model("spielbyweb"), "spielbyweb")
        assert table.status()["drop"]["odds"] == odds
        intent = [r for r in table.log() if r["kind"] == "intent"][-1]
        assert intent["payload"]["odds"] == odds
        view = table.release(planned["drop_id"])
        assert view["odds"] == odds
        assert table.history()[0]["odds"] == odds
        fill_intent = [r for r in table.log() if r["kind"] == "intent"][0]
        assert fill_intent["payload"]["odds"] is None  # the initial fill has no winner


def test_the_records_make_a_drop_log_that_holds_together(tmp_path: Path) -> None:
    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _play(table, 4)
        records = table.store.records()
        tower = table.status()["tower"]
    entries = log_entries(records)
    assert len(entries) == 5 and entries[0]["battle"] == "initial_fill"
    drops = drops_from_lines(entries)  # no line claims more cubes than were there
    inside: dict[str, int] = dict(drops[-1].inside)
    for colour in set(drops[-1].dropped) | set(inside):
        inside[colour] = inside.get(colour, 0) + drops[-1].dropped.get(colour, 0) - drops[-1].came_out.get(colour, 0)
    assert {c: n for c, n in inside.items() if n} == {c: n for c, n in tower.items() if n}  # the ledger agrees
    assert all(e["odds"] for e in entries[1:]) and all(e["outcome"] for e in entries[1:])
    assert list(session_drops(records)) == [1]


def test_fitted_odds_fall_back_until_the_fit_can_be_trusted(tmp_path: Path) -> None:
    cfg = parse_config({"station": {"odds_model": "fitted", "data_dir": str(tmp_path)}})
    with Table.open(config=cfg, data_dir=tmp_path, reader="direct") as table:
        _play(table, 2)
        planned = table.plan(ATTACK)
        assert planned["odds"]["model"] == "spielbyweb"
        assert "cannot be trusted" in planned["odds"]["note"]
        records = table.store.records()
    model, reported, note = choose_model("fitted", records, tmp_path)
    assert reported == "spielbyweb" and note is not None
    assert (tmp_path / "fitted-model.json").exists()
    assert odds_before_drop({"battle": "initial_fill"}, "fitted") is None


def test_a_fit_saved_by_an_older_likelihood_is_fitted_again(tmp_path: Path) -> None:
    import json

    from controller.odds import fitted_models

    with Table.open(data_dir=tmp_path, reader="direct") as table:
        _play(table, 2)
        records = table.store.records()
    fresh = fitted_models(records, tmp_path)
    saved = json.loads((tmp_path / "fitted-model.json").read_text(encoding="utf-8"))
    assert saved["fits"] == fresh and saved["version"] == 2
    # A file from before the shelves likelihood followed the contract's rule: same drops, no version.
    stale = [{**fit, "log_likelihood": -1.0} for fit in fresh]
    (tmp_path / "fitted-model.json").write_text(json.dumps({"drops": saved["drops"], "fits": stale}), encoding="utf-8")
    assert fitted_models(records, tmp_path) == fresh


def test_the_odds_in_players_words() -> None:
    from controller.odds import describe_odds

    battle = {"battle": "revolt", "defender": "red", "defending_armies": 2, "revolt_markers": 2, "buildings": [],
              "tray_before": {}, "tower_before": {"green": 1}}
    lines = describe_odds(battle_odds(battle, named_model("spielbyweb"), "spielbyweb"))
    assert lines[0].startswith("Odds before the drop (spielbyweb, exact): the peasants win")
    assert "red wins" in lines[0] and lines[1].startswith("Expected in the tray: the peasants")
    assert describe_odds(None) == [] and describe_odds({"error": "no odds: x"}) == ["no odds: x"]
