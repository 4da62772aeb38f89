"""Fixtures for the robustness suite (the tiny encoders come from tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import make_explainer

from selfexplain.checkpoint import save_model


@pytest.fixture(scope="session")
def tiny_model_dir(tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    explainer = make_explainer(tiny_encoder, seed=21)
    directory = tmp_path_factory.mktemp("robust-models") / "tiny-sst"
    save_model(explainer.model, explainer.tokenizer, directory)
    return directory
