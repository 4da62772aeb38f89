"""The self-explaining model's own explanation: alpha over spans, and per token the alpha
mass of the spans covering it."""

from __future__ import annotations

import numpy as np

from selfexplain.explainers.base import Explainer, Instance
from selfexplain.pipeline import SelfExplainer


def alpha_matrix(instance: Instance) -> np.ndarray:
    """alpha ``[T, T]`` over real-token indices (0 off the valid spans)."""
    output = instance.output
    if output.alpha is None or output.span_valid is None:
        raise ValueError("the model has no span layer")
    count = instance.num_tokens
    index_of = np.full(instance.batch.input_ids.shape[1], -1)
    index_of[instance.positions] = np.arange(count)
    valid = output.span_valid[0].cpu().numpy()
    starts = index_of[output.span_starts.cpu().numpy()[valid]]
    ends = index_of[output.span_ends.cpu().numpy()[valid]]
    matrix = np.zeros((count, count))
    matrix[starts, ends] = output.alpha[0].detach().cpu().double().numpy()[valid]
    return matrix


def covering_mass(spans: np.ndarray) -> np.ndarray:
    """``[T]``: ``sum_{i <= t <= j} spans[i, j]`` for a ``[T, T]`` upper-triangular matrix."""
    from_right = np.cumsum(spans[:, ::-1], axis=1)[:, ::-1]  # sum over j >= t
    return np.diagonal(np.cumsum(from_right, axis=0)).copy()  # then over i <= t


class AlphaExplainer(Explainer):
    """Token score = alpha mass of the spans covering the token (needs a span-head model)."""

    name = "alpha"
    label = "Self-explaining alpha"

    def attribute(self, model: SelfExplainer, instance: Instance) -> np.ndarray:
        return covering_mass(alpha_matrix(instance))

    def span_scores(self, model: SelfExplainer, instance: Instance) -> np.ndarray | None:
        return alpha_matrix(instance)
