"""From encoder positions to real tokens, and from span lists to the dense alpha grid (numpy only).

``N`` encoder positions of one row (special tokens and padding included; for a windowed text the
flat window slots ``w * n + p``), ``T`` real tokens, ``S`` span slots of the model's output, ``V``
valid spans.
"""

from __future__ import annotations

import numpy as np


def token_index(token_mask: np.ndarray) -> np.ndarray:
    """``[N]`` bool (True on real tokens) -> ``[N]`` int64: each position's real-token index, -1 elsewhere.
    (A :class:`~selfexplain.core.inputs.windows.WindowPlan`'s ``global_index`` is this map for its windows.)"""
    index = np.full(token_mask.shape[0], -1, dtype=np.int64)
    index[np.flatnonzero(token_mask)] = np.arange(int(np.count_nonzero(token_mask)))
    return index


def span_tokens(
    index: np.ndarray, span_starts: np.ndarray, span_ends: np.ndarray, valid: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(starts [V], ends [V])``: the first and last real-token index of the valid span slots
    (``valid`` ``[S]`` bool) whose ends sit at positions ``span_starts``/``span_ends`` ``[S]``, through
    the position map ``index`` ``[N]`` (:func:`token_index`)."""
    return index[span_starts[valid]], index[span_ends[valid]]


def dense_alpha(
    count: int, starts: np.ndarray, ends: np.ndarray, values: np.ndarray, dtype: type = np.float64
) -> tuple[np.ndarray, np.ndarray]:
    """``(alpha [T, T], mask [T, T])`` of ``count`` tokens: ``values`` ``[V]`` at ``(starts, ends)``,
    0 / False elsewhere."""
    alpha = np.zeros((count, count), dtype=dtype)
    mask = np.zeros((count, count), dtype=bool)
    alpha[starts, ends] = values
    mask[starts, ends] = True
    return alpha, mask
