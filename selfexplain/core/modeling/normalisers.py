"""Maps from span logits to alpha: softmax, sparsemax and 1.5-entmax over the valid spans.

Sparsemax (Martins & Astudillo, 2016) and 1.5-entmax (Peters et al., 2019) are exact,
sort-based and vectorised over the batch. They give alpha true zeros: only the spans in the
*support* get weight, and their Jacobian is zero outside the support, which is what lets the
span layer build span vectors only for the support (see :class:`selfexplain.core.modeling.spans.SpanLayer`).

All maps take ``logits`` ``[B, S]`` and a ``valid`` mask ``[B, S]`` (every row needs one valid
slot) and return alpha ``[B, S]``: non-negative, zero on invalid slots, each row summing to 1.
Gradients come from autograd through the closed-form threshold, which equals the analytic
Jacobian of each map.

Each map registers itself in :data:`NORMALISERS` (a :class:`~selfexplain.support.registry.Registry`) with
the :func:`normaliser` decorator; the model config's validation and the ``--normaliser`` choices of
``selfexplain train`` and ``selfexplain distill`` read it, so a new map is one decorated function here.
The module loads torch only when a map runs, so those choices cost the command line no torch import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from selfexplain.support.registry import Registry

if TYPE_CHECKING:
    import torch

Normaliser = str  # a name in NORMALISERS
Map = Callable[["torch.Tensor", "torch.Tensor"], "torch.Tensor"]  # (logits [B, S], valid [B, S]) -> alpha [B, S]


@dataclass(frozen=True)
class NormaliserSpec:
    """A registered map from span logits to alpha. ``apply(logits, valid)`` -> alpha; ``reach``: for a sparse
    map, how far below its row's largest logit a slot can still get weight (then, without gradients, it runs on
    those slots only: :func:`on_candidates`), None for a map that weights every valid slot; ``fused``: the span
    layer computes this map itself in chunks together with the span scores (the streaming softmax of
    :class:`~selfexplain.core.modeling.spans.SpanLayer`) instead of calling ``apply`` on the whole row."""

    name: str
    apply: Map
    reach: float | None = None
    fused: bool = False


NORMALISERS: Registry[NormaliserSpec] = Registry("normaliser")
DEFAULT_NORMALISER = "softmax"  # a model config's and the command line's default


def normaliser(name: str, reach: float | None = None, fused: bool = False) -> Callable[[Map], Map]:
    """Decorator: register the function as the normaliser ``name`` (see :class:`NormaliserSpec`)."""

    def register(apply: Map) -> Map:
        NORMALISERS.register(name, NormaliserSpec(name, apply, reach, fused))
        return apply

    return register


def normaliser_names() -> tuple[str, ...]:
    """The registered normalisers' names, in registration order (what ``--normaliser`` offers)."""
    return NORMALISERS.names()


@normaliser("softmax", fused=True)
def masked_softmax(logits: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """Softmax over the valid slots; zeros elsewhere."""
    import torch

    return torch.softmax(logits.masked_fill(~valid, -torch.inf), dim=1)


def _sorted_valid(logits: torch.Tensor, valid: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Valid logits sorted descending ``[B, S]`` (invalid ones pushed to the end as a very low
    finite value), their ranks ``1..S`` ``[S]`` and the count of valid slots per row ``[B, 1]``."""
    import torch

    floor = torch.finfo(logits.dtype).min / 4
    masked = torch.where(valid, logits, torch.full_like(logits, floor))
    ordered, _ = torch.sort(masked, dim=1, descending=True)
    ranks = torch.arange(1, logits.shape[1] + 1, device=logits.device, dtype=logits.dtype)
    count = valid.sum(dim=1, keepdim=True)
    return ordered, ranks, count


@normaliser("sparsemax", reach=1.0)
def sparsemax(logits: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """Euclidean projection of ``logits`` onto the simplex of the valid slots: ``max(z - tau, 0)``."""
    import torch

    shifted = logits - torch.where(valid, logits, torch.full_like(logits, -torch.inf)).amax(dim=1, keepdim=True)
    ordered, ranks, count = _sorted_valid(shifted, valid)
    inside = torch.arange(logits.shape[1], device=logits.device).unsqueeze(0) < count
    cumulative = torch.where(inside, ordered, torch.zeros_like(ordered)).cumsum(dim=1)
    # support size k: the largest k with 1 + k z_(k) > sum_{r <= k} z_(r)
    in_support = (1 + ranks * ordered > cumulative) & inside
    k = in_support.sum(dim=1, keepdim=True).clamp_min(1)
    tau = (cumulative.gather(1, k - 1) - 1) / k.to(logits.dtype)
    alpha = torch.clamp(shifted - tau, min=0)
    return torch.where(valid, alpha, torch.zeros_like(alpha))


@normaliser("entmax15", reach=2.0)
def entmax15(logits: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """1.5-entmax over the valid slots: ``max(z/2 - tau, 0)^2`` with the exact sort-based threshold."""
    import torch

    z = logits / 2
    z = z - torch.where(valid, z, torch.full_like(z, -torch.inf)).amax(dim=1, keepdim=True)
    ordered, ranks, count = _sorted_valid(z, valid)
    inside = torch.arange(logits.shape[1], device=logits.device).unsqueeze(0) < count
    zero = torch.zeros_like(ordered)
    mean = torch.where(inside, ordered, zero).cumsum(dim=1) / ranks
    mean_sq = torch.where(inside, ordered * ordered, zero).cumsum(dim=1) / ranks
    delta = (1 - ranks * (mean_sq - mean * mean)) / ranks
    candidates = mean - torch.sqrt(delta.clamp_min(0))
    # support size: the largest k whose candidate threshold lies below the k-th largest value
    in_support = (candidates <= ordered) & inside
    k = in_support.sum(dim=1, keepdim=True).clamp_min(1)
    tau = candidates.gather(1, k - 1)
    alpha = torch.clamp(z - tau, min=0) ** 2
    alpha = torch.where(valid, alpha, torch.zeros_like(alpha))
    # the closed form is exact; renormalising only removes float rounding
    return alpha / alpha.sum(dim=1, keepdim=True)


# Only slots within a sparse map's reach of their row's largest logit can get weight: sparsemax's threshold
# is at least max - 1 (no alpha exceeds 1), 1.5-entmax's at least max / 2 - 1. The slack absorbs float rounding.
_SLACK = 1e-3


def on_candidates(kind: Normaliser, logits: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """Sparsemax or 1.5-entmax computed on the slots within reach of their row's maximum only,
    compacted to ``[B, K]``: the same alpha ``[B, S]`` (a slot out of reach is zero in both), but the
    sort and its temporaries cover ``K`` slots instead of ``S`` (a long document: 10^7 -> ~10). ``kind``: a
    registered normaliser with a ``reach``."""
    import torch

    spec = NORMALISERS.get(kind)
    if spec.reach is None:
        raise ValueError(f"normaliser {kind!r} weights every valid slot: it has no candidates to keep")
    top = torch.where(valid, logits, torch.full_like(logits, -torch.inf)).amax(dim=1, keepdim=True)
    rows, cols = (valid & (logits - top >= -(spec.reach + _SLACK))).nonzero(as_tuple=True)
    counts = torch.bincount(rows, minlength=logits.shape[0])
    if rows.numel() == 0:
        return spec.apply(logits, valid)
    place = torch.arange(rows.numel(), device=logits.device) - (counts.cumsum(0) - counts)[rows]
    small = logits.new_zeros((logits.shape[0], int(counts.max())))
    small_valid = torch.zeros_like(small, dtype=torch.bool)
    small[rows, place] = logits[rows, cols]
    small_valid[rows, place] = True
    compact = spec.apply(small, small_valid)
    alpha = torch.zeros_like(logits)
    alpha[rows, cols] = compact[rows, place]
    return alpha


def normalise(kind: Normaliser, logits: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """alpha ``[B, S]`` from ``logits`` ``[B, S]`` by the named map (an unknown name is a ``ValueError`` listing
    the registered ones). Without gradients, the sparse maps run on the slots that can get weight only
    (:func:`on_candidates`; same values)."""
    spec = NORMALISERS.get(kind)
    if spec.reach is not None and not (_grad_enabled() and logits.requires_grad):
        return on_candidates(kind, logits, valid)
    return spec.apply(logits, valid)


def _grad_enabled() -> bool:
    import torch

    return torch.is_grad_enabled()
