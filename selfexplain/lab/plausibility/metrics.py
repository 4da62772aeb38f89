"""Plausibility of explanations against human rationales (DeYoung et al. 2020, ERASER).

Kept apart from faithfulness: these numbers say how much an explanation looks like what
people marked, not whether the model used it. Per document, with ``human`` the tokens
that overlap a human rationale span:

- ``auprc``: area under the precision-recall curve of the soft token scores against
  ``human`` (average precision: the mean of the precision at each human token's rank).
- hard rationale: the highest-alpha spans, greedily non-overlapping, until ``k`` tokens
  are covered, ``k = round(fraction * tokens)`` with ``fraction`` the mean human
  rationale share of the evaluated set (ERASER fixes ``k`` per data set the same way).
- ``token_f1``: F1 of the hard rationale's tokens against ``human``.
- ``iou_f1``: a predicted span matches a human span when their token IOU is at least
  0.5; precision = matched predicted / predicted spans, recall = matched human / human
  spans, F1 of the two.

Every metric is averaged over documents (macro). A seeded random explainer (uniform random
token scores, random spans of the same lengths) gives the floor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from selfexplain.core.results.explanation import Explanation, disjoint_spans

IOU_THRESHOLD = 0.5


@dataclass(frozen=True)
class DocumentScores:
    auprc: float
    token_f1: float
    iou_f1: float


def human_token_mask(explanation: Explanation, rationales: Sequence[tuple[int, int]]) -> np.ndarray:
    """``[T]`` bool: tokens whose characters overlap a rationale ``[start, end)`` span."""
    starts = np.array([t.start for t in explanation.tokens])
    ends = np.array([t.end for t in explanation.tokens])
    if not rationales or starts.size == 0:
        return np.zeros(starts.size, dtype=bool)
    spans = np.asarray(rationales)  # [R, 2]
    overlap = (starts[:, None] < spans[None, :, 1]) & (ends[:, None] > spans[None, :, 0])
    return overlap.any(axis=1)


def token_runs(mask: np.ndarray) -> np.ndarray:
    """``[R, 2]`` inclusive ``(first, last)`` token index of each run of True in ``mask``."""
    padded = np.concatenate([[False], mask, [False]]).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    return np.stack([edges[0::2], edges[1::2] - 1], axis=1) if edges.size else np.zeros((0, 2), dtype=int)


def average_precision(scores: np.ndarray, truth: np.ndarray) -> float:
    """AUPRC as average precision; 0 when there is no positive token."""
    if not truth.any():
        return 0.0
    order = np.argsort(-scores, kind="stable")
    hits = truth[order]
    precision = np.cumsum(hits) / np.arange(1, hits.size + 1)
    return float(precision[hits].mean())


def hard_spans(explanation: Explanation, budget: int) -> np.ndarray:
    """``[K, 2]`` inclusive token spans: top-alpha spans, non-overlapping, until ``budget`` tokens."""
    starts, ends, _ = explanation.ranking
    kept = disjoint_spans(starts, ends, explanation.num_tokens, budget=budget)
    return np.stack([starts[kept], ends[kept]], axis=1).astype(int).reshape(-1, 2)


def _f1(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def iou_f1(predicted: np.ndarray, human: np.ndarray) -> float:
    """Span-level F1 with a match at token IOU >= 0.5; inputs ``[P, 2]`` and ``[H, 2]`` inclusive spans."""
    if len(predicted) == 0 or len(human) == 0:
        return 0.0
    lo = np.maximum(predicted[:, None, 0], human[None, :, 0])
    hi = np.minimum(predicted[:, None, 1], human[None, :, 1])
    inter = np.clip(hi - lo + 1, 0, None)
    union = (predicted[:, None, 1] - predicted[:, None, 0] + 1) + (human[None, :, 1] - human[None, :, 0] + 1) - inter
    match = inter / union >= IOU_THRESHOLD  # [P, H]
    return _f1(float(match.any(axis=1).mean()), float(match.any(axis=0).mean()))


def token_f1(predicted: np.ndarray, truth: np.ndarray) -> float:
    """F1 of a predicted token mask against the human one."""
    hits = float((predicted & truth).sum())
    if hits == 0:
        return 0.0
    return _f1(hits / predicted.sum(), hits / truth.sum())


def spans_mask(spans: np.ndarray, size: int) -> np.ndarray:
    """``[size]`` bool: the tokens of the inclusive ``spans`` ``[K, 2]``."""
    covered = np.zeros(size, dtype=bool)
    for i, j in spans:
        covered[i : j + 1] = True
    return covered


def rationale_fraction(truths: Sequence[np.ndarray]) -> float:
    """The mean human rationale share of the documents that have one (each ``[T]`` bool); the hard
    rationale of a document of ``T`` tokens covers ``max(1, round(fraction * T))`` tokens."""
    shares = [truth.mean() for truth in truths if truth.any()]
    if not shares:
        raise ValueError("no document has a human rationale")
    return float(np.mean(shares))


def alpha_token_f1s(explanations: Sequence[Explanation], rationales: Sequence[Sequence[tuple[int, int]]]) -> np.ndarray:
    """``[E]``: each document's ``token_f1`` of alpha's hard rationale, exactly as :func:`plausibility`
    computes it (its mean over the documents is ``plausibility(...)["alpha"]["token_f1"]``); NaN for a
    document without a human rationale."""
    truths = [human_token_mask(e, r) for e, r in zip(explanations, rationales)]
    fraction = rationale_fraction(truths)
    scores = np.full(len(truths), np.nan)
    for index, (explanation, truth) in enumerate(zip(explanations, truths)):
        if truth.any():
            spans = hard_spans(explanation, max(1, round(fraction * truth.size)))
            scores[index] = token_f1(spans_mask(spans, truth.size), truth)
    return scores


def score_document(scores: np.ndarray, spans: np.ndarray, truth: np.ndarray) -> DocumentScores:
    """All three metrics for one document's soft ``scores`` ``[T]`` and hard ``spans`` ``[K, 2]``."""
    predicted = spans_mask(spans, truth.size)
    return DocumentScores(
        average_precision(scores, truth), token_f1(predicted, truth), iou_f1(spans, token_runs(truth))
    )


def random_spans(lengths: np.ndarray, tokens: int, rng: np.random.Generator) -> np.ndarray:
    """Spans of the given ``lengths`` at random non-overlapping places (the floor for ``iou_f1``)."""
    free = tokens - int(lengths.sum())
    if free < 0 or lengths.size == 0:
        return np.zeros((0, 2), dtype=int)
    order = rng.permutation(lengths.size)
    gaps = np.sort(rng.integers(0, free + 1, size=lengths.size))
    shuffled = lengths[order]
    starts = gaps + np.concatenate([[0], np.cumsum(shuffled)[:-1]])
    return np.stack([starts, starts + shuffled - 1], axis=1)


def top_token_spans(scores: np.ndarray, budget: int) -> np.ndarray:
    """``[K, 2]``: the runs of the ``budget`` highest-scoring tokens (a token explainer's hard rationale)."""
    mask = np.zeros(scores.size, dtype=bool)
    mask[np.argsort(-scores, kind="stable")[:budget]] = True
    return token_runs(mask)


def plausibility(
    explanations: Sequence[Explanation],
    rationales: Sequence[Sequence[tuple[int, int]]],
    seed: int = 0,
    token_scores: dict[str, Sequence[np.ndarray]] | None = None,
) -> dict[str, dict[str, float]]:
    """Mean ``auprc``/``token_f1``/``iou_f1`` of alpha and of a seeded random explainer, plus the
    hard-rationale share used (``fraction``) and the number of documents with a rationale.

    ``token_scores`` adds token explainers (name -> ``[T]`` scores per document, on the same
    tokens as the explanations): their hard rationale is the top ``k`` tokens."""
    truths = [human_token_mask(e, r) for e, r in zip(explanations, rationales)]
    fraction = rationale_fraction(truths)
    kept = [index for index, truth in enumerate(truths) if truth.any()]
    rng = np.random.default_rng(seed)
    rows: dict[str, list[DocumentScores]] = {"alpha": [], **{name: [] for name in token_scores or {}}, "random": []}
    for index in kept:
        explanation, truth = explanations[index], truths[index]
        budget = max(1, round(fraction * truth.size))
        spans = hard_spans(explanation, budget)
        rows["alpha"].append(score_document(explanation.token_scores(), spans, truth))
        for name, scores in (token_scores or {}).items():
            rows[name].append(score_document(scores[index], top_token_spans(scores[index], budget), truth))
        lengths = spans[:, 1] - spans[:, 0] + 1
        rows["random"].append(score_document(rng.random(truth.size), random_spans(lengths, truth.size, rng), truth))

    def mean(found: list[DocumentScores]) -> dict[str, float]:
        return {name: float(np.mean([getattr(r, name) for r in found])) for name in ("auprc", "token_f1", "iou_f1")}

    return {
        **{name: mean(found) for name, found in rows.items()},
        "setting": {"fraction": fraction, "documents": float(len(kept))},
    }
