"""Pins to and from JSONL: one :meth:`Pin.to_dict` object a line, UTF-8.

Reading validates every line before anything is stored (a file is imported whole or not at all);
errors name the file and the line.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from selfexplain.errors import GalleryImportError
from selfexplain.gallery.records import Pin, parse_line


def parse_pins(data: bytes, source: str) -> list[Pin]:
    """Validated pins from the bytes of a JSONL file (blank lines skipped); ``source`` names it in errors."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise GalleryImportError(f"{source} is not UTF-8 text (byte {err.start})") from None
    pins: list[Pin] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        pin = parse_line(line, f"{source}, line {number}")
        if pin.id in seen:
            raise GalleryImportError(f"{source}, line {number}: id {pin.id!r} is already on line {seen[pin.id]}")
        seen[pin.id] = number
        pins.append(pin)
    if not pins:
        raise GalleryImportError(f"{source} holds no pins")
    return pins


def read_pins(path: Path) -> list[Pin]:
    """Validated pins from a JSONL file; GalleryImportError when it is missing, unreadable or invalid."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise GalleryImportError(f"cannot read {path}: {err.strerror or err}") from None
    return parse_pins(data, str(path))


def pins_jsonl(pins: Iterable[Pin]) -> str:
    """The JSONL text of ``pins`` (the page's download)."""
    return "".join(json.dumps(pin.to_dict(), ensure_ascii=False) + "\n" for pin in pins)


def write_pins(pins: Iterable[Pin], path: Path) -> int:
    """Write ``pins`` to ``path`` as JSONL through a temporary file renamed into place; returns the count."""
    path = Path(path)
    count = 0
    handle = tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.", delete=False
    )
    try:
        with handle:
            for pin in pins:
                handle.write(json.dumps(pin.to_dict(), ensure_ascii=False) + "\n")
                count += 1
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return count
