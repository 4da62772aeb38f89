"""The SIC span layer as a native kernel: one pass over the span slots forward, one backward.

Eager PyTorch builds every ``[B, K, H]`` block of span vectors in memory and walks it
about ten times (gather, add, multiply, tanh, the interpretation dot product, the
weighted sum, and again backwards, where the gathers turn into scatter-adds). The C
kernels in ``selfexplain/core/modeling/native/sic_kernels.c`` assemble each span vector in a
thread-local ``[H]`` buffer, score it, and fold it into an online softmax in the same
loop; the backward pass recomputes it once and accumulates every gradient in that loop.
Memory grows with the number of slots (the logits), not with ``S x H``.

The library is compiled on first use with the system C compiler (``cc`` or ``$CC``,
about a second) and cached under ``~/.cache/selfexplain`` (``$SELFEXPLAIN_CACHE``); it is checked
against the checksum recorded at build time before it is loaded (:mod:`selfexplain.core.modeling.native_cache`).
``load_model`` switches it on (:meth:`selfexplain.core.modeling.model.SelfExplainingModel.set_fused`; a bare
``SpanLayer`` stays eager); it is used only for float32 CPU tensors and switched off everywhere
by ``SELFEXPLAIN_FUSED=0``. If it cannot be built, the eager code runs after one warning:
results never depend on it. Its tanh is a rational approximation (max abs error about 3e-7,
``python -m selfexplain.core.modeling.tanh_fit``), so values agree with eager to ~1e-6.
"""

from __future__ import annotations

import ctypes
import warnings
from pathlib import Path

import torch

from selfexplain import settings
from selfexplain.core.modeling.native_cache import load_library
from selfexplain.core.modeling.streaming_softmax import merge_chunks

SOURCE = Path(__file__).parent / "native" / "sic_kernels.c"
# The kernels have no infinities or NaNs inside (the caller masks invalid slots), so they may
# divide by reciprocal estimates refined by a Newton step (-mrecip): ~10% faster. These flags
# go to the compile step only; linking with them would pull in crtfastmath (GCC < 13), which
# flushes denormals to zero for the whole Python process.
COMPILE_FLAGS = (
    "-O3", "-march=native", "-fopenmp", "-fPIC", "-fno-math-errno", "-fno-trapping-math",
    "-ffinite-math-only", "-funsafe-math-optimizations", "-mrecip=vec-div",
)  # fmt: skip
LINK_FLAGS = ("-shared", "-fopenmp")

# Forward work item: up to this many slots of one example (a 128-token input has 4 chunks).
SLOTS_PER_CHUNK = 2048

_library: ctypes.CDLL | None = None
_failure: str | None = None


def fusion_allowed() -> bool:
    """False when ``SELFEXPLAIN_FUSED=0`` or building the kernels has failed in this process."""
    return settings.fused() and _failure is None


def _build() -> ctypes.CDLL:
    """The kernels' library, built or rebuilt as needed and verified before it is loaded
    (:func:`selfexplain.core.modeling.native_cache.load_library`), with its functions' signatures declared."""
    library = load_library(SOURCE, COMPILE_FLAGS, LINK_FLAGS)
    i64, ptr, f32 = ctypes.c_int64, ctypes.c_void_p, ctypes.c_float
    library.sic_forward.argtypes = [ptr] * 2 + [f32] + [ptr] * 3 + [i64] * 5 + [ptr] * 3 + [ctypes.c_int]
    library.sic_backward.argtypes = [ptr] * 9 + [i64] * 4 + [ptr] * 3 + [ctypes.c_int]
    library.tanh_values.argtypes = [ptr, ptr, i64]
    for name in ("sic_forward", "sic_backward", "tanh_values"):
        getattr(library, name).restype = None
    return library


def native_library() -> ctypes.CDLL | None:
    """The compiled kernels, building them on first call; None (after one warning) if that fails."""
    global _library, _failure
    if _library is None and fusion_allowed():
        try:
            _library = _build()
        except Exception as error:  # noqa: BLE001 - any build failure falls back to eager
            _failure = f"{type(error).__name__}: {error}"
            warnings.warn(
                f"native span kernels unavailable, running eager: {_failure} (they need a C compiler with "
                "OpenMP, CC to choose one, and a writable SELFEXPLAIN_CACHE folder; SELFEXPLAIN_FUSED=0 skips them)",
                stacklevel=2,
            )
    return _library if fusion_allowed() else None


def _ptr(tensor: torch.Tensor) -> ctypes.c_void_p:
    return ctypes.c_void_p(tensor.data_ptr())


def native_tanh(values: torch.Tensor) -> torch.Tensor:
    """The kernels' tanh on a float32 CPU tensor (for tests of its accuracy)."""
    library = native_library()
    if library is None:
        raise RuntimeError("native span kernels unavailable")
    source = values.detach().float().contiguous()
    out = torch.empty_like(source)
    library.tanh_values(_ptr(source), _ptr(out), source.numel())
    return out


class _SicSpans(torch.autograd.Function):
    """``(features [B,N,3H], weight [H], bias [], starts, ends [S], valid [B,S])`` ->
    ``(logits [B,S] with -inf where invalid, pooled [B,H])``."""

    @staticmethod
    def forward(ctx, features, weight, bias, starts, ends, valid):  # noqa: ANN001, ANN205
        library = native_library()
        batch, length, size = features.shape[0], features.shape[1], features.shape[2] // 3
        slots = starts.numel()
        threads = torch.get_num_threads()
        # Chunks of a fixed size, not a per-thread share: the sums (and so every output bit) do
        # not depend on the number of threads, which sharded batch runs rely on.
        chunks = max(1, -(-slots // SLOTS_PER_CHUNK))
        logits = features.new_empty(batch, slots)
        peaks = features.new_empty(batch, chunks)
        weighted = features.new_empty(batch, chunks, size)
        library.sic_forward(
            _ptr(features), _ptr(weight), float(bias), _ptr(starts), _ptr(ends), _ptr(valid),
            batch, length, size, slots, chunks, _ptr(logits), _ptr(peaks), _ptr(weighted), threads,
        )  # fmt: skip
        logits.masked_fill_(~valid, float("-inf"))
        pooled = merge_chunks(logits, peaks, weighted)  # a chunk without a valid slot has peak -FLT_MAX
        ctx.save_for_backward(features, weight, starts, ends, valid, logits, pooled)
        return logits, pooled

    @staticmethod
    def backward(ctx, grad_logits, grad_pooled):  # noqa: ANN001, ANN205
        features, weight, starts, ends, valid, logits, pooled = ctx.saved_tensors
        library = native_library()
        batch, length, size = features.shape[0], features.shape[1], features.shape[2] // 3
        threads = torch.get_num_threads()
        grad_logits = torch.zeros_like(logits) if grad_logits is None else grad_logits.float().contiguous()
        grad_pooled = torch.zeros_like(pooled) if grad_pooled is None else grad_pooled.float().contiguous()
        alpha = torch.softmax(logits, dim=1)
        dot_gp = (grad_pooled * pooled).sum(dim=1)
        d_features = torch.zeros_like(features)
        d_weight = features.new_zeros(threads, size)
        d_bias = features.new_zeros(threads)
        library.sic_backward(
            _ptr(features), _ptr(weight), _ptr(starts), _ptr(ends), _ptr(valid), _ptr(alpha), _ptr(grad_logits),
            _ptr(grad_pooled), _ptr(dot_gp), batch, length, size, starts.numel(),
            _ptr(d_features), _ptr(d_weight), _ptr(d_bias), threads,
        )  # fmt: skip
        return d_features, d_weight.sum(dim=0), d_bias.sum(), None, None, None


def native_sic(
    features: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor,
    starts: torch.Tensor,
    ends: torch.Tensor,
    valid: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor] | None:
    """The whole SIC span layer natively, or None where it does not apply (or cannot be built).

    ``features`` ``[B, N, 3H]`` the per-token terms ``left | right | gate`` (see
    :meth:`selfexplain.core.modeling.spans.SpanLayer.projection`), ``weight`` ``[H]``, ``bias`` ``[]``,
    ``starts``/``ends`` ``[S]``, ``valid`` ``[B, S]`` -> ``(logits [B, S], pooled [B, H])``
    with logits ``-inf`` at invalid slots and ``pooled = sum softmax(logits) h``.
    """
    tensors = (features, weight, bias)
    if any(t.device.type != "cpu" or t.dtype != torch.float32 for t in tensors) or native_library() is None:
        return None
    # The kernels index raw memory: refuse here what would read out of bounds there.
    batch, length, width = features.shape
    slots = starts.numel()
    if width % 3 or weight.numel() != width // 3 or ends.numel() != slots or tuple(valid.shape) != (batch, slots):
        raise ValueError(
            f"native_sic: features {tuple(features.shape)}, weight {tuple(weight.shape)}, starts/ends "
            f"{slots}/{ends.numel()} and valid {tuple(valid.shape)} do not fit together"
        )
    if slots and (min(int(starts.min()), int(ends.min())) < 0 or max(int(starts.max()), int(ends.max())) >= length):
        raise ValueError(f"native_sic: span ends outside 0..{length - 1}")
    return _SicSpans.apply(
        features.contiguous(),
        weight.contiguous(),
        bias,
        starts.to(torch.int64).contiguous(),
        ends.to(torch.int64).contiguous(),
        valid.to(torch.bool).contiguous(),
    )
