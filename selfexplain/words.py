"""Merging wordpieces into words and token spans into word spans."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfexplain.explanation import Explanation


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
