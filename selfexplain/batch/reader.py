"""Stream rows from a CSV, TSV, JSONL or TXT (one text a line) file, validating each row.

File-level problems (not UTF-8, malformed CSV, a first JSONL line that is not an object, a missing
column, too large) raise :class:`BatchInputError` naming the file and the line. Row-level problems (an
empty text, a wrong number of fields, a later JSONL line that is not an object) do not stop the run: the
row is yielded with ``problem`` set so it shows up in the results, never dropped silently. Blank lines are
skipped and counted.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from selfexplain.data import DataError
from selfexplain.jsonl import RecordError, parse_record

FORMATS = ("csv", "tsv", "jsonl", "txt")
TXT_COLUMN = "text"


class BatchInputError(DataError):
    """A batch input file cannot be read; the message names the file and the line."""


@dataclass(frozen=True)
class Row:
    """One input record. ``index`` counts records from 0 (blank lines excluded); ``line`` is 1-based."""

    index: int
    line: int
    text: str
    pair: str | None = None
    gold: str | None = None
    problem: str | None = None


def detect_format(name: str) -> str:
    """The format from a file name's extension (``.json`` reads as JSONL; anything else as TXT)."""
    suffix = Path(name).suffix.lower().lstrip(".")
    return {"json": "jsonl", "ndjson": "jsonl"}.get(suffix, suffix if suffix in FORMATS else "txt")


def check_size(name: str, size: int, limit: int) -> None:
    """Refuse a file over ``limit`` bytes with a message giving both sizes."""
    if size > limit:
        raise BatchInputError(
            f"{name}: the file is {_human(size)}; the limit here is {_human(limit)} "
            "(split it, or run `selfexplain batch` from the command line, which streams any size)"
        )


def _human(size: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"


def decoded_lines(handle: BinaryIO, name: str) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` for every line, decoded as UTF-8 (a leading BOM is dropped)."""
    for number, raw in enumerate(handle, start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise BatchInputError(
                f"{name}: line {number}: not UTF-8 text (byte 0x{raw[err.start]:02x} at column {err.start + 1}); "
                "save the file as UTF-8"
            ) from None
        if number == 1 and text.startswith(codecs.BOM_UTF8.decode("utf-8")):
            text = text[1:]
        yield number, text


class RowReader:
    """Iterate the :class:`Row` records of one file; ``columns`` lists the available columns.

    ``source`` is a path or the file's bytes (an upload). Iterating twice re-reads the file.
    """

    def __init__(
        self,
        source: str | Path | bytes,
        name: str | None = None,
        fmt: str | None = None,
        text_column: str = TXT_COLUMN,
        pair_column: str | None = None,
        label_column: str | None = None,
    ) -> None:
        self.source = source
        self.name = name or (str(source) if not isinstance(source, bytes) else "upload")
        self.format = fmt or detect_format(self.name)
        if self.format not in FORMATS:
            raise BatchInputError(f"{self.name}: unknown format {self.format!r} (choose from {', '.join(FORMATS)})")
        self.text_column, self.pair_column, self.label_column = text_column, pair_column, label_column
        self.blank_lines = 0

    def _open(self) -> BinaryIO:
        if isinstance(self.source, bytes):
            return io.BytesIO(self.source)
        path = Path(self.source)
        if not path.is_file():
            raise BatchInputError(f"{path}: no such file")
        return path.open("rb")

    def columns(self) -> list[str]:
        """Header of a CSV/TSV, keys of the first JSONL object, or ``["text"]`` for TXT."""
        if self.format == "txt":
            return [TXT_COLUMN]
        with self._open() as handle:
            for _, fields in self._records(decoded_lines(handle, self.name)):
                return [str(key) for key in fields]
        raise BatchInputError(f"{self.name}: the file has no rows")

    def __iter__(self) -> Iterator[Row]:
        self.blank_lines = 0
        wanted = [c for c in (self.text_column, self.pair_column, self.label_column) if c is not None]
        with self._open() as handle:
            index = 0
            for line, fields in self._records(decoded_lines(handle, self.name)):
                if isinstance(fields, str):  # a row-level problem found while parsing
                    yield Row(index, line, "", problem=f"row {index + 1} (line {line}): {fields}")
                    index += 1
                    continue
                missing = [c for c in wanted if c not in fields]
                if missing and self.format in ("csv", "tsv"):
                    raise BatchInputError(
                        f"{self.name}: no column {missing[0]!r} (columns: {', '.join(map(str, fields))})"
                    )
                yield self._row(index, line, fields, missing)
                index += 1

    def _row(self, index: int, line: int, fields: dict[str, object], missing: list[str]) -> Row:
        def value(column: str | None) -> str | None:
            if column is None or column not in fields or fields[column] is None:
                return None
            return str(fields[column]).strip()

        text, pair, gold = value(self.text_column), value(self.pair_column), value(self.label_column)
        where = f"row {index + 1} (line {line})"
        problem = None
        if missing:
            problem = f"{where}: no {missing[0]!r} field"
        elif not text:
            problem = f"{where}: empty text in column {self.text_column!r}"
        elif self.pair_column is not None and not pair:
            problem = f"{where}: empty text in column {self.pair_column!r}"
        return Row(index, line, text or "", pair, gold or None, problem)

    def _records(self, lines: Iterator[tuple[int, str]]) -> Iterator[tuple[int, dict[str, object] | str]]:
        """``(line, fields)`` per record, or ``(line, problem message)`` for a row that cannot be parsed."""
        if self.format == "txt":
            for number, text in lines:
                if not text.strip():
                    self.blank_lines += 1
                    continue
                yield number, {TXT_COLUMN: text.rstrip("\r\n")}
        elif self.format == "jsonl":
            yield from self._jsonl(lines)
        else:
            yield from self._csv(lines)

    def _jsonl(self, lines: Iterator[tuple[int, str]]) -> Iterator[tuple[int, dict[str, object] | str]]:
        """A bad first record means the file is not JSONL (stop); a bad later line is one bad row: it is
        recorded with its problem and the run goes on, so a rerun is not stopped by the same line."""
        first = True
        for number, text in lines:
            if not text.strip():
                self.blank_lines += 1
                continue
            try:
                record = parse_record(text)
            except RecordError as err:
                if first:
                    raise BatchInputError(f"{self.name}: line {number}: {err}") from None
                yield number, str(err)
                continue
            first = False
            yield number, record

    def _csv(self, lines: Iterator[tuple[int, str]]) -> Iterator[tuple[int, dict[str, object] | str]]:
        numbered = iter(lines)
        position = {"line": 0}

        def texts() -> Iterator[str]:
            for number, text in numbered:
                position["line"] = number
                yield text

        reader = csv.reader(texts(), delimiter="\t" if self.format == "tsv" else ",")
        header: list[str] | None = None
        try:
            start = 1
            for fields in reader:
                if not fields or not any(f.strip() for f in fields):
                    self.blank_lines += 1
                    start = position["line"] + 1
                    continue
                if header is None:
                    header = [f.strip() for f in fields]
                elif len(fields) != len(header):
                    yield start, f"{len(fields)} fields, the header has {len(header)}"
                else:
                    yield start, dict(zip(header, fields))
                start = position["line"] + 1
        except csv.Error as err:
            raise BatchInputError(f"{self.name}: line {position['line']}: malformed CSV ({err})") from None
