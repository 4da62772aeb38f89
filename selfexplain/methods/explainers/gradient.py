"""Gradient saliency: the L2 norm of the target logit's gradient at each word embedding."""

from __future__ import annotations

import numpy as np

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.base import AttributionMethod, Instance, embedding_gradients, word_embeddings


class GradientMethod(AttributionMethod):
    """Score = ``|| d logit_target / d e_t ||_2`` (unsigned)."""

    name = "gradient"
    label = "Gradient saliency"
    rank = 20
    core = True
    fast = True

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        grads = embedding_gradients(explainer, instance, word_embeddings(explainer, instance))[0]  # [N, H]
        return grads.norm(dim=-1)[instance.positions].double().cpu().numpy()
