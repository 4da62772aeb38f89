"""A straightforward re-implementation of the reference algorithm, for benchmarks only.

As in the paper's released code: span ends are enumerated with Python loops (in
the data collator), the projected token vectors are gathered with
``index_select`` into six ``[B, S, H]`` tensors, combined, and the weighted sum
is an explicit broadcast multiply. Written from the algorithm's description.
"""

from __future__ import annotations

import torch
from torch import nn


def enumerate_spans(length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Spans over positions ``1 .. length-2`` (between [CLS] and [SEP]) with two loops."""
    starts, ends = [], []
    for i in range(1, length - 1):
        for j in range(i, length - 1):
            starts.append(i)
            ends.append(j)
    return torch.tensor(starts), torch.tensor(ends)


class ReferenceSpanLayer(nn.Module):
    def __init__(self, hidden_size: int) -> None:
        super().__init__()
        self.W1 = nn.Linear(hidden_size, hidden_size)
        self.W2 = nn.Linear(hidden_size, hidden_size)
        self.W3 = nn.Linear(hidden_size, hidden_size)
        self.W4 = nn.Linear(hidden_size, hidden_size)
        self.interpret = nn.Linear(hidden_size, 1)

    def forward(self, hidden: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor, span_mask: torch.Tensor):
        """``hidden`` ``[B, N, H]``; ``span_mask`` ``[B, S]`` 0 for valid spans, a large number otherwise."""
        w1, w2, w3, w4 = self.W1(hidden), self.W2(hidden), self.W3(hidden), self.W4(hidden)
        w1_i = torch.index_select(w1, 1, starts)
        w2_j = torch.index_select(w2, 1, ends)
        w3_i = torch.index_select(w3, 1, starts)
        w3_j = torch.index_select(w3, 1, ends)
        w4_i = torch.index_select(w4, 1, starts)
        w4_j = torch.index_select(w4, 1, ends)
        h_ij = torch.tanh(w1_i + w2_j + (w3_i - w3_j) + torch.mul(w4_i, w4_j))
        logits = self.interpret(h_ij).squeeze(-1) - span_mask
        alpha = torch.softmax(logits, dim=1)
        pooled = (alpha.unsqueeze(-1) * h_ij).sum(dim=1)
        return pooled, alpha
