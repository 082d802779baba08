"""Who may change the table: the host's PIN, host sessions, and protection against cross-site requests.

Anyone on the network may watch, so reads are open. Everything that changes the game (planning a
battle, releasing the funnel, correcting a reading) needs the host's credentials:

* a browser logs in once with the PIN and gets a random session token in an ``HttpOnly``,
  ``SameSite=Strict`` cookie plus a CSRF token that the page sends back in the ``X-CSRF-Token``
  header; the cookie alone is not enough, so a form on another site cannot act for the host;
* a script may instead send the PIN itself in the ``X-Tower-PIN`` header.

In both cases a request whose ``Origin`` (or, without one, ``Referer``) names another site is
refused before the credentials are even looked at. Every refusal is logged on the
``controller.web.access`` logger with the client, the request and the reason.

Guessing the PIN. Wrong PINs are throttled on the PIN itself, across every address: after
``free_failures`` wrong PINs in a row the next try is accepted only after a back-off that doubles
with each further wrong PIN (1 s, 2 s, 4 s, ... up to ``backoff_max_s``); a try that comes sooner is
refused with 429 *without being compared*, so a guesser gains nothing by sending more, from however
many addresses (forwarded-for headers are not even read: uvicorn's proxy headers are off unless
``tower serve --trusted-proxy`` says the station is behind one). A six-digit PIN then takes years to
find. The host is never locked out by it: a successful login also leaves a long-lived, signed
*device cookie* (``HttpOnly``, ``SameSite=Strict``), and a PIN sent from a device that carries one is
always compared, back-off or not (its own wrong PINs back off on that device alone). Only a device
that has never logged in waits out the back-off during an attack, and a host session already open
is not touched by it at all.

Restarts. A host session is a signed token (a random id, the time it was issued, and an HMAC), so
the server keeps no list of them. With ``key_file`` (``tower serve`` uses ``host.key`` in the data
directory, readable by its owner only) the signing key survives a restart, and the host stays
logged in, on every device, for ``session_ttl_s`` after logging in, whatever PIN the new server
prints. Logging out revokes the token for the life of the process; delete the key file to log every
device out for good. Without a key file the key lives in memory and a restart logs the host out.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

log = logging.getLogger("controller.web.access")

COOKIE_NAME = "tower_host"
CSRF_HEADER = "X-CSRF-Token"
PIN_HEADER = "X-Tower-PIN"
DEVICE_COOKIE = "tower_device"


MIN_PIN_LENGTH = 6
KEY_BYTES = 32


def load_or_create_key(path: Path) -> bytes:
    """The signing key kept in ``path`` (made, owner-only, on first use), so that host sessions and
    device cookies outlive a restart of the server. A damaged key file is replaced: that only logs
    the host out, which the next login mends."""
    try:
        key = path.read_bytes()
        if len(key) == KEY_BYTES:
            return key
        log.warning("%s is not a %d-byte key; a new one logs every host device out", path, KEY_BYTES)
    except FileNotFoundError:
        pass
    key = secrets.token_bytes(KEY_BYTES)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".new")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, key)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return key


def generate_pin(digits: int = MIN_PIN_LENGTH) -> str:
    """A random numeric PIN (cryptographically random; leading zeros kept)."""
    if digits < MIN_PIN_LENGTH:
        raise ValueError(f"a PIN needs at least {MIN_PIN_LENGTH} digits, not {digits}")
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def validate_pin(pin: str) -> str:
    """Check a PIN chosen by the host: 6 to 12 characters, digits or letters, no spaces."""
    if not (MIN_PIN_LENGTH <= len(pin) <= 12) or not pin.isalnum() or not pin.isascii():
        raise ValueError(f"the PIN must be {MIN_PIN_LENGTH} to 12 letters or digits")
    return pin


class Refused(Exception):
    """A request that may not change the table; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class _Backoff:
    """Wrong PINs in a row and the earliest moment the next one is compared."""

    failures: int = 0
    next_try: float = 0.0


@dataclass
class HostAccess:
    """The host's PIN, the sessions it opened and the devices it logged in from.

    After ``free_failures`` wrong PINs in a row the next PIN is compared only ``backoff_base_s``
    later, and each further wrong PIN doubles that wait, up to ``backoff_max_s`` (module docstring).
    Sessions are signed tokens valid for ``session_ttl_s``; with ``key_file`` they survive a restart
    (module docstring).
    """

    pin: str
    free_failures: int = 5
    backoff_base_s: float = 1.0
    backoff_max_s: float = 300.0
    clock: object = field(default=time.monotonic, repr=False)
    key_file: Path | None = None
    session_ttl_s: float = 24 * 3600.0
    wall_clock: Callable[[], float] = field(default=time.time, repr=False)
    _secret: bytes = field(default_factory=lambda: secrets.token_bytes(KEY_BYTES), repr=False)
    _revoked: set[str] = field(default_factory=set, repr=False)
    _anyone: _Backoff = field(default_factory=_Backoff, repr=False)
    _devices: dict[str, _Backoff] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        validate_pin(self.pin)
        if self.key_file is not None:
            self._secret = load_or_create_key(Path(self.key_file))

    # -- the PIN ---------------------------------------------------------------------------------
    def _now(self) -> float:
        return float(self.clock())  # type: ignore[operator]

    def _wait(self, failures: int) -> float:
        extra = failures - self.free_failures
        if extra < 0:
            return 0.0
        return float(min(self.backoff_max_s, self.backoff_base_s * 2.0 ** min(extra, 64)))

    def check_pin(self, pin: str | None, client: str, device: str | None = None) -> None:
        """Raise :class:`Refused` unless ``pin`` is the host's PIN and may be compared now.

        ``device`` is the device cookie a browser or script sent: a known device's PIN is always
        compared (its own wrong PINs back off on it alone); any other waits out the shared back-off."""
        with self._lock:
            now = self._now()
            known = device if device and self.is_device(device) else None
            backoff = self._devices.setdefault(known, _Backoff()) if known else self._anyone
            if backoff.next_try > now:
                wait = int(backoff.next_try - now) + 1
                raise Refused(429, f"too many wrong PINs; the next PIN is looked at in {wait} s "
                                   "(a device the host logged in from before is not held up)")
            if pin is not None and hmac.compare_digest(pin.encode(), self.pin.encode()):
                backoff.failures, backoff.next_try = 0, 0.0
                return
            backoff.failures += 1
            backoff.next_try = now + self._wait(backoff.failures)
            log.warning("wrong PIN from %s (%d in a row%s)", client, backoff.failures,
                        ", a known device" if known else "")
            raise Refused(403, "the host's PIN is needed for this" if not pin else "wrong PIN")

    # -- devices the host logged in from ---------------------------------------------------------
    def new_device(self) -> str:
        """A device cookie: a random id and its HMAC (so it needs no storage of its own)."""
        nonce = secrets.token_urlsafe(16)
        return f"{nonce}.{self._sign('device', nonce)}"

    def is_device(self, token: str) -> bool:
        nonce, _, mac = token.partition(".")
        return bool(nonce and mac) and hmac.compare_digest(mac, self._sign("device", nonce))

    def _sign(self, purpose: str, value: str) -> str:
        return hmac.new(self._secret, f"{purpose}:{value}".encode(), hashlib.sha256).hexdigest()

    # -- sessions --------------------------------------------------------------------------------
    def open_session(self) -> tuple[str, str]:
        """A new host session: ``(cookie token, CSRF token)``."""
        body = f"{secrets.token_urlsafe(24)}.{int(self.wall_clock())}"
        token = f"{body}.{self._sign('session', body)}"
        return token, self.csrf_for(token)

    def close_session(self, token: str | None) -> None:
        if token:
            with self._lock:
                self._revoked.add(token)

    def is_host(self, token: str | None) -> bool:
        """A token this key signed, not older than ``session_ttl_s`` and not logged out."""
        if not token or token.count(".") != 2:
            return False
        nonce, issued, mac = token.split(".")
        if not (nonce and issued.isdigit() and hmac.compare_digest(mac, self._sign("session", f"{nonce}.{issued}"))):
            return False
        age = self.wall_clock() - int(issued)
        if not -60 <= age <= self.session_ttl_s:
            return False
        with self._lock:
            return token not in self._revoked

    def csrf_for(self, token: str) -> str:
        """The CSRF token bound to a session (an HMAC, so it needs no storage of its own)."""
        return hmac.new(self._secret, token.encode(), hashlib.sha256).hexdigest()

    # -- the whole check for a state-changing request --------------------------------------------
    def authorise(self, *, cookie: str | None, csrf: str | None, pin: str | None, client: str,
                  device: str | None = None) -> None:
        """Accept a host session with its CSRF token, or the PIN in a header; refuse anything else."""
        if cookie and self.is_host(cookie):
            if csrf and hmac.compare_digest(csrf, self.csrf_for(cookie)):
                return
            if pin is None:
                raise Refused(403, "the request lacks this page's CSRF token")
        if pin is None:  # not a guess, so it does not count towards the lockout
            raise Refused(403, "the host's PIN is needed for this")
        self.check_pin(pin, client, device)


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
