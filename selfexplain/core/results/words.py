"""Grouping tokens into words or sentences, and token spans into word or sentence spans."""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Literal

import numpy as np

from selfexplain.core.results.explanation import Explanation, Span, evidence_ranks


@dataclass(frozen=True)
class WordView:
    """``labels`` of the ``W`` groups (words or sentences), ``word_of_token`` ``[T]`` (the group of
    each token), ``alpha`` and ``span_mask`` ``[W, W]``, and each group's ``(segment, start_char, end_char)``."""

    labels: tuple[str, ...]
    word_of_token: np.ndarray
    alpha: np.ndarray
    span_mask: np.ndarray
    extents: tuple[tuple[int, int, int], ...]


Level = Literal["token", "word", "sentence"]
LEVELS: tuple[Level, ...] = ("token", "word", "sentence")
_SENTENCE_END = frozenset({".", "!", "?", "...", "…"})


def word_of_token(explanation: Explanation) -> np.ndarray:
    """``[T]`` word index. For a word-level model (``span_unit == "word"``) the words are the model's
    own units (the tokenizer's pre-tokenizer words, apostrophes joined when the model's ``apostrophes``
    is "joined": a token starts one exactly when a valid span starts there or ends just before it, so a
    punctuation mark no span may start or end on, ``ModelConfig.punctuation_ids``, is a word of its own),
    so word-level alpha is the model's alpha. Otherwise words are whitespace-delimited: a token starts a new
    word unless it touches the previous token (no gap in the text, same segment), so "isn't" and
    "un-watchable" are one word."""
    tokens = explanation.tokens
    if not tokens:
        return np.zeros(0, dtype=int)
    if explanation.span_unit == "word" and explanation.span_mask.shape[0] == len(tokens):
        starts_word = explanation.span_mask.any(axis=1)
        starts_word[1:] |= explanation.span_mask.any(axis=0)[:-1]
        starts_word[0] = True
        return np.cumsum(starts_word) - 1
    starts = np.array([t.start for t in tokens])
    ends = np.array([t.end for t in tokens])
    segments = np.array([t.segment for t in tokens])
    starts_word = np.ones(len(tokens), dtype=bool)
    starts_word[1:] = ~((segments[1:] == segments[:-1]) & (starts[1:] == ends[:-1]))
    return np.cumsum(starts_word) - 1


def sentence_of_token(explanation: Explanation) -> np.ndarray:
    """``[T]`` sentence index: a sentence ends after a token that is ``.``, ``!``, ``?`` or an
    ellipsis, and each text of a pair starts a new one."""
    tokens = explanation.tokens
    if not tokens:
        return np.zeros(0, dtype=int)
    ends_sentence = np.array([t.text in _SENTENCE_END for t in tokens])
    segments = np.array([t.segment for t in tokens])
    starts_sentence = np.ones(len(tokens), dtype=bool)
    starts_sentence[1:] = ends_sentence[:-1] | (segments[1:] != segments[:-1])
    return np.cumsum(starts_sentence) - 1


def group_view(explanation: Explanation, group_of_token: np.ndarray) -> WordView:
    """Alpha over groups of consecutive tokens: ``alpha_g(a, b) = sum of alpha(i, j)`` over tokens
    ``i`` in group ``a`` and ``j`` in group ``b``. A group span is valid when any of its token spans is."""
    groups = group_of_token
    count = int(groups.max()) + 1 if groups.size else 0
    alpha = np.zeros((count, count))
    mask = np.zeros((count, count), dtype=bool)
    starts, ends = np.nonzero(explanation.span_mask)
    np.add.at(alpha, (groups[starts], groups[ends]), explanation.alpha[starts, ends])
    mask[groups[starts], groups[ends]] = True
    first = np.searchsorted(groups, np.arange(count), side="left")
    last = np.searchsorted(groups, np.arange(count), side="right") - 1
    extents = tuple(
        (explanation.tokens[a].segment, explanation.tokens[a].start, explanation.tokens[b].end)
        for a, b in zip(first.tolist(), last.tolist())
    )
    labels = tuple(explanation.segment_text(seg)[start:end] for seg, start, end in extents)
    return WordView(labels, groups, alpha, mask, extents)


def word_view(explanation: Explanation) -> WordView:
    """Word-level alpha (see :func:`group_view`), computed once per explanation (:func:`level_view`)."""
    view = level_view(explanation, "word")
    assert view is not None
    return view


# explanation -> level -> its view: a page's grid, the grid's figure and the attention map beside it read the same
# view, so it is computed once per explanation (and goes with it)
_VIEWS: weakref.WeakKeyDictionary[Explanation, dict[str, WordView]] = weakref.WeakKeyDictionary()
_VIEWS_LOCK = threading.Lock()


def level_view(explanation: Explanation, level: Level) -> WordView | None:
    """The view of a grid level; None at token level (the explanation itself). Computed once per explanation
    and level (an Explanation is immutable; the view's arrays are read-only)."""
    if level == "token":
        return None
    if level not in ("word", "sentence"):
        raise ValueError(f"unknown level {level!r}; use one of {', '.join(LEVELS)}")
    with _VIEWS_LOCK:
        view = _VIEWS.get(explanation, {}).get(level)
    if view is None:
        groups = word_of_token(explanation) if level == "word" else sentence_of_token(explanation)
        view = group_view(explanation, groups)
        for array in (view.word_of_token, view.alpha, view.span_mask):
            array.setflags(write=False)
        with _VIEWS_LOCK:
            view = _VIEWS.setdefault(explanation, {}).setdefault(level, view)
    return view


def group_span_at(
    explanation: Explanation, first_word: int, last_word: int, view: WordView | None = None
) -> Span | None:
    """Groups (words by default, or the groups of ``view``) ``first_word .. last_word`` as a
    :class:`Span` carrying the group-level alpha and its rank among group spans (0 for alpha 0; token indices
    cover the groups' tokens), or None if no token span lies there."""
    view = view if view is not None else word_view(explanation)
    if not view.span_mask[first_word, last_word]:
        return None
    segment, start, _ = view.extents[first_word]
    end = view.extents[last_word][2]
    tokens = np.flatnonzero((view.word_of_token >= first_word) & (view.word_of_token <= last_word))
    weight = float(view.alpha[first_word, last_word])
    rank = int(evidence_ranks(view.alpha, view.span_mask)[first_word, last_word])  # the grid's rank; 0 for alpha 0
    text = explanation.segment_text(segment)[start:end]
    return Span(int(tokens[0]), int(tokens[-1]), start, end, segment, text, weight, rank)
