from __future__ import annotations

import json

import pytest
import torch

from selfexplain.core.modeling.spans import SpanLayer, span_index, span_validity


def naive_sic(
    layer: SpanLayer, hidden: torch.Tensor, valid_pairs: list[tuple[int, int]]
) -> tuple[torch.Tensor, torch.Tensor]:
    """Straight from the formula, one span at a time, for one example ``hidden`` [N, H]."""
    vectors, logits = [], []
    for i, j in valid_pairs:
        hi, hj = hidden[i], hidden[j]
        h = torch.tanh(layer.W1(hi) + layer.W2(hj) + layer.W3(hi - hj) + layer.W4(hi) * layer.W4(hj))
        vectors.append(h)
        logits.append(layer.interpret(h).squeeze(-1))
    logit = torch.stack(logits)
    alpha = torch.softmax(logit, dim=0)
    pooled = (alpha.unsqueeze(1) * torch.stack(vectors)).sum(0)
    return alpha, pooled


def test_span_count_and_width() -> None:
    starts, ends = span_index(5)
    assert starts.numel() == 15
    assert bool((starts <= ends).all())
    starts, ends = span_index(5, max_width=2)
    assert starts.numel() == 5 + 4
    assert int((ends - starts).max()) == 1
    with pytest.raises(ValueError):
        span_index(5, max_width=0)


def test_pair_spans_never_cross_separator() -> None:
    # [CLS] a b [SEP] c d e [SEP] [PAD]
    token_mask = torch.tensor([[0, 1, 1, 0, 1, 1, 1, 0, 0]], dtype=torch.bool)
    segments = torch.tensor([[0, 0, 0, 0, 1, 1, 1, 1, 0]])
    starts, ends = span_index(9)
    valid = span_validity(token_mask, segments, starts, ends)[0]
    pairs = {(int(i), int(j)) for i, j in zip(starts[valid], ends[valid])}
    assert len(pairs) == 3 + 6  # 2 tokens -> 3 spans, 3 tokens -> 6 spans
    for i, j in pairs:
        assert segments[0, i] == segments[0, j]
        assert bool(token_mask[0, i : j + 1].all())


@pytest.mark.parametrize("chunk_elements", [1 << 24, 7 * 16])
def test_vectorised_sic_matches_naive_loop(chunk_elements: int) -> None:
    torch.manual_seed(0)
    layer = SpanLayer(16, chunk_elements=chunk_elements)
    hidden = torch.randn(2, 7, 16)
    token_mask = torch.tensor([[0, 1, 1, 1, 1, 1, 0], [0, 1, 1, 1, 0, 0, 0]], dtype=torch.bool)
    segments = torch.zeros(2, 7, dtype=torch.long)
    starts, ends = span_index(7)
    valid = span_validity(token_mask, segments, starts, ends)
    out = layer(hidden, valid, starts, ends)
    for b in range(2):
        pairs = [(int(i), int(j)) for i, j in zip(starts[valid[b]], ends[valid[b]])]
        alpha, pooled = naive_sic(layer, hidden[b], pairs)
        torch.testing.assert_close(out.alpha[b][valid[b]], alpha, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(out.pooled[b], pooled, atol=1e-5, rtol=1e-5)
        assert float(out.alpha[b].detach().sum()) == pytest.approx(1.0, abs=1e-5)
        assert float(out.alpha[b][~valid[b]].detach().abs().sum()) == 0.0


def test_chunked_streaming_matches_single_chunk_with_gradients() -> None:
    torch.manual_seed(1)
    hidden = torch.randn(3, 20, 8, requires_grad=True)
    token_mask = torch.ones(3, 20, dtype=torch.bool)
    token_mask[:, 0] = False
    token_mask[1, 12:] = False
    starts, ends = span_index(20, max_width=6)
    valid = span_validity(token_mask, torch.zeros(3, 20, dtype=torch.long), starts, ends)
    whole = SpanLayer(8)
    chunked = SpanLayer(8, chunk_elements=3 * 8 * 5, grad_chunk_elements=3 * 8 * 5)  # 5 spans a chunk
    chunked.load_state_dict(whole.state_dict())
    a = whole(hidden, valid, starts, ends)
    grad_a = torch.autograd.grad(a.pooled.square().sum() + a.alpha.square().sum(), hidden)[0]
    b = chunked(hidden, valid, starts, ends)
    grad_b = torch.autograd.grad(b.pooled.square().sum() + b.alpha.square().sum(), hidden)[0]
    torch.testing.assert_close(a.pooled, b.pooled, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(a.alpha, b.alpha, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(grad_a, grad_b, atol=1e-5, rtol=1e-4)


def test_mean_representation_is_span_average() -> None:
    torch.manual_seed(2)
    layer = SpanLayer(4, representation="mean")
    hidden = torch.randn(1, 5, 4)
    starts, ends = span_index(5)
    vectors = layer.span_vectors(layer.token_features(hidden), starts, ends)
    for k, (i, j) in enumerate(zip(starts.tolist(), ends.tolist())):
        torch.testing.assert_close(vectors[0, k], hidden[0, i : j + 1].mean(0))


def test_uniform_alpha_reads_the_mean_span_vector() -> None:
    torch.manual_seed(2)
    layer = SpanLayer(16, chunk_elements=5 * 16)  # several chunks
    layer.uniform = True
    hidden = torch.randn(2, 7, 16)
    token_mask = torch.tensor([[0, 1, 1, 1, 1, 1, 0], [0, 1, 1, 1, 0, 0, 0]], dtype=torch.bool)
    starts, ends = span_index(7)
    valid = span_validity(token_mask, torch.zeros(2, 7, dtype=torch.long), starts, ends)
    out = layer(hidden, valid, starts, ends)
    for b in range(2):
        count = int(valid[b].sum())
        torch.testing.assert_close(out.alpha[b][valid[b]], torch.full((count,), 1.0 / count))
        vectors = layer.span_vectors(layer.token_features(hidden[b : b + 1]), starts[valid[b]], ends[valid[b]])
        torch.testing.assert_close(out.pooled[b], vectors[0].mean(dim=0), atol=1e-6, rtol=1e-5)


def test_inference_projection_cache_follows_parameter_updates() -> None:
    torch.manual_seed(0)
    layer = SpanLayer(8)
    hidden = torch.randn(2, 5, 8)
    with torch.no_grad():
        first = layer.projection(hidden)
        assert layer.projection(hidden) is not first and torch.equal(layer.projection(hidden), first)
        layer.W3.weight.add_(1.0)  # an optimizer step changes parameters in place
        updated = layer.projection(hidden)
    left, right, gate = updated.split(8, dim=-1)
    torch.testing.assert_close(left, layer.W1(hidden) + layer.W3(hidden))
    torch.testing.assert_close(right, layer.W2(hidden) - layer.W3(hidden) + layer.W3.bias)
    torch.testing.assert_close(gate, layer.W4(hidden))
    assert not torch.allclose(updated, first)
    # with gradients recorded, the projection is built fresh and trains every W
    layer.projection(hidden).sum().backward()
    assert all(p.grad is not None for w in (layer.W1, layer.W2, layer.W3, layer.W4) for p in w.parameters())


@pytest.mark.parametrize("normaliser", ["softmax", "sparsemax", "entmax15"])
@pytest.mark.parametrize("representation", ["sic", "mean"])
@pytest.mark.parametrize("fused", [False, True])
def test_length_prior_lowers_each_score_by_its_width(normaliser: str, representation: str, fused: bool) -> None:
    """o(i,j) - prior * (j - i) on every path (eager, native kernels, sparse support), and alpha and the
    weighted sum are those of the lowered scores; a strong prior leaves one-piece spans only."""
    torch.manual_seed(5)
    layer = SpanLayer(12, representation)
    layer.normaliser, layer.fused = normaliser, fused
    with torch.no_grad():
        layer.interpret.weight.mul_(4)
    hidden = torch.randn(2, 8, 12)
    starts, ends = span_index(8)
    token_mask = torch.tensor([[0, 1, 1, 1, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0, 0, 0]], dtype=torch.bool)
    valid = span_validity(token_mask, torch.zeros(2, 8, dtype=torch.long), starts, ends)
    plain = layer(hidden, valid, starts, ends)
    layer.length_prior = 0.7
    lowered = layer(hidden, valid, starts, ends)
    want = plain.logits - 0.7 * (ends - starts).float()
    assert torch.allclose(lowered.logits[valid], want[valid], atol=1e-5)
    vectors = layer.span_vectors(layer.token_features(hidden), starts, ends)
    alpha = torch.softmax(want.masked_fill(~valid, float("-inf")), dim=1) if normaliser == "softmax" else None
    if alpha is not None:
        assert torch.allclose(lowered.alpha, alpha, atol=1e-6)
    assert torch.allclose(lowered.pooled, torch.einsum("bs,bsh->bh", lowered.alpha, vectors), atol=1e-5)
    layer.length_prior = 100.0
    strong = layer(hidden, valid, starts, ends)
    heavy = strong.alpha > 1e-6
    assert bool((ends.expand_as(heavy)[heavy] == starts.expand_as(heavy)[heavy]).all())
    layer.uniform = True  # uniform alpha ignores the prior: every valid span alike
    uniform = layer(hidden, valid, starts, ends).alpha
    assert torch.allclose(uniform[valid], (1 / valid.sum(dim=1, keepdim=True).float()).expand_as(uniform)[valid])


def test_length_prior_is_a_checked_config_field_that_reaches_the_layer(tiny_encoder) -> None:
    from selfexplain.core.modeling.config import ModelConfig
    from selfexplain.core.modeling.model import SelfExplainingModel

    config = ModelConfig(encoder=str(tiny_encoder), label_names=["a", "b"], span_length_prior=0.25)
    assert ModelConfig.from_json(config.to_json()).span_length_prior == 0.25
    assert SelfExplainingModel(config).span_layer.length_prior == 0.25
    raw = {"encoder": "x", "label_names": ["a", "b"]}  # a folder written before the option: no prior
    assert ModelConfig.from_json(json.dumps(raw)).span_length_prior == 0.0
    for bad, message in ((-0.1, "at least 0"), ("1", "a number")):
        with pytest.raises(ValueError, match=f"span_length_prior must be {message}"):
            ModelConfig(encoder="x", label_names=["a", "b"], span_length_prior=bad)  # type: ignore[arg-type]
