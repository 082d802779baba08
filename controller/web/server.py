"""Running the web app: in the foreground for ``tower serve``, or in a background thread.

The background form exists so that tests (and anything embedding the station) can start the real
server on a free port of 127.0.0.1, drive it with a real browser, and stop it cleanly.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free right now on ``host`` (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class _Server(uvicorn.Server):
    """uvicorn waits for open connections before the app's shutdown runs, and an event stream never
    ends by itself: so the streams are ended first, and the watchers' pages reconnect to the next
    server."""

    async def shutdown(self, sockets: Any = None) -> None:
        hub = getattr(getattr(self.config.app, "state", None), "hub", None)
        if hub is not None:
            hub.end_streams()
        await super().shutdown(sockets=sockets)


def make_server(app: Any, host: str, port: int, log_level: str = "info",
                trusted_proxies: list[str] | None = None) -> uvicorn.Server:
    """A uvicorn server for ``app`` that ends the open event streams when it shuts down.

    ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are ignored (uvicorn trusts them from 127.0.0.1 by
    default) unless ``trusted_proxies`` names the reverse proxies the station sits behind."""
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=3,
                            access_log=False, proxy_headers=bool(trusted_proxies),
                            forwarded_allow_ips=list(trusted_proxies) if trusted_proxies else None)
    return _Server(config)


class BackgroundServer:
    """The app served by uvicorn in a daemon thread; a context manager that waits until it listens."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.host = host
        self.port = port or free_port(host)
        self.server = make_server(app, self.host, self.port, log_level="warning")
        self.thread = threading.Thread(target=self.server.run, name="tower-web-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout_s: float = 15.0) -> BackgroundServer:
        self.thread.start()
        deadline = time.monotonic() + timeout_s
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError(f"the web server on {self.url} stopped while starting")
            if time.monotonic() > deadline:
                raise TimeoutError(f"the web server on {self.url} did not start in {timeout_s} s")
            time.sleep(0.02)
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout_s)
        if self.thread.is_alive():
            self.server.force_exit = True
            self.thread.join(timeout_s)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
