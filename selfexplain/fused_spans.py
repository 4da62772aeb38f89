"""The SIC span chunk compiled into fused loops with ``torch.compile`` (Inductor).

In eager PyTorch one chunk of the span layer makes about ten full passes over a
``[B, K, H]`` block (gather, add, multiply, tanh, the interpretation dot product, the
weighted sum, and as many again backwards). Compiled, the span vectors are built,
scored and summed in a handful of fused loops that never write the block to memory,
which is 4-9x faster on CPU (benchmarks/span_layer.py). Compilation needs a C++
compiler and takes seconds on first use (cached on disk afterwards), so it pays for
training, evaluation and batches, not for one interactive sentence; it is opt-in per
model (:meth:`selfexplain.model.SelfExplainingModel.set_fused`) and switched off
everywhere by ``SELFEXPLAIN_FUSED=0``. If compilation fails the eager code runs
instead, after one warning: results never depend on it.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable

import torch

ChunkResult = tuple[torch.Tensor, torch.Tensor, torch.Tensor]

_compiled: Callable[..., ChunkResult] | None = None
_failure: str | None = None


def fusion_allowed() -> bool:
    """False when ``SELFEXPLAIN_FUSED=0`` or compilation has already failed in this process."""
    return os.environ.get("SELFEXPLAIN_FUSED", "1") != "0" and _failure is None


def sic_chunk(
    left: torch.Tensor,
    right: torch.Tensor,
    gate: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor,
    starts: torch.Tensor,
    ends: torch.Tensor,
    valid: torch.Tensor,
) -> ChunkResult:
    """One chunk of ``K`` span slots, written for the compiler (no in-place ops).

    ``left``/``right``/``gate`` ``[B, N, H]`` per-token terms, ``weight`` ``[H]`` and
    ``bias`` ``[]`` the interpretation layer, ``starts``/``ends`` ``[K]``, ``valid`` ``[B, K]``.
    Returns logits ``[B, K]`` (-inf where invalid), the chunk maximum ``[B]`` and the
    ``exp(logit - max)``-weighted sum of span vectors ``[B, H]``.
    """
    vectors = torch.tanh(left[:, starts] + right[:, ends] + gate[:, starts] * gate[:, ends])
    logits = ((vectors * weight).sum(dim=-1) + bias).masked_fill(~valid, float("-inf"))
    peak = logits.amax(dim=1).clamp_min(torch.finfo(logits.dtype).min)
    weights = torch.exp(logits - peak.unsqueeze(1))
    weighted = torch.einsum("bk,bkh->bh", weights, vectors)
    return logits, peak, weighted


def fused_sic_chunk(*args: torch.Tensor) -> ChunkResult:
    """:func:`sic_chunk` compiled (dynamic shapes: one compilation serves every length)."""
    global _compiled, _failure
    if fusion_allowed():
        try:
            if _compiled is None:
                _compiled = torch.compile(sic_chunk, dynamic=True)
            return _compiled(*args)
        except Exception as error:  # noqa: BLE001 - any compiler failure falls back to eager
            _failure = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
            warnings.warn(f"fused span layer unavailable, running eager: {_failure}", stacklevel=2)
    return sic_chunk(*args)
