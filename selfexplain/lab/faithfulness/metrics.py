"""Pure definitions of the faithfulness metrics (numpy in, numbers out; no model), and what each
summary metric is called for a reader and which direction is better (:data:`METRICS`).

``p`` are class-probability vectors ``[C]`` (or ``[K, C]``); ``scores`` token scores ``[T]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import kendalltau

ERASER_FRACTIONS: tuple[float, ...] = (0.01, 0.05, 0.10, 0.20, 0.50)
CURVE_POINTS = np.linspace(0.0, 1.0, 11)


@dataclass(frozen=True)
class Metric:
    """A summary metric as a reader sees it: ``key`` (the column in result tables and CSV files),
    ``name`` (shown in tables and charts), ``higher_is_better`` and a one-sentence ``meaning``."""

    key: str
    name: str
    higher_is_better: bool
    meaning: str

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"

    @property
    def heading(self) -> str:
        """The name with an arrow pointing the better way, e.g. ``Comprehensiveness ↑``."""
        return f"{self.name} {'↑' if self.higher_is_better else '↓'}"


METRICS: dict[str, Metric] = {
    m.key: m
    for m in (
        Metric(
            "comprehensiveness",
            "Comprehensiveness",
            True,
            "How much the predicted class's probability drops when the method's top tokens are removed "
            "(mean over removing 1, 5, 10, 20 and 50 % of the tokens).",
        ),
        Metric(
            "sufficiency",
            "Sufficiency",
            False,
            "How much the predicted class's probability drops when only the method's top tokens are kept "
            "(same five sizes): near 0 means the top tokens alone carry the decision.",
        ),
        Metric(
            "flip_fraction",
            "Share removed to flip",
            False,
            "Share of the tokens removed, most important first, before the predicted label changes "
            "(1 when it never changes).",
        ),
        Metric(
            "never_flip",
            "Never flipped",
            False,
            "Share of inputs whose label did not change even with all but one token removed.",
        ),
        Metric(
            "js_difference",
            "Top-token erasure effect",
            True,
            "How much more the prediction moves (Jensen-Shannon divergence) when the top token is removed "
            "than when a random token is removed.",
        ),
        Metric(
            "js_positive",
            "Top token beats a random one",
            True,
            "Share of inputs where removing the top token moves the prediction more than removing a random one.",
        ),
        Metric(
            "tau_loo",
            "Agreement with leave-one-out",
            True,
            "Kendall rank correlation (-1 to 1) of the method's token ranking with leave-one-out's, which "
            "measures each token's effect directly.",
        ),
        Metric(
            "strong_phrase",
            "Top span is a strongly polar phrase",
            True,
            "Plausibility, not faithfulness: share of inputs whose top span is a treebank phrase labelled 0 or 4 "
            "in the predicted direction.",
        ),
        Metric(
            "polar_phrase",
            "Top span is a polar phrase",
            True,
            "Plausibility, not faithfulness: share of inputs whose top span is a treebank phrase labelled in the "
            "predicted direction (0, 1 or 3, 4).",
        ),
    )
}


def ranking(scores: np.ndarray) -> np.ndarray:
    """Token indices by descending score, ties broken by position (stable)."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


def top_evidence(scores: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` indices of :func:`ranking` among tokens scored above 0: a token a method scores 0
    (alpha 0 is no evidence) or below (against the prediction) is never listed as one of its top tokens."""
    order = ranking(scores)
    return order[np.asarray(scores, dtype=np.float64)[order] > 0][:k]


def bin_sizes(count: int, fractions: tuple[float, ...] = ERASER_FRACTIONS) -> np.ndarray:
    """Tokens in each ERASER bin: ``k = max(1, ceil(f * T))`` for each fraction ``f``."""
    return np.array([max(1, math.ceil(f * count - 1e-9)) for f in fractions])


def top_k_masks(order: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``[K, T]`` bool: row ``r`` is True on the ``sizes[r]`` top-ranked tokens of ``order``."""
    rank_of = np.empty_like(order)
    rank_of[order] = np.arange(order.shape[0])
    return rank_of[None, :] < np.asarray(sizes)[:, None]


def aopc(full: float, perturbed: np.ndarray) -> float:
    """Mean over bins of ``full - perturbed[b]`` (the target probability before and after)."""
    return float(np.mean(full - np.asarray(perturbed, dtype=np.float64)))


def js_divergence(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Jensen-Shannon divergence (natural log, in [0, ln 2]) along the last axis."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    m = 0.5 * (p + q)

    def kl(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.sum(np.where(a > 0, a * (np.log(np.clip(a, 1e-300, None)) - np.log(np.clip(b, 1e-300, None))), 0), -1)

    return 0.5 * kl(p, m) + 0.5 * kl(q, m)


def total_variation(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``0.5 * sum |p - q|`` along the last axis."""
    return 0.5 * np.abs(np.asarray(p, dtype=np.float64) - np.asarray(q, dtype=np.float64)).sum(axis=-1)


def first_flip(predicted: np.ndarray, original: int) -> int | None:
    """1-based index of the first step whose prediction differs from ``original``, None if none does."""
    changed = np.flatnonzero(np.asarray(predicted) != original)
    return int(changed[0]) + 1 if changed.size else None


def kendall_tau(a: np.ndarray, b: np.ndarray) -> float:
    """Kendall tau-b of two score vectors; NaN when either is constant or has under 2 items."""
    if len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(kendalltau(a, b).statistic)
