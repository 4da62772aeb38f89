"""Last-layer attention from [CLS] to each token, averaged over heads."""

from __future__ import annotations

import numpy as np

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.errors import InvalidInputError
from selfexplain.methods.explainers.base import AttributionMethod, Instance


def attention_maps(instance: Instance) -> np.ndarray:
    """Every layer's attention ``[L, heads, N, N]`` of the instance (rows attend to columns); one window only."""
    if instance.windowed:  # windows run with fused attention: no maps
        raise InvalidInputError("attention maps need a text that fits one encoder window")
    attentions = instance.output.attentions
    if not attentions:
        raise ValueError("the encoder returned no attention maps")
    return np.stack([layer[0].detach().float().cpu().numpy() for layer in attentions])


class AttentionCLSMethod(AttributionMethod):
    """Score = ``attention[layer, :, 0, t]`` averaged over heads (``layer`` -1 = last)."""

    name = "attention_cls"
    label = "Attention: [CLS] row, last layer"
    rank = 12
    core = True
    fast = True

    def __init__(self, layer: int = -1) -> None:
        self.layer = layer

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        maps = attention_maps(instance)
        return maps[self.layer].mean(axis=0)[0, instance.positions].astype(np.float64)
