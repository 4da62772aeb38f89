"""Sparsemax and 1.5-entmax against a bisection reference, their gradients, and the span layer's
support-only path against the dense computation."""

from __future__ import annotations

import pytest
import torch

from selfexplain.core.modeling.normalisers import entmax15, masked_softmax, normalise, sparsemax
from selfexplain.core.modeling.spans import SpanLayer, span_index, span_validity


def bisection(logits: torch.Tensor, valid: torch.Tensor, power: float) -> torch.Tensor:
    """``max(x - tau, 0) ** power`` with ``tau`` found by bisection so each row sums to 1."""
    scale = 1.0 if power == 1 else 0.5
    rows = []
    for row, mask in zip(logits, valid):
        x = row[mask] * scale
        lo, hi = float(x.max()) - 1.0, float(x.max())
        for _ in range(200):
            tau = (lo + hi) / 2
            lo, hi = (tau, hi) if float((x - tau).clamp_min(0).pow(power).sum()) > 1 else (lo, tau)
        out = torch.zeros_like(row)
        out[mask] = (x - tau).clamp_min(0).pow(power)
        rows.append(out)
    return torch.stack(rows)


@pytest.fixture()
def scores() -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(4, 40, generator=generator, dtype=torch.float64) * 3
    valid = torch.rand(4, 40, generator=generator) > 0.3
    return logits, valid


def test_sparsemax_matches_bisection_and_has_true_zeros(scores) -> None:
    logits, valid = scores
    alpha = sparsemax(logits, valid)
    assert torch.allclose(alpha, bisection(logits, valid, 1.0), atol=1e-9)
    assert torch.allclose(alpha.sum(dim=1), torch.ones(4, dtype=torch.float64))
    assert (alpha[~valid] == 0).all() and ((alpha == 0) & valid).any()


def test_entmax15_matches_bisection(scores) -> None:
    logits, valid = scores
    alpha = entmax15(logits, valid)
    assert torch.allclose(alpha, bisection(logits, valid, 2.0), atol=1e-9)
    assert (alpha[~valid] == 0).all() and ((alpha == 0) & valid).any()


def test_equal_scores_give_uniform_alpha() -> None:
    valid = torch.tensor([[True, True, False, True]])
    for kind in ("softmax", "sparsemax", "entmax15"):
        alpha = normalise(kind, torch.zeros(1, 4, dtype=torch.float64), valid)
        assert torch.allclose(alpha, torch.tensor([[1 / 3, 1 / 3, 0, 1 / 3]], dtype=torch.float64)), kind


def test_gradients_are_exact(scores) -> None:
    logits, valid = scores
    for function in (sparsemax, entmax15, masked_softmax):
        assert torch.autograd.gradcheck(lambda x, f=function: f(x, valid), (logits.clone().requires_grad_(),))


def test_unknown_normaliser_is_refused(scores) -> None:
    with pytest.raises(ValueError, match="unknown normaliser"):
        normalise("softermax", *scores)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["sparsemax", "entmax15"])
@pytest.mark.parametrize("representation", ["sic", "mean"])
def test_support_only_span_layer_equals_the_dense_computation(kind: str, representation: str) -> None:
    torch.manual_seed(0)
    layer = SpanLayer(16, representation).double()
    layer.normaliser = kind
    with torch.no_grad():
        layer.interpret.weight.mul_(10)  # spread scores: a small support
    hidden = torch.randn(2, 9, 16, dtype=torch.float64, requires_grad=True)
    starts, ends = span_index(9)
    token_mask = torch.tensor([[0, 1, 1, 1, 1, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0, 0, 0, 0]], dtype=torch.bool)
    valid = span_validity(token_mask, torch.zeros(2, 9, dtype=torch.long), starts, ends)
    out = layer(hidden, valid, starts, ends)
    vectors = layer.span_vectors(layer.token_features(hidden), starts, ends)
    alpha = normalise(kind, vectors @ layer.interpret.weight[0] + layer.interpret.bias[0], valid)
    pooled = torch.einsum("bs,bsh->bh", alpha, vectors)
    assert torch.allclose(out.alpha, alpha, atol=1e-12) and torch.allclose(out.pooled, pooled, atol=1e-12)
    assert int((out.alpha > 0).sum(dim=1).max()) < int(valid.sum(dim=1).min())  # sparse
    params = [hidden, layer.interpret.weight] + ([layer.W4.weight] if representation == "sic" else [])
    got = torch.autograd.grad(out.pooled.pow(2).sum() + out.alpha.pow(2).sum(), params)
    want = torch.autograd.grad(pooled.pow(2).sum() + alpha.pow(2).sum(), params)
    for a, b in zip(got, want):
        assert torch.allclose(a, b, atol=1e-10)


@pytest.mark.parametrize("kind", ["sparsemax", "entmax15", "softmax"])
@pytest.mark.parametrize("representation", ["sic", "mean"])
def test_per_text_normalisers_equal_one_layer_call_per_text(kind: str, representation: str) -> None:
    """forward_per_text gives each text what a separate call with that text's mask gives (values and
    gradients), and a sparse map scores the slots once for both texts."""
    torch.manual_seed(3)
    layer = SpanLayer(16, representation).double()
    layer.normaliser = kind
    with torch.no_grad():
        layer.interpret.weight.mul_(10)
    hidden = torch.randn(2, 10, 16, dtype=torch.float64, requires_grad=True)
    starts, ends = span_index(10)
    token_mask = torch.tensor([[0, 1, 1, 1, 0, 1, 1, 1, 1, 0], [0, 1, 1, 0, 1, 1, 0, 0, 0, 0]], dtype=torch.bool)
    segments = torch.tensor([[0, 0, 0, 0, 0, 1, 1, 1, 1, 1], [0, 0, 0, 0, 1, 1, 1, 1, 1, 1]])
    valid = span_validity(token_mask, segments, starts, ends)
    masks = torch.stack([valid & (segments[:, starts] == side) for side in (0, 1)])
    calls = {"score": 0}
    scorer = "_mean_logits" if representation == "mean" else "_softmax_forward"
    original = getattr(layer, scorer)

    def counted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls["score"] += 1
        return original(*args, **kwargs)

    setattr(layer, scorer, counted)
    together = layer.forward_per_text(hidden, masks, starts, ends)
    if kind != "softmax":
        assert calls["score"] == 1
    setattr(layer, scorer, original)
    for mask, got in zip(masks, together):
        alone = layer(hidden, mask, starts, ends)
        assert torch.allclose(got.alpha, alone.alpha, atol=1e-12) and torch.allclose(
            got.pooled, alone.pooled, atol=1e-12
        )
        assert torch.allclose(got.alpha.sum(dim=1), torch.ones(2, dtype=torch.float64))
        assert bool((got.alpha[~mask] == 0).all())
        grad_got = torch.autograd.grad(got.pooled.pow(2).sum(), hidden, retain_graph=True)[0]
        grad_alone = torch.autograd.grad(alone.pooled.pow(2).sum(), hidden)[0]
        assert torch.allclose(grad_got, grad_alone, atol=1e-10)


def test_temperature_divides_the_scores() -> None:
    torch.manual_seed(1)
    layer = SpanLayer(8).double()
    hidden = torch.randn(1, 5, 8, dtype=torch.float64)
    starts, ends = span_index(5)
    valid = torch.ones(1, starts.numel(), dtype=torch.bool)
    base = layer(hidden, valid, starts, ends).logits
    layer.temperature = 4.0
    assert torch.allclose(layer(hidden, valid, starts, ends).logits, base / 4, atol=1e-12)
