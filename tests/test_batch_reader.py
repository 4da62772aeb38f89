"""Batch input reading: every format round-trips; bad files name the problem and the row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfexplain.batch.reader import BatchInputError, Row, RowReader, check_size, detect_format

TEXTS = ["a fine, warm film", 'says "no" twice', "line with\ttab", "ünïcödé ☃"]


def write(path: Path, fmt: str) -> Path:
    if fmt == "txt":
        path.write_text("\n".join(TEXTS) + "\n\n", encoding="utf-8")
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps({"text": t, "label": i % 2}) + "\n" for i, t in enumerate(TEXTS)))
    else:
        import csv

        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, delimiter="\t" if fmt == "tsv" else ",")
            writer.writerow(["id", "text", "label"])
            writer.writerows([i, t, i % 2] for i, t in enumerate(TEXTS))
    return path


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "txt"])
def test_each_format_round_trips(tmp_path: Path, fmt: str) -> None:
    path = write(tmp_path / f"data.{fmt}", fmt)
    label = None if fmt == "txt" else "label"
    reader = RowReader(path, label_column=label)
    rows = list(reader)
    assert [r.text for r in rows] == TEXTS
    assert [r.index for r in rows] == [0, 1, 2, 3]
    assert all(r.problem is None for r in rows)
    if label:
        assert [r.gold for r in rows] == ["0", "1", "0", "1"]
    # the same bytes as an upload give the same rows
    assert list(RowReader(path.read_bytes(), name=path.name, label_column=label)) == rows
    if fmt == "txt":
        assert reader.blank_lines == 1


def test_columns_and_line_numbers_of_csv_with_multiline_field(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text('text,label\n"two\nlines",1\n\nok,0\n', encoding="utf-8")
    reader = RowReader(path, label_column="label")
    assert reader.columns() == ["text", "label"]
    assert list(reader) == [Row(0, 2, "two\nlines", None, "1"), Row(1, 5, "ok", None, "0")]


def test_utf8_bom_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_bytes("\ufefftext\nhello\n".encode())
    assert [r.text for r in RowReader(path)] == ["hello"]


def test_wrong_encoding_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes("text\nfine\ncaf\xe9 cr\xe8me\n".encode("latin-1"))
    with pytest.raises(BatchInputError, match=r"latin.csv: line 3: not UTF-8 text \(byte 0xe9"):
        list(RowReader(path))


def test_missing_column_lists_the_columns(tmp_path: Path) -> None:
    path = write(tmp_path / "d.csv", "csv")
    with pytest.raises(BatchInputError, match=r"no column 'sentence' \(columns: id, text, label\)"):
        list(RowReader(path, text_column="sentence"))


def test_empty_and_ragged_rows_are_reported_not_dropped(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("text,label\ngood,1\n  ,0\nx,1,extra\nalso good,0\n", encoding="utf-8")
    rows = list(RowReader(path, label_column="label"))
    assert [r.text for r in rows if r.problem is None] == ["good", "also good"]
    assert [r.problem for r in rows if r.problem] == [
        "row 2 (line 3): empty text in column 'text'",
        "row 3 (line 4): 3 fields, the header has 2",
    ]


def test_jsonl_problems(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"text": "ok"}\n{"other": 1}\n{"text": "x"\n', encoding="utf-8")
    rows = list(RowReader(path))  # a bad line after the first is one bad row, recorded
    assert [r.problem for r in rows] == [
        None,
        "row 2 (line 2): no 'text' field",
        "row 3 (line 3): invalid JSON (Expecting ',' delimiter)",
    ]
    first = tmp_path / "first.jsonl"
    first.write_text('{"text": "x"\n{"text": "ok"}\n', encoding="utf-8")
    with pytest.raises(BatchInputError, match=r"first.jsonl: line 1: invalid JSON"):
        list(RowReader(first))  # a bad first line: the file is not JSONL


def test_size_limit_and_format_detection() -> None:
    check_size("small.csv", 10, 100)
    with pytest.raises(BatchInputError, match=r"big.csv: the file is 1.0 GB; the limit here is 50.0 MB"):
        check_size("big.csv", 1_000_000_000, 50_000_000)
    assert [detect_format(n) for n in ("a.CSV", "b.tsv", "c.json", "d.jsonl", "e.txt", "f")] == [
        "csv",
        "tsv",
        "jsonl",
        "jsonl",
        "txt",
        "txt",
    ]


def test_no_such_file(tmp_path: Path) -> None:
    with pytest.raises(BatchInputError, match="no such file"):
        list(RowReader(tmp_path / "missing.csv"))
