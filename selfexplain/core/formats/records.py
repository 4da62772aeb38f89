"""A file as a stream of records: CSV, TSV, JSONL (through :func:`selfexplain.support.jsonl.parse_record`), SST
lines (``LABEL TEXT``) or plain lines (one text a line), the last two being the two meanings of ``.txt``.

File-level problems (no such file, not UTF-8, malformed CSV, a first JSONL line that is not an object, a
quote opened in the header and never closed) raise :class:`~selfexplain.core.formats.text.FormatError`.
Row-level problems (a row with the wrong number of fields, a later JSONL line that is not an object, a
quote opened in a row and never closed, an SST line without a text) are yielded as a :class:`Record` with
``problem`` set: a command that must stop raises it, one that reports rows records it. Blank lines are
skipped and counted.
"""

from __future__ import annotations

import contextlib
import csv
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from selfexplain.core.formats.text import (
    FORMATS,
    FormatError,
    Txt,
    check_txt,
    decoded_lines,
    detect_format,
    open_bytes,
    source_name,
)
from selfexplain.support.jsonl import RecordError, parse_record

TEXT_COLUMNS = ("text", "sentence", "review", "content")
# the two texts of a pair; ("text", "pair") is how selfexplain's own results name them
PAIR_COLUMNS = (
    ("premise", "hypothesis"),
    ("sentence1", "sentence2"),
    ("text_a", "text_b"),
    ("question", "context"),
    ("text", "pair"),
)
LABEL_COLUMNS = ("label", "gold", "y")
Lines = Iterator[tuple[int, str]]


@dataclass(frozen=True)
class Record:
    """One record: ``line`` is the 1-based line it starts on; ``fields`` maps a column to its value, or
    ``problem`` says why the row cannot be read (``fields`` is then empty)."""

    line: int
    fields: dict[str, object] = field(default_factory=dict)
    problem: str | None = None


class Records:
    """The records of one file, read again on every iteration. ``source`` is a path or an upload's bytes
    (``name`` then names it in messages); ``fmt`` overrides the suffix; ``txt`` says what ``.txt`` means
    (``None`` only where the format is given or known not to be .txt)."""

    def __init__(
        self, source: str | Path | bytes, *, txt: Txt | None, name: str | None = None, fmt: str | None = None
    ) -> None:
        self.source = source
        self.name = source_name(source, name)
        self.format = fmt or detect_format(self.name)
        if self.format not in FORMATS:
            raise FormatError(self.name, None, f"unknown format {self.format!r} (choose from {', '.join(FORMATS)})")
        if self.format == "txt" or txt is not None:
            check_txt(str(txt))
        self.txt = txt
        self.blank_lines = 0

    @property
    def kind(self) -> str:
        """How the file is parsed: ``csv``, ``tsv``, ``jsonl``, ``sst`` (labelled .txt) or ``lines``."""
        if self.format != "txt":
            return self.format
        return "sst" if self.txt == "labelled" else "lines"

    def columns(self) -> list[str]:
        """The header of a CSV/TSV, the keys of the first JSONL object, or the fixed columns of a .txt."""
        if self.kind in ("sst", "lines"):
            return ["label", "text"] if self.kind == "sst" else ["text"]
        with contextlib.closing(iter(self)) as records:
            for record in records:
                if record.problem is None:
                    return [str(key) for key in record.fields]
        raise FormatError(self.name, None, "the file has no rows")

    def __iter__(self) -> Iterator[Record]:
        self.blank_lines = 0
        parse = {"jsonl": self._jsonl, "sst": self._sst, "lines": self._lines}.get(self.kind, self._table)
        with open_bytes(self.source, self.name) as handle:
            yield from parse(decoded_lines(handle, self.name))

    def _blank(self, text: str) -> bool:
        if text.strip():
            return False
        self.blank_lines += 1
        return True

    def _lines(self, lines: Lines) -> Iterator[Record]:
        for number, text in lines:
            if not self._blank(text):
                yield Record(number, {"text": text.rstrip("\r\n")})

    def _sst(self, lines: Lines) -> Iterator[Record]:
        for number, text in lines:
            if self._blank(text):
                continue
            label, _, rest = text.strip().partition(" ")
            if rest.strip():
                yield Record(number, {"label": label, "text": rest.strip()})
            else:
                yield Record(number, problem=f"expected 'LABEL TEXT', got {text.strip()[:60]!r}")

    def _jsonl(self, lines: Lines) -> Iterator[Record]:
        """A bad first record means the file is not JSONL (stop); a bad later line is one bad row, so a
        rerun is not stopped by the same line."""
        first = True
        for number, text in lines:
            if self._blank(text):
                continue
            try:
                record = parse_record(text)
            except RecordError as err:
                if first:
                    raise FormatError(self.name, number, str(err)) from None
                yield Record(number, problem=str(err))
                continue
            first = False
            yield Record(number, record)

    def _table(self, lines: Lines) -> Iterator[Record]:
        """CSV or TSV with a header row. A quoted field that is never closed makes the csv module read the
        rest of the file as that field; it is seen as a record that ended only at the end of the file."""
        where = {"line": 0, "end": False}

        def texts() -> Iterator[str]:
            for number, text in lines:
                where["line"] = number
                yield text
            where["end"] = True

        reader = csv.reader(texts(), delimiter="\t" if self.kind == "tsv" else ",")
        header: list[str] | None = None
        start = 1
        try:
            for fields in reader:
                if where["end"]:
                    unclosed = f"a quote is never closed (lines {start}-{where['line']} were read as one field)"
                    if header is None:
                        raise FormatError(self.name, start, unclosed)
                    yield Record(start, problem=unclosed)
                elif not fields or not any(f.strip() for f in fields):
                    self.blank_lines += 1
                elif header is None:
                    header = [f.strip() for f in fields]
                elif len(fields) != len(header):
                    yield Record(start, problem=f"{len(fields)} fields, the header has {len(header)}")
                else:
                    yield Record(start, dict(zip(header, fields)))
                start = where["line"] + 1
        except csv.Error as err:
            raise FormatError(self.name, where["line"], f"malformed CSV ({err})") from None


def guess_columns(
    header: set[str], text_column: str, pair_column: str | None, label_column: str | None, *, pair_wanted: bool = False
) -> tuple[str, str | None, str | None]:
    """Columns by their usual names when the defaults (``text``, no pair, ``label``) are not in the file:
    a pair from premise/hypothesis, sentence1/sentence2, text_a/text_b or question/context; a text
    from text/sentence/review/content; a label from label/gold/y. Named columns that exist win.
    With ``pair_wanted`` (a pair model) and no pair found, the pair is the column that usually goes with
    the text column (``hypothesis`` with ``premise``, ``pair`` with ``text``), when the file has it."""
    if text_column not in header and text_column == "text":
        pairs = [p for p in PAIR_COLUMNS if set(p) <= header] if pair_column is None else []
        if pairs:
            text_column, pair_column = pairs[0]
        else:
            text_column = next((name for name in TEXT_COLUMNS if name in header), text_column)
    if pair_wanted and pair_column is None:
        partner = dict(PAIR_COLUMNS).get(text_column)
        pair_column = partner if partner in header else None
    if label_column == "label" and label_column not in header:
        label_column = next((name for name in LABEL_COLUMNS if name in header), label_column)
    return text_column, pair_column, label_column
