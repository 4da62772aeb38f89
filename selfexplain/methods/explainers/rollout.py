"""Attention rollout (Abnar & Zuidema, 2020): the [CLS] row of the rolled-out map."""

from __future__ import annotations

import numpy as np

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.attention import rollout
from selfexplain.methods.explainers.attention_cls import attention_maps
from selfexplain.methods.explainers.base import AttributionMethod, Instance


class RolloutMethod(AttributionMethod):
    """``R = A'_L ... A'_1`` with ``A' = residual * I + (1 - residual) * mean_heads(A)``; score = ``R[0, t]``."""

    name = "rollout"
    label = "Attention rollout"
    rank = 14
    core = True

    def __init__(self, residual: float = 0.5) -> None:
        self.residual = residual

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        return rollout(attention_maps(instance), self.residual)[0, instance.positions].astype(np.float64)
