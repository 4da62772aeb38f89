"""Finding model folders by name and by path, in an open and in a restricted deployment."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfexplain.core.modeling.model_folders import resolve_model
from selfexplain.errors import UnknownModelError


@pytest.fixture
def linked_models(tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A restricted deployment whose models folder holds ``linked``, a link to a model folder elsewhere."""
    models = tmp_path / "models"
    models.mkdir()
    (models / "linked").symlink_to(tiny_model_dir, target_is_directory=True)
    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(models))
    monkeypatch.setenv("SELFEXPLAIN_RESTRICT_MODELS", "1")
    return models


def test_a_linked_model_loads_by_name_and_by_its_path_in_the_models_folder(linked_models: Path) -> None:
    assert resolve_model("linked") == linked_models / "linked"
    # the path a card records (a surrogate's teacher_folder) names the same folder as the name does
    assert resolve_model(str(linked_models / "linked")) == linked_models / "linked"


def test_the_linked_target_itself_stays_outside_a_restricted_deployment(
    linked_models: Path, tiny_model_dir: Path
) -> None:
    with pytest.raises(UnknownModelError, match="in this deployment"):
        resolve_model(str(tiny_model_dir))
    with pytest.raises(UnknownModelError, match="in this deployment"):
        resolve_model(str(linked_models / "linked" / ".." / "linked-other"))


def test_an_open_deployment_takes_any_model_folder(tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFEXPLAIN_RESTRICT_MODELS", "0")
    assert resolve_model(str(tiny_model_dir)) == tiny_model_dir
    with pytest.raises(UnknownModelError, match="no folder at that path"):
        resolve_model(str(tiny_model_dir / "missing"))
