"""Merging wordpieces into words and token spans into word spans."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfexplain.explanation import Explanation, Span


@dataclass(frozen=True)
class WordView:
    """``labels`` of the ``W`` words, ``word_of_token`` ``[T]``, ``alpha`` and ``span_mask`` ``[W, W]``,
    and each word's ``(segment, start_char, end_char)``."""

    labels: tuple[str, ...]
    word_of_token: np.ndarray
    alpha: np.ndarray
    span_mask: np.ndarray
    extents: tuple[tuple[int, int, int], ...]


def word_of_token(explanation: Explanation) -> np.ndarray:
    """``[T]`` word index: words are whitespace-delimited, so a token starts a new word unless it
    touches the previous token (no gap in the text, same segment): "isn't" and "un-watchable" are one word."""
    tokens = explanation.tokens
    if not tokens:
        return np.zeros(0, dtype=int)
    starts_word = np.ones(len(tokens), dtype=bool)
    for t in range(1, len(tokens)):
        prev, cur = tokens[t - 1], tokens[t]
        starts_word[t] = not (cur.segment == prev.segment and cur.start == prev.end)
    return np.cumsum(starts_word) - 1


def word_view(explanation: Explanation) -> WordView:
    """Word-level alpha: ``alpha_w(a, b) = sum of alpha(i, j)`` over tokens ``i`` in word ``a``
    and ``j`` in word ``b``. A word span is valid when any of its token spans is."""
    words = word_of_token(explanation)
    count = int(words.max()) + 1 if words.size else 0
    alpha = np.zeros((count, count))
    mask = np.zeros((count, count), dtype=bool)
    starts, ends = np.nonzero(explanation.span_mask)
    np.add.at(alpha, (words[starts], words[ends]), explanation.alpha[starts, ends])
    mask[words[starts], words[ends]] = True
    extents = []
    labels = []
    for w in range(count):
        members = np.nonzero(words == w)[0]
        first, last = explanation.tokens[members[0]], explanation.tokens[members[-1]]
        extents.append((first.segment, first.start, last.end))
        labels.append(explanation.segment_text(first.segment)[first.start : last.end])
    return WordView(tuple(labels), words, alpha, mask, tuple(extents))


def word_span_at(
    explanation: Explanation, first_word: int, last_word: int, view: WordView | None = None
) -> Span | None:
    """Words ``first_word .. last_word`` as a :class:`Span` carrying the word-level alpha and its rank
    among word spans (token indices cover the words' tokens), or None if no token span lies there."""
    view = view if view is not None else word_view(explanation)
    if not view.span_mask[first_word, last_word]:
        return None
    segment, start, _ = view.extents[first_word]
    end = view.extents[last_word][2]
    tokens = np.flatnonzero((view.word_of_token >= first_word) & (view.word_of_token <= last_word))
    weight = float(view.alpha[first_word, last_word])
    rank = int((view.alpha[view.span_mask] > weight).sum()) + 1
    text = explanation.segment_text(segment)[start:end]
    return Span(int(tokens[0]), int(tokens[-1]), start, end, segment, text, weight, rank)
