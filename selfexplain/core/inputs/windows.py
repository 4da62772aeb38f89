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

from selfexplain.core.inputs.encoding import readable, word_boundaries
from selfexplain.core.inputs.tokens import TokenisedText, tokenise
from selfexplain.errors import InvalidInputError
from selfexplain.support.limits import DENSE_MAX_TOKENS, limit_hint, max_spans


@dataclass(frozen=True)
class WindowPlan:
    """Encoder inputs ``[Wn, n]`` for the ``Wn`` windows of one text, and its spans.

    ``global_index`` ``[Wn, n]``: the global token index at each window slot (-1 on
    special tokens and padding). ``span_starts``/``span_ends`` ``[S]``: flat slot
    positions (``w * n + p``) of each kept span's ends, ordered by (start, end) (as global
    token indices: :meth:`span_tokens`). ``tokens``: the text's tokens the windows hold.
    ``inner``: real tokens a window holds.
    """

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    token_mask: torch.Tensor
    global_index: torch.Tensor
    span_starts: torch.Tensor
    span_ends: torch.Tensor
    tokens: TokenisedText
    window_starts: tuple[int, ...]
    inner: int = 0

    @property
    def offsets(self) -> list[tuple[int, int]]:
        """Per global token, its character offsets."""
        return self.tokens.offsets

    @property
    def pieces(self) -> list[str]:
        """Per global token, its wordpiece."""
        return self.tokens.pieces

    @property
    def num_tokens(self) -> int:
        return len(self.tokens.ids)

    def model_inputs(self, device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
        """The arguments of :meth:`~selfexplain.core.modeling.model.SelfExplainingModel.forward_windows`."""
        inputs = {
            "input_ids": self.input_ids,
            "attention_mask": self.attention_mask,
            "token_mask": self.token_mask,
            "span_starts": self.span_starts,
            "span_ends": self.span_ends,
        }
        return {k: v.to(device) for k, v in inputs.items()}

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


def window_rows(
    tokenizer: PreTrainedTokenizerBase,
    ids: list[int],
    starts: list[int],
    inner: int,
    real_tokens: np.ndarray | None = None,
) -> tuple[torch.Tensor, ...]:
    """Encoder rows for windows starting at ``starts``: ``(input_ids, attention_mask, token_mask,
    global_index)``, each ``[Wn, n]`` (``global_index`` -1 on special tokens and padding; ``token_mask``
    False there and, when ``real_tokens`` ``[T]`` bool is given, on the tokens it leaves out)."""
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
        token_mask[w, real] = True if real_tokens is None else torch.from_numpy(real_tokens[lo : lo + len(chunk)])
        global_index[w, real] = torch.arange(len(chunk)) + lo
    return input_ids, attention, token_mask, global_index


def span_bounds(tokens: TokenisedText, unit: str) -> tuple[np.ndarray, np.ndarray]:
    """``(may_start, may_end)`` ``[T]`` bool: the tokens a span may start / end on, by the short path's rule
    (:func:`~selfexplain.core.inputs.encoding.readable`: never a piece that is only whitespace); with
    ``unit="word"``, a word's first / last such piece."""
    mask = readable(tokens.offsets)
    if unit != "word":
        return mask, mask
    start, end = word_boundaries(torch.from_numpy(tokens.word_index)[None], torch.from_numpy(mask)[None])
    return start[0].numpy(), end[0].numpy()


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
    apostrophes: str = "split",
) -> WindowPlan:
    """Tokenise ``text`` once (``apostrophes``: where words end, as in
    :func:`~selfexplain.core.inputs.tokens.tokenise_inputs`) and lay it out in overlapping windows (see
    :func:`plan_tokens`)."""
    return plan_tokens(tokenizer, tokenise(tokenizer, text, apostrophes), window, stride, max_width, unit)


def plan_tokens(
    tokenizer: PreTrainedTokenizerBase,
    tokens: TokenisedText,
    window: int = 512,
    stride: int = 256,
    max_width: int | None = None,
    unit: str = "piece",
) -> WindowPlan:
    """Lay a text's ``tokens`` out in overlapping windows of ``window`` tokens (special tokens
    included). With ``unit="word"`` only spans from a word's first piece to a word's last piece are kept."""
    inner = inner_size(tokenizer, window)
    starts = np.asarray(window_starts(len(tokens.ids), inner, min(stride, inner)))
    may_start, may_end = span_bounds(tokens, unit)
    real = readable(tokens.offsets)
    input_ids, attention, token_mask, global_index = window_rows(tokenizer, tokens.ids, starts.tolist(), inner, real)
    # every piece may bound a piece-level span in most texts: no restriction to apply then
    bounds = (None, None) if unit != "word" and real.all() else (may_start, may_end)
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
        tokens=tokens,
        window_starts=tuple(int(s) for s in starts),
        inner=inner,
    )


def check_plan(plan: WindowPlan, dense: bool) -> None:
    """Refuse (:class:`InvalidInputError`) a text with no spans, more spans than
    :func:`~selfexplain.support.limits.max_spans`, or, when ``dense``, more tokens than a dense grid may hold."""
    if dense and plan.num_tokens > DENSE_MAX_TOKENS:
        raise InvalidInputError(
            f"the text has {plan.num_tokens:,} tokens; a dense explanation stops at {DENSE_MAX_TOKENS:,} "
            "(explain_document keeps long texts sparse)"
        )
    if plan.num_spans > max_spans():
        raise InvalidInputError(
            f"the text has {plan.num_spans:,} spans, over the limit of {max_spans():,}; shorten it, "
            f"use a model with a maximum span width, or raise the character limit ({limit_hint()})"
        )
    if plan.num_spans == 0:
        raise InvalidInputError("the text has no tokens the model can read")


def single_window(
    tokenizer: PreTrainedTokenizerBase, tokens: TokenisedText, start: int, window: int
) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """The model's keyword inputs ``[1, n]`` for the one window of ``tokens`` that starts at token
    ``start`` (word boundaries from the whole text's words), and its ``global_index`` ``[1, n]``."""
    if not 0 <= start < max(1, len(tokens.ids)):
        raise InvalidInputError(f"no window starts at token {start}; the text has {len(tokens.ids)} tokens")
    inner = inner_size(tokenizer, window)
    may_start, may_end = span_bounds(tokens, "word")
    input_ids, attention, token_mask, global_index = window_rows(
        tokenizer, tokens.ids, [start], inner, readable(tokens.offsets)
    )
    real, slot = global_index >= 0, global_index.clamp_min(0)
    inputs = {
        "input_ids": input_ids,
        "attention_mask": attention,
        "token_mask": token_mask,
        "segment_ids": torch.zeros_like(input_ids),
        "word_start": real & torch.from_numpy(may_start)[slot],
        "word_end": real & torch.from_numpy(may_end)[slot],
    }
    return inputs, global_index
