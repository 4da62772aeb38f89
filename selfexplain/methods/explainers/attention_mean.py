"""Attention received by each token, averaged over every layer, head and query position."""

from __future__ import annotations

import numpy as np

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers.attention_cls import attention_maps
from selfexplain.methods.explainers.base import AttributionMethod, Instance


class AttentionMeanMethod(AttributionMethod):
    """Score of token t = mean over layers, heads and rows (or the [CLS] row only with
    ``cls_only=True``) of ``attention[..., t]``."""

    name = "attention_mean"
    label = "Attention: mean over layers and heads"
    rank = 13
    core = True

    def __init__(self, cls_only: bool = False) -> None:
        self.cls_only = cls_only

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        mean = attention_maps(instance).mean(axis=(0, 1))  # [N, N]
        received = mean[0] if self.cls_only else mean.mean(axis=0)
        return received[instance.positions].astype(np.float64)
