"""The formats package: every file format as records, the two meanings of .txt, examples from files and
datasets, the errors (file and line), and every command's --help saying what .txt means."""

from __future__ import annotations

import argparse
import json
import sys
import types
from pathlib import Path

import pytest

from selfexplain.cli import build_parser, main
from selfexplain.core.formats.examples import read_example_bytes, read_examples
from selfexplain.core.formats.records import Record, Records, guess_columns
from selfexplain.core.formats.text import FormatError, detect_format
from selfexplain.data import Example
from selfexplain.errors import DataError

NAMES = ["neg", "pos"]


def records(path: Path, txt: str | None = "lines") -> list[Record]:
    return list(Records(path, txt=txt))  # type: ignore[arg-type]


def test_the_format_comes_from_the_suffix() -> None:
    names = ["a.CSV", "b.tsv", "c.json", "d.jsonl", "e.ndjson", "f.txt", "g", "h.md"]
    assert [detect_format(n) for n in names] == ["csv", "tsv", "jsonl", "jsonl", "jsonl", "txt", "txt", "txt"]


@pytest.mark.parametrize(
    ("name", "content", "fields"),
    [
        (
            "d.csv",
            'text,label\n"a, b",1\n\nc,0\n',
            [(2, {"text": "a, b", "label": "1"}), (4, {"text": "c", "label": "0"})],
        ),
        (
            "d.tsv",
            "text\tlabel\na, b\t1\nc\t0\n",
            [(2, {"text": "a, b", "label": "1"}), (3, {"text": "c", "label": "0"})],
        ),
        (
            "d.jsonl",
            '{"text": "a", "label": 1}\n\n{"text": "c"}\n',
            [(1, {"text": "a", "label": 1}), (3, {"text": "c"})],
        ),
        ("d.txt", "1 a fine film\n\n  \n0 dull\n", [(1, {"text": "1 a fine film"}), (4, {"text": "0 dull"})]),
    ],
)
def test_each_format_gives_numbered_records_from_a_path_or_bytes(
    tmp_path: Path, name: str, content: str, fields: list[tuple[int, dict]]
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    reader = Records(path, txt="lines")
    assert [(r.line, r.fields) for r in reader] == fields
    assert reader.blank_lines == content.count("\n") - len(fields) - (reader.kind in ("csv", "tsv"))
    assert list(Records(path.read_bytes(), txt="lines", name=name)) == list(reader)


def test_txt_means_what_the_command_says(tmp_path: Path) -> None:
    path = tmp_path / "d.txt"
    path.write_text("1 a fine film\n0 dull\n", encoding="utf-8")
    labelled = Records(path, txt="labelled")
    assert (labelled.kind, labelled.columns()) == ("sst", ["label", "text"])
    assert [r.fields for r in labelled] == [{"label": "1", "text": "a fine film"}, {"label": "0", "text": "dull"}]
    assert read_examples(path, label_names=NAMES, txt="labelled") == [
        Example("a fine film", None, 1),
        Example("dull", None, 0),
    ]
    lines = Records(path, txt="lines")
    assert (lines.kind, lines.columns()) == ("lines", ["text"])
    assert read_examples(path, label_names=NAMES, txt="lines") == [Example("1 a fine film"), Example("0 dull")]
    with pytest.raises(ValueError, match="txt must be one of labelled, lines"):
        Records(path, txt=None)
    with pytest.raises(ValueError, match="txt must be one of"):
        read_examples(path, txt="sst")  # type: ignore[arg-type]
    assert Records(path, txt=None, fmt="jsonl").kind == "jsonl"  # a format given needs no meaning of .txt


def test_a_byte_order_mark_is_dropped_in_every_format(tmp_path: Path) -> None:
    for name, content in [("d.csv", "text\nhi\n"), ("d.jsonl", '{"text": "hi"}\n'), ("d.txt", "hi\n")]:
        path = tmp_path / name
        path.write_bytes(b"\xef\xbb\xbf" + content.encode())
        assert [r.fields["text"] for r in records(path)] == ["hi"]
    sst = tmp_path / "sst.txt"
    sst.write_bytes(b"\xef\xbb\xbf1 fine\n")
    assert read_examples(sst, label_names=NAMES, txt="labelled") == [Example("fine", None, 1)]


def test_not_utf8_names_the_file_line_byte_and_column(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("ok\ncaf\xe9\n".encode("latin-1"))
    with pytest.raises(FormatError, match=r"latin.txt:2: not UTF-8 text \(byte 0xe9 at column 4\)") as caught:
        records(path)
    assert (caught.value.line, caught.value.reason.startswith("not UTF-8")) == (2, True)
    with pytest.raises(DataError, match="latin.txt:2: not UTF-8"):  # a FormatError is a DataError
        read_examples(path, txt="labelled")


def test_row_problems_are_records_and_file_problems_raise(tmp_path: Path) -> None:
    table = tmp_path / "d.csv"
    table.write_text("text,label\nok,1\nx,1,extra\n,\nlast,0\n", encoding="utf-8")
    assert [(r.line, r.problem) for r in records(table)] == [
        (2, None),
        (3, "3 fields, the header has 2"),
        (5, None),
    ]  # the all-empty row on line 4 is a blank line
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text('{"text": "ok"}\n[1]\n{bad\n', encoding="utf-8")
    assert [r.problem for r in records(jsonl)] == [
        None,
        "expected a JSON object, got list",
        "invalid JSON (Expecting property name enclosed in double quotes)",
    ]
    jsonl.write_text('{bad\n{"text": "ok"}\n', encoding="utf-8")
    with pytest.raises(FormatError, match=r"d.jsonl:1: invalid JSON"):
        records(jsonl)  # a bad first line: the file is not JSONL
    sst = tmp_path / "sst.txt"
    sst.write_text("1 fine\n4\n", encoding="utf-8")
    assert [r.problem for r in records(sst, "labelled")] == [None, "expected 'LABEL TEXT', got '4'"]
    huge = tmp_path / "huge.csv"
    huge.write_text("text\n" + "x" * 200_000 + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"huge.csv:2: malformed CSV \(field larger than field limit"):
        records(huge)
    with pytest.raises(FormatError, match=r"missing.csv: no such file"):
        records(tmp_path / "missing.csv")
    with pytest.raises(FormatError, match=r"d.csv: unknown format 'xml'"):
        Records(table, txt="lines", fmt="xml")


def test_a_quote_never_closed_is_named_not_swallowed(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text('text,label\nfine,1\n"open quote,0\nnext,1\nlast,0\n', encoding="utf-8")
    assert [(r.line, r.problem) for r in records(path)] == [
        (2, None),
        (3, "a quote is never closed (lines 3-5 were read as one field)"),
    ]
    with pytest.raises(DataError, match=r"d.csv:3: a quote is never closed \(lines 3-5"):
        read_examples(path, label_names=NAMES, txt="labelled")
    closed = tmp_path / "closed.csv"
    closed.write_text('text,label\n"two\nlines",1', encoding="utf-8")  # closed, and no final newline
    assert [(r.line, r.fields) for r in records(closed)] == [(2, {"text": "two\nlines", "label": "1"})]
    header = tmp_path / "header.csv"
    header.write_text('"text,label\nfine,1\n', encoding="utf-8")
    with pytest.raises(FormatError, match=r"header.csv:1: a quote is never closed \(lines 1-2"):
        records(header)


def test_columns_of_each_format(tmp_path: Path) -> None:
    table = tmp_path / "d.tsv"
    table.write_text(" id \ttext\n1\thi\n", encoding="utf-8")
    assert Records(table, txt="lines").columns() == ["id", "text"]  # header names are stripped
    table.write_text("id\ttext\n", encoding="utf-8")
    with pytest.raises(FormatError, match="d.tsv: the file has no rows"):
        Records(table, txt="lines").columns()
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text('{"review": "x", "y": 1}\n', encoding="utf-8")
    assert Records(jsonl, txt=None).columns() == ["review", "y"]


def test_columns_are_guessed_by_their_usual_names() -> None:
    assert guess_columns({"sentence1", "sentence2", "gold"}, "text", None, "label") == (
        "sentence1",
        "sentence2",
        "gold",
    )
    assert guess_columns({"question", "context", "y"}, "text", None, "label") == ("question", "context", "y")
    assert guess_columns({"content", "label"}, "text", None, "label") == ("content", None, "label")
    assert guess_columns({"text", "premise", "hypothesis"}, "text", None, "label") == ("text", None, "label")
    assert guess_columns({"body", "stars"}, "body", None, "stars") == ("body", None, "stars")  # named: kept
    assert guess_columns({"a"}, "text", None, None) == ("text", None, None)  # nothing to guess from
    # a pair model: the column that goes with the text column, when no pair set was found
    mine = {"text", "pair", "label"}
    assert guess_columns(mine, "text", None, "label") == ("text", None, "label")
    assert guess_columns(mine, "text", None, "label", pair_wanted=True) == ("text", "pair", "label")
    assert guess_columns({"text", "other"}, "text", None, None, pair_wanted=True) == ("text", None, None)
    header = {"premise", "hypothesis", "gold"}
    assert guess_columns(header, "text", None, "label", pair_wanted=True) == ("premise", "hypothesis", "gold")
    assert guess_columns({"text_a", "text_b"}, "text_a", None, None, pair_wanted=True) == ("text_a", "text_b", None)


def test_examples_from_every_format_are_the_same(tmp_path: Path) -> None:
    rows = [("a warm film", "pos"), ("a dull, slow film", "neg")]
    (tmp_path / "d.txt").write_text("".join(f"{NAMES.index(g)} {t}\n" for t, g in rows), encoding="utf-8")
    (tmp_path / "d.csv").write_text("review,y\n" + "".join(f'"{t}",{g}\n' for t, g in rows), encoding="utf-8")
    (tmp_path / "d.tsv").write_text("text\tlabel\n" + "".join(f"{t}\t{g}\n" for t, g in rows), encoding="utf-8")
    (tmp_path / "d.ndjson").write_text("".join(json.dumps({"text": t, "label": g}) + "\n" for t, g in rows))
    expected = [Example("a warm film", None, 1), Example("a dull, slow film", None, 0)]
    for name in ("d.txt", "d.csv", "d.tsv", "d.ndjson"):
        assert read_examples(tmp_path / name, label_names=NAMES, txt="labelled") == expected, name


@pytest.mark.parametrize(
    ("content", "options", "message"),
    [
        ("text,label\nfine,1\nx,1,extra\n", {}, r"d.csv:3: 3 fields, the header has 2"),
        ("text,label\nfine,happy\n", {"label_names": NAMES}, r"d.csv:2: label 'happy' is not a number or a known"),
        ("text,label\nfine,1\n", {"phrases": True}, "d.csv: phrases need an SST tree file"),
        ("text,label\n", {}, "d.csv: no examples"),
    ],
)
def test_example_errors_name_file_and_line(tmp_path: Path, content: str, options: dict, message: str) -> None:
    path = tmp_path / "d.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError, match=message):
        read_examples(path, txt="labelled", **options)


def test_an_uploads_bytes_give_what_the_file_gives(tmp_path: Path) -> None:
    files = {
        "d.txt": "\ufeff1 a warm film\n\n0 a dull, slow film\n",
        "trees.txt": "(1 (1 a) (1 (1 warm) (1 film)))\n(0 (0 dull) (0 .))\n",
        "d.csv": 'review,y\n"a warm film",pos\n',
        "d.TSV": "sentence1\tsentence2\tlabel\na warm film\tit is warm\t1\n",
        "d.ndjson": '{"text": "a warm film", "label": "pos"}\n',
    }
    for name, content in files.items():
        path = tmp_path / name
        path.write_text(content, encoding="utf-8")
        from_file = read_examples(path, label_names=NAMES, txt="labelled")
        assert read_example_bytes(path.read_bytes(), name, NAMES, txt="labelled") == from_file, name
    assert read_example_bytes(files["trees.txt"].encode(), "trees.txt", txt="labelled")[1] == Example("dull .", None, 0)
    assert read_example_bytes(b"a warm film\n", "d.txt", label_column=None, txt="lines") == [Example("a warm film")]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"text,label\nfine,1\nx,1,extra\n", "upload.csv:3: 3 fields, the header has 2"),
        (b"text,label\nfine,\xff\n", "upload.csv:2: not UTF-8 text (byte 0xff at column 6); save the file as UTF-8"),
        (b"text,label\n", "upload.csv: no examples"),
    ],
)
def test_an_uploads_errors_name_the_upload_and_line(content: bytes, message: str) -> None:
    with pytest.raises(DataError) as error:
        read_example_bytes(content, "upload.csv", NAMES, txt="labelled")
    assert str(error.value) == message


def test_sst_trees_in_bytes_name_the_upload_and_line() -> None:
    trees = b"(1 (1 warm) (1 film))\n(7 (0 dull) (0 .))\n"
    with pytest.raises(DataError) as error:
        read_example_bytes(trees, "upload.txt", NAMES, txt="labelled")
    assert str(error.value) == "upload.txt:2: label 7 is out of range"


def test_a_hugging_face_dataset_is_read_like_a_table(monkeypatch: pytest.MonkeyPatch) -> None:
    class Rows(list):
        column_names = ["idx", "sentence", "label"]

    calls = []

    def load_dataset(name: str, config: str | None, split: str) -> Rows:
        calls.append((name, config, split))
        return Rows([{"idx": 0, "sentence": "a fine film ", "label": 1}, {"idx": 1, "sentence": "dull", "label": 0}])

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    examples = read_examples("hf:glue:sst2", label_names=NAMES, split="validation", txt="labelled")
    assert examples == [Example("a fine film", None, 1), Example("dull", None, 0)]
    assert calls == [("glue", "sst2", "validation")]
    with pytest.raises(DataError, match=r"hf:glue\[0\]: label 1 is out of range"):
        read_examples("hf:glue:sst2", label_names=["only"], txt="labelled")


LABELLED = "a .txt file holds one 'LABEL TEXT' a line (SST lines) or one SST tree a line"


@pytest.mark.parametrize(
    ("command", "option", "meaning"),
    [
        ("train", "--train", LABELLED),
        ("train", "--dev", LABELLED),
        ("eval", "--data", LABELLED),
        ("faithfulness", "--data", LABELLED),
        ("sharpness", "--data", LABELLED),
        ("anatomy", "--data", LABELLED),
        ("probe", "--data", LABELLED),
        ("perturb", "--data", LABELLED),
        ("batch", "input", "a .txt file holds one text a line, without labels"),
        ("plausibility", "--data", "read as JSONL whatever the suffix, .txt too"),
    ],
)
def test_every_data_option_says_what_txt_means(
    capsys: pytest.CaptureFixture[str], command: str, option: str, meaning: str
) -> None:
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    actions = commands.choices[command]._actions
    action = next(a for a in actions if option in a.option_strings or a.dest == option)
    assert meaning in action.help
    with pytest.raises(SystemExit) as stopped:
        main([command, "--help"])
    assert stopped.value.code == 0
    assert meaning in " ".join(capsys.readouterr().out.split())  # as printed (argparse wraps help text)
