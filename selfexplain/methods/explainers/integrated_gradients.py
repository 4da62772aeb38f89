"""Integrated gradients (Sundararajan et al., 2017) on the word embeddings, through captum's
``LayerIntegratedGradients`` on the word-embedding layer with the Riemann-middle rule."""

from __future__ import annotations

import numpy as np
import torch
from captum.attr import LayerIntegratedGradients

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.base import (
    AttributionMethod,
    Baseline,
    EmbeddingClassifier,
    Instance,
    baseline_embeddings,
    baseline_ids,
    check_baseline,
)
from selfexplain.methods.explainers.captum_support import token_sums


class IntegratedGradientsMethod(AttributionMethod):
    """Score = ``sum_h (e_t - b_t)_h * mean_k grad_h(b + a_k (e - b))_t`` with ``a_k = (k + 0.5) / steps``.

    Baseline ``b``: the word embedding of the tokenizer's pad token (``"pad"``) or zeros
    (``"zero"``) at every real token; special tokens keep their own embedding. The
    ``steps`` interpolations run in batches of ``batch_size`` (captum's ``internal_batch_size``),
    so memory does not grow with ``steps``.
    """

    name = "integrated_gradients"
    label = "Integrated gradients"
    rank = 22
    core = True

    def __init__(self, steps: int = 20, baseline: Baseline = "pad", batch_size: int = 20) -> None:
        if steps < 1 or batch_size < 1:
            raise ValueError("steps and batch_size must be at least 1")
        check_baseline(baseline)
        self.steps = steps
        self.baseline = baseline
        self.batch_size = batch_size

    def baseline_embeddings(self, explainer: SelfExplainer, instance: Instance, embeds: torch.Tensor) -> torch.Tensor:
        """``[1, N, H]``: the baseline at real tokens, the input's own embedding at special tokens."""
        return baseline_embeddings(explainer, instance, embeds, self.baseline)

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        classifier = EmbeddingClassifier(explainer, instance)
        baselines = baseline_ids(explainer, instance, self.baseline)  # [1, N]
        with explainer.exclusive():  # captum hooks the embedding layer for the duration of the call
            attributions = LayerIntegratedGradients(classifier, classifier.words).attribute(
                instance.batch.input_ids.to(baselines.device),
                baselines=baselines,
                target=instance.target,
                n_steps=self.steps,
                method="riemann_middle",
                internal_batch_size=self.batch_size,
            )
        return token_sums(attributions, instance)  # [1, N, H] -> [T]
