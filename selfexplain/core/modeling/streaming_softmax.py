"""Merging the per-chunk parts of a split-K (streaming) softmax-weighted sum.

Both span layers (eager chunks in :mod:`selfexplain.core.modeling.spans`, native kernels in
:mod:`selfexplain.core.modeling.native_spans`) reduce each chunk of span slots to its largest logit and
the ``exp(logit - chunk max)``-weighted sum of its span vectors; this puts them together.
"""

from __future__ import annotations

import torch


def merge_chunks(logits: torch.Tensor, peaks: torch.Tensor, weighted: torch.Tensor) -> torch.Tensor:
    """``pooled [B, H] = sum_s softmax(logits)_s h_s`` from the chunks' parts.

    ``logits`` ``[B, S]`` (-inf at invalid slots), ``peaks`` ``[B, C]`` each chunk's largest
    logit (very negative for a chunk without a valid slot: it then weighs 0), ``weighted``
    ``[B, C, H]`` each chunk's ``exp(logit - peak)``-weighted sum of span vectors.
    """
    top = peaks.amax(dim=1, keepdim=True)
    scale = torch.exp(peaks - top)  # [B, C]
    total = torch.exp(logits - top).sum(dim=1, keepdim=True)
    return torch.einsum("bc,bch->bh", scale, weighted) / total
