"""The web server under attack: oversized bodies, echoed input, PIN guessing with forged forwarded
headers, and requests sent to a name that is not the station's (DNS rebinding).

The PIN throttle runs on a fake clock, so a 10,000-guess attack takes no real time."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from controller.table import Table
from controller.web.access import DEVICE_COOKIE, PIN_HEADER, HostAccess, Refused
from controller.web.app import create_app
from controller.web.guard import MAX_BODY_BYTES, BodyLimit, HostCheck, machine_names, split_host
from controller.web.server import BackgroundServer, make_server

PIN = "731940"
TEN_MB = 10 * 1024 * 1024


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def table(tmp_path: Path):
    t = Table.open(data_dir=tmp_path / "data", reader="direct")
    t.new_session(["red", "blue", "yellow"])
    yield t
    t.close()


# -- bodies ----------------------------------------------------------------------------------------
class _Inner:
    """An ASGI app that records whether it was reached and what body it was given."""

    def __init__(self) -> None:
        self.called = False
        self.body = b""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.called = True
        while True:
            message = await receive()
            self.body += message.get("body", b"")
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def _call(app: Any, headers: list[tuple[bytes, bytes]], chunks: list[bytes]) -> tuple[int, bytes, int]:
    """Drive an ASGI app with a body in ``chunks``; returns (status, answer, bytes the app pulled)."""
    pulled = 0
    queue = list(chunks)
    sent: list[dict] = []

    async def receive() -> dict:
        nonlocal pulled
        if not queue:
            return {"type": "http.disconnect"}
        chunk = queue.pop(0)
        pulled += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": bool(queue)}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/api/battles", "headers": headers}
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body, pulled


def test_a_declared_10_mb_body_is_refused_without_reading_a_byte_of_it() -> None:
    inner = _Inner()
    chunk = b"x" * 65536
    status, answer, pulled = _call(BodyLimit(inner), [(b"content-length", str(TEN_MB).encode())],
                                   [chunk] * (TEN_MB // len(chunk)))
    assert status == 413 and pulled == 0 and not inner.called
    assert "larger than" in json.loads(answer)["error"]


def test_a_chunked_10_mb_body_is_read_only_up_to_the_limit() -> None:
    inner = _Inner()
    chunk = b"x" * 4096
    status, _, pulled = _call(BodyLimit(inner), [], [chunk] * (TEN_MB // len(chunk)))
    assert status == 413 and not inner.called
    assert pulled <= MAX_BODY_BYTES + len(chunk)


def test_a_small_body_reaches_the_app_whole_and_a_bad_length_is_refused() -> None:
    inner = _Inner()
    status, _, _ = _call(BodyLimit(inner), [], [b'{"battle":', b' "initial_fill"}'])
    assert status == 200 and inner.body == b'{"battle": "initial_fill"}'
    status, answer, pulled = _call(BodyLimit(_Inner()), [(b"content-length", b"-5")], [b"abc"])
    assert status == 400 and pulled == 0 and b"Content-Length" in answer


def _rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    pytest.skip("no /proc/self/status to measure memory with")
    return 0


def _post_raw(port: int, head: bytes, body_chunks: int, chunk: bytes) -> tuple[bytes, int]:
    """Send a request over a real socket, pushing body until the server answers or hangs up;
    returns the answer and how many body bytes the kernel took from us."""
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head)
        sock.settimeout(0.2)
        answer = b""
        for _ in range(body_chunks):
            try:
                sent += sock.send(chunk)
            except (BrokenPipeError, ConnectionResetError, TimeoutError):
                break
            try:
                got = sock.recv(65536)
            except (TimeoutError, BlockingIOError):
                continue
            except ConnectionResetError:
                break
            answer += got
            if got == b"" or b"\r\n\r\n" in answer:
                break
        sock.settimeout(5)
        try:
            while b"}" not in answer:
                got = sock.recv(65536)
                if not got:
                    break
                answer += got
        except (ConnectionResetError, TimeoutError):
            pass
    return answer, sent


def test_a_10_mb_body_without_a_pin_to_the_real_server_is_refused_and_memory_stays_flat(table: Table) -> None:
    app = create_app(table, table.data_dir, HostAccess(PIN))
    with BackgroundServer(app) as server:
        assert httpx.get(f"{server.url}/api/state").status_code == 200  # warm up before measuring
        before = _rss_bytes()
        records = len(table.log())
        head = (f"POST /api/battles HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {TEN_MB}\r\n\r\n").encode()
        answer, _ = _post_raw(server.port, head, TEN_MB // 65536, b"[" * 65536)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        chunked_head = (f"POST /api/battles HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n").encode()
        piece = b"10000\r\n" + b"[" * 65536 + b"\r\n"
        answer, _ = _post_raw(server.port, chunked_head, TEN_MB // 65536, piece)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        grown = _rss_bytes() - before
        assert httpx.get(f"{server.url}/api/state").status_code == 200  # still serving
    assert grown < 8 * 1024 * 1024, f"the server grew by {grown} bytes"
    assert len(table.log()) == records


def test_a_huge_pin_is_refused_and_no_answer_repeats_the_input(table: Table) -> None:
    app = create_app(table, table.data_dir, HostAccess(PIN), allowed_hosts=["tower.local"])
    with TestClient(app, base_url="http://tower.local") as client:
        big = client.post("/api/host/login", content=json.dumps({"pin": "7" * TEN_MB}),
                          headers={"Content-Type": "application/json"})
        assert big.status_code == 413 and len(big.content) < 300
        long_pin = "Z9" * 50  # within the body limit, over the field's limit
        answer = client.post("/api/host/login", json={"pin": long_pin})
        assert answer.status_code == 422
        assert long_pin not in answer.text and answer.json()["field"] == "pin"
        odd = client.post("/api/tray/place", json={"player": "red", "armies": 2, "source": "Q" * 900},
                          headers={PIN_HEADER: PIN})
        assert odd.status_code == 422 and "Q" * 50 not in odd.text


@pytest.mark.parametrize("body", [
    "[" * 5000 + "]" * 5000,
    '{"battle": "attack", "attacking_armies": ' + "9" * 5000 + "}",
    '{"battle": ' + '{"a":' * 1200 + "1" + "}" * 1200 + "}",
])
def test_deep_or_huge_json_to_the_api_is_a_clear_error(table: Table, body: str) -> None:
    app = create_app(table, table.data_dir, HostAccess(PIN), allowed_hosts=["tower.local"])
    with TestClient(app, base_url="http://tower.local", raise_server_exceptions=False) as client:
        answer = client.post("/api/battles", content=body, headers={PIN_HEADER: PIN,
                                                                   "Content-Type": "application/json"})
    assert 400 <= answer.status_code < 500, answer.text[:300]
    assert "9999999999" not in answer.text and "[[[[" not in answer.text
    assert table.status()["drop"] is None


# -- the PIN -----------------------------------------------------------------------------------------
def test_a_brute_force_from_forged_addresses_does_not_find_a_6_digit_pin_in_10000_tries() -> None:
    clock = FakeClock()
    access = HostAccess(PIN, clock=clock)
    guesses = [f"{n:06d}" for n in range(731000, 741000)]  # 10,000 guesses that include the PIN
    assert PIN in guesses
    found, compared = False, 0
    for i, guess in enumerate(guesses):
        clock.now += 0.01  # a fast attacker: 100 tries a second
        try:
            access.check_pin(guess, client=f"10.{i // 65536}.{i // 256 % 256}.{i % 256}")  # a new address each time
            found = True
        except Refused as refused:
            compared += refused.status == 403
    assert not found
    print(f"{compared} of 10,000 guesses compared, PIN found: {found}")
    assert compared <= 15, compared  # 5 free, then 1 s, 2 s, 4 s ... apart: the rest were never looked at
    # the host, whose phone logged in before the attack, gets in at once in the middle of it
    device = access.new_device()
    access.check_pin(PIN, client="192.168.1.20", device=device)


def test_the_back_off_doubles_and_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    access = HostAccess(PIN, clock=clock, free_failures=2, backoff_base_s=1, backoff_max_s=8)
    waits = []
    for _ in range(7):
        with pytest.raises(Refused) as wrong:
            access.check_pin("000000", "a")
        assert wrong.value.status == 403
        waits.append(access._anyone.next_try - clock.now)
        clock.now = access._anyone.next_try
    assert waits == [0, 1, 2, 4, 8, 8, 8]  # after the 2nd wrong PIN in a row: 1 s, then doubling
    with pytest.raises(Refused) as early:
        clock.now -= 0.5
        access.check_pin(PIN, "b")  # a device that never logged in waits, even with the right PIN
    assert early.value.status == 429
    clock.now += 0.5
    access.check_pin(PIN, "b")  # then the right PIN works and the count starts again
    access.check_pin(PIN, "b")
    assert access._anyone.failures == 0


def test_a_known_devices_own_wrong_pins_back_off_on_it_alone() -> None:
    clock = FakeClock()
    access = HostAccess(PIN, clock=clock, free_failures=1)
    stolen = access.new_device()
    for _ in range(2):
        with pytest.raises(Refused):
            access.check_pin("000001", "x", device=stolen)
    with pytest.raises(Refused) as held:
        access.check_pin(PIN, "x", device=stolen)
    assert held.value.status == 429
    access.check_pin(PIN, "y", device=access.new_device())  # another device of the host is not
    forged = stolen.split(".")[0] + "." + "0" * 64
    assert not access.is_device(forged)


def test_forged_forwarded_headers_gain_nothing_and_the_host_still_gets_in(
        table: Table, caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    access = HostAccess(PIN, clock=clock)
    app = create_app(table, table.data_dir, access)
    with BackgroundServer(app) as server:
        host = httpx.Client(base_url=server.url)
        login = host.post("/api/host/login", json={"pin": PIN})
        assert login.status_code == 200 and DEVICE_COOKIE in login.cookies
        csrf = login.json()["csrf"]
        statuses = []
        with caplog.at_level(logging.WARNING, logger="controller.web.access"), httpx.Client(base_url=server.url) as mallory:
            for i in range(200):
                guess = f"{(731840 + i):06d}"  # passes the real PIN at i = 100
                answer = mallory.post("/api/host/login", json={"pin": guess},
                                      headers={"X-Forwarded-For": f"203.0.113.{i % 250}", "X-Real-IP": f"198.51.100.{i}"})
                statuses.append(answer.status_code)
                clock.now += 0.05
                if i == 150:  # the attack goes on: the host is not held up by it
                    assert host.get("/api/state").json()["host"] is True
                    again = host.post("/api/host/login", json={"pin": PIN})
                    assert again.status_code == 200, again.text
                    csrf = again.json()["csrf"]
                    planned = host.post("/api/battles", json={"battle": "initial_fill"}, headers={"X-CSRF-Token": csrf})
                    assert planned.status_code == 200, planned.text
                    script = host.post(f"/api/drops/{planned.json()['drop_id']}/cancel", headers={PIN_HEADER: PIN})
                    assert script.status_code == 200, script.text
        assert 200 not in statuses
        assert statuses[:5] == [403] * 5 and statuses.count(403) <= 10
        assert "203.0.113" not in caplog.text and "198.51.100" not in caplog.text  # the headers were not believed
        host.close()


def test_forwarded_headers_are_believed_only_from_a_named_proxy() -> None:
    assert make_server(object(), "127.0.0.1", 8000).config.proxy_headers is False
    behind = make_server(object(), "127.0.0.1", 8000, trusted_proxies=["10.0.0.2"]).config
    assert behind.proxy_headers is True and behind.forwarded_allow_ips == ["10.0.0.2"]


# -- the Host header ---------------------------------------------------------------------------------
def test_only_the_stations_own_names_are_answered(table: Table) -> None:
    app = create_app(table, table.data_dir, HostAccess(PIN), allowed_hosts=["tower.lan"])
    names = machine_names()
    lan = sorted(n for n in names if n[0].isdigit() and not n.startswith("127."))
    for base in ["http://localhost:8000", "http://127.0.0.1", "http://[::1]:8000", "http://tower.lan",
                 f"http://{socket.gethostname()}.local:8000", *(f"http://{a}:8000" for a in lan)]:
        with TestClient(app, base_url=base) as client:
            assert client.get("/api/state").status_code == 200, base
    for base in ["http://evil.example", "http://evil.example:8000", "http://127.0.0.1.evil.example"]:
        with TestClient(app, base_url=base) as client:
            refused = client.get("/api/state")
            assert refused.status_code == 400 and "evil" not in refused.text, base
            assert client.post("/api/host/login", json={"pin": PIN}).status_code == 400


def test_a_new_address_is_learnt_and_a_star_allows_any() -> None:
    clock = FakeClock()
    names = {"localhost", "192.168.1.5"}
    check = HostCheck(_Inner(), lookup=lambda: set(names), refresh_s=30, clock=clock)
    assert check.allows("192.168.1.5") and not check.allows("192.168.1.77")
    names.add("192.168.1.77")  # a new DHCP lease
    assert not check.allows("192.168.1.77")  # looked up at most every 30 s
    clock.now += 31
    assert check.allows("192.168.1.77")
    assert HostCheck(_Inner(), extra=["*"], lookup=set).allows("anything.example")
    assert split_host("[fe80::1]:8000") == "fe80::1" and split_host("Pi.Local.:80") == "pi.local"


def test_tower_serve_answers_by_address_and_refuses_other_names(table: Table) -> None:
    app = create_app(table, table.data_dir, HostAccess(PIN))
    with BackgroundServer(app) as server:
        assert httpx.get(f"{server.url}/api/state").status_code == 200
        rebound = httpx.get(f"{server.url}/api/state", headers={"Host": f"attacker.example:{server.port}"})
        assert rebound.status_code == 400
    time.sleep(0)  # the server stopped cleanly
