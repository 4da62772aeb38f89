"""The columns read without running the model again: ``accuracy`` (the gold label), the sharpness of
alpha (:mod:`selfexplain.lab.sharpness.measures`) and agreement with people
(:mod:`selfexplain.lab.sharpness.plausibility`).

Per input: the largest alpha, ``exp(H(alpha))``, the top-3 mass, Spearman with the position prior, the
share of the top 5 spans that split a word, the top span's words and length, the spans with alpha > 0,
whether both texts of a pair hold one, whether the top span ends on the closing punctuation, and
(with SST trees) the polarity of the top span's phrase. Over the
whole data: whether an input's top span is the most common one, and (with human rationales) the token F1 of
alpha's hard rationale, whose length depends on the data set's mean rationale share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from selfexplain.lab.plausibility.metrics import alpha_token_f1s
from selfexplain.lab.sharpness.measures import (
    both_sides_share,
    closing_punctuation,
    closing_word,
    effective_spans,
    max_alpha,
    multi_span_share,
    nonzero_spans,
    num_spans,
    position_spearman,
    repeated_top_span,
    split_word_share,
    top_mass,
    top_span_text,
    top_span_words,
)
from selfexplain.lab.sharpness.plausibility import sst_phrase_agreement
from selfexplain.lab.sharpness.registry import Batch, Column, Measure, each, register_column, register_measure

if TYPE_CHECKING:
    from selfexplain.lab.sharpness.run import SharpnessOptions


def objects(values: list[object]) -> np.ndarray:
    """``values`` as a ``[B]`` object array (texts, explanations), never split into their items."""
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def accuracy(batch: Batch) -> np.ndarray:
    """``[B]`` 1.0 where the prediction is the gold label, else 0.0; masked for an example without one."""
    labels = [example.label for example in batch.examples]
    missing = np.array([label is None for label in labels], dtype=bool)
    gold = np.array([-1 if label is None else label for label in labels], dtype=np.int64)
    return np.ma.masked_array((batch.predicted == gold).astype(np.float64), mask=missing)


def top_spans(batch: Batch) -> np.ndarray:
    """``[B]`` object: each input's top span (alpha > 0) in lower-cased words, "" without one."""
    return objects([top_span_text(e) for e in batch.explanations])


def repeated(pieces: np.ndarray, options: SharpnessOptions) -> np.ndarray:
    """``[E]`` :func:`~selfexplain.lab.sharpness.measures.repeated_top_span` of every input's top span ``[E]``."""
    return repeated_top_span([str(text) for text in pieces])


def phrase_agreement(batch: Batch) -> np.ndarray | None:
    """``[B]`` :func:`~selfexplain.lab.sharpness.plausibility.sst_phrase_agreement`; None without phrases."""
    phrases = batch.options.phrases
    if phrases is None:
        return None
    return np.array([sst_phrase_agreement(e, phrases) for e in batch.explanations], dtype=np.float64)


def gather_explanations(batch: Batch) -> np.ndarray | None:
    """``[B]`` the explanations, kept for the rationale scores; None without rationales (nothing is kept)."""
    return None if batch.options.rationales is None else objects(list(batch.explanations))


def rationale_scores(pieces: np.ndarray, options: SharpnessOptions) -> np.ndarray:
    """``[E]`` token F1 of alpha's hard rationale per input, from every input's explanation ``[E]`` (NaN
    without a human rationale; all NaN when no input has one)."""
    assert options.rationales is not None
    try:
        return alpha_token_f1s(list(pieces), options.rationales)
    except ValueError:  # no document has a human rationale on its tokens
        return np.full(len(pieces), np.nan)


register_measure(
    Measure(key="accuracy", label="accuracy", higher_is_better=True, rank=10, reads="gold", compute=accuracy)
)
register_column(Column(key="top_span", rank=15, compute=top_spans))
register_measure(
    Measure(key="max_alpha", label="mean largest alpha", higher_is_better=True, target=">= 0.30",
            trivial_when_one_span=True, rank=20, compute=each(max_alpha))
)  # fmt: skip
register_measure(
    Measure(key="effective_spans", label="effective number of spans exp(H)", higher_is_better=False,
            trivial_when_one_span=True, rank=30, compute=each(effective_spans))
)  # fmt: skip
register_measure(
    Measure(key="top3_mass", label="alpha mass of the top 3 spans", higher_is_better=True, target=">= 0.60",
            trivial_when_one_span=True, rank=40, compute=each(top_mass))
)  # fmt: skip
register_measure(
    Measure(key="position_spearman", label="Spearman(token alpha mass, position prior)", higher_is_better=False,
            target="<= 0.40", rank=70, compute=each(position_spearman))
)  # fmt: skip
register_measure(
    Measure(key="split_word_share", label="top-5 spans that split a word", higher_is_better=False, target="0",
            rank=80, compute=each(split_word_share))
)  # fmt: skip
register_column(Column(key="num_spans", rank=85, compute=each(num_spans)))
register_measure(
    Measure(key="top_span_words", label="median top-span length in words", higher_is_better=None,
            aggregate="median", rank=90, compute=each(top_span_words))
)  # fmt: skip
register_measure(
    Measure(key="nonzero_spans", label="mean number of spans with alpha > 0", higher_is_better=None, rank=100,
            compute=each(nonzero_spans))
)  # fmt: skip
register_measure(
    Measure(key="multi_span_share", label="inputs with at least 2 spans of alpha > 0", higher_is_better=None,
            rank=110, compute=each(multi_span_share))
)  # fmt: skip
register_measure(
    Measure(key="both_sides_share", label="pairs with alpha > 0 on both sides", higher_is_better=True, rank=120,
            compute=each(both_sides_share))
)  # fmt: skip
register_measure(
    Measure(key="repeated_top_span", label="inputs whose top span is the most common top span",
            higher_is_better=False, rank=130, compute=top_spans, finish=repeated)
)  # fmt: skip
register_measure(
    Measure(key="closing_punctuation", label="top span ends on the closing punctuation", higher_is_better=False,
            target="<= 0.10", rank=135, compute=each(closing_punctuation))
)  # fmt: skip
register_measure(
    Measure(key="closing_word", label="top span reaches the text's last word", higher_is_better=None, rank=136,
            compute=each(closing_word))
)  # fmt: skip
register_measure(
    Measure(key="sst_phrase_agreement", label="top span's SST phrase has the predicted polarity",
            higher_is_better=True, rank=160, reads="people", compute=phrase_agreement)
)  # fmt: skip
register_measure(
    Measure(key="rationale_token_f1", label="token F1 with human rationales", higher_is_better=True, rank=170,
            reads="people", compute=gather_explanations, finish=rationale_scores)
)  # fmt: skip
