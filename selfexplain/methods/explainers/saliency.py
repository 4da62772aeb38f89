"""Saliency (Simonyan et al., 2014) through captum: the absolute gradient of the target logit at
each word embedding, summed over the hidden dimension."""

from __future__ import annotations

import numpy as np
from captum.attr import Saliency

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.base import AttributionMethod, Instance, embedding_logits, word_embeddings
from selfexplain.methods.explainers.captum_support import token_sums


class SaliencyMethod(AttributionMethod):
    """Score = ``sum_h |d logit_target / d e_t|_h``, the L1 norm of the gradient (unsigned; the
    ``gradient`` method is its L2 norm)."""

    name = "saliency"
    label = "Saliency (L1, captum)"
    rank = 23

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        method = Saliency(lambda embeds: embedding_logits(explainer, instance, embeds))
        attributions = method.attribute(
            word_embeddings(explainer, instance).requires_grad_(), target=instance.target, abs=True
        )
        return token_sums(attributions, instance)  # [1, N, H] -> [T]
