"""Who may change the table: the host's PIN, host sessions, and protection against cross-site requests.

Anyone on the network may watch, so reads are open. Everything that changes the game (planning a
battle, releasing the funnel, correcting a reading) needs the host's credentials:

* a browser logs in once with the PIN and gets a random session token in an ``HttpOnly``,
  ``SameSite=Strict`` cookie plus a CSRF token that the page sends back in the ``X-CSRF-Token``
  header; the cookie alone is not enough, so a form on another site cannot act for the host;
* a script may instead send the PIN itself in the ``X-Tower-PIN`` header.

In both cases a request whose ``Origin`` (or, without one, ``Referer``) names another site is
refused before the credentials are even looked at. Repeated wrong PINs from one client lock it out
for a while, because a four-to-six digit PIN is otherwise guessed in minutes. Every refusal is
logged on the ``controller.web.access`` logger with the client, the request and the reason.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

log = logging.getLogger("controller.web.access")

COOKIE_NAME = "tower_host"
CSRF_HEADER = "X-CSRF-Token"
PIN_HEADER = "X-Tower-PIN"


def generate_pin(digits: int = 6) -> str:
    """A random numeric PIN (cryptographically random; leading zeros kept)."""
    if digits < 4:
        raise ValueError(f"a PIN needs at least 4 digits, not {digits}")
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def validate_pin(pin: str) -> str:
    """Check a PIN chosen by the host: 4 to 12 characters, digits or letters, no spaces."""
    if not (4 <= len(pin) <= 12) or not pin.isalnum() or not pin.isascii():
        raise ValueError("the PIN must be 4 to 12 letters or digits")
    return pin


class Refused(Exception):
    """A request that may not change the table; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class _Failures:
    count: int = 0
    locked_until: float = 0.0


@dataclass
class HostAccess:
    """The host's PIN and the sessions it opened.

    ``max_failures`` wrong PINs in a row from one client address lock that address out for
    ``lockout_s`` seconds. Sessions live in memory: restarting ``tower serve`` logs the host out,
    which is what a new PIN should do anyway.
    """

    pin: str
    max_failures: int = 5
    lockout_s: float = 60.0
    clock: object = field(default=time.monotonic, repr=False)
    _secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    _sessions: set[str] = field(default_factory=set, repr=False)
    _failures: dict[str, _Failures] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        validate_pin(self.pin)

    # -- the PIN ---------------------------------------------------------------------------------
    def _now(self) -> float:
        return float(self.clock())  # type: ignore[operator]

    def check_pin(self, pin: str | None, client: str) -> None:
        """Raise :class:`Refused` unless ``pin`` is the host's PIN and ``client`` is not locked out."""
        with self._lock:
            record = self._failures.setdefault(client, _Failures())
            now = self._now()
            if record.locked_until > now:
                wait = int(record.locked_until - now) + 1
                raise Refused(429, f"too many wrong PINs from this device; try again in {wait} s")
            if pin is not None and hmac.compare_digest(pin.encode(), self.pin.encode()):
                record.count = 0
                return
            record.count += 1
            if record.count >= self.max_failures:
                record.count = 0
                record.locked_until = now + self.lockout_s
            raise Refused(403, "the host's PIN is needed for this" if not pin else "wrong PIN")

    # -- sessions --------------------------------------------------------------------------------
    def open_session(self) -> tuple[str, str]:
        """A new host session: ``(cookie token, CSRF token)``."""
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._sessions.add(token)
        return token, self.csrf_for(token)

    def close_session(self, token: str | None) -> None:
        with self._lock:
            self._sessions.discard(token or "")

    def is_host(self, token: str | None) -> bool:
        if not token:
            return False
        with self._lock:
            return token in self._sessions

    def csrf_for(self, token: str) -> str:
        """The CSRF token bound to a session (an HMAC, so it needs no storage of its own)."""
        return hmac.new(self._secret, token.encode(), hashlib.sha256).hexdigest()

    # -- the whole check for a state-changing request --------------------------------------------
    def authorise(self, *, cookie: str | None, csrf: str | None, pin: str | None, client: str) -> None:
        """Accept a host session with its CSRF token, or the PIN in a header; refuse anything else."""
        if cookie and self.is_host(cookie):
            if csrf and hmac.compare_digest(csrf, self.csrf_for(cookie)):
                return
            if pin is None:
                raise Refused(403, "the request lacks this page's CSRF token")
        if pin is None:  # not a guess, so it does not count towards the lockout
            raise Refused(403, "the host's PIN is needed for this")
        self.check_pin(pin, client)


def same_origin(origin: str | None, referer: str | None, host: str | None, scheme: str) -> bool:
    """True when the request comes from a page of this server, or from no page at all.

    Browsers send ``Origin`` with every cross-site POST; when a privacy setting strips it they
    usually still send ``Referer``. A request with neither did not come from a web page (curl, a
    script with the PIN), so it cannot be a cross-site forgery. ``Origin: null`` (sandboxed frames,
    ``file:`` pages) is treated as foreign.
    """
    if not host:
        return False
    expected = f"{scheme}://{host}".lower()
    if origin is not None:
        return origin.lower().rstrip("/") == expected
    if referer:
        parts = urlsplit(referer)
        return f"{parts.scheme}://{parts.netloc}".lower() == expected
    return True
