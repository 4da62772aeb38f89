"""Which pieces form one word: the tokenizer's pre-tokenizer words, with an apostrophe that sits inside a
word kept in it. BERT-style pre-tokenizers cut at every punctuation mark, so "doesn't" (and SST's "n't")
would be three words, "doesn", "'" and "t", and a word-level span could start or end inside them; a person
marks the whole "doesn't"."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import numpy as np
from transformers import PreTrainedTokenizerBase

from selfexplain.core.modeling.encoders import load_tokenizer

# an apostrophe followed by a letter glues what follows it; one with a letter on both sides glues both sides
_BEFORE_LETTER = re.compile(r"['\u2019](?=[^\W\d_])")
_INSIDE_WORD = re.compile(r"(?<=[^\W\d_])['\u2019](?=[^\W\d_])")


# how tokenizers mark a piece that continues a word or starts one (WordPiece, SentencePiece, byte-level BPE)
_PIECE_MARKS = ("##", "\u2581", "\u0120")


def punctuation_ids(tokenizer: PreTrainedTokenizerBase) -> list[int]:
    """The ids of the tokenizer's pieces made only of punctuation and symbols ("." "," "!" "##-" "..."),
    special tokens left out, in increasing order: the pieces a span may not start or end on when a model's
    span edges are words (``ModelConfig.punctuation_ids``)."""
    special = set(tokenizer.all_special_ids)
    found = []
    for piece, index in tokenizer.get_vocab().items():
        for mark in _PIECE_MARKS:
            if piece.startswith(mark) and len(piece) > len(mark):
                piece = piece[len(mark) :]
                break
        if index not in special and piece and all(unicodedata.category(c)[0] in "PS" for c in piece):
            found.append(index)
    return sorted(found)


def span_edge_ids(encoder: str, edges: str) -> list[int]:
    """The ``ModelConfig.punctuation_ids`` of a new model on ``encoder`` whose span edges are ``edges``:
    the tokenizer's punctuation pieces for "words", none for "any"."""
    return punctuation_ids(load_tokenizer(encoder)) if edges == "words" else []


def _positions(pattern: re.Pattern[str], text: str) -> np.ndarray:
    return np.fromiter((m.start() for m in pattern.finditer(text)), dtype=np.int64)


def joined_word_ids(
    word_ids: Sequence[int | None],
    offsets: Sequence[tuple[int, int]],
    sequence_ids: Sequence[int | None],
    texts: Sequence[str],
) -> list[int | None]:
    """``[N]`` word ids (None where the tokenizer has none: special tokens) in which a word the
    pre-tokenizer cut at an apostrophe is one word again: a word joins the one before it when the two
    touch (no character between them, same text of a pair) and the apostrophe between them has a letter
    after it ("doesn|'t" -> "doesn't", SST's "n't", "'s" after a space) or, when the word starts with the
    apostrophe, letters on both sides ("doesn|'|t"). ``texts``: the text of each sequence id (a pair's two).
    Ids are renumbered from 0 in each text, in order."""
    count = len(word_ids)
    if count == 0:
        return []
    word = np.array([w if w is not None else -1 for w in word_ids], dtype=np.int64)
    segment = np.array([s if s is not None else -1 for s in sequence_ids], dtype=np.int64)
    span = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    real = (word >= 0) & (segment >= 0)
    glued = np.zeros(count, dtype=bool)
    for which, text in enumerate(texts):  # one or two texts
        here = np.flatnonzero(real & (segment == which))
        if here.size < 2:
            continue
        prev, cur = here[:-1], here[1:]
        touching = (word[cur] != word[prev]) & (span[cur, 0] == span[prev, 1])
        start = span[cur, 0]
        joins = np.isin(start, _positions(_INSIDE_WORD, text)) | np.isin(start - 1, _positions(_BEFORE_LETTER, text))
        glued[cur] = touching & joins
    new_word = real & ~glued
    new_word[1:] &= ~(real[1:] & real[:-1] & (word[1:] == word[:-1]) & (segment[1:] == segment[:-1]))
    ids = np.full(count, -1, dtype=np.int64)
    for which in range(len(texts)):
        mine = real & (segment == which)
        ids[mine] = (np.cumsum(new_word & mine) - 1)[mine]
    return [int(i) if i >= 0 else None for i in ids]
