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
class WindowPlan:
    """Encoder inputs ``[Wn, n]`` for the ``Wn`` windows of one text, and its spans.

    ``global_index`` ``[Wn, n]``: the global token index at each window slot (-1 on
    special tokens and padding). ``span_starts``/``span_ends`` ``[S]``: flat slot
    positions (``w * n + p``) of each kept span's ends, ordered by (start, end).
    ``offsets``/``pieces``: per global token, character offsets and wordpiece.
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

    @property
    def num_tokens(self) -> int:
        return len(self.offsets)


def window_starts(num_tokens: int, inner: int, stride: int) -> list[int]:
    """Start token of each window: ``0, stride, 2 stride, ...``, the last aligned to the end."""
    if stride < 1 or stride > inner:
        raise ValueError(f"stride must be between 1 and the window's {inner} tokens, got {stride}")
    if num_tokens <= inner:
        return [0]
    starts = list(range(0, num_tokens - inner, stride))
    return starts + [num_tokens - inner]


def assign_spans(starts: np.ndarray, inner: int, num_tokens: int, max_width: int | None) -> tuple[np.ndarray, ...]:
    """Every span kept once: ``(window, i, j)`` arrays, ``i``/``j`` global and inclusive,
    each span in the first window holding both ends, widths capped at ``max_width``."""
    windows, firsts, lasts = [], [], []
    ends = np.minimum(starts + inner, num_tokens)  # exclusive
    for w, (lo, hi) in enumerate(zip(starts.tolist(), ends.tolist())):
        i, j = np.triu_indices(hi - lo)
        i, j = i + lo, j + lo
        if max_width is not None:
            keep = (j - i) < max_width
            i, j = i[keep], j[keep]
        owner = np.searchsorted(ends, j, side="right")  # first window whose end passes j
        keep = owner == w
        windows.append(np.full(int(keep.sum()), w))
        firsts.append(i[keep])
        lasts.append(j[keep])
    window = np.concatenate(windows)
    first, last = np.concatenate(firsts), np.concatenate(lasts)
    order = np.lexsort((last, first))
    return window[order], first[order], last[order]


def special_frame(tokenizer: PreTrainedTokenizerBase) -> tuple[list[int], list[int]]:
    """Special-token ids the tokenizer puts before and after one text (e.g. [CLS] / [SEP])."""
    probe = tokenizer("a", add_special_tokens=False)["input_ids"]
    framed = tokenizer("a", add_special_tokens=True)["input_ids"]
    for position in range(len(framed) - len(probe) + 1):
        if framed[position : position + len(probe)] == probe:
            return framed[:position], framed[position + len(probe) :]
    raise ValueError("cannot find where the tokenizer puts its special tokens")


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
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids: list[int] = encoded["input_ids"]
    prefix, suffix = special_frame(tokenizer)
    inner = window - len(prefix) - len(suffix)
    starts = np.asarray(window_starts(len(ids), inner, min(stride, inner)))
    rows, masks = [], []
    for lo in starts.tolist():
        chunk = ids[lo : lo + inner]
        rows.append(prefix + chunk + suffix)
        masks.append([1] * len(prefix) + [0] * len(chunk) + [1] * len(suffix))
    width = max(len(r) for r in rows)
    pad = tokenizer.pad_token_id or 0
    input_ids = torch.full((len(rows), width), pad, dtype=torch.long)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    token_mask = torch.zeros((len(rows), width), dtype=torch.bool)
    global_index = torch.full((len(rows), width), -1, dtype=torch.long)
    for w, (row, special) in enumerate(zip(rows, masks)):
        input_ids[w, : len(row)] = torch.tensor(row)
        attention[w, : len(row)] = 1
        real = torch.tensor([s == 0 for s in special])
        token_mask[w, : len(row)] = real
        global_index[w, : len(row)][real] = torch.arange(int(real.sum())) + int(starts[w])
    span_window, first, last = assign_spans(starts, inner, len(ids), max_width)
    if unit == "word":
        real = torch.ones(1, len(ids), dtype=torch.bool)
        starts_word, ends_word = (
            m[0].numpy() for m in word_boundaries(word_keys([encoded.word_ids()], [[0] * len(ids)], real), real)
        )
        keep = starts_word[first] & ends_word[last]
        span_window, first, last = span_window[keep], first[keep], last[keep]
    # slot of global token g in window w: its position among the row's real tokens
    first_slot = (token_mask.long().argmax(dim=1)).numpy()  # position of the first real token per window
    flat_start = span_window * width + first_slot[span_window] + (first - starts[span_window])
    flat_end = span_window * width + first_slot[span_window] + (last - starts[span_window])
    return WindowPlan(
        input_ids=input_ids,
        attention_mask=attention,
        token_mask=token_mask,
        global_index=global_index,
        span_starts=torch.from_numpy(flat_start),
        span_ends=torch.from_numpy(flat_end),
        offsets=[(int(a), int(b)) for a, b in encoded["offset_mapping"]],
        pieces=tokenizer.convert_ids_to_tokens(ids),
        window_starts=tuple(int(s) for s in starts),
    )
