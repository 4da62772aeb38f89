"""Predict on copies of one input with some real tokens removed: the perturbation engine
shared by leave-one-out and the faithfulness metrics.

``delete`` (default) drops the removed tokens' ids and closes the gap (the model sees a
shorter sequence; special tokens, segments and token type ids follow their tokens);
``mask`` replaces their ids with the mask token (or pad when the tokenizer has none).
A row that would keep no real token keeps one token holding the mask/pad id, so the
span layer always has one span. A text read in windows is laid out in windows again for
each perturbation (one windowed forward per distinct row).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import torch

from selfexplain.core.inputs import word_boundaries
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.instance import Instance

Removal = Literal["delete", "mask"]
REMOVALS: tuple[Removal, ...] = ("delete", "mask")


def filler_id(explainer: SelfExplainer) -> int:
    """The id a removed token takes: the mask token's, else the pad or unknown token's."""
    tokenizer = explainer.tokenizer
    for value in (tokenizer.mask_token_id, tokenizer.pad_token_id, tokenizer.unk_token_id):
        if value is not None:
            return int(value)
    return 0


def _keep_one(keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``keep`` ``[P, T]`` with the first token kept in rows that keep none, and those rows ``[P]``."""
    keep = keep.copy()
    empty = ~keep.any(axis=1)
    keep[empty, 0] = True  # see the module docstring: one filler token stays
    return keep, empty


def perturbed_inputs(
    explainer: SelfExplainer, instance: Instance, keep: np.ndarray, removal: Removal = "delete"
) -> dict[str, torch.Tensor]:
    """Model inputs ``[P, N]`` for ``keep`` ``[P, T]`` bool (True = the real token stays); one window."""
    batch = instance.batch
    rows = keep.shape[0]
    length = batch.input_ids.shape[1]
    keep, empty = _keep_one(keep)
    full = np.ones((rows, length), dtype=bool)
    full[:, instance.positions] = keep
    ids = batch.input_ids.expand(rows, -1).clone()
    filler = filler_id(explainer)
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


def windowed_probabilities(
    explainer: SelfExplainer, instance: Instance, keep: np.ndarray, removal: Removal = "delete"
) -> np.ndarray:
    """Class probabilities ``[P, C]`` of a windowed text with only the ``keep`` ``[P, T]`` tokens: each
    row's tokens (deleted, or their ids masked) laid out in windows again, one forward a row."""
    if removal not in REMOVALS:
        raise ValueError(f"removal must be one of {REMOVALS}, got {removal!r}")
    keep, empty = _keep_one(keep)
    tokens, filler = instance.plan.tokens, filler_id(explainer)
    rows = []
    for row, alone in zip(keep, empty):  # one windowed forward per perturbed text
        if removal == "mask":  # a row that keeps nothing has every id masked
            edited = tokens.edited(row & ~alone, filler)
        else:  # ... or keeps its first token, with the filler id
            edited = tokens.edited(row)
            if alone:
                edited = edited.edited(np.zeros(1, dtype=bool), filler)
        logits = explainer.run(explainer.window_plan(edited)).logits
        rows.append(torch.softmax(logits[0].float(), dim=-1).cpu().numpy())
    return np.array(rows, dtype=np.float64)


def predict_kept(
    explainer: SelfExplainer, instance: Instance, keep: np.ndarray, removal: Removal = "delete", batch_size: int = 64
) -> np.ndarray:
    """Class probabilities ``[P, C]`` of the input with only the ``keep`` ``[P, T]`` tokens.

    Identical rows run once, and rows run in order of how many tokens they keep, so a
    batch of deletions is padded only to its own longest row (methods share many
    perturbations: the same top token, the empty and the full input).
    """
    classes = instance.probabilities.shape[0]
    if keep.shape[0] == 0:
        return np.zeros((0, classes))
    unique, inverse = np.unique(keep, axis=0, return_inverse=True)
    order = np.argsort(unique.sum(axis=1), kind="stable")
    probabilities = np.empty((unique.shape[0], classes), dtype=np.float64)
    if instance.windowed:
        return windowed_probabilities(explainer, instance, unique, removal)[inverse.reshape(-1)]
    for lo in range(0, order.size, batch_size):
        rows = order[lo : lo + batch_size]
        logits = explainer.run(perturbed_inputs(explainer, instance, unique[rows], removal)).logits
        probabilities[rows] = torch.softmax(logits.float(), dim=-1).cpu().numpy()
    return probabilities[inverse.reshape(-1)]
