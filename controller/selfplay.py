"""A simulated game played on a ``Table`` by a seeded robot: for the crash run, the soak run and tests.

The robot chooses each battle from the session's account (who has armies on the map, who is in
supply), so every battle is legal, and it plays every kind: attacks on player and neutral counties,
revolts, winter revolts, and dice-tower conversions at the Emperor's Court. It keeps no memory of
its own: each step is decided from the table's state alone, so a robot killed at any moment and
started again simply carries on with the drop in flight and then the game.

``python -m controller.selfplay --data-dir D --battles N`` is the crash run's worker: it prints
``ready`` once the table is open (and a drop in flight resumed) and ``done`` at the end.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from controller.table import Table

PLAYERS = ["red", "blue", "yellow", "purple"]
KINDS = ("attack", "attack_neutral", "revolt", "winter_revolt", "court")


def next_battle(status: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any]]:
    """A legal battle (or a court conversion) for the session as it stands."""
    players = status["session"]["players"]
    board = status["board"]
    kind = rng.choice(KINDS if status["session"]["emperors_court"] else KINDS[:-1])
    if kind == "court":
        in_tray = [p for p in players if status["tray"].get(p, 0) >= 1]
        if in_tray:
            player = rng.choice(in_tray)
            room = min(3, status["tray"][player])
            # courtiers spent on favor cards come home, so the court never fills up for good
            spend = min(3, status["courtiers"].get(player, 0)) if status["courtiers"].get(player, 0) > 7 - room else 0
            return "court", {"player": player, "cubes": rng.randint(1, room), "spend": spend}
        kind = "attack"
    able = [p for p in players if board.get(p, 0) >= 2]
    if kind.startswith("attack") and able:
        attacker = rng.choice(able)
        armies = rng.randint(1, min(7, board[attacker] - 1))
        others = [p for p in players if p != attacker and board.get(p, 0) >= 1]
        if kind == "attack" and others:
            defender = rng.choice(others)
            return kind, {"battle": "attack", "attacker": attacker, "attacking_armies": armies,
                          "origin_armies": min(board[attacker], armies + rng.randint(1, 3)),
                          "defender": defender, "defending_armies": rng.randint(1, min(6, board[defender])),
                          "revolt_markers": rng.randint(0, 2), "buildings": rng.choice([[], [], ["palace"]])}
        return "attack_neutral", {"battle": "attack", "attacker": attacker, "attacking_armies": armies,
                                  "defender": None, "defending_armies": 0}
    owners = [p for p in players if board.get(p, 0) >= 1] or players
    owner = rng.choice(owners)
    armies = max(1, rng.randint(1, max(1, min(5, board.get(owner, 0)))))
    if kind == "winter_revolt":
        return kind, {"battle": "winter_revolt", "defender": owner, "defending_armies": armies,
                      "revolt_markers": rng.randint(0, 2), "unsupplied_counties": rng.randint(1, 8)}
    return "revolt", {"battle": "revolt", "defender": owner, "defending_armies": armies,
                      "revolt_markers": rng.randint(1, 3), "buildings": rng.choice([[], ["church"]])}


def finish_in_flight(table: Any) -> dict[str, Any] | None:
    """Carry the drop in flight to its end (release once if never released, close when resolved)."""
    for _ in range(6):
        drop = table.status()["drop"]
        if drop is None:
            return None
        phase = drop["phase"]
        if phase == "planned":
            table.release(drop["drop_id"])
        elif phase == "counted":  # a doubted reading: the robot host confirms it as read
            table.confirm(drop["drop_id"], who="robot host")
        elif phase == "resolved":
            check = table.clean()
            if not check["closed"]:
                raise RuntimeError(f"the tray does not clear: {check}")
        elif phase == "release_unknown":
            raise RuntimeError(f"drop {drop['drop_id']} needs the host to say whether the funnel emptied")
        else:
            raise RuntimeError(f"drop {drop['drop_id']} is stuck in phase {phase}")
    last: dict[str, Any] | None = table.status()["drop"]
    return last


def play(table: Any, battles: int, *, seed: int = 1, players: list[str] | None = None,
         emperors_court: bool = True, on_drop: Any = None) -> dict[str, int]:
    """Play until ``battles`` drops after the initial fill are closed. Returns counts per kind."""
    kinds: dict[str, int] = {}
    if table.status()["session"] is None:
        table.new_session(players or PLAYERS, emperors_court)
    finish_in_flight(table)
    status = table.status()
    if not status["session"]["filled"]:
        table.release(table.fill()["drop_id"])
        finish_in_flight(table)
    while True:
        status = table.status()
        if status["drops_done"] >= battles + 1:
            return kinds
        rng = random.Random(f"{seed}-{table.store.count()}")
        for p in status["session"]["players"]:  # keep armies on the map: players deploy from their supply
            if status["board"].get(p, 0) < 8 and status["supply"].get(p, 0) >= 12:
                table.deploy(p, 10)
        status = table.status()
        kind, what = next_battle(status, rng)
        kinds[kind] = kinds.get(kind, 0) + 1
        if kind == "court":
            if what["spend"]:
                table.court_return(what["player"], what["spend"])
            table.court_convert(what["player"], what["cubes"])
            continue
        planned = table.plan(what)
        view = table.release(planned["drop_id"])
        if on_drop is not None:
            on_drop(kind, view)
        finish_in_flight(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the crash run's worker: play a simulated game on a data dir")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--config", default=None)
    parser.add_argument("--battles", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reader", choices=("direct", "camera"), default="direct")
    parser.add_argument("--finish", action="store_true", help="only finish the drop in flight, then stop")
    args = parser.parse_args(argv)
    with Table.open(config_path=args.config, data_dir=args.data_dir, reader=args.reader) as table:
        print("ready", flush=True)
        if args.finish:
            finish_in_flight(table)
        else:
            play(table, args.battles, seed=args.seed)
        print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
