"""`tower serve` on a simulated station, and the live event stream, over real HTTP (no browser needed)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from controller.table import Table
from controller.web.access import PIN_HEADER, HostAccess
from controller.web.app import create_app
from controller.web.server import BackgroundServer, free_port

REPO = Path(__file__).resolve().parent.parent


def _read_events(url: str, into: queue.Queue, stop: threading.Event) -> None:
    with httpx.Client(timeout=httpx.Timeout(10, read=30)) as client, client.stream("GET", url) as response:
        for line in response.iter_lines():
            if line.startswith("data: "):
                into.put(json.loads(line[6:]))
            if stop.is_set():
                return


def _next_of(events: queue.Queue, kind: str, timeout_s: float = 15) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        event = events.get(timeout=max(0.01, deadline - time.monotonic()))
        if event["type"] == kind:
            return event
    raise AssertionError(f"no {kind} event in {timeout_s} s")


def test_every_watcher_gets_the_tables_events_live(tmp_path: Path) -> None:
    table = Table.open(data_dir=tmp_path / "data", reader="direct")
    table.new_session(["red", "blue", "yellow"])
    app = create_app(table, table.data_dir, HostAccess("123456"), keepalive_s=1)
    stop = threading.Event()
    try:
        with BackgroundServer(app) as server:
            watchers = [queue.Queue() for _ in range(3)]
            threads = [threading.Thread(target=_read_events, args=(f"{server.url}/api/events", q, stop), daemon=True)
                       for q in watchers]
            for t in threads:
                t.start()
            for q in watchers:
                _next_of(q, "hello")
            answer = httpx.post(f"{server.url}/api/battles", json={"battle": "initial_fill"},
                                headers={PIN_HEADER: "123456"}, timeout=30)
            assert answer.status_code == 200, answer.text
            planned = answer.json()
            httpx.post(f"{server.url}/api/drops/{planned['drop_id']}/release", headers={PIN_HEADER: "123456"},
                       timeout=30).raise_for_status()
            for q in watchers:
                assert _next_of(q, "intent")["drop_id"] == planned["drop_id"]
                assert _next_of(q, "web_release_started")["drop_id"] == planned["drop_id"]
                assert _next_of(q, "release_started")["phase"] == "releasing"
                assert _next_of(q, "released")["phase"] == "released"
                assert _next_of(q, "resolution")["phase"] == "resolved"
                _next_of(q, "web_release_finished")
            stop.set()
            assert app.state.hub.watchers == 3
    finally:
        table.close()


def test_tower_serve_prints_the_pin_and_serves_the_page(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("TOWER_PIN", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "serve", "--data-dir", str(tmp_path / "data"), "--host", "127.0.0.1",
         "--port", str(port)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        pin = None
        deadline = time.monotonic() + 60
        lines = []
        while pin is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("Host PIN: "):
                pin = line.split(": ", 1)[1].strip()
        assert pin is not None and pin.isdigit() and len(pin) == 6, "".join(lines)
        for _ in range(200):
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/")
                break
            except httpx.ConnectError:
                time.sleep(0.05)
        assert page.status_code == 200 and "Wallenstein tower" in page.text
        state = httpx.get(f"http://127.0.0.1:{port}/api/state").json()
        assert state["status"]["session"] is None  # a fresh data directory: no game yet
        refused = httpx.post(f"http://127.0.0.1:{port}/api/battles", json={"battle": "initial_fill"})
        assert refused.status_code == 403
        wrong = "000000" if pin != "000000" else "111111"
        assert httpx.post(f"http://127.0.0.1:{port}/api/host/login", json={"pin": wrong}).status_code == 403
        assert httpx.post(f"http://127.0.0.1:{port}/api/host/login", json={"pin": pin}).status_code == 200
    finally:
        proc.terminate()
        try:
            out, _ = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    assert "refused POST /api/battles" in out


@pytest.mark.parametrize("pin", ["12", "1234", "12 3456", "pin-with-dash"])
def test_tower_serve_refuses_a_bad_pin(tmp_path: Path, pin: str) -> None:
    result = subprocess.run([sys.executable, "-m", "controller", "serve", "--pin", pin, "--data-dir",
                             str(tmp_path / "data")], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "6 to 12 letters or digits" in result.stderr


def test_two_taps_on_release_at_once_release_the_funnel_once(tmp_path: Path) -> None:
    table = Table.open(data_dir=tmp_path / "data", reader="direct")
    table.new_session(["red", "blue", "yellow"])
    drop_id = table.plan({"battle": "initial_fill"})["drop_id"]
    releases_before = table.station.world.release_count
    app = create_app(table, table.data_dir, HostAccess("123456"))
    answers: list[int] = []
    try:
        with BackgroundServer(app) as server:
            barrier = threading.Barrier(4)

            def tap() -> None:
                barrier.wait()
                answer = httpx.post(f"{server.url}/api/drops/{drop_id}/release", headers={PIN_HEADER: "123456"},
                                    timeout=30)
                answers.append(answer.status_code)

            taps = [threading.Thread(target=tap) for _ in range(4)]
            for t in taps:
                t.start()
            for t in taps:
                t.join(30)
        assert sorted(answers) == [200, 400, 400, 400]
        assert table.station.world.release_count == releases_before + 1
        assert [r["kind"] for r in table.log()].count("released") == 1
    finally:
        table.close()


def test_tower_serve_says_so_when_another_process_holds_the_station(tmp_path: Path) -> None:
    table = Table.open(data_dir=tmp_path / "data", reader="direct")
    try:
        result = subprocess.run([sys.executable, "-m", "controller", "serve", "--data-dir", str(tmp_path / "data"),
                                 "--port", str(free_port())], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    finally:
        table.close()
    assert result.returncode == 2
    assert "another tower process is using" in result.stderr
