"""The measures that run the model again (:mod:`selfexplain.lab.sharpness.measures_model`), each over a
whole batch in one call: whether the prediction survives alpha replaced by the uniform distribution
(``uniform_agreement``) and the model reading only the top-1 span's words (``top1_agreement``), whether
deleting the top span's words costs more than deleting random words (``deletion_beats_random``, with both
drops), and whether the decision flips with the top span taken out of alpha (``top_out_flip``, through the
span layer, no encoder pass).

The model is imported only when a column is computed: the registries read this module to list the measures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from selfexplain.lab.sharpness.measures_model import Probabilities, deletion_scores, top_out_flip, top_span_input
from selfexplain.lab.sharpness.registry import Batch, Measure, register_measure

if TYPE_CHECKING:
    from selfexplain.core.pipeline import SelfExplainer

DELETION_DROPS = ("top_deletion_drop", "random_deletion_drop")  # written after deletion_beats_random


def probabilities_of(explainer: SelfExplainer) -> Probabilities:
    """``(texts, pairs) -> [B, C]`` class probabilities, long single texts read in windows."""
    from selfexplain.data import Example
    from selfexplain.methods.training.evaluation import predict_examples

    def probabilities(texts: Sequence[str], pairs: Sequence[str] | None) -> np.ndarray:
        examples = [Example(t, pairs[i] if pairs is not None else None) for i, t in enumerate(texts)]
        return predict_examples(explainer, examples, progress=False, windows=not explainer.config.pair).probabilities

    return probabilities


def read_pairs(batch: Batch) -> list[str] | None:
    """``[B]`` the second texts of a pair model's inputs ("" for none), None for single texts."""
    explanations = batch.explanations
    return [e.pair or "" for e in explanations] if explanations and explanations[0].pair is not None else None


def uniform_agreement(batch: Batch) -> np.ndarray:
    """``[B]`` 1.0 where the model, with alpha replaced by the uniform distribution over the valid spans,
    predicts the same class, else 0.0 (one batched prediction)."""
    texts = [e.text for e in batch.explanations]
    uniform = np.asarray(batch.explainer.predict(texts, read_pairs(batch), uniform_alpha=True))  # [B]
    return (uniform == batch.predicted).astype(np.float64)


def top1_agreement(batch: Batch) -> np.ndarray:
    """``[B]`` 1.0 where the model reading only the words of the top-1 span (the other text of a pair kept
    whole) predicts the same class, else 0.0 (one batched prediction)."""
    reduced = [top_span_input(e) for e in batch.explanations]
    pairs = [pair or "" for _, pair in reduced] if read_pairs(batch) is not None else None
    top1 = np.asarray(batch.explainer.predict([text for text, _ in reduced], pairs))  # [B]
    return (top1 == batch.predicted).astype(np.float64)


def deletion(batch: Batch) -> np.ndarray:
    """``[B, 3]``: ``deletion_beats_random`` and the two drops (:data:`DELETION_DROPS`), the deleted variants
    of the whole batch in one prediction; input ``i`` draws its places seeded ``(seed, first_index + i)``."""
    options, keys = batch.options, ("deletion_beats_random", *DELETION_DROPS)
    rows = deletion_scores(
        batch.explanations, probabilities_of(batch.explainer), options.seed, options.draws, batch.first_index
    )
    return np.array([[row[key] for key in keys] for row in rows], dtype=np.float64).reshape(-1, len(keys))


def top_out_flips(batch: Batch) -> np.ndarray:
    """``[B]`` :func:`~selfexplain.lab.sharpness.measures_model.top_out_flip` of each input's span view."""
    from selfexplain.lab.faithfulness.alpha_tests import span_view

    return np.array([top_out_flip(span_view(batch.explainer, i)) for i in batch.instances], dtype=np.float64)


register_measure(
    Measure(key="uniform_agreement", label="prediction kept with uniform alpha", higher_is_better=False,
            target="<= 0.70", rank=50, reads="model", compute=uniform_agreement)
)  # fmt: skip
register_measure(
    Measure(key="top1_agreement", label="prediction kept reading only the top-1 span", higher_is_better=True,
            target=">= 0.75", rank=60, reads="model", compute=top1_agreement)
)  # fmt: skip
register_measure(
    Measure(key="deletion_beats_random", label="deleting the top span beats deleting a random span",
            higher_is_better=True, rank=140, reads="model", compute=deletion, also=DELETION_DROPS)
)  # fmt: skip
register_measure(
    Measure(key="top_out_flip", label="decision flips with the top span out of alpha", higher_is_better=True,
            rank=150, reads="model", compute=top_out_flips)
)  # fmt: skip
