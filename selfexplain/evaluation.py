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
from selfexplain.windows import plan_windows


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
    windows: bool = False,
    max_length: int | None = None,
) -> Predictions:
    """Class probabilities for every example. Inputs over ``max_length`` tokens (default:
    the model's) are truncated, or with ``windows`` (single texts) read in windows."""
    model.eval()
    device = next(model.parameters()).device
    limit = max_length or model.config.max_length
    lengths = [len(e.text) + len(e.pair or "") for e in examples]
    probabilities = np.zeros((len(examples), model.config.num_labels), dtype=np.float32)
    long: set[int] = set()
    if windows and not model.config.pair:
        room = limit - tokenizer.num_special_tokens_to_add(pair=False)
        long = {
            i for i, e in enumerate(examples) if len(tokenizer(e.text, add_special_tokens=False)["input_ids"]) > room
        }
    short = [i for i in range(len(examples)) if i not in long]
    batches = [[short[k] for k in b] for b in length_sorted_batches([lengths[i] for i in short], batch_size)]
    batches += [[i] for i in sorted(long)]
    for index in tqdm(batches, desc=description, disable=not progress):
        chunk = [examples[i] for i in index]
        if index[0] in long:
            plan = plan_windows(
                tokenizer,
                chunk[0].text,
                limit,
                model.config.window_stride,
                model.config.max_span_width,
                model.config.span_unit,
            )
            inputs = (plan.input_ids, plan.attention_mask, plan.token_mask, plan.span_starts, plan.span_ends)
            logits = model.forward_windows(*(t.to(device) for t in inputs)).logits
        else:
            pairs = [e.pair or "" for e in chunk] if model.config.pair else None
            batch = encode(tokenizer, [e.text for e in chunk], pairs, limit)
            logits = model(**batch.model_inputs(device)).logits
        probabilities[index] = torch.softmax(logits.float(), dim=-1).cpu().numpy()
    labels = [e.label for e in examples]
    has_labels = all(label is not None for label in labels)
    return Predictions(probabilities, np.asarray(labels) if has_labels else None)
