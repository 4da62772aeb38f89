"""Issue 17's minor cases: each gave a traceback or a silent wrong result before; now one line, exit 2,
or a recorded row."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from selfexplain.batch.reader import BatchInputError, RowReader
from selfexplain.batch.runner import BatchOptions, run_batch
from selfexplain.cli import main
from selfexplain.core.formats.examples import read_examples
from selfexplain.core.modeling.checkpoint import ModelDirectoryError, load_model_directory
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.errors import DataError
from selfexplain.support.jsonl import RecordError, parse_record

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("line", "message"),
    [("{bad", "invalid JSON"), (DEEP, "nested too deeply"), ("[1, 2]", "got list"), ("x" * 10_000_001, "limit")],
)
def test_parse_record_names_the_problem(line: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        parse_record(line)
    assert parse_record('{"text": "a"}') == {"text": "a"}


def test_deeply_nested_json_in_a_data_file(tmp_path: Path) -> None:
    data = tmp_path / "deep.jsonl"
    data.write_text(DEEP + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="deep.jsonl:1: JSON nested too deeply"):
        read_examples(data, label_names=["a", "b"], txt="labelled")
    with pytest.raises(BatchInputError, match="line 1: JSON nested too deeply"):
        list(RowReader(data))


def test_a_byte_order_mark_is_not_part_of_the_first_label(tmp_path: Path) -> None:
    lines = tmp_path / "bom.txt"
    lines.write_bytes("\ufeff1 a fine film\n0 a dull film\n".encode())
    table = tmp_path / "bom.csv"
    table.write_bytes("\ufefftext,label\na fine film,1\n".encode())
    assert [e.label for e in read_examples(lines, label_names=["neg", "pos"], txt="labelled")] == [1, 0]
    assert [e.text for e in read_examples(table, label_names=["neg", "pos"], txt="labelled")] == ["a fine film"]


def test_an_argument_that_is_not_utf8_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    bad = b"\xff\xfe film".decode("utf-8", errors="surrogateescape")  # what Python makes of such argv bytes
    assert main(["explain", bad]) == 2
    assert capsys.readouterr().err.strip() == "selfexplain: error: argument 2 is not valid UTF-8 text"


def test_a_bad_jsonl_line_in_the_middle_is_recorded_and_the_run_finishes(tiny_explainer, tmp_path: Path) -> None:
    data = tmp_path / "mid.jsonl"
    data.write_text('{"text": "good"}\n{bad\n' + DEEP + '\n{"text": "also good"}\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert run_batch(tiny_explainer, RowReader(data), out, BatchOptions(), progress=False) == 4
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["label"] is not None for r in records] == [True, False, False, True]
    assert "line 2" in records[1]["error"] and "invalid JSON" in records[1]["error"]
    assert "nested too deeply" in records[2]["error"]
    # the rerun finishes at once instead of stopping at the same line
    assert run_batch(tiny_explainer, RowReader(data), out, BatchOptions(), progress=False) == 0


def test_an_empty_progress_file_is_a_clear_error(tiny_explainer, tmp_path: Path) -> None:
    data = tmp_path / "in.jsonl"
    data.write_text('{"text": "good"}\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    run_batch(tiny_explainer, RowReader(data), out, BatchOptions(), progress=False)
    (tmp_path / "out.jsonl.progress.json").write_text("", encoding="utf-8")
    with pytest.raises(BatchInputError, match="progress file of out.jsonl is damaged"):
        run_batch(tiny_explainer, RowReader(data), out, BatchOptions(), progress=False)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("label_names", 5, "label_names must be a list of strings"),
        ("label_names", ["a", "a", "b", "c", "d"], "distinct"),
        ("dropout", "x", "dropout must be a number"),
        ("dropout", 1.5, r"dropout must be in \[0, 1\)"),
        ("max_length", "512", "max_length must be an integer"),
        ("window_stride", 0, "window_stride must be at least 1"),
        ("encoder_layer", 99, "encoder_layer 99 does not exist"),
        ("encoder_layer", 1.5, "encoder_layer must be an integer"),
        ("pair", "yes", "pair must be true or false"),
        ("lambda_", -1, "lambda_ must be at least 0"),
        ("metrics", [1], "metrics must be an object"),
        ("max_span_width", "3", "max_span_width must be an integer or null"),
        ("span_representation", "max", "unknown span_representation"),
    ],
)
def test_type_errors_in_the_model_config(tiny_model_dir: Path, tmp_path: Path, field: str, value, message) -> None:
    folder = tmp_path / "m"
    shutil.copytree(tiny_model_dir, folder)
    config = json.loads((folder / "selfexplain.json").read_text(encoding="utf-8"))
    config[field] = value
    (folder / "selfexplain.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelDirectoryError, match=message):
        load_model_directory(folder)


def test_a_config_that_is_not_an_object_or_lacks_keys() -> None:
    with pytest.raises(ValueError, match="expected a JSON object"):
        ModelConfig.from_json("[1]")
    with pytest.raises(ValueError, match="missing keys in model config: label_names"):
        ModelConfig.from_json('{"encoder": "x"}')
    with pytest.raises(ValueError, match="nested too deeply"):
        ModelConfig.from_json(DEEP)


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o755), (0o077, 0o700), (0o002, 0o775)])
def test_saved_model_folders_follow_the_umask(tiny_explainer, tmp_path: Path, umask: int, mode: int) -> None:
    import os

    from selfexplain.core.modeling.checkpoint import save_model

    previous = os.umask(umask)
    try:
        save_model(tiny_explainer.model, tiny_explainer.tokenizer, tmp_path / "m")
    finally:
        os.umask(previous)
    assert (tmp_path / "m").stat().st_mode & 0o777 == mode
    assert (tmp_path / "m" / "selfexplain.json").stat().st_mode & 0o777 == 0o666 & ~umask


def test_oversized_tokenizer_or_weights_header_is_refused_before_parsing(tiny_model_dir: Path, tmp_path: Path) -> None:
    huge_tokenizer = tmp_path / "tok"
    shutil.copytree(tiny_model_dir, huge_tokenizer)
    with (huge_tokenizer / "tokenizer.json").open("r+b") as handle:
        handle.truncate(65 * 2**20)  # sparse: no 65 MB written
    with pytest.raises(ModelDirectoryError, match="tokenizer file may have"):
        load_model_directory(huge_tokenizer)
    huge_header = tmp_path / "hdr"
    shutil.copytree(tiny_model_dir, huge_header)
    weights = next(huge_header.glob("*.safetensors"))
    weights.write_bytes((67 * 2**20).to_bytes(8, "little") + b"{")
    with pytest.raises(ModelDirectoryError, match="MB header"):
        load_model_directory(huge_header)
