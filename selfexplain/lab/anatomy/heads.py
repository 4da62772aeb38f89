"""Heads grouped by behaviour (Clark et al., 2019, section 6) and the "no-op" gradient test.

Head distance: for two heads ``a`` and ``b`` and every query token ``i`` of the corpus,
``JS(A_a[i], A_b[i])`` (base 2, in ``[0, 1]``); the distance of the two heads is the mean
over queries. The ``[K, K]`` matrix (``K = L * H``) is embedded in 2-D with metric MDS
on ``sqrt(JS)`` (the Jensen-Shannon distance, a metric).

No-op gradient: ``|dLoss / dA[l, h, i, j]|`` averaged over heads, queries ``i`` and the
separator keys ``j``, per layer ``l`` (loss = cross-entropy summed over the batch, so the
value does not depend on the batch size).
"""

from __future__ import annotations

import numpy as np
import torch


def js_divergence(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Base-2 Jensen-Shannon divergence of distributions along the last axis (broadcasts)."""
    m = 0.5 * (p + q)

    def kl(a: torch.Tensor) -> torch.Tensor:
        return (a * (torch.log2(a.clamp_min(1e-30)) - torch.log2(m.clamp_min(1e-30)))).sum(dim=-1)

    return (0.5 * kl(p) + 0.5 * kl(q)).clamp_min(0.0)


def head_distance_sums(attn: torch.Tensor, valid: torch.Tensor) -> tuple[torch.Tensor, float]:
    """Sum over valid queries of ``JS`` between every pair of heads: ``([K, K], queries)``.

    ``attn`` ``[L, B, H, N, N]``, ``valid`` ``[B, N]``. Loops over the ``K`` heads only.
    """
    layers, _, heads, size, _ = attn.shape
    rows = attn.double().permute(0, 2, 1, 3, 4).reshape(layers * heads, -1, size)  # [K, B*N, N]
    keep = valid.reshape(-1).bool()
    rows = rows[:, keep]  # [K, Q, N]
    total = torch.zeros(layers * heads, layers * heads, dtype=torch.float64)
    for k in range(rows.shape[0]):
        total[k] = js_divergence(rows[k : k + 1], rows).sum(dim=1)
    return total, float(keep.sum())


def mds_embedding(distance: np.ndarray, seed: int = 0) -> np.ndarray:
    """``[K, 2]`` metric MDS of a ``[K, K]`` distance matrix (scikit-learn, seeded)."""
    from sklearn.manifold import MDS

    matrix = 0.5 * (distance + distance.T)
    np.fill_diagonal(matrix, 0.0)
    mds = MDS(n_components=2, metric="precomputed", init="random", n_init=4, random_state=seed)
    return mds.fit_transform(matrix)


def sep_gradient_sums(grads: tuple[torch.Tensor, ...], sep: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """``[L, H]`` sums of ``|grad|`` on attention to separators.

    ``grads``: per layer ``[B, H, N, N]`` gradients of the loss wrt the attention maps; ``sep``
    and ``valid`` ``[B, N]``. Divide by (valid queries x separators) for the mean.
    """
    grads = torch.stack(grads).abs().double()  # [L, B, H, N, N]
    pairs = valid.double()[:, :, None] * sep.double()[:, None, :]  # [B, N, N]
    return torch.einsum("lbhij,bij->lh", grads, pairs)
