"""Attention statistics per layer x head (Clark et al., 2019, "What does BERT look at?").

Everything here works on one batch of stacked attention maps ``A`` ``[L, B, H, N, N]``
(row ``i`` = query, column ``j`` = key, rows sum to 1) plus ``[B, N]`` masks, and returns
*sums* and *counts* so a corpus is reduced batch by batch (:class:`StatsAccumulator`).
No Python loop touches a token.

Definitions (each averaged over the query tokens it applies to, per layer and head):

- ``cls``: attention to position 0 ([CLS] / ``<s>``), over every non-padding query.
- ``sep``: attention summed over the separator tokens (special tokens after position 0).
- ``punct``: attention summed over punctuation tokens.
- ``self``: ``A[i, i]``.
- ``next`` / ``prev``: ``A[i, i+1]`` / ``A[i, i-1]``, over queries that have such a neighbour.
- ``entropy``: ``-sum_j A'[i, j] ln A'[i, j]`` (nats) over every query, where
  ``A' = (1 - eps) A + eps / n`` is smoothed over the sentence's ``n`` non-padding keys
  with ``eps = 1e-4`` as in Clark et al.'s analysis code (no ``0 ln 0`` cases).
- ``cls_entropy``: the smoothed entropy of the [CLS] row alone, over sentences.
- ``uniform_entropy``: ``ln n``, the entropy uniform attention would have, averaged like
  ``entropy`` (the same for every head; the reference line of the entropy plot).
- ``within`` / ``across`` (text pairs): attention from a real token to real tokens of its own
  text / of the other text, over real-token queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from selfexplain.core.modeling.families import Family

STAT_NAMES: tuple[str, ...] = (
    "cls",
    "sep",
    "punct",
    "self",
    "next",
    "prev",
    "entropy",
    "cls_entropy",
    "uniform_entropy",
    "within",
    "across",
)
ENTROPY_SMOOTHING = 1e-4
_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


@dataclass(frozen=True)
class Roles:
    """Boolean ``[B, N]`` masks of the positions' roles in one batch."""

    valid: torch.Tensor  # not padding
    sep: torch.Tensor  # special tokens after position 0
    punct: torch.Tensor  # tokens made only of punctuation
    real: torch.Tensor  # real (non-special, non-padding) tokens
    segment: torch.Tensor  # long, 0/1 text of each position


def punctuation_ids(tokenizer: object) -> torch.Tensor:
    """``[P]`` ids of every vocabulary entry made only of punctuation once its sub-word markers are stripped
    (the family adapter's :meth:`~selfexplain.core.modeling.families.Family.strip_markers`)."""
    vocab: dict[str, int] = tokenizer.get_vocab()  # type: ignore[attr-defined]
    ids = [i for t, i in vocab.items() if (s := Family.strip_markers(t)) and set(s) <= _PUNCT]
    return torch.tensor(sorted(ids), dtype=torch.long)


def roles_from_batch(
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    token_mask: torch.Tensor,
    segment_ids: torch.Tensor,
    punct_ids: torch.Tensor,
) -> Roles:
    """Roles of every position of a batch (all inputs ``[B, N]``)."""
    valid = attention_mask.bool()
    special = valid & ~token_mask.bool()
    sep = special.clone()
    sep[:, 0] = False
    punct = torch.isin(input_ids, punct_ids) & token_mask.bool()
    return Roles(valid, sep, punct, token_mask.bool(), segment_ids.long())


def _row_sums(attn: torch.Tensor, key_mask: torch.Tensor) -> torch.Tensor:
    """``[L, B, H, N]``: per query, the attention summed over keys where ``key_mask`` ``[B, N]`` is set."""
    return torch.einsum("lbhij,bj->lbhi", attn, key_mask.to(attn.dtype))


def _masked_total(values: torch.Tensor, query_mask: torch.Tensor) -> torch.Tensor:
    """``[L, H]``: ``values`` ``[L, B, H, N]`` summed over the queries set in ``query_mask`` ``[B, N]``."""
    return torch.einsum("lbhi,bi->lh", values, query_mask.to(values.dtype))


def entropy(attn: torch.Tensor) -> torch.Tensor:
    """Row entropy in nats, ``[..., N, N] -> [..., N]`` (``0 ln 0 = 0``)."""
    return -(attn * torch.log(attn.clamp_min(1e-30))).sum(dim=-1)


def batch_statistics(attn: torch.Tensor, roles: Roles) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """Sums ``[L, H]`` and counts (scalar tensors) of every statistic in :data:`STAT_NAMES`.

    ``attn`` is ``[L, B, H, N, N]``; mean = sum / count.
    """
    attn = attn.double()
    valid = roles.valid
    n_valid = valid.sum().double()
    out: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}
    out["cls"] = (_masked_total(attn[..., 0], valid), n_valid)
    out["sep"] = (_masked_total(_row_sums(attn, roles.sep), valid), n_valid)
    out["punct"] = (_masked_total(_row_sums(attn, roles.punct), valid), n_valid)
    out["self"] = (_masked_total(torch.diagonal(attn, dim1=-2, dim2=-1), valid), n_valid)
    has_next = valid[:, :-1] & valid[:, 1:]  # query i with a key i+1: [B, N-1]
    nxt = torch.diagonal(attn, offset=1, dim1=-2, dim2=-1)  # A[i, i+1]: [L, B, H, N-1]
    prv = torch.diagonal(attn, offset=-1, dim1=-2, dim2=-1)  # A[i+1, i]: [L, B, H, N-1]
    out["next"] = (_masked_total(nxt, has_next), has_next.sum().double())
    out["prev"] = (_masked_total(prv, has_next), has_next.sum().double())
    keys = valid.double()  # [B, N]
    n_keys = keys.sum(dim=1).clamp_min(1.0)  # [B]
    uniform_share = (keys / n_keys[:, None])[None, :, None, None, :]  # [1, B, 1, 1, N]
    smoothed = (1.0 - ENTROPY_SMOOTHING) * attn + ENTROPY_SMOOTHING * uniform_share
    out["entropy"] = (_masked_total(entropy(smoothed), valid), n_valid)
    batch = torch.tensor(float(attn.shape[1]), dtype=torch.float64)
    out["cls_entropy"] = (entropy(smoothed[..., 0, :]).sum(dim=1), batch)
    uniform_total = (torch.log(n_keys) * valid.sum(dim=1)).sum()
    out["uniform_entropy"] = (uniform_total.expand(attn.shape[0], attn.shape[2]).clone(), n_valid)
    same = (roles.segment[:, :, None] == roles.segment[:, None, :]) & roles.real[:, :, None] & roles.real[:, None, :]
    other = (roles.segment[:, :, None] != roles.segment[:, None, :]) & roles.real[:, :, None] & roles.real[:, None, :]
    n_real = roles.real.sum().double()
    out["within"] = (torch.einsum("lbhij,bij->lh", attn, same.double()), n_real)
    out["across"] = (torch.einsum("lbhij,bij->lh", attn, other.double()), n_real)
    return out


@dataclass
class StatsAccumulator:
    """Running sums over batches; :meth:`means` gives ``{name: [L, H] array}``."""

    sums: dict[str, torch.Tensor] = field(default_factory=dict)
    counts: dict[str, float] = field(default_factory=dict)
    sentences: int = 0

    def add(self, attn: torch.Tensor, roles: Roles) -> None:
        """Fold in one batch (``attn`` ``[L, B, H, N, N]``)."""
        for name, (total, count) in batch_statistics(attn, roles).items():
            self.sums[name] = self.sums.get(name, 0) + total
            self.counts[name] = self.counts.get(name, 0.0) + float(count)
        self.sentences += int(attn.shape[1])

    def means(self) -> dict[str, np.ndarray]:
        return {n: (self.sums[n] / max(self.counts[n], 1.0)).numpy() for n in self.sums}
