"""Aggregates of raw self-attention maps: per head, mean over heads, mean over layers, rollout.

All functions take ``attentions`` ``[L, heads, N, N]`` (rows attend to columns,
each row sums to 1) and return one ``[N, N]`` map.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

Aggregate = Literal["head", "mean over heads", "mean over layers", "rollout"]
AGGREGATES: tuple[Aggregate, ...] = ("head", "mean over heads", "mean over layers", "rollout")


def rollout(attentions: np.ndarray, residual: float = 0.5) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema, 2020).

    Each layer's head-averaged map is mixed with the identity for the residual
    connection, ``A' = residual * I + (1 - residual) * A`` (rows renormalised), and
    the layers are multiplied bottom-up: ``R = A'_L ... A'_2 A'_1``. Row ``i`` of
    ``R`` is how much input token ``j`` flows into position ``i`` at the top.
    """
    layers = attentions.mean(axis=1)  # [L, N, N]
    size = layers.shape[-1]
    mixed = residual * np.eye(size) + (1.0 - residual) * layers
    mixed = mixed / mixed.sum(axis=-1, keepdims=True)
    result = np.eye(size)
    for layer in mixed:
        result = layer @ result
    return result


def aggregate_attention(attentions: np.ndarray, how: Aggregate, layer: int = -1, head: int = 0) -> np.ndarray:
    """One ``[N, N]`` map: a single head, the mean over one layer's heads, the mean of
    every layer and head, or the rollout through all layers."""
    if how == "head":
        return attentions[layer, head]
    if how == "mean over heads":
        return attentions[layer].mean(axis=0)
    if how == "mean over layers":
        return attentions.mean(axis=(0, 1))
    if how == "rollout":
        return rollout(attentions)
    raise ValueError(f"unknown attention aggregate {how!r}; choose from {', '.join(AGGREGATES)}")


def cls_attention_scores(
    attentions: np.ndarray, positions: np.ndarray, how: Aggregate = "mean over heads"
) -> np.ndarray:
    """``[T]``: the [CLS] row of an aggregate, at the real tokens' ``positions``."""
    return aggregate_attention(attentions, how)[0, positions]
