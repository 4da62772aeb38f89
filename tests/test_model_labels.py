"""The pickers' one-line model descriptions, read from selfexplain.json alone."""

from __future__ import annotations

from pathlib import Path

from selfexplain.core.modeling.config import ModelConfig
from selfexplain.views.model_labels import model_label, task_of


def _folder(tmp_path: Path, **fields: object) -> Path:
    config = ModelConfig(encoder="all-MiniLM-L6-v2", **fields)  # type: ignore[arg-type]
    folder = tmp_path / str(fields.get("name", "m"))
    folder.mkdir()
    config.save(folder)
    return folder


def test_label_names_task_kind_accuracy_and_speed(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path, label_names=["negative", "positive"], name="demo",
        metrics={"test_accuracy": 0.9243, "explain_ms": 21.4},
    )  # fmt: skip
    assert model_label("demo", folder) == "demo · sentiment, 2 labels · self-explaining · test 92.4% · 21 ms"
    nli = _folder(tmp_path, label_names=["entailment", "neutral", "contradiction"], pair=True, head="mean", name="n")
    assert model_label("n", nli) == "n · NLI, 3 labels · mean baseline"
    assert task_of(ModelConfig(encoder="x", label_names=["spam", "ham"])) == "2 labels"


def test_an_unreadable_folder_is_offered_by_name(tmp_path: Path) -> None:
    assert model_label("x", tmp_path / "missing") == "x"
    (tmp_path / "selfexplain.json").write_text("{not json")
    assert model_label("x", tmp_path) == "x" and model_label("x", None) == "x"
