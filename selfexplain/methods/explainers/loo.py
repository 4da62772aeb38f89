"""Leave-one-out: the drop in the target probability when one token is removed."""

from __future__ import annotations

import numpy as np

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.base import AttributionMethod, Instance
from selfexplain.methods.explainers.occlusion import Removal, predict_kept


class LeaveOneOutMethod(AttributionMethod):
    """Score of token t = ``p_target(x) - p_target(x without t)``; all T occlusions run as one batch."""

    name = "loo"
    label = "Leave-one-out"
    rank = 30
    core = True
    fast = True
    windows = True

    def __init__(self, removal: Removal = "delete") -> None:
        self.removal = removal

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        keep = ~np.eye(instance.num_tokens, dtype=bool)
        probs = predict_kept(explainer, instance, keep, self.removal)
        return instance.probabilities[instance.target] - probs[:, instance.target]
