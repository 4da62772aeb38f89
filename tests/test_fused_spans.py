from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

from selfexplain import fused_spans
from selfexplain.pipeline import load_model
from selfexplain.spans import SpanLayer, span_index, span_validity


@pytest.fixture
def fusion_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFEXPLAIN_FUSED", "1")
    monkeypatch.setattr(fused_spans, "_failure", None)


def _layer_and_inputs(chunk_elements: int) -> tuple[SpanLayer, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    layer = SpanLayer(16, chunk_elements=chunk_elements, grad_chunk_elements=chunk_elements)
    hidden = torch.randn(3, 12, 16, requires_grad=True)
    token_mask = torch.ones(3, 12, dtype=torch.bool)
    token_mask[:, 0] = token_mask[:, -1] = False
    token_mask[2, 7:] = False  # a shorter example
    segments = torch.zeros(3, 12, dtype=torch.long)
    segments[1, 6:] = 1  # a pair
    starts, ends = span_index(12)
    return layer, hidden, span_validity(token_mask, segments, starts, ends), starts, ends


def _run(layer: SpanLayer, hidden: torch.Tensor, valid: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor):
    out = layer(hidden, valid, starts, ends)
    loss = out.pooled.square().sum() + out.alpha.square().sum()
    grads = torch.autograd.grad(loss, [hidden, *layer.parameters()])
    return out, grads


NO_COMPILER = shutil.which("c++") is None and shutil.which("g++") is None


@pytest.mark.skipif(NO_COMPILER, reason="torch.compile needs a C++ compiler (the fallback is tested below)")
@pytest.mark.parametrize("chunk_elements", [1 << 20, 16 * 3 * 7])  # one chunk; many chunks with recompute
def test_fused_chunks_match_eager_values_and_gradients(fusion_on: None, chunk_elements: int) -> None:
    layer, hidden, valid, starts, ends = _layer_and_inputs(chunk_elements)
    eager, eager_grads = _run(layer, hidden, valid, starts, ends)
    layer.fused = True
    fused, fused_grads = _run(layer, hidden, valid, starts, ends)
    assert fused_spans._failure is None
    torch.testing.assert_close(fused.pooled, eager.pooled, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(fused.alpha, eager.alpha, atol=1e-6, rtol=1e-5)
    for got, want in zip(fused_grads, eager_grads):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-4)
    assert torch.allclose(fused.alpha.sum(dim=1), torch.ones(3))
    assert (fused.alpha[~valid] == 0).all()


def test_compiler_failure_falls_back_to_eager_with_one_warning(
    fusion_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_compile(*args: object, **kwargs: object) -> object:
        raise RuntimeError("no C++ compiler found")

    monkeypatch.setattr(fused_spans, "_compiled", None)
    monkeypatch.setattr(torch, "compile", broken_compile)
    layer, hidden, valid, starts, ends = _layer_and_inputs(1 << 20)
    eager, _ = _run(layer, hidden, valid, starts, ends)
    layer.fused = True
    with pytest.warns(UserWarning, match="fused span layer unavailable.*no C\\+\\+ compiler"):
        fallback, _ = _run(layer, hidden, valid, starts, ends)
    torch.testing.assert_close(fallback.pooled, eager.pooled)
    assert not fused_spans.fusion_allowed()


def test_environment_switch_keeps_the_compiler_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFEXPLAIN_FUSED", "0")
    monkeypatch.setattr(torch, "compile", pytest.fail)
    layer, hidden, valid, starts, ends = _layer_and_inputs(1 << 20)
    layer.fused = True
    out, _ = _run(layer, hidden, valid, starts, ends)
    assert torch.isfinite(out.pooled).all()


@pytest.mark.skipif(NO_COMPILER, reason="torch.compile needs a C++ compiler")
def test_load_model_fused_explains_like_eager(fusion_on: None, tiny_model_dir: Path) -> None:
    eager = load_model(tiny_model_dir).explain("a gorgeous , witty film that never drags")
    fused_model = load_model(tiny_model_dir, fused=True)
    assert fused_model.model.span_layer is not None and fused_model.model.span_layer.fused
    fused = fused_model.explain("a gorgeous , witty film that never drags")
    assert fused.label == eager.label
    torch.testing.assert_close(torch.as_tensor(fused.probabilities), torch.as_tensor(eager.probabilities))
    assert [s.text for s in fused.top_spans(5)] == [s.text for s in eager.top_spans(5)]
