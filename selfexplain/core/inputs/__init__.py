"""Text in, model inputs out: the one input layer of the package.

- :mod:`~selfexplain.core.inputs.tokens`: one tokenizer call per list of inputs (:func:`tokenise_inputs`),
  its counts, the tokenizer's truncation and padded batches; :func:`encode` for a plain batch.
- :mod:`~selfexplain.core.inputs.encoding`: tokenised rows -> :class:`EncodedBatch` (``[B, N]`` tensors,
  offsets, segments, word boundaries).
- :mod:`~selfexplain.core.inputs.windows`: a long single text in overlapping encoder windows (:class:`WindowPlan`).
- :mod:`~selfexplain.core.inputs.plan`: :func:`plan_inputs`, the one call that returns the short batches and the
  window plans of a list of inputs.
- :mod:`~selfexplain.core.inputs.positions`: encoder positions -> real-token indices, span lists -> dense alpha
  (numpy only: importing it loads neither torch nor transformers).

Names are loaded from their module on first use, so ``selfexplain.core.inputs.positions`` stays light.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers read; at run time __getattr__ below loads each name
    from selfexplain.core.inputs.encoding import EncodedBatch, TokenRow, assemble, word_boundaries, word_keys
    from selfexplain.core.inputs.plan import (
        LONG_INPUTS,
        InputPlan,
        LongInputs,
        WindowSettings,
        length_batches,
        plan_inputs,
    )
    from selfexplain.core.inputs.positions import dense_alpha, span_tokens, token_index
    from selfexplain.core.inputs.tokens import (
        Tokenised,
        TokenisedText,
        encode,
        longest_first,
        token_limit,
        tokenise,
        tokenise_inputs,
    )
    from selfexplain.core.inputs.windows import (
        WindowPlan,
        inner_size,
        plan_tokens,
        plan_windows,
        window_rows,
        window_starts,
    )

_HOMES = {
    "encoding": ("EncodedBatch", "TokenRow", "assemble", "word_boundaries", "word_keys"),
    "plan": ("LONG_INPUTS", "InputPlan", "LongInputs", "WindowSettings", "length_batches", "plan_inputs"),
    "positions": ("dense_alpha", "span_tokens", "token_index"),
    "tokens": ("Tokenised", "TokenisedText", "encode", "longest_first", "token_limit", "tokenise", "tokenise_inputs"),
    "windows": ("WindowPlan", "inner_size", "plan_tokens", "plan_windows", "window_rows", "window_starts"),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}
__all__ = [
    "LONG_INPUTS", "EncodedBatch", "InputPlan", "LongInputs", "TokenRow", "Tokenised", "TokenisedText", "WindowPlan",
    "WindowSettings", "assemble", "dense_alpha", "encode", "inner_size", "length_batches", "longest_first",
    "plan_inputs", "plan_tokens", "plan_windows", "span_tokens", "token_index", "token_limit", "tokenise",
    "tokenise_inputs", "window_rows", "window_starts", "word_boundaries", "word_keys",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'selfexplain.core.inputs' has no attribute {name!r}")
    return getattr(import_module(f"selfexplain.core.inputs.{_MODULE_OF[name]}"), name)
