"""A least-recently-used cache bounded by bytes, for masks and the walks they are read off."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

ENTRY_BYTES = 256
"""What an entry costs beside its array (its key, a configuration, and the dict's slot), roughly."""

K = TypeVar("K")
V = TypeVar("V")


class ByteLRU(Generic[K, V]):
    """A least-recently-used cache bounded by the bytes its values hold, not by their count; safe to share
    between threads (a serving engine fills masks of one grammar from several)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self.lock:
            hit = self.items.get(key)
            if hit is None:
                return None
            self.items.move_to_end(key)
            return hit[0]

    def put(self, key: K, value: V, nbytes: int) -> None:
        nbytes += ENTRY_BYTES
        with self.lock:
            old = self.items.pop(key, None)
            self.bytes += nbytes - (old[1] if old else 0)
            self.items[key] = (value, nbytes)
            while self.bytes > self.max_bytes and len(self.items) > 1:
                self.bytes -= self.items.popitem(last=False)[1][1]

    def __len__(self) -> int:
        return len(self.items)

    def keys(self) -> list[K]:
        """The keys held now, least recently used first (a copy: safe to read while others write)."""
        with self.lock:
            return list(self.items)

    def discard(self, key: K) -> None:
        """Forget one entry, where it is held."""
        with self.lock:
            old = self.items.pop(key, None)
            if old is not None:
                self.bytes -= old[1]

    def clear(self) -> None:
        """Forget every entry."""
        with self.lock:
            self.items.clear()
            self.bytes = 0
