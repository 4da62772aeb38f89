"""KernelSHAP (Lundberg & Lee, 2017) through captum: Shapley values of the real tokens estimated by
a linear regression under the Shapley kernel (removed tokens take the baseline embedding)."""

from __future__ import annotations

import numpy as np
from captum.attr import KernelShap

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.base import Baseline, Instance
from selfexplain.methods.explainers.captum_support import PerturbationMethod, sampled_scores
from selfexplain.methods.explainers.feature_ablation import FeatureAblationMethod


class KernelShapMethod(PerturbationMethod):
    """Score of token t = its estimated Shapley value for ``p_target`` from ``n_samples`` random
    coalitions (sizes drawn under the Shapley kernel).

    Seeded by ``seed`` and the input text, so a rerun gives the same scores. Slow: ``n_samples``
    forward passes (``batch_size`` at a time). A one-token input (where the Shapley kernel is
    undefined) gets its exact Shapley value, ``p_target(x) - p_target(baseline)``, by ablation.
    """

    name = "kernel_shap"
    label = "KernelSHAP"
    rank = 34

    def __init__(self, n_samples: int = 200, seed: int = 0, baseline: Baseline = "pad", batch_size: int = 50) -> None:
        super().__init__(baseline, batch_size)
        if n_samples < 2:
            raise ValueError("n_samples must be at least 2")
        self.n_samples = n_samples
        self.seed = seed

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        if instance.num_tokens == 1:
            return FeatureAblationMethod(self.baseline, self.batch_size).attribute(explainer, instance)
        setup = self.setup(explainer, instance)
        return sampled_scores(KernelShap, setup, instance, self.n_samples, self.seed, self.batch_size)
