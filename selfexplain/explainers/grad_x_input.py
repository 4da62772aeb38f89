"""Gradient x input: the dot product of each word embedding with the target logit's gradient."""

from __future__ import annotations

import numpy as np

from selfexplain.explainers.base import Explainer, Instance, embedding_gradients, word_embeddings
from selfexplain.pipeline import SelfExplainer


class GradXInputExplainer(Explainer):
    """Score = ``e_t . d logit_target / d e_t`` (signed: positive supports the target)."""

    name = "grad_x_input"
    label = "Gradient x input"

    def attribute(self, model: SelfExplainer, instance: Instance) -> np.ndarray:
        embeds = word_embeddings(model, instance)
        grads = embedding_gradients(model, instance, embeds)
        return (grads * embeds).sum(dim=-1)[0, instance.positions].double().cpu().numpy()
