"""How watchers join: the page's address as a QR code, for the host's screen.

The address is the one the host's browser used, unless that is a loopback name (the host reads the
page on the station itself): then it is the station's own LAN address, which a phone can reach.
The QR code is drawn by ``segno`` as SVG (the page's CSP allows same-origin images only).
"""

from __future__ import annotations

import io

import segno

from controller.web.guard import _primary_addresses, split_host

LOOPBACK = {"localhost", "127.0.0.1", "::1", "localhost.localdomain"}


def join_url(scheme: str, host_header: str | None) -> str:
    """The page's address for a phone on the LAN (``http://192.168.1.20:8000/``)."""
    host_header = host_header or "localhost"
    name = split_host(host_header)
    tail = host_header.rsplit("]", 1)[-1] if host_header.startswith("[") else host_header
    port = tail.rsplit(":", 1)[1] if tail.count(":") == 1 else ""
    if name in LOOPBACK:
        lan = sorted(a for a in _primary_addresses() if ":" not in a and not a.startswith("127."))
        if lan:
            host_header = lan[0] + (f":{port}" if port else "")
    return f"{scheme}://{host_header}/"


def qr_svg(url: str) -> bytes:
    """``url`` as a QR code in SVG, black on white with the quiet zone the standard asks for."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=8, border=4, dark="#000", light="#fff",
                                    xmldecl=False, svgns=True, title="The page's address")
    return out.getvalue()
