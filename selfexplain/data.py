"""Data readers: SST lines, CSV/TSV/JSONL files and Hugging Face datasets.

Every reader returns a list of :class:`Example`. A bad row raises
:class:`DataError` naming the file and the line.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from selfexplain.errors import DataError
from selfexplain.jsonl import RecordError, parse_record

__all__ = ["DataError", "Example", "read_examples"]


@dataclass(frozen=True)
class Example:
    text: str
    pair: str | None = None
    label: int | None = None


def _label_index(value: object, label_names: Sequence[str] | None, where: str) -> int:
    text = str(value).strip()
    if label_names is not None and text in label_names:
        return list(label_names).index(text)
    try:
        index = int(text)
    except ValueError:
        known = f" (known labels: {', '.join(label_names)})" if label_names else ""
        raise DataError(f"{where}: label {text!r} is not a number or a known label name{known}") from None
    if index < 0 or (label_names is not None and index >= len(label_names)):
        raise DataError(f"{where}: label {index} is out of range")
    return index


def read_sst(path: Path, label_names: Sequence[str] | None = None) -> list[Example]:
    """``LABEL<space>TEXT`` a line (the SST files in ../shared/data)."""
    examples = []
    for number, line in _lines(path):
        if not line.strip():
            continue
        label, _, text = line.strip().partition(" ")
        if not text.strip():
            raise DataError(f"{path}:{number}: expected 'LABEL TEXT', got {line.strip()[:60]!r}")
        examples.append(Example(text=text.strip(), label=_label_index(label, label_names, f"{path}:{number}")))
    return examples


def read_table(
    path: Path,
    text_column: str = "text",
    pair_column: str | None = None,
    label_column: str | None = "label",
    label_names: Sequence[str] | None = None,
) -> list[Example]:
    """CSV, TSV (by extension) or JSONL rows with named text/pair/label columns."""
    rows = list(_jsonl_rows(path) if path.suffix.lower() in (".jsonl", ".json") else _csv_rows(path))
    if rows:
        text_column, pair_column, label_column = guess_columns(set(rows[0][1]), text_column, pair_column, label_column)
    examples = []
    for number, row in rows:
        where = f"{path}:{number}"
        for column in (text_column, pair_column, label_column):
            if column is not None and column not in row:
                raise DataError(f"{where}: no column {column!r} (columns: {', '.join(map(str, row))})")
        text = str(row[text_column] or "").strip()
        if not text:
            raise DataError(f"{where}: empty text in column {text_column!r}")
        pair = str(row[pair_column] or "").strip() if pair_column else None
        if pair_column and not pair:
            raise DataError(f"{where}: empty text in column {pair_column!r}")
        label = _label_index(row[label_column], label_names, where) if label_column else None
        examples.append(Example(text=text, pair=pair, label=label))
    return examples


TEXT_COLUMNS = ("text", "sentence", "review", "content")
PAIR_COLUMNS = (("premise", "hypothesis"), ("sentence1", "sentence2"), ("text_a", "text_b"), ("question", "context"))
LABEL_COLUMNS = ("label", "gold", "y")


def guess_columns(
    header: set[str], text_column: str, pair_column: str | None, label_column: str | None
) -> tuple[str, str | None, str | None]:
    """Columns by their usual names when the defaults (``text``, no pair, ``label``) are not in the file:
    a pair from premise/hypothesis, sentence1/sentence2, text_a/text_b or question/context; a text
    from text/sentence/review/content; a label from label/gold/y. Named columns that exist win."""
    if text_column not in header and text_column == "text":
        pairs = [p for p in PAIR_COLUMNS if set(p) <= header] if pair_column is None else []
        if pairs:
            text_column, pair_column = pairs[0]
        else:
            text_column = next((name for name in TEXT_COLUMNS if name in header), text_column)
    if label_column == "label" and label_column not in header:
        label_column = next((name for name in LABEL_COLUMNS if name in header), label_column)
    return text_column, pair_column, label_column


def read_hf_dataset(
    name: str,
    split: str,
    text_column: str = "text",
    pair_column: str | None = None,
    label_column: str | None = "label",
) -> list[Example]:
    """A Hugging Face dataset by name (needs the ``datasets`` package and the Hub)."""
    try:
        import datasets
    except ImportError as err:
        raise DataError("reading hf:NAME needs the 'datasets' package: pip install datasets") from err
    config = None
    if ":" in name:
        name, config = name.split(":", 1)
    try:
        rows = datasets.load_dataset(name, config, split=split)
    except Exception as err:  # the datasets library raises many kinds when offline
        raise DataError(f"cannot load Hugging Face dataset {name!r}: {err}") from err
    return [
        Example(
            text=str(r[text_column]),
            pair=str(r[pair_column]) if pair_column else None,
            label=int(r[label_column]) if label_column else None,
        )
        for r in rows
    ]


def read_examples(
    source: str | Path,
    text_column: str = "text",
    pair_column: str | None = None,
    label_column: str | None = "label",
    label_names: Sequence[str] | None = None,
    split: str = "train",
    phrases: bool = False,
    min_phrase_words: int = 1,
) -> list[Example]:
    """Dispatch on the source: ``hf:NAME[:CONFIG]``, ``.csv/.tsv/.jsonl``, SST trees, else SST lines.

    ``phrases`` (SST tree files only) adds every unique labelled phrase of at least
    ``min_phrase_words`` words after the sentences.
    """
    text = str(source)
    if text.startswith("hf:"):
        return read_hf_dataset(text[3:], split, text_column, pair_column, label_column)
    path = Path(source)
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    if path.suffix.lower() in (".csv", ".tsv", ".jsonl", ".json"):
        examples = read_table(path, text_column, pair_column, label_column, label_names)
    elif _first_line_is_tree(path):
        from selfexplain.sst_trees import read_sst_trees

        examples = read_sst_trees(path, label_names, phrases=phrases, min_phrase_words=min_phrase_words)
    else:
        if phrases:
            raise DataError(f"{path}: phrases need an SST tree file, e.g. ../shared/data/sst_trees/train.txt")
        examples = read_sst(path, label_names)
    if not examples:
        raise DataError(f"{path}: no examples")
    return examples


def _first_line_is_tree(path: Path) -> bool:
    for _, line in _lines(path):
        if line.strip():
            stripped = line.lstrip()
            return stripped.startswith("(") and stripped[1:2].isdigit()
    return False


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        with path.open(encoding="utf-8-sig") as handle:  # -sig: a byte-order mark is not part of the data
            yield from enumerate(handle, start=1)
    except UnicodeDecodeError as err:
        raise DataError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from err


def _csv_rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle, delimiter=delimiter)
            for row in reader:
                if None in row:
                    raise DataError(f"{path}:{reader.line_num}: more fields than the header has")
                if any(v is None for v in row.values()):
                    raise DataError(f"{path}:{reader.line_num}: fewer fields than the header has")
                yield reader.line_num, row
    except UnicodeDecodeError as err:
        raise DataError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from err
    except csv.Error as err:
        raise DataError(f"{path}: malformed CSV: {err}") from err


def _jsonl_rows(path: Path) -> Iterator[tuple[int, dict[str, object]]]:
    for number, line in _lines(path):
        if not line.strip():
            continue
        try:
            row = parse_record(line)
        except RecordError as err:
            raise DataError(f"{path}:{number}: {err}") from None
        yield number, row
