"""A least-recently-used cache bounded in bytes, for results shared by every session of a server.

Entry counts do not bound memory: one long text's explanation can weigh more than a hundred short
ones. Each value is weighed once (:func:`weigh`: the bytes of its arrays and strings) and the least
recently used entries go until the total fits. One lock guards the bookkeeping; values are computed
outside it, so a slow input never blocks other sessions' cache hits.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

import numpy as np

from selfexplain import settings
from selfexplain.settings import DEFAULT_CACHE_MB as DEFAULT_CACHE_MB  # re-exported

V = TypeVar("V")


def cache_budget_bytes() -> int:
    """The app's cache budget: ``SELFEXPLAIN_CACHE_MB`` megabytes (default 64); a bad value falls back."""
    return settings.cache_mb() * 2**20


def weigh(value: object, _depth: int = 0) -> int:
    """Approximate bytes held by ``value``: numpy arrays by ``nbytes``, strings by length, and dataclasses,
    tuples, lists and dicts by their parts (plus Python's per-object overhead). Deep structures are
    weighed to a depth of 6 and counted by ``sys.getsizeof`` below that."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes) + 112
    if isinstance(value, (str, bytes)):
        return sys.getsizeof(value)
    if _depth > 6:
        return sys.getsizeof(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return 56 + sum(weigh(getattr(value, f.name), _depth + 1) for f in dataclasses.fields(value))
    if isinstance(value, (tuple, list)):
        if value and all(type(item) is type(value[0]) for item in value[:4]) and len(value) > 64:
            sample = value[:: max(1, len(value) // 64)]  # long homogeneous sequences (tokens): weigh a sample
            return sys.getsizeof(value) + int(sum(weigh(i, _depth + 1) for i in sample) * len(value) / len(sample))
        return sys.getsizeof(value) + sum(weigh(item, _depth + 1) for item in value)
    if isinstance(value, dict):
        return sys.getsizeof(value) + sum(weigh(k, _depth + 1) + weigh(v, _depth + 1) for k, v in value.items())
    return sys.getsizeof(value)


class ByteCache(Generic[V]):
    """``get_or_compute(key, compute)``: the cached value, or ``compute()`` stored under ``key``.

    A value heavier than the whole budget is returned but not kept. ``bytes`` is the current total."""

    def __init__(self, max_bytes: int, size_of: Callable[[V], int] = weigh) -> None:
        self.max_bytes = max_bytes
        self.size_of = size_of
        self.bytes = 0
        self._entries: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            return found[0]

    def put(self, key: Hashable, value: V) -> None:
        size = self.size_of(value)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            if size > self.max_bytes:
                return
            while self._entries and self.bytes + size > self.max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.bytes -= dropped
            self._entries[key] = (value, size)
            self.bytes += size

    def get_or_compute(self, key: Hashable, compute: Callable[[], V]) -> V:
        found = self.get(key)
        if found is not None:
            return found
        value = compute()
        self.put(key, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0
