"""From a file name or an upload's bytes to numbered text lines: the format a suffix means, what ``.txt``
means to a command, UTF-8 decoding with the line of a bad byte, and the byte-order mark dropped."""

from __future__ import annotations

import codecs
import io
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Literal

from selfexplain.core.formats import SUFFIX_FORMATS
from selfexplain.errors import DataError

FORMATS = ("csv", "tsv", "jsonl", "txt")
Txt = Literal["labelled", "lines"]
TXT_MEANINGS: tuple[Txt, ...] = ("labelled", "lines")
# What a .txt file is to a command, for its --help (one phrase, so every command words it the same way).
TXT_HELP: dict[Txt, str] = {
    "labelled": "a .txt file holds one 'LABEL TEXT' a line (SST lines) or one SST tree a line",
    "lines": "a .txt file holds one text a line, without labels",
}
_BOM = codecs.BOM_UTF8.decode("utf-8")


class FormatError(DataError):
    """A file cannot be read as its format. ``line`` is the 1-based line of the problem (``None``: the
    whole file); the message is ``NAME:LINE: REASON``."""

    def __init__(self, name: str, line: int | None, reason: str) -> None:
        super().__init__(f"{name}: {reason}" if line is None else f"{name}:{line}: {reason}")
        self.name, self.line, self.reason = name, line, reason


def detect_format(name: str) -> str:
    """The format from a file name's suffix (:data:`~selfexplain.core.formats.SUFFIX_FORMATS`): ``csv``, ``tsv``,
    ``jsonl`` (also ``.json`` and ``.ndjson``), else ``txt`` (whose meaning the command gives, see
    :data:`TXT_MEANINGS`)."""
    suffix = Path(name).suffix.lower().lstrip(".")
    return SUFFIX_FORMATS.get(suffix, "txt")


def check_txt(txt: str) -> Txt:
    """``txt`` if it is one of :data:`TXT_MEANINGS`; a ``ValueError`` (a programming error) otherwise."""
    if txt not in TXT_MEANINGS:
        raise ValueError(f"txt must be one of {', '.join(TXT_MEANINGS)}, not {txt!r}")
    return txt  # type: ignore[return-value]


def source_name(source: str | Path | bytes, name: str | None = None) -> str:
    """What messages call ``source``: ``name`` when given, else the path, or ``upload`` for bytes."""
    return name or (str(source) if not isinstance(source, bytes) else "upload")


def open_bytes(source: str | Path | bytes, name: str) -> BinaryIO:
    """A binary handle on a file, or on the bytes of an upload; a missing file is a :class:`FormatError`."""
    if isinstance(source, bytes):
        return io.BytesIO(source)
    path = Path(source)
    if not path.is_file():
        raise FormatError(name, None, "no such file")
    return path.open("rb")


def decoded_lines(handle: BinaryIO, name: str) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every line, decoded as UTF-8 with its line ending kept; a leading
    byte-order mark is dropped (it is not part of the first field or label)."""
    for number, raw in enumerate(handle, start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            reason = f"not UTF-8 text (byte 0x{raw[err.start]:02x} at column {err.start + 1}); save the file as UTF-8"
            raise FormatError(name, number, reason) from None
        if number == 1 and text.startswith(_BOM):
            text = text[1:]
        yield number, text


def text_lines(source: str | Path | bytes, name: str | None = None) -> Iterator[tuple[int, str]]:
    """:func:`decoded_lines` of the file at ``source`` or of an upload's bytes (``name`` names it in
    messages; the path by default); a file is closed when the iteration ends."""
    name = source_name(source, name)
    with open_bytes(source, name) as handle:
        yield from decoded_lines(handle, name)
