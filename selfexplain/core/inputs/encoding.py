"""Tokenised rows -> padded model input tensors ``[B, N]``, with character offsets, segments and word
boundaries kept (:func:`assemble`); the one place a token's offsets lose their leading whitespace
(:func:`trim_offsets`) and the one rule for which pieces may bound a span (:func:`readable`). Tokenising is
:mod:`selfexplain.core.inputs.tokens`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from transformers import PreTrainedTokenizerBase

from selfexplain.core.modeling.families import Family

WHITESPACE = np.array([ord(c) for c in " \t\n\r\x0b\x0c\u00a0\u2009\u3000"], dtype=np.uint32)


@dataclass(frozen=True)
class TokenRow:
    """One tokenised input (special tokens included): per position its id, character offsets (leading
    whitespace left out: :func:`trim_offsets`), sequence id (0/1 for the texts of a pair, None on
    special tokens), word id and token type id."""

    ids: list[int]
    offsets: list[tuple[int, int]]
    sequence_ids: list[int | None]
    word_ids: list[int | None]
    type_ids: list[int] | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def keep(self, positions: Sequence[int]) -> TokenRow:
        """The row with only ``positions`` (in order): a truncated input."""
        pick = list(positions)
        return TokenRow(
            ids=[self.ids[p] for p in pick],
            offsets=[self.offsets[p] for p in pick],
            sequence_ids=[self.sequence_ids[p] for p in pick],
            word_ids=[self.word_ids[p] for p in pick],
            type_ids=[self.type_ids[p] for p in pick] if self.type_ids is not None else None,
        )


@dataclass(frozen=True)
class EncodedBatch:
    """Tokenised batch. Tensors are ``[B, N]``; ``offsets`` and ``sequence_ids`` are
    per example and per position (``None`` sequence id = special token or padding)."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    token_type_ids: torch.Tensor | None
    token_mask: torch.Tensor
    segment_ids: torch.Tensor
    offsets: list[list[tuple[int, int]]]
    sequence_ids: list[list[int | None]]
    tokens: list[list[str]]
    word_start: torch.Tensor | None = None
    word_end: torch.Tensor | None = None
    word_index: torch.Tensor | None = None

    def model_inputs(self, device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
        inputs = {
            "input_ids": self.input_ids,
            "attention_mask": self.attention_mask,
            "token_mask": self.token_mask,
            "segment_ids": self.segment_ids,
        }
        if self.token_type_ids is not None:
            inputs["token_type_ids"] = self.token_type_ids
        if self.word_start is not None and self.word_end is not None:
            inputs["word_start"] = self.word_start
            inputs["word_end"] = self.word_end
        return {k: v.to(device) for k, v in inputs.items()}


def assemble(tokenizer: PreTrainedTokenizerBase, rows: Sequence[TokenRow]) -> EncodedBatch:
    """Pad tokenised rows (special tokens included) into an :class:`EncodedBatch` on the right, as the
    tokenizer pads: the pad id, attention 0, offsets ``(0, 0)``, no sequence or word id."""
    size, width = len(rows), max(len(row.ids) for row in rows)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    input_ids = torch.full((size, width), pad_id, dtype=torch.long)
    attention = torch.zeros((size, width), dtype=torch.long)
    with_types = all(row.type_ids is not None for row in rows)
    type_ids = torch.full((size, width), int(getattr(tokenizer, "pad_token_type_id", 0) or 0), dtype=torch.long)
    pad: list[None] = [None] * width
    sequence_ids = [list(row.sequence_ids) + pad[len(row.ids) :] for row in rows]
    word_ids = [list(row.word_ids) + pad[len(row.ids) :] for row in rows]
    for b, row in enumerate(rows):  # one row per input
        length = len(row.ids)
        input_ids[b, :length] = torch.tensor(row.ids, dtype=torch.long)
        attention[b, :length] = 1
        if with_types:
            type_ids[b, :length] = torch.tensor(row.type_ids, dtype=torch.long)
    segment = torch.tensor([[s if s is not None else 0 for s in ids] for ids in sequence_ids], dtype=torch.long)
    token_mask = torch.tensor([[s is not None for s in ids] for ids in sequence_ids], dtype=torch.bool)
    token_mask &= attention.bool()
    offsets = [list(row.offsets) + [(0, 0)] * (width - len(row.ids)) for row in rows]
    token_mask &= torch.from_numpy(np.stack([readable(row) for row in offsets]))
    word_index = word_keys(word_ids, sequence_ids, token_mask)
    word_start, word_end = word_boundaries(word_index, token_mask)
    return EncodedBatch(
        input_ids=input_ids,
        attention_mask=attention,
        token_type_ids=type_ids if with_types else None,
        token_mask=token_mask,
        segment_ids=segment,
        offsets=offsets,
        sequence_ids=sequence_ids,
        tokens=[tokenizer.convert_ids_to_tokens(row) for row in input_ids.tolist()],
        word_start=word_start,
        word_end=word_end,
        word_index=word_index,
    )


def trim_offsets(
    offsets: Sequence[tuple[int, int]], sequence_ids: Sequence[int | None], text: str, pair: str | None
) -> list[tuple[int, int]]:
    """One input's character offsets (``[N]`` pairs, special tokens included) with leading whitespace
    left out of each token. Byte-level BPE tokenizers (GPT-2, Llama 3) count the space before a word
    into the word's piece; a span's text would then start with a space. Every path (short inputs,
    windows, truncation) reads offsets trimmed here. Vectorised (a few steps cover any run of spaces)."""
    row = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    start, end = row[:, 0].copy(), row[:, 1]
    segment = np.array([s if s is not None else -1 for s in sequence_ids])
    for which, source in ((0, text), (1, pair or "")):
        here = np.flatnonzero(segment == which)
        if here.size == 0 or not source:
            continue
        space = np.isin(np.frombuffer(source.encode("utf-32-le"), dtype=np.uint32), WHITESPACE)
        for _ in range(8):
            lead = here[(start[here] < end[here]) & space[np.minimum(start[here], len(space) - 1)]]
            if lead.size == 0:
                break
            start[lead] += 1
    return list(zip(start.tolist(), end.tolist()))


def readable(offsets: Sequence[tuple[int, int]]) -> np.ndarray:
    """``[N]`` bool: the pieces that keep a character once :func:`trim_offsets` has left leading whitespace
    out, the pieces a span may start or end on, on the short path (:func:`assemble`) as in windows. Which
    pieces are only whitespace is the family adapter's rule
    (:meth:`~selfexplain.core.modeling.families.Family.blank_pieces`)."""
    return ~Family.blank_pieces(offsets)


def word_keys(
    word_ids: Sequence[Sequence[int | None]], sequence_ids: Sequence[Sequence[int | None]], token_mask: torch.Tensor
) -> torch.Tensor:
    """``[B, N]`` long: one key per word (what the tokenizer's pre-tokenizer yields, its ``word_ids``,
    numbered per text of a pair), -2 on special tokens and padding."""
    key = torch.tensor(
        [[(s if s is not None else -1) * (1 << 30) + (w if w is not None else -1) for w, s in zip(ws, ss)]
         for ws, ss in zip(word_ids, sequence_ids)],
        dtype=torch.long,
    )  # fmt: skip
    return torch.where(token_mask, key, torch.full_like(key, -2))


def word_boundaries(key: torch.Tensor, token_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(word_start, word_end)`` ``[B, N]`` bool: True on the first / last real piece of each word
    (``key`` from :func:`word_keys`; after tokens are deleted, a word is the pieces left of it)."""
    key = torch.where(token_mask, key, torch.full_like(key, -2))
    edge = torch.full_like(key[:, :1], -3)
    word_start = token_mask & (key != torch.cat([edge, key[:, :-1]], dim=1))
    word_end = token_mask & (key != torch.cat([key[:, 1:], edge], dim=1))
    return word_start, word_end
