"""Shared fixtures: tiny random encoders built locally with the MiniLM vocabulary."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# The app restricts models to its models folders by default; tests open tiny models from temporary
# folders (the restriction itself is tested with monkeypatch and in test_deployment_config.py).
os.environ.setdefault("SELFEXPLAIN_RESTRICT_MODELS", "0")

from helpers import APP_MODELS, ModelSpec, build_tiny_encoder, make_explainer, save_tiny  # noqa: E402

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


@pytest.fixture(scope="module")
def models_dir(request: pytest.FixtureRequest, tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A models folder (the app's ``SELFEXPLAIN_MODELS_DIR``), one per test module: the models its ``MODELS``
    names (folder name -> ``make_explainer``'s arguments, or ``save(encoder, folder)``), else :data:`APP_MODELS`."""
    root = tmp_path_factory.mktemp("models")
    specs: Mapping[str, ModelSpec] = getattr(request.module, "MODELS", APP_MODELS)
    for name, spec in specs.items():
        if callable(spec):
            spec(tiny_encoder, root / name)
        else:
            save_tiny(tiny_encoder, root / name, **spec)
    return root
