"""Uploaded example files on the pages: read in memory through selfexplain.core.formats (no temporary file),
and a bad file is a clear message in the page naming the upload and the line."""

from __future__ import annotations

import html
import tempfile
from pathlib import Path

import pytest
from helpers import open_page

from pages.ui.examples import SST5_NAMES, read_uploaded
from selfexplain.data import Example
from selfexplain.errors import DataError

PROBING = str(Path(__file__).resolve().parents[1] / "pages" / "4_Probing.py")


@pytest.fixture
def no_temp_files(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("an upload was written to a temporary file")

    for name in ("TemporaryDirectory", "NamedTemporaryFile", "TemporaryFile", "mkstemp", "mkdtemp"):
        monkeypatch.setattr(tempfile, name, refuse)


@pytest.mark.usefixtures("no_temp_files")
@pytest.mark.parametrize(
    ("data", "suffix"),
    [
        (b"4 a moving film\n\n0 a dull one\n", ".txt"),
        (b"(4 (4 a) (4 (4 moving) (2 film)))\n(0 (2 a) (0 (0 dull) (2 one)))\n", ".txt"),
        (b"review,label\na moving film,very positive\na dull one,0\n", ".csv"),
        (b"text\tlabel\na moving film\t4\na dull one\tvery negative\n", ".TSV"),
        (b'{"text": "a moving film", "label": 4}\n{"text": "a dull one", "label": "very negative"}\n', ".jsonl"),
    ],
)
def test_uploads_are_read_in_memory_in_every_format(data: bytes, suffix: str) -> None:
    expected = [Example("a moving film", None, 4), Example("a dull one", None, 0)]
    assert read_uploaded(data, suffix, list(SST5_NAMES)) == expected


@pytest.mark.usefixtures("no_temp_files")
def test_a_bad_upload_names_the_upload_and_line() -> None:
    with pytest.raises(DataError) as error:
        read_uploaded(b"4 fine\nworse\n", ".txt", list(SST5_NAMES))
    assert str(error.value) == "upload.txt:2: expected 'LABEL TEXT', got 'worse'"


def test_a_bad_upload_is_a_message_in_the_page(tiny_model_dir: Path) -> None:
    at = open_page(PROBING, tiny_model_dir)
    at.sidebar.radio(key="probe_source").set_value("Upload a file").run()
    at.file_uploader(key="probe_upload").set_value(("mine.csv", b"text,label\nfine,7\n", "text/csv")).run()
    at.button(key="probe_run").click().run()
    assert not at.exception
    assert [html.unescape(e.value) for e in at.error] == ["upload.csv:2: label 7 is out of range"]  # escaped


def test_a_bad_or_empty_upload_on_the_faithfulness_page_is_a_message(tiny_model_dir: Path) -> None:
    page = str(Path(__file__).resolve().parents[1] / "pages" / "2_Faithfulness.py")
    at = open_page(page, tiny_model_dir)
    at.radio(key="source").set_value("Upload a file").run()
    at.file_uploader(key="upload").set_value(("mine.csv", b"text,label\nfine,7\n", "text/csv")).run()
    assert not at.exception
    shown = [html.unescape(e.value) for e in at.error]  # the message is escaped for Markdown
    assert shown == ["This file cannot be read: upload.csv:2: label 7 is out of range"]
    at.file_uploader(key="upload").set_value(("empty.csv", b"text,label\n", "text/csv")).run()
    assert not at.exception
    assert [html.unescape(e.value) for e in at.error] == ["This file cannot be read: upload.csv: no examples"]
