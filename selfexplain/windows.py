"""Long single texts in overlapping encoder windows, with one span set across them.

A text of ``T`` real tokens is cut into windows of ``inner = window - specials``
tokens that start every ``stride`` tokens (the last one aligned to the end).
Each window is encoded on its own; a span ``(i, j)`` (global token indices) is
kept once, in the first window that holds both of its ends, so spans wider
than a window do not exist and no span is counted twice. All spans of all
windows then share one softmax and one alpha-weighted sum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from transformers import PreTrainedTokenizerBase

from selfexplain.encoding import word_boundaries, word_keys


@dataclass(frozen=True)
class TokenisedText:
    """One text tokenised once, without special tokens: ``ids`` ``[T]``, per token its character
    ``offsets`` and wordpiece, and ``word_start``/``word_end`` ``[T]`` bool (first / last piece of a word)."""

    ids: list[int]
    offsets: list[tuple[int, int]]
    pieces: list[str]
    word_start: np.ndarray
    word_end: np.ndarray


@dataclass(frozen=True)
class WindowPlan:
    """Encoder inputs ``[Wn, n]`` for the ``Wn`` windows of one text, and its spans.

    ``global_index`` ``[Wn, n]``: the global token index at each window slot (-1 on
    special tokens and padding). ``span_starts``/``span_ends`` ``[S]``: flat slot
    positions (``w * n + p``) of each kept span's ends, ordered by (start, end) (as global
    token indices: :meth:`span_tokens`). ``offsets``/``pieces``: per global token, character offsets and wordpiece.
    ``inner``: real tokens a window holds.
    """

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    token_mask: torch.Tensor
    global_index: torch.Tensor
    span_starts: torch.Tensor
    span_ends: torch.Tensor
    offsets: list[tuple[int, int]]
    pieces: list[str]
    window_starts: tuple[int, ...]
    inner: int = 0

    @property
    def num_tokens(self) -> int:
        return len(self.offsets)

    @property
    def num_spans(self) -> int:
        return int(self.span_starts.numel())

    def span_tokens(self) -> tuple[np.ndarray, np.ndarray]:
        """``(first, last)`` ``[S]`` int32: each span's ends as global token indices (inclusive)."""
        flat = self.global_index.reshape(-1)
        return tuple(flat[slots].to(torch.int32).numpy() for slots in (self.span_starts, self.span_ends))


def window_starts(num_tokens: int, inner: int, stride: int) -> list[int]:
    """Start token of each window: ``0, stride, 2 stride, ...``, the last aligned to the end."""
    if stride < 1 or stride > inner:
        raise ValueError(f"stride must be between 1 and the window's {inner} tokens, got {stride}")
    if num_tokens <= inner:
        return [0]
    starts = list(range(0, num_tokens - inner, stride))
    return starts + [num_tokens - inner]


def assign_spans(
    starts: np.ndarray,
    inner: int,
    num_tokens: int,
    max_width: int | None,
    may_start: np.ndarray | None = None,
    may_end: np.ndarray | None = None,
) -> tuple[np.ndarray, ...]:
    """Every span kept once: ``(window, i, j)`` arrays ``[S]``, ``i``/``j`` global and inclusive,
    ordered by ``(i, j)``, each span in the first window holding both ends, widths capped at
    ``max_width``; ``may_start``/``may_end`` ``[T]`` bool restrict the tokens a span may start / end on.

    Built without a sort: span ``(i, j)`` exists when ``j`` is before the end of the last window
    starting at or before ``i``, so each start's ends are one run ``i .. reach(i) - 1``."""
    ends = np.minimum(starts + inner, num_tokens)  # exclusive
    tokens = np.arange(num_tokens, dtype=np.int64)
    reach = ends[np.searchsorted(starts, tokens, side="right") - 1]
    if max_width is not None:
        reach = np.minimum(reach, tokens + max_width)
    counts = reach - tokens
    if may_start is not None:
        counts = np.where(may_start, counts, 0)
    first = np.repeat(tokens.astype(np.int32), counts)
    run_start = np.repeat(np.cumsum(counts) - counts, counts)  # where each start's run begins
    last = (np.arange(first.size, dtype=np.int64) - run_start + first).astype(np.int32)
    del run_start
    if may_end is not None:
        keep = may_end[last]
        first, last = first[keep], last[keep]
    window = np.searchsorted(ends, last, side="right")  # the first window whose end passes j
    return window, first, last


def special_frame(tokenizer: PreTrainedTokenizerBase) -> tuple[list[int], list[int]]:
    """Special-token ids the tokenizer puts before and after one text (e.g. [CLS] / [SEP])."""
    probe = tokenizer("a", add_special_tokens=False)["input_ids"]
    framed = tokenizer("a", add_special_tokens=True)["input_ids"]
    for position in range(len(framed) - len(probe) + 1):
        if framed[position : position + len(probe)] == probe:
            return framed[:position], framed[position + len(probe) :]
    raise ValueError("cannot find where the tokenizer puts its special tokens")


def tokenise(tokenizer: PreTrainedTokenizerBase, text: str) -> TokenisedText:
    """``text`` tokenised once (no special tokens), with offsets, pieces and word boundaries."""
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids: list[int] = encoded["input_ids"]
    real = torch.ones(1, len(ids), dtype=torch.bool)
    keys = word_keys([encoded.word_ids()], [[0] * len(ids)], real)
    word_start, word_end = (m[0].numpy() for m in word_boundaries(keys, real))
    return TokenisedText(
        ids=ids,
        offsets=[(int(a), int(b)) for a, b in encoded["offset_mapping"]],
        pieces=tokenizer.convert_ids_to_tokens(ids),
        word_start=word_start,
        word_end=word_end,
    )


def window_rows(
    tokenizer: PreTrainedTokenizerBase, ids: list[int], starts: list[int], inner: int
) -> tuple[torch.Tensor, ...]:
    """Encoder rows for windows starting at ``starts``: ``(input_ids, attention_mask, token_mask,
    global_index)``, each ``[Wn, n]`` (``global_index`` -1 on special tokens and padding)."""
    prefix, suffix = special_frame(tokenizer)
    chunks = [ids[lo : lo + inner] for lo in starts]
    width = len(prefix) + max(len(c) for c in chunks) + len(suffix)
    input_ids = torch.full((len(chunks), width), tokenizer.pad_token_id or 0, dtype=torch.long)
    attention = torch.zeros((len(chunks), width), dtype=torch.long)
    token_mask = torch.zeros((len(chunks), width), dtype=torch.bool)
    global_index = torch.full((len(chunks), width), -1, dtype=torch.long)
    for w, (lo, chunk) in enumerate(zip(starts, chunks)):  # one row per window
        row = prefix + chunk + suffix
        input_ids[w, : len(row)] = torch.tensor(row)
        attention[w, : len(row)] = 1
        real = slice(len(prefix), len(prefix) + len(chunk))
        token_mask[w, real] = True
        global_index[w, real] = torch.arange(len(chunk)) + lo
    return input_ids, attention, token_mask, global_index


def inner_size(tokenizer: PreTrainedTokenizerBase, window: int) -> int:
    """Real tokens one window of ``window`` positions holds (the rest are special tokens)."""
    prefix, suffix = special_frame(tokenizer)
    return window - len(prefix) - len(suffix)


def plan_windows(
    tokenizer: PreTrainedTokenizerBase,
    text: str,
    window: int = 512,
    stride: int = 256,
    max_width: int | None = None,
    unit: str = "piece",
) -> WindowPlan:
    """Tokenise ``text`` once and lay it out in overlapping windows of ``window`` tokens.
    With ``unit="word"`` only spans from a word's first piece to a word's last piece are kept."""
    tokens = tokenise(tokenizer, text)
    inner = inner_size(tokenizer, window)
    starts = np.asarray(window_starts(len(tokens.ids), inner, min(stride, inner)))
    input_ids, attention, token_mask, global_index = window_rows(tokenizer, tokens.ids, starts.tolist(), inner)
    bounds = (tokens.word_start, tokens.word_end) if unit == "word" else (None, None)
    span_window, first, last = assign_spans(starts, inner, len(tokens.ids), max_width, *bounds)
    # slot of global token g in window w: the prefix, then g's place among the window's tokens
    width = input_ids.shape[1]
    offset = int(token_mask[0].long().argmax())
    base = span_window * width + offset - starts[span_window]
    return WindowPlan(
        input_ids=input_ids,
        attention_mask=attention,
        token_mask=token_mask,
        global_index=global_index,
        span_starts=torch.from_numpy(base + first),
        span_ends=torch.from_numpy(base + last),
        offsets=tokens.offsets,
        pieces=tokens.pieces,
        window_starts=tuple(int(s) for s in starts),
        inner=inner,
    )
