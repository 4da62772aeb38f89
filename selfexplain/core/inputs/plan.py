"""The one call from texts to model inputs: tokenise every input once, then batch the inputs that
fit one encoder window and lay the long single texts out in windows (or cut them, or refuse them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from transformers import PreTrainedTokenizerBase

from selfexplain.core.inputs.encoding import EncodedBatch
from selfexplain.core.inputs.tokens import Tokenised, token_limit, tokenise_inputs
from selfexplain.core.inputs.windows import WindowPlan, plan_tokens
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.errors import InputTooLongError

# What happens to an input longer than one window: a single text is read in "windows" (a pair is
# refused), every input is cut to fit ("truncate"), or every such input is refused ("refuse").
LongInputs = Literal["windows", "truncate", "refuse"]
LONG_INPUTS: tuple[LongInputs, ...] = ("windows", "truncate", "refuse")


@dataclass(frozen=True)
class WindowSettings:
    """How a model reads a text: ``stride`` between the starts of a long text's windows, ``max_width`` of a
    span (None = any width inside a window), ``unit`` (``"word"``: spans start and end on word boundaries)
    and ``apostrophes`` (where words end: :func:`~selfexplain.core.inputs.tokens.tokenise_inputs`)."""

    stride: int = 256
    max_width: int | None = None
    unit: str = "piece"
    apostrophes: str = "split"

    @classmethod
    def of(cls, config: ModelConfig) -> WindowSettings:
        """A model's settings: its ``window_stride``, ``max_span_width``, ``span_unit`` and ``apostrophes``."""
        return cls(config.window_stride, config.max_span_width, config.span_unit, config.apostrophes)

    @property
    def window_arguments(self) -> dict[str, int | str | None]:
        """The keyword arguments of :func:`~selfexplain.core.inputs.windows.plan_tokens` (tokens are read already)."""
        return {"stride": self.stride, "max_width": self.max_width, "unit": self.unit}


@dataclass(frozen=True)
class InputPlan:
    """What one tokenisation of ``E`` inputs became.

    ``batches``: ``(indices, batch)`` of the inputs read in one window (those cut to fit included);
    ``windows``: input index -> :class:`WindowPlan` of a long single text; ``truncated``: the indices
    cut to fit (their text ends at :meth:`text_of`); ``tokenised``: the one tokenisation.
    """

    tokenised: Tokenised
    batches: list[tuple[list[int], EncodedBatch]]
    windows: dict[int, WindowPlan]
    truncated: frozenset[int]
    kept: dict[int, list[int]]

    @property
    def counts(self) -> list[int]:
        """Tokens of each input before any cut, special tokens included."""
        return self.tokenised.counts

    def text_of(self, index: int) -> tuple[str, str | None]:
        """The text (and pair) input ``index`` was read as: cut to its last kept token when truncated."""
        if index in self.truncated:
            return self.tokenised.cut(index, self.kept[index])
        return self.tokenised.source(index)


def length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Index batches of similar length (less padding), shortest first."""
    order = np.argsort(np.asarray(lengths), kind="stable")
    return [order[i : i + batch_size].tolist() for i in range(0, len(order), batch_size)]


def plan_inputs(
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    pairs: Sequence[str] | None = None,
    window: int = 512,
    long: LongInputs = "refuse",
    settings: WindowSettings = WindowSettings(),
    batch_size: int | None = None,
) -> InputPlan:
    """Tokenise ``texts`` (and ``pairs``) once and plan their forward passes.

    ``window``: the longest input in tokens, special tokens included (the tokenizer's own maximum
    when smaller). ``long`` says what becomes of a longer input (see :data:`LongInputs`; refusing
    raises :class:`InputTooLongError`). ``batch_size=None`` puts every short input in one batch, in
    input order; otherwise batches hold inputs of similar token counts.
    """
    tokenised = tokenise_inputs(tokenizer, texts, pairs, settings.apostrophes)
    limit = token_limit(tokenizer, window)
    counts = tokenised.counts
    over = [i for i, count in enumerate(counts) if count > limit]
    windowed = [i for i in over if long == "windows" and pairs is None]
    refused = [i for i in over if long == "refuse" or (long == "windows" and pairs is not None)]
    if refused:
        raise InputTooLongError(max(counts[i] for i in refused), limit)
    kept = {i: tokenised.truncation(i, limit) or [] for i in over if long == "truncate"}
    placed = settings.window_arguments
    windows = {i: plan_tokens(tokenizer, tokenised.text_tokens(i), limit, **placed) for i in windowed}
    short = [i for i in range(len(counts)) if i not in windows]
    sizes = [len(kept[i]) if i in kept else counts[i] for i in short]
    groups = [list(range(len(short)))] if batch_size is None else length_batches(sizes, batch_size)
    batches = []
    for group in groups:
        if group:
            indices = [short[g] for g in group]
            batches.append((indices, tokenised.batch(indices, kept)))
    return InputPlan(tokenised, batches, windows, frozenset(kept), kept)
