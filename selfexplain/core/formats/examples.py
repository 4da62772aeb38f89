"""Labelled examples from a data file, an upload's bytes or a Hugging Face dataset: the strict reader of
train, eval, the analyses and the pages' uploads (any bad row stops the read with a
:class:`~selfexplain.errors.DataError` naming file and line)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from selfexplain.core.formats.records import Records, guess_columns
from selfexplain.core.formats.sst_trees import read_sst_trees
from selfexplain.core.formats.text import FormatError, Txt, check_txt, text_lines
from selfexplain.data import Example, label_index
from selfexplain.errors import DataError

Columns = tuple[str, str | None, str | None]  # text, pair, label


def read_examples(
    source: str | Path,
    text_column: str = "text",
    pair_column: str | None = None,
    label_column: str | None = "label",
    label_names: Sequence[str] | None = None,
    split: str = "train",
    phrases: bool = False,
    min_phrase_words: int = 1,
    *,
    txt: Txt,
) -> list[Example]:
    """The examples of ``source``: ``hf:NAME[:CONFIG]`` (its ``split``), a CSV/TSV/JSONL file (columns
    named, or found by their usual names), or a ``.txt`` file read as ``txt`` says: ``"labelled"`` (SST
    lines ``LABEL TEXT``, or SST trees, found by the first line) or ``"lines"`` (one text a line, no label).

    ``phrases`` (SST tree files only) adds every unique labelled phrase of at least ``min_phrase_words``
    words after the sentences. Labels are names from ``label_names`` or indices.
    """
    check_txt(txt)
    if str(source).startswith("hf:"):
        return read_hf_dataset(str(source)[3:], split, text_column, pair_column, label_column, label_names)
    path = Path(source)
    if not path.is_file():
        raise FormatError(str(path), None, "no such file")
    columns = (text_column, pair_column, label_column)
    return _file_examples(Records(path, txt=txt), columns, label_names, phrases, min_phrase_words)


def read_example_bytes(
    data: bytes,
    name: str,
    label_names: Sequence[str] | None = None,
    text_column: str = "text",
    pair_column: str | None = None,
    label_column: str | None = "label",
    *,
    txt: Txt,
) -> list[Example]:
    """The examples in an upload's ``data``, read as :func:`read_examples` reads a file called ``name``
    (its suffix gives the format; messages name it): nothing is written to disk."""
    check_txt(txt)
    columns = (text_column, pair_column, label_column)
    return _file_examples(Records(data, txt=txt, name=name), columns, label_names, False, 1)


def _file_examples(
    records: Records, columns: Columns, label_names: Sequence[str] | None, phrases: bool, min_phrase_words: int
) -> list[Example]:
    """The examples of one file or upload: SST trees when its first line is one, else one per record."""
    if records.kind == "sst" and _first_line_is_tree(records):
        examples = read_sst_trees(
            records.source, label_names, phrases=phrases, min_phrase_words=min_phrase_words, name=records.name
        )
    elif phrases:
        raise DataError(f"{records.name}: phrases need an SST tree file, e.g. ../shared/data/sst_trees/train.txt")
    else:
        examples = _record_examples(records, columns, label_names)
    if not examples:
        raise DataError(f"{records.name}: no examples")
    return examples


def _record_examples(records: Records, columns: Columns, label_names: Sequence[str] | None) -> list[Example]:
    """One example per record; SST lines and plain lines have fixed columns, tables guess theirs."""
    rows = list(records)
    if records.kind == "sst":
        columns = ("text", None, "label")
    elif records.kind == "lines":
        columns = ("text", None, None)
    else:
        header = next((r.fields for r in rows if r.problem is None), {})
        columns = guess_columns(set(header), *columns)
    examples = []
    for row in rows:
        where = f"{records.name}:{row.line}"
        if row.problem is not None:
            raise DataError(f"{where}: {row.problem}")
        examples.append(example_from_fields(row.fields, columns, label_names, where))
    return examples


def example_from_fields(
    fields: Mapping[str, object], columns: Columns, label_names: Sequence[str] | None, where: str
) -> Example:
    """The example in one row's ``fields``: a missing column or an empty text is a :class:`DataError`."""
    text_column, pair_column, label_column = columns
    for column in columns:
        if column is not None and column not in fields:
            raise DataError(f"{where}: no column {column!r} (columns: {', '.join(map(str, fields))})")
    text = str(fields[text_column] or "").strip()
    if not text:
        raise DataError(f"{where}: empty text in column {text_column!r}")
    pair = str(fields[pair_column] or "").strip() if pair_column else None
    if pair_column and not pair:
        raise DataError(f"{where}: empty text in column {pair_column!r}")
    label = label_index(fields[label_column], label_names, where) if label_column else None
    return Example(text=text, pair=pair, label=label)


def read_hf_dataset(
    name: str,
    split: str,
    text_column: str = "text",
    pair_column: str | None = None,
    label_column: str | None = "label",
    label_names: Sequence[str] | None = None,
) -> list[Example]:
    """A Hugging Face dataset by ``NAME[:CONFIG]`` (needs the ``datasets`` package and the Hub); its rows
    are read like a table's, so columns are found by their usual names (GLUE's ``sentence``)."""
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
    columns = guess_columns(set(rows.column_names), text_column, pair_column, label_column)
    return [example_from_fields(row, columns, label_names, f"hf:{name}[{i}]") for i, row in enumerate(rows)]


def _first_line_is_tree(records: Records) -> bool:
    with contextlib.closing(text_lines(records.source, records.name)) as lines:
        for _, line in lines:
            if line.strip():
                stripped = line.lstrip()
                return stripped.startswith("(") and stripped[1:2].isascii() and stripped[1:2].isdecimal()
    return False
