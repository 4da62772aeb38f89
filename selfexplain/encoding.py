"""Text (or text pair) -> model input tensors, with character offsets kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from transformers import PreTrainedTokenizerBase

from selfexplain.errors import InputTooLongError

WHITESPACE = np.array([ord(c) for c in " \t\n\r\x0b\x0c\u00a0\u2009\u3000"], dtype=np.uint32)


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


def encode(
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    pairs: Sequence[str] | None = None,
    max_length: int = 512,
    truncate: bool = True,
) -> EncodedBatch:
    """Tokenise ``texts`` (and ``pairs``). With ``truncate=False`` an over-long
    input raises :class:`InputTooLongError` instead of being cut."""
    limit = min(max_length, int(getattr(tokenizer, "model_max_length", max_length) or max_length))
    batch = tokenizer(
        list(texts),
        list(pairs) if pairs is not None else None,
        padding=True,
        truncation="longest_first" if truncate else False,
        max_length=limit if truncate else None,
        return_offsets_mapping=True,
        return_tensors="pt",
    )
    if not truncate and batch["input_ids"].shape[1] > limit:
        lengths = batch["attention_mask"].sum(dim=1)
        raise InputTooLongError(int(lengths.max()), limit)
    size = batch["input_ids"].shape[0]
    sequence_ids = [batch.sequence_ids(i) for i in range(size)]
    segment = torch.tensor([[s if s is not None else 0 for s in ids] for ids in sequence_ids], dtype=torch.long)
    token_mask = torch.tensor([[s is not None for s in ids] for ids in sequence_ids], dtype=torch.bool)
    token_mask &= batch["attention_mask"].bool()
    offsets = trimmed_offsets(batch["offset_mapping"], sequence_ids, texts, pairs)
    # a piece that is only whitespace (byte-level BPE's lone "Ġ") is no word: spans never start or end on it
    token_mask &= torch.tensor([[a < b for a, b in row] for row in offsets], dtype=torch.bool)
    tokens = [tokenizer.convert_ids_to_tokens(row) for row in batch["input_ids"].tolist()]
    word_index = None
    if batch.is_fast:
        word_index = word_keys([batch.word_ids(i) for i in range(size)], sequence_ids, token_mask)
    word_start, word_end = word_boundaries(word_index, token_mask) if word_index is not None else (None, None)
    return EncodedBatch(
        input_ids=batch["input_ids"],
        attention_mask=batch["attention_mask"],
        token_type_ids=batch.get("token_type_ids"),
        token_mask=token_mask,
        segment_ids=segment,
        offsets=offsets,
        sequence_ids=sequence_ids,
        tokens=tokens,
        word_start=word_start,
        word_end=word_end,
        word_index=word_index,
    )


def trimmed_offsets(
    offset_mapping: torch.Tensor,
    sequence_ids: Sequence[Sequence[int | None]],
    texts: Sequence[str],
    pairs: Sequence[str] | None,
) -> list[list[tuple[int, int]]]:
    """Character offsets per example and position, with leading whitespace left out of each token.
    Byte-level BPE tokenizers (GPT-2, Llama 3) count the space before a word into the word's piece;
    a span's text then starts with a space. Vectorised per example (a few steps cover any run of spaces)."""
    rows = []
    for b, row in enumerate(offset_mapping.numpy()):
        start, end = row[:, 0].copy(), row[:, 1]
        segment = np.array([s if s is not None else -1 for s in sequence_ids[b]])
        for which, source in ((0, texts[b]), (1, pairs[b] if pairs is not None else "")):
            here = np.flatnonzero(segment == which)
            if here.size == 0 or not source:
                continue
            space = np.frombuffer(source.encode("utf-32-le"), dtype=np.uint32)
            space = np.isin(space, WHITESPACE)
            for _ in range(8):
                lead = here[(start[here] < end[here]) & space[np.minimum(start[here], len(space) - 1)]]
                if lead.size == 0:
                    break
                start[lead] += 1
        rows.append(list(zip(start.tolist(), end.tolist())))
    return rows


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
