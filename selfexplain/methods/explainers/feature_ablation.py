"""Feature ablation through captum: one real token at a time takes the baseline embedding."""

from __future__ import annotations

import numpy as np
from captum.attr import FeatureAblation

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.base import Instance
from selfexplain.methods.explainers.captum_support import PerturbationMethod, feature_scores


class FeatureAblationMethod(PerturbationMethod):
    """Score of token t = ``p_target(x) - p_target(x with e_t replaced by the baseline)``.

    Unlike ``loo`` the sequence keeps its length and positions: only the token's word embedding
    changes (to the pad token's, ``"pad"``, or zeros, ``"zero"``). T + 1 inputs, ``batch_size``
    per forward pass.
    """

    name = "feature_ablation"
    label = "Feature ablation"
    rank = 31

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        setup = self.setup(explainer, instance)
        attributions = FeatureAblation(setup.forward).attribute(
            setup.inputs,
            baselines=setup.baselines,
            target=instance.target,
            feature_mask=setup.feature_mask,
            perturbations_per_eval=self.batch_size,
        )
        return feature_scores(attributions)  # [1, T, H] -> [T]
