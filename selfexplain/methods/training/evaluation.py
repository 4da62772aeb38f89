"""Batched prediction and accuracy over a list of examples, through a :class:`SelfExplainer`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from selfexplain.data import Example

if TYPE_CHECKING:
    from selfexplain.core.pipeline import SelfExplainer


@dataclass(frozen=True)
class Predictions:
    """``probabilities`` ``[E, C]`` in input order; ``accuracy`` when every example has a label."""

    probabilities: np.ndarray
    labels: np.ndarray | None

    @property
    def predicted(self) -> np.ndarray:
        return self.probabilities.argmax(axis=1)

    @property
    def accuracy(self) -> float | None:
        if self.labels is None:
            return None
        return float((self.predicted == self.labels).mean())


def predict_examples(
    explainer: SelfExplainer,
    examples: Sequence[Example],
    batch_size: int = 64,
    progress: bool = True,
    description: str = "predict",
    windows: bool = False,
    max_length: int | None = None,
    uniform_alpha: bool = False,
) -> Predictions:
    """Class probabilities ``[E, C]`` for every example (:meth:`SelfExplainer.predict_probabilities`), with
    their labels when every example has one. Inputs over ``max_length`` tokens (default: the model's
    ``max_length``) are cut to fit, or with ``windows`` (single texts) read in windows. ``uniform_alpha``
    replaces alpha by the uniform distribution over the valid spans."""
    probabilities = explainer.predict_probabilities(
        examples, batch_size, progress, description, windows, max_length, uniform_alpha
    )
    labels = [e.label for e in examples]
    has_labels = all(label is not None for label in labels)
    return Predictions(probabilities, np.asarray(labels) if has_labels else None)
