"""Batch input: the records of a CSV, TSV, JSONL or TXT file (one text a line: ``.txt`` means lines here)
as :class:`Row` objects, with every row-level problem kept on its row.

Files are read by :class:`selfexplain.core.formats.records.Records`. File-level problems (not UTF-8, malformed
CSV, a first JSONL line that is not an object, a missing CSV column, too large) raise
:class:`BatchInputError` naming the file and the line. Row-level problems (an empty text, a wrong number of
fields, a later JSONL line that is not an object, a quote never closed) do not stop the run: the row is
yielded with ``problem`` set so it shows up in the results, never dropped silently. Blank lines are
skipped and counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from selfexplain.core.formats.records import Record, Records
from selfexplain.core.formats.text import FORMATS, FormatError, detect_format
from selfexplain.errors import DataError

__all__ = ["FORMATS", "BatchInputError", "Row", "RowReader", "check_size", "detect_format"]
TXT_COLUMN = "text"


class BatchInputError(DataError):
    """A batch input file cannot be read; the message names the file and the line."""

    @classmethod
    def from_format(cls, err: FormatError) -> BatchInputError:
        """The same problem, worded ``NAME: line N: REASON`` as batch messages are."""
        return cls(f"{err.name}: {err.reason}" if err.line is None else f"{err.name}: line {err.line}: {err.reason}")


@dataclass(frozen=True)
class Row:
    """One input record. ``index`` counts records from 0 (blank lines excluded); ``line`` is 1-based."""

    index: int
    line: int
    text: str
    pair: str | None = None
    gold: str | None = None
    problem: str | None = None


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
        try:
            self.records = Records(source, txt="lines", name=name, fmt=fmt)
        except FormatError as err:
            raise BatchInputError.from_format(err) from None
        self.source, self.name, self.format = source, self.records.name, self.records.format
        self.text_column, self.pair_column, self.label_column = text_column, pair_column, label_column

    @property
    def blank_lines(self) -> int:
        """Blank lines skipped by the last iteration."""
        return self.records.blank_lines

    def columns(self) -> list[str]:
        """Header of a CSV/TSV, keys of the first JSONL object, or ``["text"]`` for TXT."""
        try:
            return self.records.columns()
        except FormatError as err:
            raise BatchInputError.from_format(err) from None

    def __iter__(self) -> Iterator[Row]:
        wanted = [c for c in (self.text_column, self.pair_column, self.label_column) if c is not None]
        try:
            for index, record in enumerate(self.records):
                missing = [c for c in wanted if c not in record.fields]
                if missing and record.problem is None and self.format in ("csv", "tsv"):
                    columns = ", ".join(map(str, record.fields))
                    raise BatchInputError(f"{self.name}: no column {missing[0]!r} (columns: {columns})")
                yield self._row(index, record, missing)
        except FormatError as err:
            raise BatchInputError.from_format(err) from None

    def _row(self, index: int, record: Record, missing: list[str]) -> Row:
        fields, where = record.fields, f"row {index + 1} (line {record.line})"

        def value(column: str | None) -> str | None:
            if column is None or column not in fields or fields[column] is None:
                return None
            return str(fields[column]).strip()

        text, pair, gold = value(self.text_column), value(self.pair_column), value(self.label_column)
        problem = None
        if record.problem is not None:
            problem = f"{where}: {record.problem}"
        elif missing:
            problem = f"{where}: no {missing[0]!r} field"
        elif not text:
            problem = f"{where}: empty text in column {self.text_column!r}"
        elif self.pair_column is not None and not pair:
            problem = f"{where}: empty text in column {self.pair_column!r}"
        return Row(index, record.line, text or "", pair, gold or None, problem)
