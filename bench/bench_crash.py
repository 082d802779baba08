"""Crash run: SIGKILL the `tower` CLI at random moments during battles, on the default simulated
station and on the firmware station, and count the servo's openings on the device itself.

Each round the bench starts a real ``tower battle ...`` command (the robot of
``controller.selfplay`` picks a legal battle from the session's account) and kills it with SIGKILL
at a random moment: half the kills at a uniform delay after the command started, half 0-0.35 s
after its ``release_started`` record was committed (while the funnel is being released, the one
unsure moment). The next command resumes the drop in flight; a drop left *planned* is released by a
finishing controller (``python -m controller.selfplay --finish``), which may be killed too.

Then every promise is checked against the records and the devices' own account:

* every drop has exactly one ``released`` record and its records in order;
* **openings = battles**: the servo opened exactly as many times as drops were released, counted on
  the device: on the default station the simulated servo's own count (saved with the cubes' move in
  the simulated world's file); on the firmware station the firmware's hardware log (every servo
  move the MicroPython board made, ``<data_dir>/tray-board/hal.log``), cross-checked with the
  board's saved release count;
* ``tower log verify`` passes; every colour's cubes add up; the simulated tower holds what the
  ledger says; no drop is left in flight.

Usage: ``python bench/bench_crash.py [--kills 100] [--stations default,firmware] [--seed 1]``;
exits non-zero when any check fails. ``tests/test_crash.py`` runs a shorter version.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import signal
import sqlite3
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
PLAYERS = "red,blue,yellow,purple"
STATIONS = {"default": "sim.toml", "firmware": "sim-firmware.toml"}


def _python() -> str:
    return sys.executable


def _tower(*args: str) -> list[str]:
    """The real `tower` command (the console script beside this interpreter when installed)."""
    script = Path(_python()).parent / "tower"
    return [str(script), *args] if script.exists() else [_python(), "-m", "controller", *args]


def _config(data_dir: Path, station: str) -> Path:
    """The station's example config, reading the simulated tray directly (the counter has its own
    benchmark; this one is about releases)."""
    text = (REPO / "examples" / STATIONS[station]).read_text(encoding="utf-8")
    text = text.replace("[sim]\n", '[sim]\ntray_reading = "direct"\n', 1)
    path = data_dir.parent / f"{data_dir.name}-{station}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _run(cmd: list[str], timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


def _count(db: Path, kind: str) -> int:
    if not db.exists():
        return 0
    for _ in range(50):
        try:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1.0)
            try:
                return int(conn.execute("SELECT count(*) FROM records WHERE kind = ?", (kind,)).fetchone()[0])
            finally:
                conn.close()
        except sqlite3.OperationalError:
            time.sleep(0.01)
    raise RuntimeError(f"cannot read {db}")


def _state(data_dir: Path) -> dict[str, Any]:
    from controller.table import read_only

    with read_only(data_dir) as table:
        return table.status()


def _battle_args(status: dict[str, Any], rng: random.Random) -> list[str]:
    """A legal battle for the session as it stands, as `tower battle` arguments."""
    from controller.selfplay import next_battle

    while True:
        kind, what = next_battle(status, rng)
        if kind != "court":
            break
    if what["battle"] == "attack":
        args = ["attack", "--attacker", what["attacker"], "--armies", str(what["attacking_armies"])]
        if what.get("origin_armies") is not None:
            args += ["--origin-armies", str(what["origin_armies"])]
        if what.get("defender"):
            args += ["--defender", what["defender"], "--defending", str(what["defending_armies"])]
    else:
        name = "revolt" if what["battle"] == "revolt" else "winter-revolt"
        args = [name, "--player", what["defender"], "--armies", str(what["defending_armies"])]
        if what["battle"] == "winter_revolt":
            args += ["--unsupplied", str(what["unsupplied_counties"])]
    args += ["--revolt-markers", str(what.get("revolt_markers", 0))]
    if what.get("buildings"):
        args += ["--buildings", ",".join(what["buildings"])]
    return args


def _kill_during(cmd: list[str], db: Path, rng: random.Random, max_delay: float) -> str:
    """Start ``cmd``, SIGKILL it at a random moment; says when (or that it finished first)."""
    started_before = _count(db, "release_started")
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        if rng.random() < 0.5:
            how = "at random"
            deadline = time.monotonic() + rng.uniform(0.0, max_delay)
            while time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.005)
        else:
            how = "in the release"
            limit = time.monotonic() + 60.0
            while _count(db, "release_started") == started_before and proc.poll() is None:
                if time.monotonic() > limit:
                    break
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, 0.35))
        if proc.poll() is not None:
            return "finished first"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return how
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _finish(cfg: Path, data_dir: Path) -> None:
    """Carry a drop left in flight to its end (a planned drop is released, once)."""
    done = _run([_python(), "-m", "controller.selfplay", "--config", str(cfg), "--data-dir", str(data_dir),
                 "--finish"])
    if done.returncode != 0:
        raise RuntimeError(f"the finishing controller failed: {done.stderr[-800:]}")


def servo_openings(station: str, data_dir: Path, open_angle: float = 100.0) -> int:
    """The servo's openings as the device itself recorded them."""
    if station == "firmware":
        log = data_dir / "tray-board" / "hal.log"
        open_cdeg = round(open_angle * 100)
        openings = 0
        if log.exists():
            for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if isinstance(event, dict) and event.get("ev") == "servo" and event.get("v") == open_cdeg:
                    openings += 1
        return openings
    from simulation.world import SimWorld

    return SimWorld(data_dir / "sim-world.json").release_count


def crash_run(data_dir: Path, *, station: str = "default", kills: int = 100, seed: int = 1,
              max_delay: float = 3.0) -> dict[str, Any]:
    """Kill the `tower` CLI ``kills`` times at random moments, finish, and check everything."""
    rng = random.Random(f"{seed}-{station}")
    data_dir.mkdir(parents=True, exist_ok=True)
    cfg = _config(data_dir, station)
    common = ["--config", str(cfg), "--data-dir", str(data_dir)]
    db = data_dir / "records.sqlite3"
    started = time.monotonic()
    for step in (["session", "new", "--players", PLAYERS], ["fill", "--yes"]):
        done = _run(_tower(*step, *common))
        if done.returncode != 0:
            raise RuntimeError(f"tower {' '.join(step)} failed: {done.stderr[-800:]}")
    killed_in: collections.Counter[str] = collections.Counter()
    how_killed: collections.Counter[str] = collections.Counter()
    kills_done = rounds = 0
    while kills_done < kills:
        rounds += 1
        if rounds > kills * 4:
            raise RuntimeError(f"only {kills_done} kills landed in {rounds} rounds")
        status = _state(data_dir)
        if status["drop"] is not None and status["drop"]["phase"] not in ("resolved",):
            _finish(cfg, data_dir)
            status = _state(data_dir)
        for player in PLAYERS.split(","):  # players deploy from their supply to keep armies on the map
            if status["board"].get(player, 0) < 8 and status["supply"].get(player, 0) >= 12:
                _run(_tower("session", "deploy", "--player", player, "--armies", "10", *common))
        status = _state(data_dir)
        cmd = _tower("battle", *_battle_args(status, rng), "--yes", *common)
        how = _kill_during(cmd, db, rng, max_delay)
        how_killed[how] += 1
        if how == "finished first":
            continue
        kills_done += 1
        drop = _state(data_dir)["drop"]
        killed_in["between drops" if drop is None else drop["phase"]] += 1
    _finish(cfg, data_dir)
    status = _state(data_dir)
    if status["drop"] is not None and status["drop"]["phase"] == "resolved":
        _run(_tower("status", *common))  # nothing to do: a resolved drop is closed by the next plan
    figures = check(data_dir, station)
    figures.update(station=station, kills=kills_done, killed_in=dict(killed_in), how_killed=dict(how_killed),
                   seconds=round(time.monotonic() - started, 1))
    return figures


def check(data_dir: Path, station: str = "default") -> dict[str, Any]:
    """Every promise of the crash run, checked on the records and the devices' own account."""
    from controller import session as ses
    from controller.records import RecordStore
    from simulation.world import SimWorld

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
    sim = SimWorld(data_dir / "sim-world.json")
    problems = []
    if not verify.ok:
        problems.append(f"tower log verify: {verify.problem}")
    released = 0
    recovered: collections.Counter[str] = collections.Counter()
    for drop_id, kinds in sorted(by_drop.items()):
        if kinds[-1] == "cancelled":
            continue
        n = kinds.count("released")
        released += n
        if n != 1:
            problems.append(f"drop {drop_id} has {n} releases: {kinds}")
        essential = [k for k in kinds if k in EXPECTED]
        # a release that never happened is retried: drop the repeated release_started
        deduped = [k for i, k in enumerate(essential)
                   if not (k == "release_started" and "release_started" in essential[:i])]
        if deduped != EXPECTED and deduped != EXPECTED[:-1]:
            problems.append(f"drop {drop_id} records are incomplete or out of order: {kinds}")
        recovered["release_not_done"] += kinds.count("release_not_done")
        if "correction" in kinds:
            problems.append(f"drop {drop_id} needed a host's correction: {kinds}")
    openings = servo_openings(station, data_dir)
    if openings != released:
        problems.append(f"the servo opened {openings} times (device's own log) for {released} released drops")
    board_count = None
    if station == "firmware":
        board_count = _saved_board_count(data_dir)
        if board_count != openings:
            problems.append(f"the board's saved release count is {board_count}, its servo opened {openings} times")
        if sim.release_count != openings:
            problems.append(f"the simulated cubes fell {sim.release_count} times for {openings} servo openings")
    conservation = ses.conservation_errors(state) if state else ["no state"]
    problems.extend(conservation)
    if state and ses.clean(sim.tower_contents()) != ses.clean(state["tower"]):
        problems.append(f"the tower holds {sim.tower_contents()} but the ledger says {state['tower']}")
    if state and state["drop"] is not None and state["drop"]["phase"] != "resolved":
        problems.append(f"drop {state['drop']['drop_id']} is still in flight ({state['drop']['phase']})")
    return {"drops": len(by_drop), "battles": released, "releases": released, "openings": openings,
            "servo_moves": openings, "board_count": board_count, "records": records, "verify_ok": verify.ok,
            "releases_found_not_done": recovered["release_not_done"], "problems": problems}


def _saved_board_count(data_dir: Path) -> int | None:
    """The release count the firmware saved on its (simulated) flash."""
    import struct

    flash = data_dir / "tray-board" / "flash.bin"
    if not flash.exists():
        return None
    blob = flash.read_bytes()
    return struct.unpack("<I", blob[4:8])[0] if len(blob) == 12 and blob[:4] == b"TRC1" else None


def report(figures: dict[str, Any]) -> list[str]:
    f = figures
    return [
        f"{f['station']} station: {f['kills']} SIGKILLs of the tower CLI in {f['seconds']} s "
        f"({', '.join(f'{k} {v}' for k, v in sorted(f['how_killed'].items()))})",
        f"  killed while: {', '.join(f'{k} {v}' for k, v in sorted(f['killed_in'].items()))}",
        f"  battles (drops released) {f['battles']}, servo openings on the device {f['openings']}"
        + (f", board's saved count {f['board_count']}" if f["board_count"] is not None else "")
        + f"; releases found not done and released once {f['releases_found_not_done']}",
        f"  records {f['records']}, tower log verify: {'ok' if f['verify_ok'] else 'FAILED'}",
        "  problems: " + ("none" if not f["problems"] else "; ".join(f["problems"][:6])),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100, help="kills per station")
    parser.add_argument("--stations", default="default,firmware")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-delay", type=float, default=3.0, help="longest random wait before a kill (s)")
    parser.add_argument("--data-dir", default=None, help="default: a new temporary directory")
    args = parser.parse_args()
    root = Path(args.data_dir) if args.data_dir else Path(tempfile.mkdtemp(prefix="tower-crash-"))
    ok = True
    for station in args.stations.split(","):
        figures = crash_run(root / station, station=station, kills=args.kills, seed=args.seed,
                            max_delay=args.max_delay)
        for line in report(figures):
            print(line, flush=True)
        ok &= not figures["problems"] and figures["openings"] == figures["battles"]
    print("RESULT: " + ("PASS (openings = battles on every station)" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
