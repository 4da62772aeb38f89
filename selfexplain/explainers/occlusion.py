"""Predict on copies of one input with some real tokens removed: the perturbation engine
shared by leave-one-out and the faithfulness metrics.

``delete`` (default) drops the removed tokens' ids and closes the gap (the model sees a
shorter sequence; special tokens, segments and token type ids follow their tokens);
``mask`` replaces their ids with the mask token (or pad when the tokenizer has none).
A row that would keep no real token keeps one token holding the mask/pad id, so the
span layer always has one span.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import torch

from selfexplain.encoding import word_boundaries
from selfexplain.explainers.base import Instance
from selfexplain.pipeline import SelfExplainer

Removal = Literal["delete", "mask"]
REMOVALS: tuple[Removal, ...] = ("delete", "mask")


def filler_id(model: SelfExplainer) -> int:
    tokenizer = model.tokenizer
    for value in (tokenizer.mask_token_id, tokenizer.pad_token_id, tokenizer.unk_token_id):
        if value is not None:
            return int(value)
    return 0


def perturbed_inputs(
    model: SelfExplainer, instance: Instance, keep: np.ndarray, removal: Removal = "delete"
) -> dict[str, torch.Tensor]:
    """Model inputs ``[P, N]`` for ``keep`` ``[P, T]`` bool (True = the real token stays)."""
    batch = instance.batch
    rows, count = keep.shape
    length = batch.input_ids.shape[1]
    keep = keep.copy()
    empty = ~keep.any(axis=1)
    keep[empty, 0] = True  # see the module docstring: one filler token stays
    full = np.ones((rows, length), dtype=bool)
    full[:, instance.positions] = keep
    ids = batch.input_ids.expand(rows, -1).clone()
    filler = filler_id(model)
    if removal == "mask":
        removed = torch.from_numpy(~full)
        ids[removed] = filler
        ids[torch.from_numpy(empty), int(instance.positions[0])] = filler
        full = np.ones_like(full)
    elif removal == "delete":
        ids[torch.from_numpy(empty), int(instance.positions[0])] = filler
    else:
        raise ValueError(f"removal must be one of {REMOVALS}, got {removal!r}")
    order = torch.from_numpy(np.argsort(~full, axis=1, kind="stable"))  # kept positions first, in order
    lengths = torch.from_numpy(full.sum(axis=1))
    attention = (torch.arange(length).unsqueeze(0) < lengths.unsqueeze(1)).long()

    def gather(t: torch.Tensor) -> torch.Tensor:
        return torch.gather(t.expand(rows, -1), 1, order) * attention.to(t.dtype)

    inputs = {
        "input_ids": gather(ids),
        "attention_mask": attention,
        "token_mask": gather(batch.token_mask) & attention.bool(),
        "segment_ids": gather(batch.segment_ids),
    }
    if batch.token_type_ids is not None:
        inputs["token_type_ids"] = gather(batch.token_type_ids)
    if batch.word_index is not None:  # a word keeps the pieces left of it
        inputs["word_start"], inputs["word_end"] = word_boundaries(gather(batch.word_index), inputs["token_mask"])
    width = int(lengths.max())
    return {k: v[:, :width] for k, v in inputs.items()}


@torch.no_grad()
def predict_kept(
    model: SelfExplainer, instance: Instance, keep: np.ndarray, removal: Removal = "delete", batch_size: int = 64
) -> np.ndarray:
    """Class probabilities ``[P, C]`` of the input with only the ``keep`` ``[P, T]`` tokens.

    Identical rows run once, and rows run in order of how many tokens they keep, so a
    batch of deletions is padded only to its own longest row (explainers share many
    perturbations: the same top token, the empty and the full input).
    """
    classes = instance.probabilities.shape[0]
    if keep.shape[0] == 0:
        return np.zeros((0, classes))
    device = next(model.model.parameters()).device
    unique, inverse = np.unique(keep, axis=0, return_inverse=True)
    order = np.argsort(unique.sum(axis=1), kind="stable")
    probabilities = np.empty((unique.shape[0], classes), dtype=np.float64)
    for lo in range(0, order.size, batch_size):
        rows = order[lo : lo + batch_size]
        inputs = perturbed_inputs(model, instance, unique[rows], removal)
        logits = model.model(**{k: v.to(device) for k, v in inputs.items()}).logits
        probabilities[rows] = torch.softmax(logits.float(), dim=-1).cpu().numpy()
    return probabilities[inverse.reshape(-1)]
