"""Builders for tiny random encoders and models with the MiniLM vocabulary (no download)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import torch
from transformers import AutoTokenizer, BertConfig, BertModel

from selfexplain.core.modeling.checkpoint import save_model
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.encoders import packaged_minilm_path
from selfexplain.core.modeling.model import SelfExplainingModel
from selfexplain.core.pipeline import SelfExplainer

SST5_LABELS = ["very negative", "negative", "neutral", "positive", "very positive"]
NLI_LABELS = ["entailment", "neutral", "contradiction"]


def build_tiny_encoder(directory: Path, seed: int = 0) -> Path:
    """A 2-layer, 32-wide random BERT with the MiniLM vocabulary, saved as safetensors."""
    torch.manual_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(packaged_minilm_path())
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    BertModel(config).save_pretrained(directory, safe_serialization=True)
    tokenizer.save_pretrained(directory)
    return directory


def make_explainer(encoder: Path, pair: bool = False, seed: int = 0, **overrides: object) -> SelfExplainer:
    torch.manual_seed(seed)
    config = ModelConfig(
        encoder=str(encoder),
        label_names=NLI_LABELS if pair else SST5_LABELS,
        pair=pair,
        name="tiny-nli" if pair else "tiny-sst",
        max_length=128,
        **overrides,  # type: ignore[arg-type]
    )
    model = SelfExplainingModel(config)
    tokenizer = AutoTokenizer.from_pretrained(encoder)
    return SelfExplainer(model, tokenizer)


ModelSpec = Mapping[str, Any] | Callable[[Path, Path], object]
# the app tests' models: a single-text and a pair model, seed 11
APP_MODELS: dict[str, ModelSpec] = {"tiny-sst": {"seed": 11}, "tiny-nli": {"seed": 11, "pair": True}}


def save_tiny(encoder: Path, folder: Path, name: str | None = None, **spec: Any) -> Path:
    """A tiny model (``make_explainer(encoder, **spec)``) saved as ``folder``, its config named ``name`` (by
    default after the folder)."""
    explainer = make_explainer(encoder, **spec)
    explainer.model.config.name = name or folder.name
    save_model(explainer.model, explainer.tokenizer, folder)
    return folder


def open_page(page: str | Path, model_dir: Path):
    """An AppTest of ``page`` with the model folder ``model_dir`` chosen in the sidebar."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(page), default_timeout=120)
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input(str(model_dir)).run()
    return at
