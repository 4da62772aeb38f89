"""How sharp alpha is, per input: the functions behind the measures of docs/sharpness.md.

Pure functions of an :class:`~selfexplain.core.results.explanation.Explanation`: the largest alpha, the
effective number of spans ``exp(H(alpha))``, the alpha mass of the top 3 spans, Spearman's correlation
between each token's alpha mass and the position prior ``(t + 1)(T - t)``, the share of the top 5 spans that
split a word, and, for sparse alpha, the top span's length in words, the number of spans with alpha > 0,
(pairs) whether both texts hold one and whether the top span ends on the text's closing punctuation; over
many inputs, whether an input's top span is the most common one.
:mod:`selfexplain.lab.sharpness.measures_model` has the measures that run the model again.

Each measure, with its computation over a batch, is registered in :mod:`selfexplain.lab.sharpness.columns`;
the registry (:data:`MEASURES`) and the summaries are re-exported from
:mod:`selfexplain.lab.sharpness.registry` and :mod:`selfexplain.lab.sharpness.summary`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from selfexplain.core.results.explanation import Explanation, Span, position_prior
from selfexplain.core.results.words import word_of_token
from selfexplain.lab.sharpness.registry import MEASURES as MEASURES
from selfexplain.lab.sharpness.registry import Measure as Measure
from selfexplain.lab.sharpness.summary import markdown_summary as markdown_summary
from selfexplain.lab.sharpness.summary import summarise as summarise
from selfexplain.lab.sharpness.summary import summary_rows as summary_rows


def span_alphas(explanation: Explanation) -> np.ndarray:
    """alpha of every valid span ``[V]``, in descending order."""
    return explanation.ranking[2]


def max_alpha(explanation: Explanation) -> float:
    weights = span_alphas(explanation)
    return float(weights[0]) if weights.size else float("nan")


def effective_spans(explanation: Explanation) -> float:
    """``exp(H(alpha))``: 1 for a one-hot alpha, the span count for a uniform one."""
    weights = span_alphas(explanation).astype(np.float64)
    positive = weights[weights > 0]
    return float(np.exp(-(positive * np.log(positive)).sum()))


def top_mass(explanation: Explanation, k: int = 3) -> float:
    return float(span_alphas(explanation)[:k].sum())


def position_spearman(explanation: Explanation) -> float:
    """Spearman between the tokens' alpha mass and the position prior; NaN when either is constant."""
    scores = explanation.token_scores()
    prior = position_prior(np.array([t.segment for t in explanation.tokens]))
    if scores.size < 3 or np.ptp(scores) == 0 or np.ptp(prior) == 0:
        return float("nan")
    from scipy.stats import spearmanr  # here: reading the measures' names and labels needs no scipy

    return float(spearmanr(scores, prior).statistic)


def splits_word(explanation: Explanation, span: Span) -> bool:
    """True when the span starts or ends inside a word: a letter or digit on both sides of its edge."""
    source = explanation.segment_text(span.segment)
    before = span.start_char > 0 and source[span.start_char - 1].isalnum() and source[span.start_char].isalnum()
    after = span.end_char < len(source) and source[span.end_char - 1].isalnum() and source[span.end_char].isalnum()
    return bool(before or after)


def split_word_share(explanation: Explanation, k: int = 5) -> float:
    spans = explanation.top_spans(k)
    return float(np.mean([splits_word(explanation, s) for s in spans])) if spans else float("nan")


def positive_top_span(explanation: Explanation) -> Span | None:
    """The highest-alpha span (ties by position) when its alpha is > 0, else None: only spans
    with alpha > 0 count as top spans."""
    weights = span_alphas(explanation)
    return explanation.top_spans(1)[0] if weights.size and weights[0] > 0 else None


@dataclass(frozen=True)
class Words:
    """The explanation's ``W`` word units (:func:`selfexplain.core.results.words.word_of_token`: the model's own
    words for a word-level model, whitespace words otherwise): ``of_token`` ``[T]`` the word of each
    token; ``segment``, ``start_char``, ``end_char`` ``[W]`` each word's text (0/1) and characters."""

    of_token: np.ndarray
    segment: np.ndarray
    start_char: np.ndarray
    end_char: np.ndarray

    @property
    def count(self) -> int:
        return int(self.segment.size)


def words_of(explanation: Explanation) -> Words:
    """The :class:`Words` of ``explanation``."""
    of_token = word_of_token(explanation)
    count = int(of_token.max()) + 1 if of_token.size else 0
    first = np.searchsorted(of_token, np.arange(count), side="left")
    last = np.searchsorted(of_token, np.arange(count), side="right") - 1
    tokens = explanation.tokens
    return Words(
        of_token,
        np.array([tokens[i].segment for i in first.tolist()], dtype=np.int64),
        np.array([tokens[i].start for i in first.tolist()], dtype=np.int64),
        np.array([tokens[i].end for i in last.tolist()], dtype=np.int64),
    )


def span_words(words: Words, span: Span) -> tuple[int, int]:
    """``(first, last)`` word (inclusive) that ``span``'s tokens touch."""
    return int(words.of_token[span.start_token]), int(words.of_token[span.end_token])


def top_span_words(explanation: Explanation) -> float:
    """Words the top span (alpha > 0) touches; NaN when no span has alpha > 0."""
    span = positive_top_span(explanation)
    if span is None:
        return float("nan")
    first, last = span_words(words_of(explanation), span)
    return float(last - first + 1)


def nonzero_spans(explanation: Explanation) -> float:
    """How many valid spans have alpha > 0 (every span under softmax)."""
    return float(np.count_nonzero(span_alphas(explanation) > 0))


def multi_span_share(explanation: Explanation) -> float:
    """1.0 when at least 2 valid spans have alpha > 0, else 0.0."""
    return float(nonzero_spans(explanation) >= 2)


def num_spans(explanation: Explanation) -> float:
    """How many spans are valid (alpha > 0 or not)."""
    return float(explanation.span_mask.sum())


def both_sides_share(explanation: Explanation) -> float:
    """1.0 when both texts of a pair hold a span with alpha > 0, else 0.0; NaN for a single text."""
    if explanation.pair is None:
        return float("nan")
    starts, _, weights = explanation.ranking
    segments = np.array([t.segment for t in explanation.tokens], dtype=np.int64)[starts[weights > 0]]
    return float(np.isin([0, 1], segments).all())


def closing_punctuation(explanation: Explanation) -> float:
    """1.0 when the top span (alpha > 0) ends on its text's last token and that token is punctuation only
    (the closing "." alone or with the words before it), else 0.0; NaN when no span has alpha > 0.
    A contextual encoder's final "." can hold the whole sentence, so a model can route a label through
    it with a word attached ("roll ."): a carrier that :func:`repeated_top_span` does not count, since
    the attached word differs from input to input."""
    span = positive_top_span(explanation)
    if span is None:
        return float("nan")
    segments = np.array([t.segment for t in explanation.tokens], dtype=np.int64)
    last = int(np.flatnonzero(segments == span.segment)[-1])
    token = explanation.tokens[last]
    piece = explanation.segment_text(span.segment)[token.start : token.end].strip()
    return float(span.end_token == last and bool(piece) and not any(c.isalnum() for c in piece))


def closing_word(explanation: Explanation) -> float:
    """1.0 when the top span (alpha > 0) reaches its text's last word (the last token with a letter or
    digit; closing punctuation after it set aside, so this counts every :func:`closing_punctuation` input
    too), else 0.0; NaN when no span has alpha > 0 or the text has no word. Descriptive: the last word is
    often the reason, but a model whose spans may not end on punctuation can route a label through the
    end of the sentence with the word there instead, and this share shows it beside a model's siblings."""
    span = positive_top_span(explanation)
    if span is None:
        return float("nan")
    text = explanation.segment_text(span.segment)
    words = [
        k for k, t in enumerate(explanation.tokens)
        if t.segment == span.segment and any(c.isalnum() for c in text[t.start : t.end])
    ]  # fmt: skip
    return float(span.end_token >= words[-1]) if words else float("nan")


REPEAT_MIN_INPUTS = 10  # below this many top spans, "the most common one" says nothing


def top_span_text(explanation: Explanation) -> str:
    """The top span's words (alpha > 0), lower-cased; "" when no span has alpha > 0."""
    span = positive_top_span(explanation)
    return " ".join(span.text.lower().split()) if span is not None else ""


def modal_top_span(texts: Sequence[str]) -> str:
    """The most common of the non-empty top spans ``texts`` (:func:`top_span_text`); "" when none."""
    present = Counter(t for t in texts if t)
    return present.most_common(1)[0][0] if present else ""


def repeated_top_span(texts: Sequence[str]) -> np.ndarray:
    """``[E]`` 1.0 where an input's top span (:func:`top_span_text`) is the corpus's most common top
    span, else 0.0; NaN for an input without one, and for all when fewer than
    :data:`REPEAT_MIN_INPUTS` inputs have one. A model that routes every decision through one carrier
    token (the final "." of a contextual encoder) scores near 1 while its other measures can look sharp."""
    values = np.full(len(texts), np.nan)
    has = np.array([bool(t) for t in texts], dtype=bool)
    if has.sum() < REPEAT_MIN_INPUTS:
        return values
    modal = modal_top_span(texts)
    values[has] = np.array([t == modal for t in texts], dtype=np.float64)[has]
    return values
