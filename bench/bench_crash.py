"""Crash run: SIGKILL the controller at random moments during simulated battles and restart it.

A worker process (``python -m controller.selfplay``) plays a simulated game on a data directory.
This script kills it with SIGKILL at a random moment after it is ready, looks at what the records
say the drop in flight was doing at that moment, and starts it again; the new worker resumes the
drop in flight and plays on. After the last kill a worker finishes the drop in flight and stops.
Then every promise is checked against the records and the simulated world:

* every drop has exactly one ``released`` record, and the simulated servo moved exactly as many
  times as there are drops (never twice for one battle);
* every drop has all its records, in order (intent, release, reading, resolution, cleaned);
* ``tower log verify`` passes;
* every colour's cubes add up (supplies, map, tray, tower), and the simulated tower holds exactly
  what the ledger says.

Usage: ``python bench/bench_crash.py [--kills 100] [--seed 1] [--max-delay 0.6]``; the test suite
runs the same function (``tests/test_crash.py``).
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

EXPECTED = ["intent", "release_started", "released", "reading", "resolution", "cleaned"]


def _worker(data_dir: Path, seed: int, battles: int, finish: bool = False,
            reader: str = "direct") -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "controller.selfplay", "--data-dir", str(data_dir), "--seed", str(seed),
           "--battles", str(battles), "--reader", reader]
    if finish:
        cmd.append("--finish")
    return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})


def _wait_ready(proc: subprocess.Popen[str], timeout: float = 60.0) -> bool:
    """Wait for the worker's ``ready`` line; False when it ended first (the game is over)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            line = proc.stdout.readline()
            if line.strip() == "ready":
                return True
            if not line:
                return False
        elif proc.poll() is not None:
            return False
    raise TimeoutError("the worker did not become ready")


def _phase_in_flight(data_dir: Path) -> str:
    from controller.records import RecordStore

    store = RecordStore.open(data_dir)
    try:
        state = store.state()
        drop = state.get("drop") if state else None
        return "between drops" if drop is None else drop["phase"]
    finally:
        store.close()


def crash_run(data_dir: Path, *, kills: int = 100, seed: int = 1, max_delay: float = 0.6,
              battles: int | None = None, reader: str = "direct") -> dict[str, Any]:
    """Kill the worker ``kills`` times at random moments, then finish and check everything."""
    rng = random.Random(seed)
    battles = battles if battles is not None else kills * 20
    killed_in: collections.Counter[str] = collections.Counter()
    kills_done = 0
    started = time.monotonic()
    while kills_done < kills:
        proc = _worker(data_dir, seed, battles, reader=reader)
        if not _wait_ready(proc):
            proc.wait()
            raise RuntimeError(f"the game ended before {kills} kills (after {kills_done}); raise --battles: "
                               f"{proc.stderr.read() if proc.stderr else ''}")
        time.sleep(rng.uniform(0.0, max_delay))
        if proc.poll() is not None:
            raise RuntimeError(f"the worker died on its own: {proc.stderr.read() if proc.stderr else ''}")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        kills_done += 1
        killed_in[_phase_in_flight(data_dir)] += 1
    final = _worker(data_dir, seed, battles, finish=True, reader=reader)
    out, err = final.communicate(timeout=120)
    if final.returncode != 0:
        raise RuntimeError(f"the finishing worker failed: {err}")
    figures = check(data_dir)
    figures.update(kills=kills_done, killed_in=dict(killed_in), seconds=round(time.monotonic() - started, 1))
    return figures


def check(data_dir: Path) -> dict[str, Any]:
    """Every promise of the crash run, checked on the records and the simulated world."""
    from controller import session as ses
    from controller.records import RecordStore
    from hardware.config import load_config
    from hardware.sim.table import SimTable

    store = RecordStore.open(data_dir)
    try:
        verify = store.verify()
        state = store.state()
        by_drop: dict[int, list[str]] = collections.defaultdict(list)
        for rec in store.records():
            if rec.drop_id is not None:
                by_drop[rec.drop_id].append(rec.kind)
        records = store.count()
    finally:
        store.close()
    cfg = load_config(None).replace(station={"data_dir": str(data_dir)})
    sim = SimTable.from_config(cfg)
    problems = []
    if not verify.ok:
        problems.append(f"tower log verify: {verify.problem}")
    releases = 0
    recovered = collections.Counter()
    for drop_id, kinds in sorted(by_drop.items()):
        released = kinds.count("released")
        releases += released
        if released != 1:
            problems.append(f"drop {drop_id} has {released} releases: {kinds}")
        essential = [k for k in kinds if k in EXPECTED]
        # a release that never happened is retried: drop the repeated release_started
        deduped = [k for i, k in enumerate(essential) if not (k == "release_started" and "release_started" in essential[:i])]
        if deduped != EXPECTED:
            problems.append(f"drop {drop_id} records are incomplete or out of order: {kinds}")
        recovered["release_not_done"] += kinds.count("release_not_done")
        if "correction" in kinds:
            problems.append(f"drop {drop_id} needed a host's correction: {kinds}")
    if sim.release_count != releases:
        problems.append(f"the servo moved {sim.release_count} times for {releases} released drops")
    conservation = ses.conservation_errors(state) if state else ["no state"]
    problems.extend(conservation)
    if state and ses.clean(sim.tower_contents()) != ses.clean(state["tower"]):
        problems.append(f"the tower holds {sim.tower_contents()} but the ledger says {state['tower']}")
    if state and state["drop"] is not None:
        problems.append(f"drop {state['drop']['drop_id']} is still in flight ({state['drop']['phase']})")
    return {"drops": len(by_drop), "releases": releases, "servo_moves": sim.release_count, "records": records,
            "verify_ok": verify.ok, "releases_found_not_done": recovered["release_not_done"],
            "problems": problems}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-delay", type=float, default=0.6, help="longest wait before a kill (s)")
    parser.add_argument("--data-dir", default=None, help="default: a new temporary directory")
    parser.add_argument("--reader", choices=("direct", "camera"), default="direct",
                        help="direct: read the simulated tray (fast); camera: photograph and count it")
    args = parser.parse_args()
    data_dir = Path(args.data_dir) if args.data_dir else Path(tempfile.mkdtemp(prefix="tower-crash-"))
    figures = crash_run(data_dir, kills=args.kills, seed=args.seed, max_delay=args.max_delay, reader=args.reader)
    print(f"crash run in {data_dir} ({args.reader} tray reading): {figures['kills']} SIGKILLs in {figures['seconds']} s")
    print(f"  killed while: {', '.join(f'{k} {v}' for k, v in sorted(figures['killed_in'].items()))}")
    print(f"  drops {figures['drops']}, releases recorded {figures['releases']}, servo moves {figures['servo_moves']}, "
          f"releases found not done and retried once {figures['releases_found_not_done']}")
    print(f"  records {figures['records']}, tower log verify: {'ok' if figures['verify_ok'] else 'FAILED'}")
    print("  problems: " + ("none" if not figures["problems"] else "; ".join(figures["problems"])))
    return 0 if not figures["problems"] else 1


if __name__ == "__main__":
    sys.exit(main())
