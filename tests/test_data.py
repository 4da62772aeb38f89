from __future__ import annotations

import json
from pathlib import Path

import pytest

from selfexplain.core.formats.examples import read_examples
from selfexplain.data import DataError, Example


def test_sst_lines(tmp_path: Path) -> None:
    path = tmp_path / "train.txt"
    path.write_text("4 a stirring , funny film\n\n1 dull .\n", encoding="utf-8")
    assert read_examples(path, txt="labelled") == [
        Example("a stirring , funny film", None, 4),
        Example("dull .", None, 1),
    ]


def test_sst_bad_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("4 fine\nnotalabel text\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.txt:2: label 'notalabel'"):
        read_examples(path, txt="labelled")


def test_tsv_pairs_with_quotes_and_label_names(tmp_path: Path) -> None:
    path = tmp_path / "nli.tsv"
    path.write_text('premise\thypothesis\tlabel\n"He said ""hi"""\tSomeone spoke.\tentailment\n', encoding="utf-8")
    rows = read_examples(
        path, "premise", "hypothesis", "label", label_names=["entailment", "neutral", "contradiction"], txt="labelled"
    )
    assert rows == [Example('He said "hi"', "Someone spoke.", 0)]


def test_csv_missing_column_and_empty_text(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("words,label\nfine,1\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"d.csv:2: no column 'text'"):
        read_examples(path, txt="labelled")
    path.write_text("text,label\nfine,1\n,0\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"d.csv:3: empty text"):
        read_examples(path, txt="labelled")


def test_jsonl_and_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"text": "ok", "label": 1}) + "\n{broken\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"d.jsonl:2: invalid JSON"):
        read_examples(path, txt="labelled")
    path.write_text(json.dumps({"text": "ok", "label": 1}) + "\n", encoding="utf-8")
    assert read_examples(path, txt="labelled") == [Example("ok", None, 1)]


def test_not_utf8_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("1 caf\xe9\n".encode("latin-1"))
    with pytest.raises(DataError, match="not UTF-8"):
        read_examples(path, txt="labelled")
    with pytest.raises(DataError, match="no such file"):
        read_examples(tmp_path / "missing.txt", txt="labelled")


def test_hf_dataset_without_package_is_clear() -> None:
    # offline, either the package is missing or the Hub is unreachable: both must be a DataError
    with pytest.raises(DataError, match="datasets|Hugging Face dataset"):
        read_examples("hf:glue:sst2", txt="labelled")


def test_columns_found_by_their_usual_names(tmp_path) -> None:
    from selfexplain.core.formats.examples import read_examples

    pairs = tmp_path / "nli.tsv"
    pairs.write_text("sentence1\tsentence2\tgold\nA man sleeps.\tSomeone rests.\t0\n", encoding="utf-8")
    (example,) = read_examples(pairs, label_names=["entailment", "neutral", "contradiction"], txt="labelled")
    assert (example.text, example.pair, example.label) == ("A man sleeps.", "Someone rests.", 0)
    reviews = tmp_path / "reviews.csv"
    reviews.write_text("review,y\nA warm film.,1\n", encoding="utf-8")
    (example,) = read_examples(reviews, label_names=["neg", "pos"], txt="labelled")
    assert (example.text, example.pair, example.label) == ("A warm film.", None, 1)
    both = tmp_path / "both.csv"
    both.write_text("text,premise,hypothesis,label\nT,P,H,0\n", encoding="utf-8")
    (example,) = read_examples(both, label_names=["a", "b"], txt="labelled")
    assert (example.text, example.pair) == ("T", None)  # a column that exists wins
