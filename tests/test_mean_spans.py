"""Mean span vectors under a sparse normaliser: logits from prefix sums equal the eager layer's."""

from __future__ import annotations

import pytest
import torch

from selfexplain.core.modeling.spans import SpanLayer, span_index


@pytest.mark.parametrize("normaliser", ["sparsemax", "entmax15"])
def test_sparse_mean_layer_matches_the_eager_mean_layer(normaliser: str) -> None:
    torch.manual_seed(0)
    layer = SpanLayer(16, "mean")
    hidden = torch.randn(3, 11, 16)
    starts, ends = span_index(11, max_width=4)
    valid = torch.rand(3, starts.numel()) > 0.3
    valid[:, 0] = True
    prefix_logits = layer._mean_logits(hidden, valid, starts, ends)
    eager = layer._softmax_forward(hidden, valid, starts, ends).logits
    assert torch.equal(torch.isinf(prefix_logits), torch.isinf(eager))
    assert torch.allclose(prefix_logits[valid], eager[valid], atol=1e-5)
    layer.normaliser = normaliser
    sparse = layer(hidden, valid, starts, ends)
    assert torch.allclose(sparse.alpha.sum(dim=1), torch.ones(3), atol=1e-5)
    assert torch.allclose(sparse.logits[valid], eager[valid], atol=1e-5)
    # pooled = sum alpha * mean span vector, built from the support only
    vectors = layer.span_vectors(layer.token_features(hidden), starts, ends)  # [B, S, H]
    assert torch.allclose(sparse.pooled, torch.einsum("bs,bsh->bh", sparse.alpha, vectors), atol=1e-5)
