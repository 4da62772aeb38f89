"""The test run writes screenshots only under artifacts/ (ignored by git), never over the tracked pictures in
assets/screenshots/ (those are regenerated on purpose, by a command)."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
TRACKED = re.compile(r"""["']assets["']\s*/\s*["']screenshots["']|assets/screenshots""")


def test_no_test_writes_into_the_tracked_screenshots() -> None:
    writers = [
        str(path.relative_to(TESTS))
        for path in sorted(TESTS.rglob("*.py"))
        if path != Path(__file__).resolve() and TRACKED.search(path.read_text(encoding="utf-8"))
    ]
    assert writers == []
