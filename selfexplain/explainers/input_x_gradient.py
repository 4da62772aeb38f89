"""Input x gradient through captum: each word embedding times the target logit's gradient there,
summed over the hidden dimension (the same quantity as ``grad_x_input``, computed by captum)."""

from __future__ import annotations

import numpy as np
from captum.attr import InputXGradient

from selfexplain.explainers.base import AttributionMethod, Instance, embedding_logits, word_embeddings
from selfexplain.explainers.captum_support import token_sums
from selfexplain.pipeline import SelfExplainer


class InputXGradientMethod(AttributionMethod):
    """Score = ``e_t . d logit_target / d e_t`` (signed: positive supports the target)."""

    name = "input_x_gradient"
    label = "Input x gradient (captum)"

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        method = InputXGradient(lambda embeds: embedding_logits(explainer, instance, embeds))
        attributions = method.attribute(word_embeddings(explainer, instance).requires_grad_(), target=instance.target)
        return token_sums(attributions, instance)  # [1, N, H] -> [T]
