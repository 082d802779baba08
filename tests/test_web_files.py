"""Only images inside the data directory can be served: traversal attempts (``..``, percent-encoded
``%2e%2e`` and ``%2f``, absolute paths, backslashes, NUL bytes, symbolic links out of the directory)
are refused, over real HTTP against uvicorn so that nothing between the socket and our check can
quietly rewrite the path."""

from __future__ import annotations

import http.client
import logging
import os
from pathlib import Path

import numpy as np
import pytest

from controller.web.access import HostAccess
from controller.web.app import create_app
from controller.web.files import NotServable, resolve_data_file
from controller.web.server import BackgroundServer

SECRET = b"\x89PNG\r\n\x1a\n top secret bytes outside the data directory"


class _QuietTable:
    """The app needs a table only for ``/api``; the file route never touches it."""

    def subscribe(self):
        import queue

        return queue.Queue()

    def unsubscribe(self, q) -> None:
        pass


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    import cv2

    data = tmp_path / "data"
    (data / "images").mkdir(parents=True)
    photo = data / "images" / "drop-000001-annotated.png"
    frame = np.zeros((30, 40, 3), np.uint8)
    frame[:, :, 2] = 200
    cv2.imwrite(str(photo), frame)
    (data / "records.sqlite3").write_bytes(b"SQLite format 3\x00 private records")
    (data / "images" / "records.png").symlink_to(data / "records.sqlite3")  # inside, but not an image
    secret = tmp_path / "secret.png"
    secret.write_bytes(SECRET)
    (data / "images" / "escape.png").symlink_to(secret)
    (data / "images" / "dir-escape").symlink_to(tmp_path, target_is_directory=True)
    (data / "images" / "loop.png").symlink_to(data / "images" / "loop.png")
    return {"data": data, "photo": photo, "secret": secret}


def _attempts(tree: dict[str, Path]) -> list[str]:
    secret = str(tree["secret"])
    return [
        "../secret.png",
        "images/../../secret.png",
        "images/escape.png",
        "images/dir-escape/secret.png",
        secret,
        secret.lstrip("/"),  # relative spelling of the absolute path: simply not there
        "images/loop.png",
        "records.sqlite3",
        "images/records.png",
        "images\\..\\..\\secret.png",
        "images/drop-000001-annotated.png\x00.txt",
        "",
        "C:/secret.png",
    ]


@pytest.mark.parametrize("index", range(13))
def test_resolve_refuses_every_way_out(tree: dict[str, Path], index: int) -> None:
    with pytest.raises(NotServable):
        resolve_data_file(tree["data"], _attempts(tree)[index])


def test_resolve_serves_an_image_inside(tree: dict[str, Path]) -> None:
    path, media = resolve_data_file(tree["data"], "images/drop-000001-annotated.png")
    assert path == tree["photo"].resolve() and media == "image/png"


@pytest.fixture
def server(tree: dict[str, Path]):
    app = create_app(_QuietTable(), tree["data"], HostAccess("123456"))
    with BackgroundServer(app) as srv:
        yield srv


def _raw_get(server: BackgroundServer, raw_path: str) -> tuple[int, bytes]:
    """A GET with the path sent exactly as written (http.client does not normalise ``..``)."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.putrequest("GET", raw_path, skip_accept_encoding=True)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_a_photo_is_served_byte_for_byte(server: BackgroundServer, tree: dict[str, Path]) -> None:
    status, body = _raw_get(server, "/data/images/drop-000001-annotated.png")
    assert status == 200 and body == tree["photo"].read_bytes()


def test_traversal_over_http_is_refused_and_logged(server: BackgroundServer, tree: dict[str, Path],
                                                   caplog: pytest.LogCaptureFixture) -> None:
    secret = str(tree["secret"])
    raw_paths = [
        "/data/../secret.png",
        "/data/images/../../secret.png",
        "/data/%2e%2e/secret.png",
        "/data/%2E%2E%2Fsecret.png",
        "/data/images%2f%2e%2e%2f%2e%2e%2fsecret.png",
        "/data/.%2e/secret.png",
        "/data/" + secret,  # /data//tmp/.../secret.png: an absolute path
        "/data/" + secret.replace("/", "%2F"),
        "/data/..%5csecret.png",
        "/data/images/escape.png",
        "/data/images/dir-escape/secret.png",
        "/data/images/loop.png",
        "/data/records.sqlite3",
        "/data/images/records.png",
        "/data/images/drop-000001-annotated.png%00.png",
    ]
    with caplog.at_level(logging.WARNING, logger="controller.web.access"):
        for raw in raw_paths:
            status, body = _raw_get(server, raw)
            assert status in (400, 404), f"{raw} answered {status}"
            assert b"top secret" not in body and b"private records" not in body, raw
    assert caplog.text.count("refused GET /data/") >= len(raw_paths) - 2  # a few die in routing first


def test_the_data_directory_itself_may_be_a_symlink(tmp_path: Path, tree: dict[str, Path]) -> None:
    alias = tmp_path / "alias"
    os.symlink(tree["data"], alias)
    path, _ = resolve_data_file(alias, "images/drop-000001-annotated.png")
    assert path == tree["photo"].resolve()
    with pytest.raises(NotServable):
        resolve_data_file(alias, "images/escape.png")
