"""Shared fixtures: tiny random encoders built locally with the MiniLM vocabulary."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# The app restricts models to its models folders by default; tests open tiny models from temporary
# folders (the restriction itself is tested with monkeypatch and in test_deployment_config.py).
os.environ.setdefault("SELFEXPLAIN_RESTRICT_MODELS", "0")

from helpers import build_tiny_encoder, make_explainer  # noqa: E402

from selfexplain.core.modeling.checkpoint import save_model  # noqa: E402
from selfexplain.core.pipeline import SelfExplainer  # noqa: E402


@pytest.fixture(scope="session")
def tiny_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_encoder(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="session")
def tiny_explainer(tiny_encoder: Path) -> SelfExplainer:
    return make_explainer(tiny_encoder)


@pytest.fixture(scope="session")
def tiny_pair_explainer(tiny_encoder: Path) -> SelfExplainer:
    return make_explainer(tiny_encoder, pair=True)


@pytest.fixture(scope="session")
def tiny_model_dir(tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny single-text model folder named ``tiny-sst`` (pages, CLI and batch tests load it)."""
    explainer = make_explainer(tiny_encoder, seed=5)
    directory = tmp_path_factory.mktemp("models") / "tiny-sst"
    save_model(explainer.model, explainer.tokenizer, directory)
    return directory
