"""The self-explaining model's own explanation: alpha over spans, and per token the alpha
mass of the spans covering it."""

from __future__ import annotations

import numpy as np

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.errors import InvalidInputError
from selfexplain.methods.explainers.base import AttributionMethod, Instance


def alpha_matrix(instance: Instance) -> np.ndarray:
    """alpha ``[T, T]`` float64 over real-token indices (0 off the valid spans): the instance's
    :class:`~selfexplain.core.results.explanation.Explanation` grid (one window or several)."""
    if instance.output.alpha is None:
        raise InvalidInputError("the model has no span layer: alpha needs a self-explaining model")
    return instance.explanation.alpha.astype(np.float64)


def covering_mass(spans: np.ndarray) -> np.ndarray:
    """``[T]``: ``sum_{i <= t <= j} spans[i, j]`` for a ``[T, T]`` upper-triangular matrix."""
    from_right = np.cumsum(spans[:, ::-1], axis=1)[:, ::-1]  # sum over j >= t
    return np.diagonal(np.cumsum(from_right, axis=0)).copy()  # then over i <= t


class AlphaMethod(AttributionMethod):
    """Token score = alpha mass of the spans covering the token (needs a span-head model)."""

    name = "alpha"
    label = "Self-explaining alpha"
    rank = 0
    core = True
    fast = True
    windows = True

    def attribute(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray:
        return covering_mass(alpha_matrix(instance))

    def span_scores(self, explainer: SelfExplainer, instance: Instance) -> np.ndarray | None:
        return alpha_matrix(instance)
