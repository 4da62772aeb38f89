"""Attention that can reach a span-head model's output: the rows of the tokens the span layer reads.

The span layer reads the hidden states of the real tokens at ``config.encoder_layer``; [CLS]'s row
never reaches the output of a span-head model. These methods score a token by the attention it
receives from the real tokens' rows (queries) of that layer, or of the rollout up to that layer.
"""

from __future__ import annotations

import numpy as np

from selfexplain.core.modeling.read_out import read_out_layer
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.attention import rollout
from selfexplain.core.results.explanation import position_prior
from selfexplain.methods.explainers.attention_cls import attention_maps
from selfexplain.methods.explainers.base import AttributionMethod, Instance


def read_layer(explainer: SelfExplainer, layers: int) -> int:
    """Number of attention layers below the hidden state the head reads (``encoder_layer`` -1 = all)."""
    return read_out_layer(explainer.config.encoder_layer, layers)


class AttentionRowsMethod(AttributionMethod):
    """Score of token t = mean over heads and over the real tokens' rows ``q`` of ``attention[l, :, q, t]``,
    ``l`` the layer whose output the span layer reads."""

    name = "attention_rows"
    label = "Attention received from the tokens the span layer reads"
    rank = 10
    core = True
    fast = True

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        maps = attention_maps(instance)
        count = read_layer(explainer, maps.shape[0])
        if count == 0:  # the head reads the embeddings: no attention reaches it
            return np.zeros(instance.num_tokens)
        rows = maps[count - 1].mean(axis=0)[instance.positions]  # [T, N]
        return rows.mean(axis=0)[instance.positions].astype(np.float64)


class RolloutRowsMethod(AttributionMethod):
    """Attention rollout up to the layer the span layer reads, averaged over the real tokens' rows."""

    name = "rollout_rows"
    label = "Attention rollout to the tokens the span layer reads"
    rank = 11
    core = True
    fast = True

    def __init__(self, residual: float = 0.5) -> None:
        self.residual = residual

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        maps = attention_maps(instance)
        count = read_layer(explainer, maps.shape[0])
        flow = rollout(maps[:count], self.residual) if count else np.eye(maps.shape[-1])
        return flow[instance.positions].mean(axis=0)[instance.positions].astype(np.float64)


class PositionPriorMethod(AttributionMethod):
    """No model at all: a token's score is how many spans of its text cover it, ``(t + 1)(T - t)``.
    The floor for span-coverage scores ("tokens in the middle")."""

    name = "position_prior"
    label = "Position prior (t+1)(T-t)"
    rank = 40
    core = True
    fast = True
    windows = True

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        return position_prior(np.array([token.segment for token in instance.explanation.tokens]))
