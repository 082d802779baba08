"""Winter: feeding the counties and the supply chart of revolts.

In winter each player needs one grain per county. The counties left without grain decide, through
the supply chart printed on the board, how many of the player's counties revolt and how many extra
peasants join each of those revolts on top of the county's revolt markers:

====================  ===================  ===============
unsupplied counties   revolting counties   extra peasants
====================  ===================  ===============
1                     1                    1
2                     1                    2
3-4                   2                    2
5-6                   2                    3
7 or more             3                    3
====================  ===================  ===============
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SupplyChartRow:
    """One row of the supply chart."""

    revolting_counties: int
    extra_peasants: int


def unsupplied_counties(counties: int, grain: int) -> int:
    """Counties a player cannot feed: one grain feeds one county."""
    if counties < 0 or grain < 0:
        raise ValueError("counties and grain cannot be negative")
    return max(0, counties - grain)


def supply_chart(unsupplied: int) -> SupplyChartRow:
    """The supply chart row for ``unsupplied`` counties (0 unsupplied: no revolt at all)."""
    if unsupplied < 0:
        raise ValueError("the number of unsupplied counties cannot be negative")
    if unsupplied == 0:
        return SupplyChartRow(revolting_counties=0, extra_peasants=0)
    if unsupplied == 1:
        return SupplyChartRow(revolting_counties=1, extra_peasants=1)
    if unsupplied == 2:
        return SupplyChartRow(revolting_counties=1, extra_peasants=2)
    if unsupplied <= 4:
        return SupplyChartRow(revolting_counties=2, extra_peasants=2)
    if unsupplied <= 6:
        return SupplyChartRow(revolting_counties=2, extra_peasants=3)
    return SupplyChartRow(revolting_counties=3, extra_peasants=3)


def winter_revolt_peasants(revolt_markers: int, unsupplied: int) -> int:
    """Peasants fighting in one winter revolt: the county's markers plus the chart's extra peasants."""
    if revolt_markers < 0:
        raise ValueError("revolt markers cannot be negative")
    return revolt_markers + supply_chart(unsupplied).extra_peasants
