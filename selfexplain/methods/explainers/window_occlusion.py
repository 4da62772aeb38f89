"""Occlusion (Zeiler & Fergus, 2014) through captum: a window of consecutive real tokens slides over
the input and takes the baseline embedding."""

from __future__ import annotations

import numpy as np
from captum.attr import Occlusion

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.base import Baseline, Instance
from selfexplain.methods.explainers.captum_support import PerturbationMethod, feature_scores


class OcclusionMethod(PerturbationMethod):
    """Score of token t = mean, over the windows of ``window`` real tokens that cover t, of
    ``p_target(x) - p_target(x with the window's embeddings replaced by the baseline)``.

    Windows move one token at a time over the real tokens in order (for a pair, one window may
    hold the end of the first text and the start of the second); ``T - window + 1`` perturbed
    inputs, ``batch_size`` per forward pass. A window of 1 is feature ablation.
    """

    name = "occlusion"
    label = "Occlusion (token windows)"
    rank = 32

    def __init__(self, window: int = 3, baseline: Baseline = "pad", batch_size: int = 50) -> None:
        super().__init__(baseline, batch_size)
        if window < 1:
            raise ValueError("window must be at least 1")
        self.window = window

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        setup = self.setup(explainer, instance)
        hidden = setup.inputs.shape[-1]
        attributions = Occlusion(setup.forward).attribute(
            setup.inputs,
            sliding_window_shapes=(min(self.window, instance.num_tokens), hidden),
            strides=(1, hidden),
            baselines=setup.baselines,
            target=instance.target,
            perturbations_per_eval=self.batch_size,
        )
        return feature_scores(attributions)  # [1, T, H] -> [T]
