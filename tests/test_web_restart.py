"""Issue 13 item 6: the host stays logged in across a restart of the server (a signed session token
whose key is kept, owner-only, in the data directory), and what ends a host session."""

from __future__ import annotations

import re
import stat
from pathlib import Path

from fastapi.testclient import TestClient

from controller.table import Table
from controller.web.access import COOKIE_NAME, CSRF_HEADER, HostAccess
from controller.web.app import create_app

SITE = "http://tower.local"


def _app(table: Table, pin: str, key: Path | None):  # type: ignore[no-untyped-def]
    return create_app(table, table.data_dir, HostAccess(pin, key_file=key), allowed_hosts=["tower.local"])


def test_the_host_stays_logged_in_across_a_restart(tmp_path: Path) -> None:
    key = tmp_path / "data" / "host.key"
    with Table.open(data_dir=tmp_path / "data", reader="direct") as table:
        table.new_session(["red", "blue", "yellow"])
        with TestClient(_app(table, "482916", key), base_url=SITE) as first:
            csrf = first.post("/api/host/login", json={"pin": "482916"}).json()["csrf"]
            cookie = first.cookies[COOKIE_NAME]
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
        # a new server process: a new PIN printed, the same key file
        with TestClient(_app(table, "913370", key), base_url=SITE) as second:
            second.cookies.set(COOKIE_NAME, cookie)
            state = second.get("/api/state").json()
            assert state["host"] is True and state["csrf"] == csrf
            answer = second.post("/api/round", json={"event": "churches_safe"}, headers={CSRF_HEADER: csrf})
            assert answer.status_code == 200, answer.text
            second.post("/api/host/logout")  # logging out ends it
            second.cookies.set(COOKIE_NAME, cookie)
            assert second.get("/api/state").json()["host"] is False


def test_without_a_key_file_or_with_a_new_key_a_restart_logs_the_host_out(tmp_path: Path) -> None:
    key = tmp_path / "data" / "host.key"
    with Table.open(data_dir=tmp_path / "data", reader="direct") as table:
        table.new_session(["red", "blue", "yellow"])
        with TestClient(_app(table, "482916", key), base_url=SITE) as first:
            first.post("/api/host/login", json={"pin": "482916"})
            cookie = first.cookies[COOKIE_NAME]
        with TestClient(_app(table, "482916", None), base_url=SITE) as in_memory:
            in_memory.cookies.set(COOKIE_NAME, cookie)
            assert in_memory.get("/api/state").json()["host"] is False
        key.unlink()  # deleting the key logs every device out
        with TestClient(_app(table, "482916", key), base_url=SITE) as fresh:
            fresh.cookies.set(COOKIE_NAME, cookie)
            assert fresh.get("/api/state").json()["host"] is False


def test_a_host_session_expires_and_a_forged_one_is_refused(tmp_path: Path) -> None:
    now = [1_000_000.0]
    access = HostAccess("482916", key_file=tmp_path / "host.key", session_ttl_s=3600, wall_clock=lambda: now[0])
    token, _ = access.open_session()
    assert access.is_host(token)
    nonce, issued, mac = token.split(".")
    assert not access.is_host(f"{nonce}.{int(issued) + 7200}.{mac}")  # a changed time breaks the signature
    assert not access.is_host(f"{nonce}.{issued}.{'0' * len(mac)}")
    now[0] += 3601
    assert not access.is_host(token)


def test_the_qr_code_for_watchers_encodes_the_pages_address(tmp_path: Path) -> None:
    import cv2
    import numpy as np
    import segno

    from controller.web.guard import _primary_addresses
    from controller.web.join import join_url, qr_svg

    assert join_url("http", "tower.local:8000") == "http://tower.local:8000/"
    if any(":" not in a and not a.startswith("127.") for a in _primary_addresses()):  # a machine on a LAN
        assert re.match(r"^http://[0-9.]+:8000/$", join_url("http", "localhost:8000"))  # a phone cannot reach localhost
    with Table.open(data_dir=tmp_path / "data", reader="direct") as table, \
            TestClient(_app(table, "482916", None), base_url=SITE) as client:
        url = client.get("/api/join").json()["url"]
        assert url == "http://tower.local/"
        svg = client.get("/api/join.svg")
        assert svg.headers["content-type"].startswith("image/svg+xml") and svg.content == qr_svg(url)
    matrix = np.array(list(segno.make(url, error="m").matrix), dtype=np.uint8)
    image = np.pad(np.where(matrix > 0, 0, 255).astype(np.uint8), 4, constant_values=255)
    image = cv2.resize(image, None, fx=10, fy=10, interpolation=cv2.INTER_NEAREST)
    decoded, _points, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert decoded == url
