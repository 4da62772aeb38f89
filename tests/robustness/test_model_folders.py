"""Broken or unexpected model folders: one-line errors naming the problem, never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from selfexplain.cli import main
from selfexplain.core.modeling.checkpoint import ModelDirectoryError, load_model_directory
from selfexplain.core.modeling.encoders import UnsafeWeightsError
from selfexplain.core.pipeline import resolve_model
from selfexplain.errors import UnknownModelError


def broken_copy(source: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(source, target)
    return target


def test_missing_and_empty_folders(tmp_path: Path) -> None:
    with pytest.raises(ModelDirectoryError, match="not a folder"):
        load_model_directory(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelDirectoryError, match="not a selfexplain model folder"):
        load_model_directory(tmp_path / "empty")


def test_pickle_only_checkpoint_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pytorch_model.bin").write_bytes(b"\x80\x04not unpickled")
    with pytest.raises(UnsafeWeightsError, match="pickle"):
        load_model_directory(tmp_path)


def test_corrupted_safetensors(tiny_model_dir: Path, tmp_path: Path) -> None:
    folder = broken_copy(tiny_model_dir, tmp_path, "corrupt")
    weights = folder / "weights.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(ModelDirectoryError, match="cannot be loaded"):
        load_model_directory(folder)


def test_label_count_that_disagrees_with_the_head(tiny_model_dir: Path, tmp_path: Path) -> None:
    folder = broken_copy(tiny_model_dir, tmp_path, "labels")
    config = json.loads((folder / "selfexplain.json").read_text())
    config["label_names"] = ["only", "two"]
    (folder / "selfexplain.json").write_text(json.dumps(config))
    with pytest.raises(ModelDirectoryError, match="config names 2 labels, the head has 5"):
        load_model_directory(folder)


def test_invalid_config(tiny_model_dir: Path, tmp_path: Path) -> None:
    folder = broken_copy(tiny_model_dir, tmp_path, "config")
    (folder / "selfexplain.json").write_text('{"encoder": "x", "label_names": ["a"], "surprise": 1}')
    with pytest.raises(ModelDirectoryError, match="unknown keys"):
        load_model_directory(folder)


@pytest.mark.parametrize("kind", ["missing", "pickle", "corrupt"])
def test_cli_reports_broken_folders_in_one_line(tiny_model_dir: Path, tmp_path: Path, capsys, kind: str) -> None:
    folder = tmp_path / kind
    if kind == "pickle":
        folder.mkdir()
        (folder / "model.pt").write_bytes(b"x")
    elif kind == "corrupt":
        folder = broken_copy(tiny_model_dir, tmp_path, kind)
        (folder / "weights.safetensors").write_bytes(b"\x00" * 64)
    assert main(["explain", "fine", "--model", str(folder)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("selfexplain: error:") and len(err.splitlines()) == 1


def test_restricted_deployment_refuses_paths_outside_the_models_folders(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SELFEXPLAIN_RESTRICT_MODELS", "1")
    with pytest.raises(UnknownModelError) as existing:
        resolve_model(str(tiny_model_dir))
    with pytest.raises(UnknownModelError) as missing:
        resolve_model(str(tmp_path / "no-such-folder"))
    # the same answer whether or not the path exists: nothing learnt about the server's folders
    assert str(existing.value).replace(str(tiny_model_dir), "P") == str(missing.value).replace(
        str(tmp_path / "no-such-folder"), "P"
    )
    assert "no model named" in str(existing.value)
    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(tiny_model_dir.parent))
    assert resolve_model(str(tiny_model_dir)) == tiny_model_dir
    assert resolve_model("tiny-sst") == tiny_model_dir


def test_missing_fifo_or_foreign_tokenizers_are_refused(tiny_model_dir, tmp_path) -> None:
    """These used to load with a 5-token vocabulary and predict from [UNK]s with exit 0."""
    import json
    import os
    import shutil

    import pytest

    from selfexplain.core.modeling.checkpoint import load_model_directory
    from selfexplain.errors import ModelDirectoryError

    broken = tmp_path / "no-tokenizer"
    shutil.copytree(tiny_model_dir, broken)
    for name in ("tokenizer.json", "vocab.txt", "vocab.json"):
        (broken / name).unlink(missing_ok=True)
    with pytest.raises(ModelDirectoryError, match="no tokenizer"):
        load_model_directory(broken)
    fifo = tmp_path / "fifo"
    shutil.copytree(tiny_model_dir, fifo)
    (fifo / "tokenizer.json").unlink()
    os.mkfifo(fifo / "tokenizer.json")
    with pytest.raises(ModelDirectoryError, match="not a regular file"):
        load_model_directory(fifo)
    small = tmp_path / "small"
    shutil.copytree(tiny_model_dir, small)
    data = json.loads((small / "tokenizer.json").read_text(encoding="utf-8"))
    data["model"]["vocab"] = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}
    (small / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    (small / "vocab.txt").unlink(missing_ok=True)
    with pytest.raises(ModelDirectoryError, match="does not belong to this model"):
        load_model_directory(small)
