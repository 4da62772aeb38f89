"""The flip certificate: the smallest set of top-alpha spans whose removal changes the decision.

A self-explaining model's logits are linear in alpha, ``logits = alpha @ L + b`` with
``L[s] = W_out h(s)`` (see :mod:`selfexplain.lab.faithfulness.alpha_tests`). Removing a set ``R`` of
spans and renormalising alpha over the rest gives exactly
``(alpha @ L - alpha_R @ L_R) / (1 - sum alpha_R) + b``, so every subset of the top ``K`` spans
can be checked at once: ``2^K - 1`` subsets as one bit matrix and one matrix product. The
certificate is the smallest flipping subset (ties: the one with the highest-ranked spans).
The same removal is then checked in the text: the spans' tokens deleted and the model run again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.lab.faithfulness.alpha_tests import softmax, span_view
from selfexplain.methods.explainers.occlusion import predict_kept

MAX_FLIP_SPANS = 20  # subsets of the top 20 spans: about a million, one matrix product


@dataclass(frozen=True)
class FlipCertificate:
    """``ranks`` (1-based alpha ranks of the removed spans); ``label``/``probabilities`` after removing
    them from alpha (exact); ``deleted_label``/``deleted_probabilities`` after deleting their tokens
    from the input and running the model again."""

    ranks: tuple[int, ...]
    label: str
    probabilities: dict[str, float]
    deleted_label: str
    deleted_probabilities: dict[str, float]

    def to_dict(self) -> dict[str, object]:
        return {
            "spans": list(self.ranks),
            "label": self.label,
            "probabilities": self.probabilities,
            "text_deletion": {"label": self.deleted_label, "probabilities": self.deleted_probabilities},
        }


def subsets_by_size(count: int) -> np.ndarray:
    """``[2^count - 1, count]`` bool: every non-empty subset, smallest first, then by rank sum."""
    codes = np.arange(1, 1 << count, dtype=np.int64)
    bits = ((codes[:, None] >> np.arange(count)) & 1).astype(bool)
    order = np.lexsort(((bits * np.arange(1, count + 1)).sum(axis=1), bits.sum(axis=1)))
    return bits[order]


def smallest_flip(
    alpha: np.ndarray, contributions: np.ndarray, bias: np.ndarray, top: int, segments: np.ndarray | None = None
) -> np.ndarray | None:
    """Positions (into the top ``top`` of ``alpha`` ``[V]``, by rank) of the smallest flipping set, or None.

    ``contributions`` ``[V, C]`` and ``bias`` ``[C]``; alpha is renormalised over the spans left. With
    ``segments`` ``[V]`` (per-segment alpha) each text is renormalised to its own mass, and a text whose
    spans are all removed contributes nothing (as long as the other text keeps some weight).
    """
    order = np.argsort(-alpha, kind="stable")[:top]
    predicted = int(np.argmax(alpha @ contributions + bias))
    bits = subsets_by_size(len(order)).astype(np.float64)
    groups = segments if segments is not None else np.zeros(alpha.shape[0], dtype=np.int64)
    logits = np.zeros((bits.shape[0], bias.shape[0])) + bias
    left_mass = np.zeros(bits.shape[0])
    for side in np.unique(groups).tolist():  # one or two texts
        inside = groups == side
        chosen = inside[order]
        mass = float(alpha[inside].sum())
        weighted = (alpha[order, None] * contributions[order]) * chosen[:, None]  # [K, C]
        removed = bits @ (alpha[order] * chosen)  # [M]
        left = mass - removed
        scale = np.where(left > 1e-9, mass / np.where(left > 1e-9, left, 1.0), 0.0)
        part = alpha[inside] @ contributions[inside] - bits @ weighted
        logits += part * scale[:, None]
        left_mass += np.where(left > 1e-9, left, 0.0)
    keep = left_mass > 1e-9  # removing all the mass leaves nothing to renormalise
    flips = keep & (logits.argmax(axis=1) != predicted)
    if not flips.any():
        return None
    return order[bits[int(np.argmax(flips))].astype(bool)]


def flip_certificate(explainer: SelfExplainer, text: str, pair: str | None = None) -> FlipCertificate | None:
    """The certificate for one input (a single text longer than one window is read in windows), or
    None when no set of the top :data:`MAX_FLIP_SPANS` spans flips the decision."""
    instance = explainer.instance(text, pair)
    view = span_view(explainer, instance)
    chosen = smallest_flip(view.alpha, view.contributions, view.bias, MAX_FLIP_SPANS, view.segments)
    if chosen is None:
        return None
    names = list(explainer.config.label_names)
    ranked = np.argsort(-view.alpha, kind="stable")
    rank_of = np.empty_like(ranked)
    rank_of[ranked] = np.arange(1, ranked.size + 1)
    left = np.ones(view.alpha.shape[0], dtype=bool)
    left[chosen] = False
    alpha = view.rescaled(left)
    probabilities = softmax(view.logits(alpha))
    keep = np.ones(instance.num_tokens, dtype=bool)
    for position in chosen.tolist():  # at most 20 spans
        keep[view.starts[position] : view.ends[position] + 1] = False
    deleted = predict_kept(explainer, instance, keep[None, :])[0]
    return FlipCertificate(
        ranks=tuple(sorted(int(rank_of[p]) for p in chosen)),
        label=names[int(np.argmax(probabilities))],
        probabilities={n: float(p) for n, p in zip(names, probabilities)},
        deleted_label=names[int(np.argmax(deleted))],
        deleted_probabilities={n: float(p) for n, p in zip(names, deleted)},
    )
