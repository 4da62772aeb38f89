"""``selfexplain distill``'s caches (the teacher's probabilities and word-deletion effects) are keyed by what
the teacher computes, not where its folder lies: a moved checkout reads them, a retrained teacher does not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from safetensors.torch import load_file, save_file
from test_distill import _distill, _texts, bert_teacher

from selfexplain.lab.distill.teacher import read_teacher, teacher_fingerprint


@pytest.fixture(scope="module")
def teacher(tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bert_teacher(tiny_encoder, tmp_path_factory.mktemp("cache-teacher"))


def _restamp(path: Path, **fields: str) -> None:
    from safetensors import safe_open

    with safe_open(str(path), "pt") as handle:
        metadata = {**(handle.metadata() or {}), **fields}
    save_file(load_file(str(path)), str(path), metadata=metadata)


def test_the_fingerprint_follows_the_weights_not_the_folder_or_its_records(teacher: Path, tmp_path: Path) -> None:
    moved = Path(shutil.copytree(teacher, tmp_path / "moved"))
    first = teacher_fingerprint(read_teacher(str(teacher)))
    assert first.startswith("sha256:") and teacher_fingerprint(read_teacher(str(moved))) == first
    (moved / "README.md").write_text("a card written later\n")
    assert teacher_fingerprint(read_teacher(str(moved))) == first
    weights = next(moved.glob("*.safetensors"))
    tensors = load_file(str(weights))
    name = next(iter(tensors))
    tensors[name] = tensors[name] + 1e-3  # retrained
    save_file(tensors, str(weights), metadata={"format": "pt"})
    assert teacher_fingerprint(read_teacher(str(moved))) != first


def test_a_selfexplain_teachers_recorded_metrics_do_not_change_it(tiny_explainer, tmp_path: Path) -> None:
    from selfexplain.core.modeling.checkpoint import save_model

    folder = tmp_path / "se-teacher"
    save_model(tiny_explainer.model, tiny_explainer.tokenizer, folder)
    first = teacher_fingerprint(read_teacher(str(folder)))
    config = json.loads((folder / "selfexplain.json").read_text())
    (folder / "selfexplain.json").write_text(json.dumps({**config, "metrics": {"test_accuracy": 0.9}, "name": "x"}))
    assert teacher_fingerprint(read_teacher(str(folder))) == first
    (folder / "selfexplain.json").write_text(json.dumps({**config, "lambda_": 0.5}))
    assert teacher_fingerprint(read_teacher(str(folder))) != first


def test_a_moved_teacher_and_caches_written_before_fingerprints_are_read(
    teacher: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from selfexplain.lab.distill import erasure, run

    texts = _texts(tmp_path / "texts.txt")
    out = tmp_path / "student"
    extra = ("--epochs", "1", "--erasure-weight", "1", "--erasure-texts", "6", "--normaliser", "sparsemax")
    assert _distill(teacher, texts, out, *extra) == 0
    probabilities = load_file(str(out / "teacher.safetensors"))["probabilities"]
    effects = load_file(str(out / "erasure.safetensors"))["erasure_values"]
    fail = lambda *a, **k: pytest.fail("the teacher ran again")  # noqa: E731
    monkeypatch.setattr(run, "teacher_probabilities", fail)
    monkeypatch.setattr(erasure, "teacher_probabilities", fail)
    moved = Path(shutil.copytree(teacher, tmp_path / "elsewhere" / "teacher"))
    assert _distill(moved, texts, out, *extra) == 0  # the same teacher, another folder: both caches read
    # caches written before fingerprints name the teacher's folder: still read for the teacher in that folder
    old = str(moved.resolve())  # a Hugging Face teacher's folder is also the student's tokenizer
    _restamp(out / "teacher.safetensors", teacher=old)
    _restamp(out / "erasure.safetensors", teacher=old, tokenizer=old)
    assert _distill(moved, texts, out, *extra) == 0
    assert load_file(str(out / "teacher.safetensors"))["probabilities"].equal(probabilities)
    assert load_file(str(out / "erasure.safetensors"))["erasure_values"].equal(effects)
    # the old stamp is kept for another folder's teacher only when its fingerprint matches: here it does not
    _restamp(out / "erasure.safetensors", teacher="/somewhere/else")
    with pytest.raises(pytest.fail.Exception, match="the teacher ran again"):
        _distill(moved, texts, out, *extra)
