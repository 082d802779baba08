"""`tower serve`: the table's web page on the local network."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

import segno

from controller.table import Table
from controller.web.guard import machine_names
from controller.web.join import join_url
from station.watchdog import ServiceWatchdog, station_health_checks


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "serve",
        help="serve the table's web page on the local network",
        description=(
            "Serve the battle page: anyone on the network may watch; planning, releasing and correcting "
            "need the host's PIN, which is printed here (random unless --pin or TOWER_PIN sets it)."
        ),
    )
    parser.add_argument("--config", type=Path, default=None, help="station config (default: simulated)")
    parser.add_argument("--data-dir", type=Path, default=None, help="override the config's data directory")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface)")
    parser.add_argument("--port", type=int, default=8000, help="TCP port (default: 8000)")
    parser.add_argument("--pin", default=None, help="the host's PIN, 6-12 letters or digits (default: random)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="also answer requests sent to this host name (repeatable; by default only the "
                             "machine's own names and addresses and localhost are answered)")
    parser.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDR",
                        help="the address of a reverse proxy in front of the station whose X-Forwarded-For "
                             "is believed (repeatable; default: none, the headers are ignored)")
    parser.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:


    from controller.web.access import HostAccess, generate_pin, validate_pin
    from controller.web.app import create_app
    from controller.web.server import make_server

    pin = args.pin or os.environ.get("TOWER_PIN") or generate_pin()
    try:
        validate_pin(pin)
    except ValueError as err:
        print(f"tower serve: {err}", file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        print(f"tower serve: --port {args.port} is not a TCP port", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        table = Table.open(config_path=args.config, data_dir=args.data_dir)
    except (OSError, ValueError, RuntimeError) as err:  # a broken config or records, a busy station
        print(f"tower serve: {err}", file=sys.stderr)
        return 2
    try:
        data_dir = Path(args.data_dir or table.data_dir)
        access = HostAccess(pin, key_file=data_dir / "host.key")  # the host stays logged in across restarts
        app = create_app(table, data_dir, access, allowed_hosts=args.allow_host, listen_host=args.host)
        shown = "localhost" if args.host in ("0.0.0.0", "::") else args.host
        print(f"Serving the table on http://{shown}:{args.port}/ (listening on {args.host})")

        names = sorted(machine_names(args.host) | set(args.allow_host))
        print(f"Answering requests sent to: {', '.join(names)} (more with --allow-host NAME)")

        port_shown = f"{'localhost' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}"
        watch = join_url("http", port_shown)
        print(f"Watchers join at {watch}:")
        segno.make(watch, error="m").terminal(out=sys.stdout, compact=True)
        print(f"Host PIN: {pin}")
        print(f"Host devices stay logged in across restarts for a day (delete {data_dir / 'host.key'} "
              "to log every device out)", flush=True)
        # Under systemd (Type=notify, WatchdogSec): READY now that the devices are open, then
        # WATCHDOG pings only while they stay healthy (docs/raspberry-pi.md). A no-op elsewhere.

        watchdog = ServiceWatchdog(station_health_checks(getattr(table, "station", None)))
        watchdog.ready()
        watchdog.start()
        try:
            make_server(app, args.host, args.port, trusted_proxies=args.trusted_proxy).run()
        finally:
            watchdog.stop()
    finally:
        close = getattr(table, "close", None)
        if close is not None:
            close()
    return 0
