"""Batched prediction and accuracy over a list of examples, through a :class:`SelfExplainer`."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch
from tqdm.auto import tqdm

from selfexplain.data import Example
from selfexplain.inputs import EncodedBatch, WindowPlan

if TYPE_CHECKING:
    from selfexplain.pipeline import SelfExplainer


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
    """Class probabilities ``[E, C]`` for every example, each tokenised once. Inputs over ``max_length``
    tokens (default: the model's ``max_length``) are cut to fit, or with ``windows`` (single texts)
    read in windows. ``uniform_alpha`` replaces alpha by the uniform distribution over the valid spans."""
    config = explainer.config
    pairs = [e.pair or "" for e in examples] if config.pair else None
    long = "windows" if windows and not config.pair else "truncate"
    window = max_length or config.max_length
    plan = explainer.plan([e.text for e in examples], pairs, long, batch_size=batch_size, window=window)
    jobs: list[tuple[list[int], EncodedBatch | WindowPlan]] = list(plan.batches)
    jobs += [([i], plan.windows[i]) for i in sorted(plan.windows)]
    probabilities = np.zeros((len(examples), config.num_labels), dtype=np.float32)
    layer = explainer.model.span_layer if uniform_alpha else None
    # the uniform switch is model state: with it, nobody else may run until it is switched back
    with explainer.exclusive() if layer is not None else nullcontext():
        saved = layer.uniform if layer is not None else False
        try:
            if layer is not None:
                layer.uniform = True
            for index, inputs in tqdm(jobs, desc=description, disable=not progress):
                logits = explainer.run(inputs).logits
                probabilities[index] = torch.softmax(logits.float(), dim=-1).cpu().numpy()
        finally:
            if layer is not None:
                layer.uniform = saved
    labels = [e.label for e in examples]
    has_labels = all(label is not None for label in labels)
    return Predictions(probabilities, np.asarray(labels) if has_labels else None)
