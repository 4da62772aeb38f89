"""Span enumeration, span validity masks and the span layer (SIC + interpretation).

Notation used in shapes: ``B`` batch, ``N`` padded sequence length, ``H`` hidden
size, ``S`` number of enumerated span slots (``N (N + 1) / 2`` without a width
limit). Span slot ``s`` covers tokens ``starts[s] .. ends[s]`` (end inclusive).

The span layer never loops over spans in Python: span vectors are built from
per-token projections with gather-free broadcasting, and for long inputs the
slots are processed in chunks, each chunk reduced with its own softmax maximum
and recombined exactly (the split-K form of a streaming softmax). Chunks are
recomputed in the backward pass, so peak memory grows with the chunk size,
not with ``S x H``. With ``fused`` set, the "sic" layer runs as native kernels
(:mod:`selfexplain.core.modeling.native_spans`) that visit each slot once forward and once backward.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from selfexplain.core.modeling.native_spans import fusion_allowed, native_sic
from selfexplain.core.modeling.normalisers import NORMALISERS, Normaliser, normalise
from selfexplain.core.modeling.streaming_softmax import merge_chunks

SpanRepresentation = Literal["sic", "mean"]

# Elements of one [B, chunk, H] span block: 4M floats = 16 MB, small enough to stay near the cache.
DEFAULT_CHUNK_ELEMENTS = 1 << 22
# With gradients, blocks up to 32M floats (128 MB) run whole: recomputing chunks in the
# backward pass costs a second forward, worth it only when the block would be larger.
GRAD_CHUNK_ELEMENTS = 1 << 25


@lru_cache(maxsize=64)
def _span_index_cpu(n: int, max_width: int | None) -> tuple[torch.Tensor, torch.Tensor]:
    starts, ends = torch.triu_indices(n, n)
    if max_width is not None:
        keep = (ends - starts) < max_width
        starts, ends = starts[keep], ends[keep]
    return starts.contiguous(), ends.contiguous()


def span_index(
    n: int, max_width: int | None = None, device: torch.device | str = "cpu"
) -> tuple[torch.Tensor, torch.Tensor]:
    """All spans ``i <= j < n`` (with ``j - i < max_width`` when given).

    Returns ``(starts, ends)``, each ``[S]`` long, ordered by start then end.
    """
    if max_width is not None and max_width < 1:
        raise ValueError(f"max_width must be at least 1, got {max_width}")
    starts, ends = _span_index_cpu(n, max_width)
    return starts.to(device), ends.to(device)


def span_validity(
    token_mask: torch.Tensor,
    segment_ids: torch.Tensor,
    starts: torch.Tensor,
    ends: torch.Tensor,
    word_start: torch.Tensor | None = None,
    word_end: torch.Tensor | None = None,
) -> torch.Tensor:
    """Which span slots are real spans of each example.

    Args:
        token_mask: ``[B, N]`` bool, True for real tokens (no special tokens, no padding).
        segment_ids: ``[B, N]`` long, 0 for the first text and 1 for the second.
        starts, ends: ``[S]`` span ends from :func:`span_index`.
        word_start, word_end: ``[B, N]`` bool, True on the first / last piece of a word; when
            given, spans must start at a word's first piece and end at a word's last piece
            (word-level spans).

    Returns:
        ``[B, S]`` bool. A span is valid when both ends are real tokens of the same
        segment; real tokens of one segment are contiguous, so every token inside
        is real too and no valid span crosses the pair separator.
    """
    both_real = token_mask[:, starts] & token_mask[:, ends]
    same_segment = segment_ids[:, starts] == segment_ids[:, ends]
    valid = both_real & same_segment
    if word_start is not None and word_end is not None:
        valid &= word_start[:, starts] & word_end[:, ends]
    return valid


def _less_prior(logits: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor, prior: float) -> torch.Tensor:
    """``logits`` less ``prior * (ends - starts)`` (``prior`` per extra piece); unchanged when ``prior`` is 0."""
    return logits - (ends - starts).to(logits.dtype) * prior if prior else logits


@dataclass(frozen=True)
class SpanLayerOutput:
    """``pooled`` ``[B, H]`` alpha-weighted span vector; ``logits`` and ``alpha`` ``[B, S]``."""

    pooled: torch.Tensor
    logits: torch.Tensor
    alpha: torch.Tensor


class SpanLayer(nn.Module):
    """Span information collecting layer plus the interpretation layer.

    ``h(i,j) = tanh(W1 h_i + W2 h_j + W3 (h_i - h_j) + (W4 h_i) * (W4 h_j))`` ("sic")
    or the mean of ``h_i .. h_j`` ("mean"); ``o(i,j) = w . h(i,j) + b``;
    ``alpha = softmax(o)`` over the valid spans of each example;
    ``pooled = sum alpha(i,j) h(i,j)``.
    """

    def __init__(
        self,
        hidden_size: int,
        representation: SpanRepresentation = "sic",
        chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
        grad_chunk_elements: int = GRAD_CHUNK_ELEMENTS,
    ) -> None:
        super().__init__()
        if representation not in ("sic", "mean"):
            raise ValueError(f"unknown span representation {representation!r}")
        self.representation = representation
        self.chunk_elements = chunk_elements
        self.grad_chunk_elements = grad_chunk_elements
        # The native kernels (selfexplain.core.modeling.native_spans); off by default: the first use builds them.
        self.fused = False
        # alpha fixed uniform over the valid spans (all logits 0): the AvgSelf-Explaining baseline.
        self.uniform = False
        # a registered normaliser: softmax (fused with the span scores), or a sparse map (sparsemax /
        # 1.5-entmax) that gives alpha true zeros
        self.normaliser: Normaliser = "softmax"
        # span logits are divided by it; training may anneal it to 1 (inference always uses 1)
        self.temperature = 1.0
        # a span-length prior: ``length_prior * (j - i)`` (in pieces) is taken from each span's score
        self.length_prior = 0.0
        self._projection_cache: tuple[tuple, torch.Tensor, torch.Tensor] | None = None
        self.W1 = nn.Linear(hidden_size, hidden_size)
        self.W2 = nn.Linear(hidden_size, hidden_size)
        self.W3 = nn.Linear(hidden_size, hidden_size)
        self.W4 = nn.Linear(hidden_size, hidden_size)
        self.interpret = nn.Linear(hidden_size, 1)

    def token_features(self, hidden: torch.Tensor, projected: torch.Tensor | None = None) -> tuple[torch.Tensor, ...]:
        """Per-token terms from which every span vector is assembled.

        ``hidden`` ``[B, N, H]`` (or its ``projected`` ``[B, N, 3H]``, when already computed) -> for "sic":
        ``(left [B,N,H], right [B,N,H], gate [B,N,H])``
        with ``h(i,j) = tanh(left_i + right_j + gate_i * gate_j)``;
        for "mean": ``(prefix [B,N+1,H],)`` cumulative sums.
        """
        if self.representation == "mean":
            zero = hidden.new_zeros(hidden.shape[0], 1, hidden.shape[2])
            return (torch.cat([zero, hidden.cumsum(dim=1)], dim=1),)
        projected = self.projection(hidden) if projected is None else projected
        # three separate [B, N, H] tensors: the eager gathers then read each term's rows contiguously
        return tuple(part.contiguous() for part in projected.split(hidden.shape[-1], dim=-1))

    def projection(self, hidden: torch.Tensor) -> torch.Tensor:
        """``[B, N, H]`` -> ``[B, N, 3H]``: the "sic" terms ``left | right | gate`` side by side."""
        return nn.functional.linear(hidden, *self._projection_weights())

    def _projection_weights(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``[3H, H]`` weight and ``[3H]`` bias of :meth:`projection`; cached while the parameters
        are unchanged and no gradient is recorded (inference calls it once per input)."""
        # W1 h_i + W2 h_j + W3 (h_i - h_j) = (W1 + W3) h_i + (W2 - W3) h_j: one [3H, H] product
        # instead of four [H, H] ones (W3's bias enters once, with the start token's term).
        params = [p for layer in (self.W1, self.W2, self.W3, self.W4) for p in (layer.weight, layer.bias)]
        recording = torch.is_grad_enabled() and any(p.requires_grad for p in params)
        key = tuple((p.data_ptr(), p._version, p.dtype) for p in params)
        if recording or self._projection_cache is None or self._projection_cache[0] != key:
            weight = torch.cat([self.W1.weight + self.W3.weight, self.W2.weight - self.W3.weight, self.W4.weight])
            bias = torch.cat([self.W1.bias + self.W3.bias, self.W2.bias, self.W4.bias])
            if recording:
                return weight, bias
            self._projection_cache = (key, weight, bias)
        return self._projection_cache[1], self._projection_cache[2]

    def span_vectors(
        self, features: tuple[torch.Tensor, ...], starts: torch.Tensor, ends: torch.Tensor
    ) -> torch.Tensor:
        """Span vectors ``[B, K, H]`` for the ``K`` slots ``starts``/``ends``."""
        if self.representation == "mean":
            (prefix,) = features
            width = (ends - starts + 1).to(prefix.dtype).unsqueeze(-1)
            return (prefix[:, ends + 1] - prefix[:, starts]) / width
        left, right, gate = features
        # In place on the fresh gathered block: one [B, K, H] buffer instead of five (autograd-safe:
        # add/addcmul need no saved output, tanh_ saves its own result).
        vectors = left.index_select(1, starts)
        vectors.add_(right.index_select(1, ends))
        vectors.addcmul_(gate.index_select(1, starts), gate.index_select(1, ends))
        return vectors.tanh_()

    def _interpretation(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The interpretation layer's weight ``[H]`` and bias ``[]`` (zeros when alpha is uniform)."""
        weight, bias = self.interpret.weight[0], self.interpret.bias[0]
        if self.uniform:
            return torch.zeros_like(weight), torch.zeros_like(bias)
        if self.temperature != 1.0:
            return weight / self.temperature, bias / self.temperature
        return weight, bias

    @property
    def _has_prior(self) -> bool:
        """Whether scores carry the span-length prior (set, and alpha not fixed uniform)."""
        return bool(self.length_prior) and not self.uniform

    @property
    def _prior_per_piece(self) -> float:
        """What each extra piece of a span takes from its score: ``length_prior / temperature``, 0 without
        a prior."""
        return self.length_prior / self.temperature if self._has_prior else 0.0

    def _with_prior(self, logits: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor) -> torch.Tensor:
        """``logits`` (shaped like ``starts``/``ends``, or broadcast over a leading batch) less the
        span-length prior ``length_prior * (ends - starts) / temperature``; unchanged without one."""
        return _less_prior(logits, starts, ends, self._prior_per_piece)

    def _chunk(
        self,
        weight: torch.Tensor,
        bias: torch.Tensor,
        prior: float,
        starts: torch.Tensor,
        ends: torch.Tensor,
        valid: torch.Tensor,
        *features: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One chunk: logits ``[B,K]``, chunk max ``[B]``, exp-weighted sum ``[B,H]``. ``weight`` ``[H]``,
        ``bias`` ``[]`` and the per-piece length ``prior`` come in as arguments, not from the layer's
        state: a checkpointed chunk is recomputed during backward, when a caller that switched the layer
        (the complement term's uniform alpha) has already switched it back."""
        vectors = self.span_vectors(features, starts, ends)
        logits = _less_prior(vectors @ weight + bias, starts, ends, prior)
        logits = logits.masked_fill(~valid, float("-inf"))
        peak = logits.amax(dim=1).clamp_min(torch.finfo(logits.dtype).min)
        weights = torch.exp(logits - peak.unsqueeze(1))
        weighted = torch.einsum("bk,bkh->bh", weights, vectors)
        return logits, peak, weighted

    def forward(
        self,
        hidden: torch.Tensor,
        valid: torch.Tensor,
        starts: torch.Tensor,
        ends: torch.Tensor,
    ) -> SpanLayerOutput:
        """``hidden`` ``[B,N,H]``, ``valid`` ``[B,S]`` (every row needs one valid span)."""
        if NORMALISERS.get(self.normaliser).fused:
            return self._softmax_forward(hidden, valid, starts, ends)
        return self._sparse_forward(hidden, valid.unsqueeze(0), starts, ends)[0]

    def forward_per_text(
        self, hidden: torch.Tensor, masks: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor
    ) -> list[SpanLayerOutput]:
        """One normaliser per text: ``masks`` ``[T, B, S]`` (each row of each mask holds a valid span)
        -> ``T`` outputs, each with alpha normalised over its own mask and ``pooled`` ``[B, H]``
        weighted by it; ``logits`` ``[B, S]`` are the same in all (a span's score does not depend on
        the other spans). The sparse maps score every slot once for all texts."""
        if NORMALISERS.get(self.normaliser).fused:
            return [self._softmax_forward(hidden, mask, starts, ends) for mask in masks]
        return self._sparse_forward(hidden, masks, starts, ends)

    def scores(
        self, hidden: torch.Tensor, valid: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor
    ) -> torch.Tensor:
        """Every slot's logit ``[B, S]`` (-inf where not ``valid``), *with* gradient. The sparse maps
        score the slots without one (only their support needs it), so a term on the scores themselves
        (the erasure term of :mod:`selfexplain.methods.training.objectives`) reads them here."""
        if self.representation == "mean":
            return self._mean_logits(hidden, valid, starts, ends)
        return self._softmax_forward(hidden, valid, starts, ends, logits_only=True).logits

    def _sparse_forward(
        self, hidden: torch.Tensor, masks: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor
    ) -> list[SpanLayerOutput]:
        """A normaliser that is not fused (sparsemax, 1.5-entmax) over each of ``masks`` ``[T, B, S]``: every
        logit once without gradient, then the span vectors of the union of the supports only (``K`` slots per
        row, usually a handful), with gradient, and one normaliser per mask over them.

        Exact: the map restricted to its support gives the same alpha, and its Jacobian is zero
        outside the support, so no gradient is lost by skipping the other slots."""
        # the [B, N, 3H] projection once: detached for the all-slot pass, with gradient for the support
        projected = self.projection(hidden) if self.representation == "sic" else None
        union = masks.any(dim=0)
        with torch.no_grad():
            if self.representation == "mean":
                logits = self._mean_logits(hidden.detach(), union, starts, ends)
            else:
                detached = projected.detach() if projected is not None else None
                logits = self._softmax_forward(hidden.detach(), union, starts, ends, detached, logits_only=True).logits
            texts, batch, slots_total = masks.shape
            # every text's map in one call: the texts stacked as rows [T * B, S]
            each = normalise(
                self.normaliser,
                logits.expand(texts, -1, -1).reshape(texts * batch, -1),
                masks.reshape(texts * batch, -1),
            )
            support = (each > 0).reshape(texts, batch, slots_total).any(dim=0)  # [B, S]
            count = support.sum(dim=1)
            width = int(count.max())
            real = torch.arange(width, device=hidden.device).unsqueeze(0) < count.unsqueeze(1)  # [B, K]
            # each row's support slots in order, padded with slot 0 (masked by ``real``): no sort over S
            slots = torch.zeros(real.shape, dtype=torch.long, device=hidden.device)
            slots[real] = support.nonzero(as_tuple=True)[1]
        rows = torch.arange(hidden.shape[0], device=hidden.device).unsqueeze(1)
        first, last = starts[slots], ends[slots]  # [B, K]
        if self.representation == "mean":
            (prefix,) = self.token_features(hidden)
            vectors = (prefix[rows, last + 1] - prefix[rows, first]) / (last - first + 1).to(prefix.dtype).unsqueeze(-1)
        else:
            assert projected is not None
            left, right, gate = projected.split(hidden.shape[-1], dim=-1)  # views: only K rows are gathered
            vectors = torch.tanh(left[rows, first] + right[rows, last] + gate[rows, first] * gate[rows, last])
        weight, bias = self._interpretation()
        support_logits = self._with_prior(vectors @ weight + bias, first, last)  # [B, K]
        member = real & masks.gather(2, slots.expand(texts, -1, -1))  # [T, B, K]
        support_alpha = normalise(
            self.normaliser,
            support_logits.expand(texts, -1, -1).reshape(texts * batch, -1),
            member.reshape(texts * batch, -1),
        ).reshape(member.shape)
        pooled = torch.einsum("tbk,bkh->tbh", support_alpha, vectors)  # [T, B, H]
        alpha = logits.new_zeros(masks.shape).scatter_add(2, slots.expand(texts, -1, -1), support_alpha)
        return [SpanLayerOutput(pooled=pooled[t], logits=logits, alpha=alpha[t]) for t in range(texts)]

    def _mean_logits(
        self, hidden: torch.Tensor, valid: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor
    ) -> torch.Tensor:
        """Span logits ``[B, S]`` of mean span vectors without building them: ``w . mean(h_i..h_j) + b``
        is the mean of the per-token scores ``w . h_t``, read from their prefix sums (``O(N + S)``)."""
        weight, bias = self._interpretation()
        scores = hidden @ weight  # [B, N]
        prefix = torch.cat([scores.new_zeros(scores.shape[0], 1), scores.cumsum(dim=1)], dim=1)
        width = (ends - starts + 1).to(scores.dtype)
        logits = self._with_prior((prefix[:, ends + 1] - prefix[:, starts]) / width + bias, starts, ends)
        return logits.masked_fill(~valid, float("-inf"))

    def _softmax_forward(
        self,
        hidden: torch.Tensor,
        valid: torch.Tensor,
        starts: torch.Tensor,
        ends: torch.Tensor,
        projected: torch.Tensor | None = None,
        logits_only: bool = False,
    ) -> SpanLayerOutput:
        """Softmax over all slots (chunked, or the native kernels). ``logits_only``: the caller reads
        ``logits`` only (``pooled`` and ``alpha`` are then not those of the length prior, if any)."""
        if projected is None and self.representation == "sic":
            projected = self.projection(hidden)
        # the kernels weight the span vectors by their own scores: with a prior, only for the scores
        if projected is not None and self.fused and fusion_allowed() and (logits_only or not self._has_prior):
            native = native_sic(projected, *self._interpretation(), starts, ends, valid)
            if native is not None:  # one pass over all slots; memory grows with S, not S x H
                logits, pooled = native
                logits = self._with_prior(logits, starts, ends)
                return SpanLayerOutput(pooled=pooled, logits=logits, alpha=torch.softmax(logits, dim=1))
        features = self.token_features(hidden, projected)
        batch, _, size = hidden.shape
        budget = self.grad_chunk_elements if torch.is_grad_enabled() else self.chunk_elements
        chunk = max(1, budget // max(1, batch * size))
        bounds = range(0, starts.numel(), chunk)
        recompute = torch.is_grad_enabled() and len(bounds) > 1
        weight, bias = self._interpretation()
        prior = self._prior_per_piece
        parts = []
        for lo in bounds:
            args = (weight, bias, prior, starts[lo : lo + chunk], ends[lo : lo + chunk], valid[:, lo : lo + chunk])
            if recompute:
                parts.append(checkpoint(self._chunk, *args, *features, use_reentrant=False))
            else:
                parts.append(self._chunk(*args, *features))
        logits = torch.cat([p[0] for p in parts], dim=1)
        peaks = torch.stack([p[1] for p in parts], dim=1)  # [B, C]
        pooled = merge_chunks(logits, peaks, torch.stack([p[2] for p in parts], dim=1))
        return SpanLayerOutput(pooled=pooled, logits=logits, alpha=torch.softmax(logits, dim=1))
