"""Shared measuring helpers for the benchmark scripts: medians of wall time, peak RSS."""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable

import psutil


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def peak_rss_increase(fn: Callable[[], object], interval: float = 0.002) -> float:
    """MB of resident memory above the starting level at the peak while ``fn`` runs."""
    process = psutil.Process()
    start = process.memory_info().rss
    peak = start
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, process.memory_info().rss)
            time.sleep(interval)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        fn()
    finally:
        done.set()
        thread.join()
    return (max(peak, process.memory_info().rss) - start) / 2**20
