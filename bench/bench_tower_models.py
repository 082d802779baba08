"""The three simulated tower models over many simulated games: the share of thrown cubes that comes
out, and how many cubes sit inside the tower on average (issue 4, must-show 5).

Each game starts with an empty tower and the initial fill of a 4-player game (7 cubes per player and
10 peasants, 38 cubes), then plays 40 battles; a battle throws 1..9 attacking and 1..7 defending
cubes plus 0..3 peasants (about 10.5 cubes). 1,000 seeded games per model, so the figures repeat:

==================  ==========  =========  ============  ==========  ===========
model               share out   of the     mean inside   inside at   sd(out-in)
                    (game)      fill       (per battle)  game's end  per battle
==================  ==========  =========  ============  ==========  ===========
spielbyweb          0.977       0.669      10.6          10.5        2.70
wallenstein-online  0.981       0.497      8.9           8.8         3.52
shelves             0.969       0.798      13.4          14.1        2.44
==================  ==========  =========  ============  ==========  ===========

"share out (game)": cubes that came out over everything thrown in a game, the fill included; "of the
fill": the share of the 38 set-up cubes that came straight out; "sd(out-in)": the spread of (cubes
out - cubes thrown) in one battle, i.e. how much the tower's memory moves a battle's result.

Reading them: in the two "two-chance" models the store settles within a few battles where as many
cubes leave as stick. ``spielbyweb`` (new 2/3, stuck 1/3) settles at about the size of one throw
(stuck per battle = throw/3 = store/3). ``wallenstein-online`` (new 1/2, stuck 0.6) holds fewer
(store = throw x 0.5/0.6) but swings most from battle to battle, as most of its store leaves at
once. ``shelves`` lets 0.85^2 = 72 % of a throw straight through and releases stored cubes only when
passing cubes knock them loose (1 in 40 each), so it keeps filling slowly through the game and holds
the most, with the steadiest battles. (A cube that came to rest on a shelf can be knocked loose by
the cubes behind it in the same drop, as the contract says; when it could be knocked loose only from
the next drop on, an earlier reading, the fill let 0.722 out and the tower held 15.3 on average.)
Over a whole game all three let out 97-98 % of what was thrown.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulation.tower import TOWER_MODELS, make_tower_model  # noqa: E402

PLAYERS = ("red", "blue", "yellow", "purple")
GAMES = 1000
BATTLES = 40


def play_game(model: str, rng: random.Random) -> dict[str, float]:
    tower = make_tower_model(model)
    fill = [c for c in PLAYERS for _ in range(7)] + ["green"] * 10
    fill_out = len(tower.drop(fill, rng))
    thrown = out = 0
    inside_sum = 0
    swings: list[int] = []
    for _ in range(BATTLES):
        attacker, defender = rng.sample(PLAYERS, 2)
        n_att = rng.randint(1, 9)
        n_def = rng.randint(1, 7)
        cubes = [attacker] * n_att + [defender] * n_def + ["green"] * rng.randint(0, 3)
        thrown += len(cubes)
        came = len(tower.drop(cubes, rng))
        out += came
        swings.append(came - len(cubes))
        inside_sum += tower.total_inside()
    return {"fill_out": fill_out / len(fill), "thrown": thrown + len(fill), "out": out + fill_out,
            "mean_inside": inside_sum / BATTLES, "end_inside": tower.total_inside(),
            "swing_sq": sum(d * d for d in swings) / len(swings)}


def main() -> int:
    print(f"{GAMES} games x (initial fill of 38 + {BATTLES} battles) per model")
    print(f"{'model':<20} {'share out':>10} {'of fill':>8} {'mean inside':>12} {'end inside':>11} {'sd(out-in)':>11} {'time':>7}")
    for model in TOWER_MODELS:
        rng = random.Random(f"bench-{model}")
        start = time.perf_counter()
        games = [play_game(model, rng) for _ in range(GAMES)]
        took = time.perf_counter() - start
        share = sum(g["out"] for g in games) / sum(g["thrown"] for g in games)
        fill = sum(g["fill_out"] for g in games) / GAMES
        inside = sum(g["mean_inside"] for g in games) / GAMES
        end = sum(g["end_inside"] for g in games) / GAMES
        swing = (sum(g["swing_sq"] for g in games) / GAMES) ** 0.5
        print(f"{model:<20} {share:>10.3f} {fill:>8.3f} {inside:>12.1f} {end:>11.1f} {swing:>11.2f} {took:>6.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
