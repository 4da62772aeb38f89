"""Pins to and from JSONL: one :meth:`Pin.to_dict` object a line, UTF-8, streamed both ways.

Reading is bounded: a line is read at most :data:`~selfexplain.gallery.records.MAX_RECORD_BYTES` plus one
byte at a time (a longer one, or an endless stream such as ``/dev/zero``, is refused at once), each line
is validated against the pin schema and then dropped, and only the ids seen are kept (for duplicates),
so memory does not grow with the file. An import reads the file twice: every line is validated before
anything is stored, then the store adds them in one transaction (a file is imported whole or not at
all); errors are one line naming the file and the line.

Writing goes through a temporary file renamed into place, one line at a time, and only to a new path or a
regular file (:mod:`selfexplain.support.output_paths`): a device, FIFO or symbolic link is refused, never
replaced.
"""

from __future__ import annotations

import codecs
import io
import json
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from selfexplain.errors import GalleryImportError
from selfexplain.gallery.records import MAX_RECORD_BYTES, Pin, parse_line
from selfexplain.support.output_paths import check_output, replace_output

MAX_IMPORT_PINS = 1_000_000


def record_lines(handle: BinaryIO, source: str) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of every line of ``handle`` that is not blank, without its line ending
    (and without a byte-order mark on line 1); a line over the record limit raises GalleryImportError."""
    number = 0
    while line := handle.readline(MAX_RECORD_BYTES + 2):
        number += 1
        body = line.rstrip(b"\r\n")
        if len(body) > MAX_RECORD_BYTES:
            raise GalleryImportError(f"{source}, line {number}: the record is longer than {MAX_RECORD_BYTES:,} bytes")
        if number == 1 and body.startswith(codecs.BOM_UTF8):
            body = body[len(codecs.BOM_UTF8) :]
        if body.strip():
            yield number, body


def scan_pins(handle: BinaryIO, source: str) -> Iterator[Pin]:
    """The validated pins of a JSONL stream, one at a time; GalleryImportError on the first bad line, a
    repeated id, more than :data:`MAX_IMPORT_PINS` pins, or none at all."""
    seen: dict[str, int] = {}
    for number, line in record_lines(handle, source):
        pin = parse_line(line, f"{source}, line {number}")
        if pin.id in seen:
            raise GalleryImportError(f"{source}, line {number}: id {pin.id!r} is already on line {seen[pin.id]}")
        if len(seen) >= MAX_IMPORT_PINS:
            raise GalleryImportError(f"{source}, line {number}: more than {MAX_IMPORT_PINS:,} pins in one file")
        seen[pin.id] = number
        yield pin
    if not seen:
        raise GalleryImportError(f"{source} holds no pins")


def check_pins(handle: BinaryIO, source: str) -> int:
    """Validate every line of a seekable JSONL stream (nothing kept but ids), rewind it, return the count."""
    if not handle.seekable():
        raise GalleryImportError(f"{source} is a stream; import from a file (it is read twice)")
    count = sum(1 for _ in scan_pins(handle, source))
    handle.seek(0)
    return count


def open_pins(path: Path) -> BinaryIO:
    """``path`` opened for reading bytes; GalleryImportError when it cannot be."""
    try:
        return Path(path).open("rb")
    except OSError as err:
        raise GalleryImportError(f"cannot read {path}: {err.strerror or err}") from None


def parse_pins(data: bytes, source: str) -> list[Pin]:
    """Validated pins from the bytes of a JSONL file (blank lines skipped); ``source`` names it in errors."""
    return list(scan_pins(io.BytesIO(data), source))


def read_pins(path: Path) -> list[Pin]:
    """Validated pins from a (small) JSONL file; GalleryImportError when it is missing, unreadable or invalid.
    Large files are imported without a list: :meth:`selfexplain.gallery.store.GalleryStore.import_jsonl`."""
    with open_pins(path) as handle:
        return list(scan_pins(handle, str(path)))


def pin_line(pin: Pin) -> str:
    return json.dumps(pin.to_dict(), ensure_ascii=False) + "\n"


def pins_jsonl(pins: Iterable[Pin]) -> str:
    """The JSONL text of ``pins`` (one pin's download)."""
    return "".join(pin_line(pin) for pin in pins)


def write_lines(lines: Iterable[str], path: Path) -> int:
    """Write ``lines`` to ``path`` through a temporary file renamed into place; returns the count.
    :class:`~selfexplain.errors.InvalidInputError` before anything is written when ``path`` exists and is
    not a regular file (a device, FIFO, folder or link)."""
    path = Path(path)
    check_output(path)
    count = 0
    handle = tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.", delete=False
    )
    try:
        with handle:
            for line in lines:
                handle.write(line)
                count += 1
        replace_output(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return count


def write_pins(pins: Iterable[Pin], path: Path) -> int:
    """Write ``pins`` to ``path`` as JSONL (atomically); returns the count."""
    return write_lines((pin_line(pin) for pin in pins), path)
