"""Live updates: one subscription to the table, fanned out to every page that watches.

``Table.subscribe()`` hands out a thread-safe ``queue.Queue``. Giving each browser its own table
queue would need one blocked thread per watcher; instead one pump thread reads a single table queue
and copies each event onto every connected page's ``asyncio.Queue`` (thread-safely, through the
page's event loop). :meth:`EventHub.stream` turns a page's queue into server-sent events, with a
comment line every few seconds so that proxies and phones keep the connection open.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import queue
import threading
from collections.abc import AsyncIterator
from typing import Any

log = logging.getLogger("controller.web.events")

_CLOSE = object()


class EventHub:
    """Fan-out of the table's events to the pages that are connected right now."""

    def __init__(self, table: Any, keepalive_s: float = 15.0) -> None:
        self._table = table
        self._keepalive_s = keepalive_s
        self._clients: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]]] = set()
        self._lock = threading.Lock()
        self._source: queue.Queue[Any] | None = None
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()

    def start(self) -> None:
        if self._thread is not None:
            return
        self._source = self._table.subscribe()
        self._thread = threading.Thread(target=self._pump, name="tower-web-events", daemon=True)
        self._thread.start()

    def end_streams(self) -> None:
        """End every open stream now (the server is shutting down and waits for its connections)."""
        self._closed.set()
        self._broadcast(_CLOSE)

    def close(self) -> None:
        """Stop the pump, end every open stream, and give the table its queue back."""
        self._closed.set()
        if self._source is not None:
            self._source.put(_CLOSE)
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._source is not None:
            with contextlib.suppress(Exception):
                self._table.unsubscribe(self._source)
        self._broadcast(_CLOSE)

    def publish(self, event: dict[str, Any]) -> None:
        """Send an event of the web layer's own (a release starting) to every page.

        It joins the table's events in the same queue, so every page sees one order: a release's
        start before the table's first step, its end after the table's last."""
        if self._source is not None:
            self._source.put(event)
        else:
            self._broadcast(event)

    @property
    def watchers(self) -> int:
        with self._lock:
            return len(self._clients)

    def _pump(self) -> None:
        assert self._source is not None
        while not self._closed.is_set():
            event = self._source.get()
            if event is _CLOSE:
                return
            self._broadcast(event)

    def _broadcast(self, event: Any) -> None:
        with self._lock:
            clients = list(self._clients)
        for loop, q in clients:
            with contextlib.suppress(RuntimeError):  # that page's loop already closed
                loop.call_soon_threadsafe(q.put_nowait, event)

    async def stream(self) -> AsyncIterator[str]:
        """Server-sent events for one page, until it disconnects or the hub closes."""
        loop = asyncio.get_running_loop()
        q: asyncio.Queue[Any] = asyncio.Queue()
        entry = (loop, q)
        with self._lock:
            self._clients.add(entry)
        try:
            yield "retry: 2000\n\n"
            yield _format({"type": "hello"})
            while not self._closed.is_set():
                try:
                    event = await asyncio.wait_for(q.get(), timeout=self._keepalive_s)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                if event is _CLOSE:
                    return
                yield _format(event)
        finally:
            with self._lock:
                self._clients.discard(entry)


def _format(event: Any) -> str:
    """One SSE message; ``default=str`` keeps a stray path or datetime from ending the stream."""
    data = json.dumps(event, default=str, separators=(",", ":"))
    return f"data: {data}\n\n"
