"""A fixed-size ring of the most recent items: the board's only kind of growing buffer.

A list that grows with every hardware event fills the Pico's ~190 KB heap after a few thousand
events (``MemoryError``); a ring keeps the last ``capacity`` items in a list allocated once, and
counts how many it has seen in all. Written in the common subset of CPython and MicroPython.
"""

TYPE_CHECKING = False  # MicroPython has no typing module: the import below is for mypy only
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any


class Ring:
    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("a ring needs room for at least one item")
        self.capacity = capacity
        self._items: list[Any] = [None] * capacity
        self._next = 0
        self._count = 0
        self.total = 0  # items ever appended (wraps at 2**30 to stay a small int on the board)

    def append(self, item: "Any") -> None:
        self._items[self._next] = item
        self._next = (self._next + 1) % self.capacity
        self.total = (self.total + 1) & 0x3FFFFFFF
        if self._count < self.capacity:
            self._count += 1

    def __len__(self) -> int:
        return self._count

    def clear(self) -> None:
        for i in range(self.capacity):
            self._items[i] = None
        self._next = 0
        self._count = 0
        self.total = 0

    def __iter__(self) -> "Iterator[Any]":
        """The kept items, oldest first."""
        n = len(self)
        start = (self._next - n) % self.capacity
        for k in range(n):
            yield self._items[(start + k) % self.capacity]

    def items(self) -> "list[Any]":
        return list(self)
