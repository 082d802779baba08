"""Which tower model the station's odds use, and the odds of a battle before its drop.

The config's ``station.odds_model`` names a published model (``spielbyweb``, ``wallenstein-online``,
``shelves``) or ``fitted``: the family with the lowest AIC fitted to every session in this station's
records (each session starts with an empty tower, so each is one drop log). A fit is kept in
``fitted-model.json`` in the data directory with the number of drops it was made from, and is made
again when drops have been added. Until the fit can be trusted (``towermodel.fit.MIN_DROPS``) the
odds use ``spielbyweb`` and say so.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from controller.droplog import session_drops
from controller.records import Record
from towermodel.droplog import DropLogError, drops_from_lines
from towermodel.fit import fit_models
from towermodel.models import NAMED_MODELS, TowerModelParams, model_from_json, named_model
from towermodel.odds import battle_odds

ODDS_MODELS = (*NAMED_MODELS, "fitted")
FALLBACK = "spielbyweb"
FIT_FILE = "fitted-model.json"
FIT_VERSION = 2
"""Kept in the fit file: a fit saved by an older likelihood (version 1: the shelves model whose cubes
at rest were knocked loose only from the next drop on) is fitted again, not reused."""


def station_logs(records: list[Record]) -> list[list[Any]]:
    """Every session's drops as towermodel drops (sessions whose log cannot be true are left out)."""
    logs = []
    for entries in session_drops(records).values():
        try:
            logs.append(drops_from_lines(entries))
        except DropLogError:
            continue  # a session whose corrected readings contradict each other is not evidence
    return [log for log in logs if log]


def fitted_models(records: list[Record], data_dir: Path | None) -> list[dict[str, Any]]:
    """``tower model fit``'s list for every session of the station, from the cache file where it is current."""
    logs = station_logs(records)
    drops = sum(len(log) for log in logs)
    cache = data_dir / FIT_FILE if data_dir is not None else None
    if cache is not None and cache.exists():
        try:
            saved = json.loads(cache.read_text(encoding="utf-8"))
            if saved.get("drops") == drops and saved.get("version") == FIT_VERSION:
                return list(saved["fits"])
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache is only a cache: fit again
    if drops == 0:
        return []
    fits = [fit.to_json() for fit in fit_models(logs)]
    if cache is not None:
        with contextlib.suppress(OSError):  # a read-only data directory: fit again next time
            cache.write_text(json.dumps({"version": FIT_VERSION, "drops": drops, "fits": fits}), encoding="utf-8")
    return fits


def choose_model(name: str, records: list[Record] | None = None, data_dir: Path | None = None
                 ) -> tuple[TowerModelParams, str, str | None]:
    """The model called ``name``: (model, the name the odds report, a note or None)."""
    if name != "fitted":
        return named_model(name), name, None
    fits = fitted_models(records or [], data_dir)
    if not fits:
        return named_model(FALLBACK), FALLBACK, f"no drops to fit yet: {FALLBACK} is used instead"
    best = fits[0]
    if not best.get("trusted", False):
        return (named_model(FALLBACK), FALLBACK,
                f"the fit to {best['drops']} drops cannot be trusted yet: {FALLBACK} is used instead")
    return model_from_json(best), f"fitted ({best['family']}, {best['drops']} drops)", None


def odds_before_drop(battle: dict[str, Any], model_name: str, records: list[Record] | None = None,
                     data_dir: Path | None = None) -> dict[str, Any] | None:
    """The odds of a planned battle (as the engine reads it, ``tower_before`` included), or None for
    the initial fill. Never raises: the odds inform the players and must not stop a drop."""
    if battle.get("battle") not in ("attack", "revolt", "winter_revolt"):
        return None
    try:
        model, reported, note = choose_model(model_name, records, data_dir)
        odds = battle_odds(battle, model, reported)
    except Exception as exc:  # noqa: BLE001 - odds are advice; the drop goes on without them
        return {"model": model_name, "error": f"no odds: {exc}"}
    if note:
        odds["note"] = note
    return odds


__all__ = ["ODDS_MODELS", "choose_model", "fitted_models", "model_from_json", "odds_before_drop", "station_logs"]


def _side(colour: str) -> str:
    return "the peasants" if colour == "green" else colour


def describe_odds(odds: dict[str, Any] | None) -> list[str]:
    """The odds in players' words, one line each (CLI; the web page words them alike)."""
    if not odds:
        return []
    if "error" in odds:
        return [odds["error"]]
    how = "exact" if odds.get("method") == "exact" else f"simulated, {odds.get('samples', 0):,} drops"
    a, d = _side(odds["attacker"]), _side(odds["defender"])
    win = "win" if a == "the peasants" else "wins"
    lines = [f"Odds before the drop ({odds['model']}, {how}): {a} {win} {100 * odds['attacker_wins']:.1f} %, "
             f"tie {100 * odds['tie']:.1f} %, {d} wins {100 * odds['defender_wins']:.1f} %",
             f"Expected in the tray: {a} {odds['expected_in_tray']['attacker']:.1f}, "
             f"{d} {odds['expected_in_tray']['defender']:.1f}"]
    if odds.get("note"):
        lines.append(odds["note"])
    return lines
