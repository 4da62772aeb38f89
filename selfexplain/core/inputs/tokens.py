"""One tokenizer call for a list of inputs, and everything read from it: token counts, the
tokenizer's own truncation, padded batches and, for a single text, its tokens without the
special tokens (what :mod:`selfexplain.core.inputs.windows` lays out in windows).

Every fast tokenizer of the supported families gives a text the same real tokens (ids, offsets,
word ids) with and without its special tokens, and each text of a pair the same tokens as alone,
so one call with special tokens serves the short path, the windows and truncation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from transformers import PreTrainedTokenizerBase

from selfexplain.core.inputs.encoding import EncodedBatch, TokenRow, assemble, trim_offsets, word_boundaries, word_keys
from selfexplain.core.inputs.words import joined_word_ids
from selfexplain.errors import InputTooLongError


@dataclass(frozen=True)
class TokenisedText:
    """One text's real tokens (no special tokens): ``ids`` ``[T]``, per token its character ``offsets``
    (leading whitespace left out, as on the short path) and wordpiece, ``word_start``/``word_end``
    ``[T]`` bool (first / last piece of a word) and ``word_index`` ``[T]`` int64 (one key per word, so
    boundaries can be found again after tokens are deleted)."""

    ids: list[int]
    offsets: list[tuple[int, int]]
    pieces: list[str]
    word_start: np.ndarray
    word_end: np.ndarray
    word_index: np.ndarray

    def edited(self, keep: np.ndarray, filler: int | None = None) -> TokenisedText:
        """The text with only the tokens where ``keep`` ``[T]`` is True (a word keeps the pieces left
        of it) or, with ``filler``, every token kept and the others' ids replaced by ``filler``."""
        if filler is not None:
            ids = np.where(keep, np.asarray(self.ids, dtype=np.int64), filler).tolist()
            return TokenisedText(ids, self.offsets, self.pieces, self.word_start, self.word_end, self.word_index)
        where = np.flatnonzero(keep)
        keys = torch.from_numpy(self.word_index[where])[None]
        start, end = (m[0].numpy() for m in word_boundaries(keys, torch.ones_like(keys, dtype=torch.bool)))
        return TokenisedText(
            ids=[self.ids[i] for i in where.tolist()],
            offsets=[self.offsets[i] for i in where.tolist()],
            pieces=[self.pieces[i] for i in where.tolist()],
            word_start=start,
            word_end=end,
            word_index=self.word_index[where],
        )


def token_limit(tokenizer: PreTrainedTokenizerBase, max_length: int) -> int:
    """The longest input in tokens: ``max_length``, or the tokenizer's own maximum when smaller."""
    return min(max_length, int(getattr(tokenizer, "model_max_length", max_length) or max_length))


def longest_first(n1: int, n2: int, budget: int) -> tuple[int, int]:
    """Tokens kept of each text of a pair of ``n1`` and ``n2`` real tokens when ``budget`` fit: the
    tokenizer's ``longest_first`` rule (one token at a time off the longer text; on a tie off the
    first), in closed form."""
    if n1 + n2 <= budget:
        return n1, n2
    if 2 * min(n1, n2) <= budget:
        return (n1, budget - n1) if n1 <= n2 else (budget - n2, n2)
    low, high = budget // 2, budget - budget // 2
    return (high, low) if n1 > n2 else (low, high)


@dataclass(frozen=True)
class Tokenised:
    """``E`` inputs tokenised once (special tokens included, no padding, no truncation)."""

    tokenizer: PreTrainedTokenizerBase
    texts: tuple[str, ...]
    pairs: tuple[str, ...] | None
    rows: tuple[TokenRow, ...]

    @property
    def counts(self) -> list[int]:
        """Tokens of each input, special tokens included."""
        return [len(row) for row in self.rows]

    def source(self, index: int) -> tuple[str, str | None]:
        return self.texts[index], (self.pairs[index] if self.pairs is not None else None)

    def truncation(self, index: int, limit: int) -> list[int] | None:
        """Positions of input ``index`` kept when it is cut to ``limit`` tokens as the tokenizer cuts
        (the end of the text; for a pair, :func:`longest_first`), or None when it fits."""
        row = self.rows[index]
        if len(row) <= limit:
            return None
        segments = np.array([s if s is not None else -1 for s in row.sequence_ids])
        first, second = np.flatnonzero(segments == 0), np.flatnonzero(segments == 1)
        budget = max(0, limit - (len(row) - first.size - second.size))
        keep1, keep2 = longest_first(first.size, second.size, budget) if second.size else (budget, 0)
        dropped = np.concatenate([first[keep1:], second[keep2:]])
        return np.setdiff1d(np.arange(len(row)), dropped).tolist()

    def cut(self, index: int, keep: Sequence[int] | None = None) -> tuple[str, str | None]:
        """The text (and pair) up to the end of the last kept token of each (``keep``: positions, as
        from :meth:`truncation`; None = every token)."""
        row = self.rows[index]
        kept = row if keep is None else row.keep(keep)
        ends = [0, 0]
        for (_, end), segment in zip(kept.offsets, kept.sequence_ids):
            if segment is not None:
                ends[segment] = max(ends[segment], end)
        text, pair = self.source(index)
        return text[: ends[0]], (pair[: ends[1]] if pair is not None else None)

    def batch(self, indices: Iterable[int], keep: Mapping[int, Sequence[int] | None] | None = None) -> EncodedBatch:
        """The inputs ``indices`` padded into one batch, each cut to ``keep[i]`` positions when given."""
        chosen = list(indices)
        keep = keep or {}
        rows = [self.rows[i].keep(keep[i]) if keep.get(i) is not None else self.rows[i] for i in chosen]
        return assemble(self.tokenizer, rows)

    def text_tokens(self, index: int) -> TokenisedText:
        """The real tokens of single text ``index`` with their word boundaries (for windows)."""
        row = self.rows[index]
        real = [p for p, s in enumerate(row.sequence_ids) if s is not None]
        ids = [row.ids[p] for p in real]
        mask = torch.ones(1, len(real), dtype=torch.bool)
        keys = word_keys([[row.word_ids[p] for p in real]], [[0] * len(real)], mask)
        word_start, word_end = (m[0].numpy() for m in word_boundaries(keys, mask))
        return TokenisedText(
            ids=ids,
            offsets=[(int(row.offsets[p][0]), int(row.offsets[p][1])) for p in real],
            pieces=self.tokenizer.convert_ids_to_tokens(ids),
            word_start=word_start,
            word_end=word_end,
            word_index=keys[0].numpy(),
        )


def tokenise_inputs(
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    pairs: Sequence[str] | None = None,
    apostrophes: str = "split",
) -> Tokenised:
    """``texts`` (and ``pairs``) in one tokenizer call, with offsets, sequence ids and word ids: the
    pre-tokenizer's words, or with ``apostrophes="joined"`` those cut at an apostrophe joined again
    (:func:`~selfexplain.core.inputs.words.joined_word_ids`; a model's ``apostrophes`` setting)."""
    if not texts:
        return Tokenised(tokenizer, (), () if pairs is not None else None, ())
    encoded = tokenizer(
        list(texts),
        list(pairs) if pairs is not None else None,
        padding=False,
        truncation=False,
        return_offsets_mapping=True,
    )
    types = encoded.get("token_type_ids")

    def row(i: int) -> TokenRow:
        pair = pairs[i] if pairs is not None else None
        offsets = trim_offsets(encoded["offset_mapping"][i], encoded.sequence_ids(i), texts[i], pair)
        words = encoded.word_ids(i)
        if apostrophes == "joined":
            words = joined_word_ids(words, offsets, encoded.sequence_ids(i), (texts[i], pair or ""))
        return TokenRow(
            ids=list(encoded["input_ids"][i]),
            offsets=offsets,
            sequence_ids=encoded.sequence_ids(i),
            word_ids=words,
            type_ids=list(types[i]) if types is not None else None,
        )

    rows = tuple(row(i) for i in range(len(texts)))
    return Tokenised(tokenizer, tuple(texts), tuple(pairs) if pairs is not None else None, rows)


def tokenise(tokenizer: PreTrainedTokenizerBase, text: str, apostrophes: str = "split") -> TokenisedText:
    """``text``'s real tokens (no special tokens), with offsets, pieces and word boundaries (``apostrophes``:
    as in :func:`tokenise_inputs`)."""
    return tokenise_inputs(tokenizer, [text], apostrophes=apostrophes).text_tokens(0)


def fit_text(
    tokenizer: PreTrainedTokenizerBase, text: str, pair: str | None, max_tokens: int, max_chars: int
) -> tuple[str, str | None, bool]:
    """``(text, pair, truncated)``: the input cut at a token boundary so it fits ``max_tokens`` (the
    start of each text kept, as the tokenizer cuts), each text first cut at ``max_chars`` characters."""
    clipped = len(text) > max_chars or (pair is not None and len(pair) > max_chars)
    source = (text[:max_chars], pair[:max_chars] if pair is not None else None)
    tokenised = tokenise_inputs(tokenizer, [source[0]], [source[1]] if source[1] is not None else None)
    keep = tokenised.truncation(0, token_limit(tokenizer, max_tokens))
    if keep is None and not clipped:
        return text, pair, False
    return (*tokenised.cut(0, keep), True)


def encode(
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    pairs: Sequence[str] | None = None,
    max_length: int = 512,
    truncate: bool = True,
) -> EncodedBatch:
    """Tokenise ``texts`` (and ``pairs``) once and pad them into one batch, each cut to fit
    ``max_length`` tokens (:meth:`Tokenised.truncation`); with ``truncate=False`` an over-long input
    raises :class:`InputTooLongError` instead."""
    tokenised = tokenise_inputs(tokenizer, texts, pairs)
    limit = token_limit(tokenizer, max_length)
    counts = tokenised.counts
    if not truncate and counts and max(counts) > limit:
        raise InputTooLongError(max(counts), limit)
    return tokenised.batch(range(len(counts)), {i: tokenised.truncation(i, limit) for i in range(len(counts))})
