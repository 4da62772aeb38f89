"""Gradient x input: the dot product of each word embedding with the target logit's gradient.

``input_x_gradient`` (once captum's ``InputXGradient`` computing the same quantity) is an alias of this
method: commands and results folders that name it still work, and its scores are these."""

from __future__ import annotations

import numpy as np

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.base import AttributionMethod, Instance, embedding_gradients, word_embeddings


class GradXInputMethod(AttributionMethod):
    """Score = ``e_t . d logit_target / d e_t`` (signed: positive supports the target)."""

    name = "grad_x_input"
    label = "Gradient x input"
    rank = 21
    core = True
    fast = True
    aliases = ("input_x_gradient",)

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        embeds = word_embeddings(explainer, instance)
        grads = embedding_gradients(explainer, instance, embeds)
        return (grads * embeds).sum(dim=-1)[0, instance.positions].double().cpu().numpy()
