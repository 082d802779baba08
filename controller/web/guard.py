"""Guards in front of the web app: the size of a request's body and the name it was sent to.

Both run as plain ASGI middleware, before FastAPI parses anything, because both must act before a
byte of the body is read:

* :class:`BodyLimit` refuses a body larger than a few kilobytes with 413. A declared
  ``Content-Length`` over the limit is refused without reading the body at all; a body without one
  (chunked) is read only up to the limit. Every request the page or a script sends is far smaller,
  and a Raspberry Pi must not be talked into holding hundreds of megabytes in memory by anyone who
  can reach its port (the PIN is checked only after FastAPI has parsed the body).
* :class:`HostCheck` answers only requests whose ``Host`` header names this station: by default
  the localhost names, the machine's own host name (also with ``.local`` for mDNS) and its own
  addresses, and whatever the operator adds. A web page elsewhere that rebinds its own DNS name to
  the station's address (DNS rebinding) sends its own name in ``Host`` and is refused; a phone on
  the LAN that types the Pi's address or ``raspberrypi.local`` is let in. The machine's addresses
  are looked up again (at most every ``refresh_s`` seconds) when an unknown name arrives, so a new
  DHCP lease does not lock the table out.

Neither answer repeats what the request sent: errors name the problem, never echo the input.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

log = logging.getLogger("controller.web.access")

#: The largest request body the app accepts: its biggest request (a battle, a new session) is a few
#: hundred bytes.
MAX_BODY_BYTES = 8 * 1024

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def _answer(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message, "field": None}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"), (b"x-content-type-options", b"nosniff")]})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value)
    return None


class BodyLimit:
    """Refuse (413) any request whose body is over ``max_bytes``, reading at most ``max_bytes`` of it.

    A body within the limit is read whole here and handed on to the app unchanged."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = f"the request body is larger than {self.max_bytes} bytes; nothing was read or changed"
        declared = _header(scope, b"content-length")
        if declared is not None:
            text = declared.decode("latin-1").strip()
            if not text.isdigit():
                await _answer(send, 400, "the request's Content-Length is not a number")
                return
            if int(text) > self.max_bytes:
                log.warning("refused %s %s: a body of %s bytes declared", scope.get("method"), scope.get("path"), text)
                await _answer(send, 413, too_big)
                return
        buffered: list[Message] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: pass it on
                buffered.append(message)
                break
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                log.warning("refused %s %s: its body passed %d bytes", scope.get("method"), scope.get("path"),
                            self.max_bytes)
                await _answer(send, 413, too_big)
                return
            buffered.append(message)
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            if buffered:
                return buffered.pop(0)
            return await receive()

        await self.app(scope, replay, send)


def split_host(header: str) -> str:
    """The name in a ``Host`` header without its port, lower case (``[::1]:8000`` -> ``::1``)."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


def _primary_addresses() -> set[str]:
    """The addresses this machine uses to reach the LAN (a UDP "connect" sends no packet)."""
    found = set()
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.connect((probe, 9))
            found.add(str(sock.getsockname()[0]).split("%")[0])
    return found


def machine_names(listen_host: str | None = None) -> set[str]:
    """The names and addresses a request to this station may carry in its ``Host`` header."""
    names = {"localhost", "127.0.0.1", "::1", "localhost.localdomain"}
    hostname = socket.gethostname().lower()
    names |= {hostname, f"{hostname}.local"}
    with contextlib.suppress(OSError):
        names.add(socket.getfqdn().lower())
    for name in (hostname, f"{hostname}.local"):
        with contextlib.suppress(OSError, UnicodeError):
            names |= {str(info[4][0]).split("%")[0] for info in socket.getaddrinfo(name, None)}
    names |= _primary_addresses()
    if listen_host and listen_host not in ("0.0.0.0", "::", ""):
        names.add(split_host(listen_host))
    return {n.lower() for n in names}


class HostCheck:
    """Refuse (400) a request whose ``Host`` is not one of the station's names.

    ``extra`` names are always accepted (``tower serve --allow-host``); ``"*"`` among them turns the
    check off (behind a reverse proxy that checks names itself). ``lookup`` finds the machine's own
    names; it runs at start and again, at most every ``refresh_s`` seconds, when a name is unknown."""

    def __init__(self, app: ASGIApp, extra: Iterable[str] = (), *, listen_host: str | None = None,
                 lookup: Callable[[], set[str]] | None = None, refresh_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.extra = {split_host(n) for n in extra}
        self.any = "*" in self.extra
        self.lookup = lookup or (lambda: machine_names(listen_host))
        self.refresh_s = refresh_s
        self.clock = clock
        self.names = self.lookup() | self.extra
        self.looked_at = clock()

    def allows(self, name: str) -> bool:
        if self.any or name in self.names:
            return True
        if self.clock() - self.looked_at >= self.refresh_s:  # a new address since (DHCP)?
            self.names = self.lookup() | self.extra
            self.looked_at = self.clock()
        return name in self.names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        raw = _header(scope, b"host")
        name = split_host(raw.decode("latin-1")) if raw else ""
        if not name or not self.allows(name):
            log.warning("refused %s %s: Host %r is not one of this station's names", scope.get("method"),
                        scope.get("path"), name[:80])
            if scope["type"] == "http":
                await _answer(send, 400, "this station does not answer to that host name: use its address or "
                                         "name, or add the name with `tower serve --allow-host`")
            return
        await self.app(scope, receive, send)
