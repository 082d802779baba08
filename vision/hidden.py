"""How many of a tray's cubes the camera cannot see: the pile hides them.

A cube less than a quarter visible is not one the camera must count (the quarter rule), yet it lies
in the tray and it fell through the break-beam. So the beam's count above a reading is not always a
miscount: in a pile some cubes lie under others. How often depends on how full the tray is: on the
tuning part of the training renders (``calibration/fit_hidden_cubes.py``) almost never below 20
cubes, one in two trays of 30-40, and up to four cubes in a tray of 45.

The model is a Poisson count whose mean grows as a power of the cubes the camera sees,
``exp(HIDDEN_LOG_SCALE) * seen ** HIDDEN_POWER`` (maximum likelihood on the 112 tuning scenes): about
0.04 hidden cubes in a tray of 10 seen, 0.2 in 20, 0.5 in 30, 1.1 in 40. It is rough (the renders
show 0.12 per tray of 20-29 seen, the model 0.33), and errs towards more hidden cubes in a mid-sized
tray: a beam above the reading there is more often taken for a hidden cube and shaken for. The
drop cycle weighs the beam with it (:func:`controller.verify.beam_evidence`), so that a beam above
the counter's reading is explained by a hidden cube as readily as by a colour read one short, and a
hidden cube is not silently given to a colour the counter doubted.
"""

from __future__ import annotations

import math

HIDDEN_LOG_SCALE = -8.596
HIDDEN_POWER = 2.348


def hidden_mean(seen: int) -> float:
    """The expected number of cubes lying hidden (less than a quarter visible) in a tray where the
    camera sees ``seen``."""
    if seen <= 0:
        return 0.0
    return math.exp(HIDDEN_LOG_SCALE + HIDDEN_POWER * math.log(seen))


def hidden_chance(hidden: int, seen: int) -> float:
    """P(exactly ``hidden`` cubes lie unseen | the camera sees ``seen``)."""
    return hidden_count_chance(hidden, hidden_mean(seen))


def hidden_count_chance(hidden: int, mean: float) -> float:
    """P(exactly ``hidden`` cubes lie unseen) where ``mean`` are expected: the Poisson count the
    tray's (:func:`hidden_chance`) and one colour's (:func:`colour_hidden_mean`) hidden cubes are."""
    if hidden < 0:
        return 0.0
    if mean <= 0.0:
        return 1.0 if hidden == 0 else 0.0
    return math.exp(-mean + hidden * math.log(mean) - math.lgamma(hidden + 1))


def colour_hidden_mean(count: int, seen: int) -> float:
    """The expected hidden cubes of one colour read as ``count`` in a tray where the camera sees
    ``seen`` in all: the tray's, shared out by what is seen of each colour (a pile hides its
    colours alike)."""
    return hidden_mean(seen) * count / seen if seen > 0 else 0.0
