"""The accepted file suffixes live in selfexplain.core.formats (issue 25 item 2): the format detector reads them,
and every upload box of the app passes them (or the subset of some formats) as its ``type``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import open_page

from selfexplain.core import formats
from selfexplain.core.formats import SUFFIX_FORMATS, SUFFIXES, suffixes
from selfexplain.core.formats.text import FORMATS, detect_format

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted([ROOT / "app.py", ROOT / "serve.py", *(ROOT / "pages").rglob("*.py")])
# each upload box (by key) and the formats it takes: example and batch files any, results and pins JSONL
BOXES = {
    "upload": SUFFIXES,
    "anat_upload": SUFFIXES,
    "probe_upload": SUFFIXES,
    "adv_upload": SUFFIXES,
    "batch_file": SUFFIXES,
    "explorer_file": ("jsonl", "json", "ndjson"),
    "gallery_upload": ("txt", "jsonl", "json", "ndjson"),
}


def test_the_suffixes_and_the_detector_agree() -> None:
    assert SUFFIXES == ("txt", "csv", "tsv", "jsonl", "json", "ndjson") == suffixes()
    assert set(SUFFIX_FORMATS.values()) == set(FORMATS)
    for suffix, fmt in SUFFIX_FORMATS.items():
        assert detect_format(f"data.{suffix}") == detect_format(f"DATA.{suffix.upper()}") == fmt
    assert detect_format("data.parquet") == detect_format("data") == "txt"  # anything else is txt
    assert suffixes("jsonl") == ("jsonl", "json", "ndjson") and suffixes("jsonl", "txt") == BOXES["gallery_upload"]
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        suffixes("xml")


def upload_boxes() -> list[tuple[Path, str, ast.expr]]:
    """``(file, key, type expression)`` of every ``file_uploader`` call in the app's sources."""
    boxes = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = getattr(node.func, "attr", getattr(node.func, "id", "")) if isinstance(node, ast.Call) else ""
            if called == "file_uploader":
                options = {k.arg: k.value for k in node.keywords}
                key = options["key"].value if isinstance(options.get("key"), ast.Constant) else "?"
                boxes.append((path, key, options.get("type")))
    return boxes


def formats_imports(path: Path) -> set[str]:
    """The names ``path`` imports from selfexplain.core.formats."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "selfexplain.core.formats"
        for alias in node.names
    }


def test_every_upload_box_takes_the_formats_module_suffixes() -> None:
    boxes = upload_boxes()
    assert sorted(key for _, key, _ in boxes) == sorted(BOXES)
    for path, key, expression in boxes:
        where = f"{path.name} {key}"
        assert expression is not None, f"{where}: no type"
        names = {n.id for n in ast.walk(expression) if isinstance(n, ast.Name)}
        literals = [n for n in ast.walk(expression) if isinstance(n, ast.List | ast.Tuple | ast.Set)]
        assert names and names <= formats_imports(path) and not literals, f"{where}: its own list of suffixes"
        value = eval(compile(ast.Expression(expression), where, "eval"), vars(formats))  # noqa: S307 - our source
        assert tuple(value) == BOXES[key], where


def test_the_live_upload_box_offers_the_suffixes(tiny_model_dir: Path) -> None:
    at = open_page(ROOT / "pages" / "4_Probing.py", tiny_model_dir)
    at.sidebar.radio(key="probe_source").set_value("Upload a file").run()
    assert not at.exception
    assert list(at.file_uploader(key="probe_upload").proto.type) == [f".{s}" for s in SUFFIXES]
