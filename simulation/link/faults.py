"""A transport wrapper that corrupts, loses and delays traffic, for tests, the soak benchmark and
the simulated station's ``[sim.faults]`` (``serial_corrupt``, ``serial_loss``, ``serial_delay_s``).

Faults apply per *chunk*: each ``write()`` (one frame from the host) and each ``read_some()`` result
(what the board sent) is independently lost with probability ``loss`` or, if kept, has 1 to 3 of its
bytes XOR-ed with a random non-zero value with probability ``corrupt``. With probability ``reorder``
a chunk is held back and delivered late: a frame from the host after the next one or two frames
(so a first try can arrive after its own retransmission, or after the next command), a chunk from
the board after the next one (a late answer). Seeded, so a failing run can be replayed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hardware.link.transport import Transport


@dataclass
class FaultCounts:
    sent_dropped: int = 0
    sent_corrupted: int = 0
    received_dropped: int = 0
    received_corrupted: int = 0
    sent_reordered: int = 0
    received_reordered: int = 0
    chunks_sent: int = 0
    chunks_received: int = 0


class FaultInjectingTransport:
    def __init__(
        self,
        inner: Transport,
        corrupt: float = 0.0,
        loss: float = 0.0,
        delay_s: float = 0.0,
        seed: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
        reorder: float = 0.0,
    ) -> None:
        for key, value in (("corrupt", corrupt), ("loss", loss), ("reorder", reorder)):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{key} must be a probability between 0 and 1, got {value!r}")
        if delay_s < 0:
            raise ValueError(f"delay_s must not be negative, got {delay_s!r}")
        self.inner = inner
        self.name = inner.name
        self.corrupt = corrupt
        self.loss = loss
        self.delay_s = delay_s
        self.reorder = reorder
        self._held_writes: list[list[Any]] = []  # [frames still to pass, bytes]
        self._held_read: bytes | None = None
        self.rng = random.Random(seed)
        self.counts = FaultCounts()
        self._sleep = sleep

    def _damage(self, data: bytes) -> bytes:
        buf = bytearray(data)
        for _ in range(self.rng.randint(1, min(3, len(buf)))):
            buf[self.rng.randrange(len(buf))] ^= self.rng.randint(1, 255)
        return bytes(buf)

    def write(self, data: bytes) -> None:
        self.counts.chunks_sent += 1
        if self.delay_s:
            self._sleep(self.delay_s)
        if self.rng.random() < self.loss:
            self.counts.sent_dropped += 1
            return
        if data and self.rng.random() < self.corrupt:
            self.counts.sent_corrupted += 1
            data = self._damage(data)
        due = [held for held in self._held_writes if held[0] <= 0]
        self._held_writes = [held for held in self._held_writes if held[0] > 0]
        for held in self._held_writes:
            held[0] -= 1
        if self.reorder and self.rng.random() < self.reorder:
            self.counts.sent_reordered += 1
            self._held_writes.append([self.rng.randint(0, 1), data])
        else:
            self.inner.write(data)
        for _, late in due:
            self.inner.write(late)

    def read_some(self, timeout_s: float) -> bytes:
        data = self.inner.read_some(timeout_s)
        if self.reorder:
            if data and self._held_read is None and self.rng.random() < self.reorder:
                self.counts.received_reordered += 1
                self._held_read, data = data, b""
            elif data and self._held_read is not None:
                data, self._held_read = data + self._held_read, None  # the held chunk comes late
        if not data:
            return data
        self.counts.chunks_received += 1
        if self.rng.random() < self.loss:
            self.counts.received_dropped += 1
            return b""
        if self.rng.random() < self.corrupt:
            self.counts.received_corrupted += 1
            data = self._damage(data)
        return data

    def close(self) -> None:
        self.inner.close()
