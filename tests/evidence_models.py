"""Tiny models whose alpha is sparse (sparsemax): one span, or a few, carry all the weight; the others
have alpha exactly 0. Built from the tiny random encoder, no download."""

from __future__ import annotations

from pathlib import Path

import torch
from helpers import make_explainer

from selfexplain.core.modeling.checkpoint import save_model
from selfexplain.core.pipeline import SelfExplainer

SENTENCE = "The visuals are gorgeous, but the story is thin."


def sparse_explainer(encoder: Path, peak: float, seed: int = 3, pair: bool = False, name: str = "") -> SelfExplainer:
    """A sparsemax model whose span scores are multiplied by ``peak``: 30 leaves one span with all the
    weight on :data:`SENTENCE`, 1 leaves a few (six with seed 3)."""
    explainer = make_explainer(encoder, pair=pair, seed=seed, normaliser="sparsemax")
    with torch.no_grad():
        explainer.model.span_layer.interpret.weight.mul_(peak)
    if name:
        explainer.model.config.name = name
    return explainer


def save_sparse(encoder: Path, folder: Path, peak: float, seed: int = 3, pair: bool = False) -> Path:
    """:func:`sparse_explainer` saved as a model folder named after ``folder``."""
    explainer = sparse_explainer(encoder, peak, seed, pair, folder.name)
    save_model(explainer.model, explainer.tokenizer, folder)
    return folder
