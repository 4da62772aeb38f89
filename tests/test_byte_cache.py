"""The byte-bounded results cache: eviction by bytes, recency, oversized values, concurrent use."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from selfexplain.support.byte_cache import ByteCache, cache_budget_bytes, weigh


def test_weigh_counts_arrays_and_nested_parts() -> None:
    array = np.zeros((100, 100))
    assert weigh(array) >= 80_000
    assert weigh({"a": array, "b": (array, "x" * 1000)}) >= 161_000
    tokens = tuple(f"token{i}" for i in range(10_000))
    assert 0.8 < weigh(tokens) / (sum(weigh(t) for t in tokens) + weigh(())) < 1.3


def test_eviction_by_bytes_keeps_the_most_recent() -> None:
    cache: ByteCache[np.ndarray] = ByteCache(max_bytes=300_000)
    for key in "abc":
        cache.put(key, np.zeros(10_000))  # ~80 KB each
    assert cache.get("a") is not None  # a is now the most recent
    cache.put("d", np.zeros(10_000))
    assert cache.get("b") is None and {k for k in "acd" if cache.get(k) is not None} == set("acd")
    assert cache.bytes <= 300_000
    cache.put("huge", np.zeros(100_000))  # 800 KB: returned by get_or_compute, never kept
    assert cache.get("huge") is None and len(cache) == 3


def test_get_or_compute_runs_once_per_key() -> None:
    cache: ByteCache[int] = ByteCache(max_bytes=10_000)
    calls = []
    for _ in range(3):
        assert cache.get_or_compute("k", lambda: calls.append(1) or 7) == 7
    assert calls == [1]


def test_many_threads_keep_the_books_straight() -> None:
    cache: ByteCache[np.ndarray] = ByteCache(max_bytes=1_000_000)
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 50, size=(8, 200))

    def work(row: np.ndarray) -> None:
        for key in row.tolist():
            cache.get_or_compute(key, lambda: np.zeros(5_000))

    threads = [threading.Thread(target=work, args=(row,)) for row in keys]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert cache.bytes == sum(weigh(cache.get(k)) for k in range(50) if cache.get(k) is not None)
    assert cache.bytes <= 1_000_000


@pytest.mark.parametrize(("raw", "expected"), [("", 64), ("256", 256), ("junk", 64), ("0", 1)])
def test_budget_from_the_environment(monkeypatch: pytest.MonkeyPatch, raw: str, expected: int) -> None:
    monkeypatch.setenv("SELFEXPLAIN_CACHE_MB", raw)
    assert cache_budget_bytes() == expected * 2**20
