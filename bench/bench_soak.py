"""Soak run: thousands of simulated battles on one table, every colour's cubes checked after each.

The simulated camera is swapped for a direct reading of the simulated tray (the counter has its own
benchmark), so the run exercises the drop cycle, the records, the session's cube account and the
simulated tower over a long game: after every drop each colour's cubes must add up across the
supplies, the map, the tray and the tower, and the simulated tower must hold exactly what the
ledger says. At the end the simulated servo's own count of its openings must equal the drops
released (the battles and the initial fill), or the run fails.
Usage: ``python bench/bench_soak.py [--battles 2000] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def soak(data_dir: Path, battles: int, seed: int = 1) -> dict[str, Any]:
    from controller import session as ses
    from controller.selfplay import play
    from controller.table import Table

    problems: list[str] = []
    checked = 0
    started = time.monotonic()
    with Table.open(data_dir=data_dir, reader="direct") as table:
        sim = table.station.world

        def after_drop(kind: str, view: dict[str, Any]) -> None:
            nonlocal checked
            state = table.store.state()
            errors = ses.conservation_errors(state)
            if errors:
                problems.append(f"drop {view['drop_id']} ({kind}): {'; '.join(errors)}")
            if ses.clean(sim.tower_contents()) != ses.clean(state["tower"]):
                problems.append(f"drop {view['drop_id']}: tower {sim.tower_contents()} but ledger {state['tower']}")
            checked += 1

        kinds = play(table, battles, seed=seed, on_drop=after_drop)
        status = table.status()
        verify = table.verify()
        releases = sim.release_count
        released = sum(1 for r in table.store.records() if r.kind == "released")
    if releases != released:
        problems.append(f"the servo opened {releases} times for {released} released drops")
    if released != status["drops_done"]:
        problems.append(f"{released} drops released but {status['drops_done']} drops done")
    return {"released_drops": released, "battles": status["drops_done"] - 1, "kinds": kinds, "checked": checked, "releases": releases,
            "conservation": status["conservation"], "verify_ok": verify["ok"], "records": verify["records"],
            "problems": problems, "seconds": round(time.monotonic() - started, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    data_dir = Path(tempfile.mkdtemp(prefix="tower-soak-"))
    f = soak(data_dir, args.battles, args.seed)
    print(f"soak run in {data_dir}: {f['battles']} battles in {f['seconds']} s "
          f"({', '.join(f'{k} {v}' for k, v in sorted(f['kinds'].items()))})")
    print(f"  conservation checked after each of {f['checked']} drops; servo moves {f['releases']} "
          f"for {f['released_drops']} released drops ({f['battles']} battles + the initial fill): "
          + ("equal" if f["releases"] == f["released_drops"] == f["battles"] + 1 else "MISMATCH"))
    print("  colour   supply  map  tray  tower  total/expected")
    for colour, row in f["conservation"].items():
        print(f"  {colour:7s} {row['supply']:6d} {row['board']:4d} {row['tray']:5d} {row['tower']:6d}  "
              f"{row['total']}/{row['expected']}")
    print(f"  records {f['records']}, tower log verify: {'ok' if f['verify_ok'] else 'FAILED'}")
    print("  problems: " + ("none" if not f["problems"] else "; ".join(f["problems"][:5])))
    return 0 if not f["problems"] and f["verify_ok"] and f["releases"] == f["battles"] + 1 else 1


if __name__ == "__main__":
    sys.exit(main())
