"""Batched prediction and accuracy over a list of examples."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from tqdm.auto import tqdm
from transformers import PreTrainedTokenizerBase

from selfexplain.data import Example
from selfexplain.encoding import encode
from selfexplain.model import SelfExplainingModel


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Index batches of similar length (less padding), in input order of their first item."""
    order = np.argsort(np.asarray(lengths), kind="stable")
    return [order[i : i + batch_size].tolist() for i in range(0, len(order), batch_size)]


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


@torch.no_grad()
def predict_examples(
    model: SelfExplainingModel,
    tokenizer: PreTrainedTokenizerBase,
    examples: Sequence[Example],
    batch_size: int = 64,
    progress: bool = True,
    description: str = "predict",
) -> Predictions:
    """Class probabilities for every example (inputs over ``max_length`` are truncated)."""
    model.eval()
    device = next(model.parameters()).device
    lengths = [len(e.text) + len(e.pair or "") for e in examples]
    probabilities = np.zeros((len(examples), model.config.num_labels), dtype=np.float32)
    for index in tqdm(length_sorted_batches(lengths, batch_size), desc=description, disable=not progress):
        chunk = [examples[i] for i in index]
        pairs = [e.pair or "" for e in chunk] if model.config.pair else None
        batch = encode(tokenizer, [e.text for e in chunk], pairs, model.config.max_length)
        logits = model(**batch.model_inputs(device)).logits
        probabilities[index] = torch.softmax(logits.float(), dim=-1).cpu().numpy()
    labels = [e.label for e in examples]
    has_labels = all(label is not None for label in labels)
    return Predictions(probabilities, np.asarray(labels) if has_labels else None)
