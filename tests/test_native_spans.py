from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

from selfexplain.core.modeling import native_spans
from selfexplain.core.modeling.spans import SpanLayer, span_index, span_validity
from selfexplain.core.pipeline import load_model

NO_COMPILER = shutil.which("cc") is None and shutil.which("gcc") is None
needs_compiler = pytest.mark.skipif(NO_COMPILER, reason="the native kernels need a C compiler (fallback tested below)")


@pytest.fixture
def fusion_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFEXPLAIN_FUSED", "1")
    monkeypatch.setattr(native_spans, "_failure", None)


def _layer_and_inputs(batch: int = 3, length: int = 12, size: int = 16, max_width: int | None = None):
    torch.manual_seed(0)
    layer = SpanLayer(size, chunk_elements=size * batch * 7, grad_chunk_elements=size * batch * 7)
    hidden = torch.randn(batch, length, size, requires_grad=True)
    token_mask = torch.ones(batch, length, dtype=torch.bool)
    token_mask[:, 0] = token_mask[:, -1] = False
    token_mask[-1, length // 2 :] = False  # a shorter example (padding slots)
    segments = torch.zeros(batch, length, dtype=torch.long)
    segments[0, length // 2 :] = 1  # a pair
    starts, ends = span_index(length, max_width)
    return layer, hidden, span_validity(token_mask, segments, starts, ends), starts, ends


def _run(layer: SpanLayer, hidden: torch.Tensor, valid: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor):
    out = layer(hidden, valid, starts, ends)
    loss = out.pooled.square().sum() + 10 * out.alpha.square().sum()
    grads = torch.autograd.grad(loss, [hidden, *layer.parameters()])
    return out, grads


@needs_compiler
@pytest.mark.parametrize(
    ("batch", "length", "max_width"),
    [(3, 12, None), (1, 30, None), (4, 20, 5)],  # examples >= threads; one example split over threads; a band
)
def test_native_matches_eager_values_and_gradients(
    fusion_on: None, batch: int, length: int, max_width: int | None
) -> None:
    layer, hidden, valid, starts, ends = _layer_and_inputs(batch, length, max_width=max_width)
    eager, eager_grads = _run(layer, hidden, valid, starts, ends)
    layer.fused = True
    native, native_grads = _run(layer, hidden, valid, starts, ends)
    assert native_spans._failure is None
    torch.testing.assert_close(native.pooled, eager.pooled, atol=2e-6, rtol=1e-5)
    torch.testing.assert_close(native.alpha, eager.alpha, atol=1e-7, rtol=1e-5)
    assert torch.equal(torch.isinf(native.logits), ~valid)
    # gradients at the scale of each tensor (the bias gradient is ~0: softmax ignores a shift)
    for got, want in zip(native_grads, eager_grads):
        torch.testing.assert_close(got, want, atol=1e-5 * max(1.0, want.abs().max().item()), rtol=1e-4)
    torch.testing.assert_close(native.alpha.sum(dim=1), torch.ones(batch))
    assert (native.alpha[~valid] == 0).all()


@needs_compiler
def test_native_tanh_is_within_its_stated_error(fusion_on: None) -> None:
    values = torch.linspace(-20, 20, 400_001)
    approx = native_spans.native_tanh(values)
    assert (approx.double() - torch.tanh(values.double())).abs().max() < 4e-7
    assert approx.abs().max() <= 1.0
    assert native_spans.native_tanh(torch.tensor([0.0])).item() == 0.0


@needs_compiler
def test_threads_do_not_change_the_result(fusion_on: None) -> None:
    layer, hidden, valid, starts, ends = _layer_and_inputs(1, 100)  # 5,050 slots: several chunks
    layer.fused = True
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one, one_grads = _run(layer, hidden, valid, starts, ends)
        torch.set_num_threads(3)
        many, many_grads = _run(layer, hidden, valid, starts, ends)
    finally:
        torch.set_num_threads(threads)
    # the forward is bitwise the same (sharded batch runs rely on it); gradients sum per-thread parts
    assert torch.equal(many.pooled, one.pooled) and torch.equal(many.logits, one.logits)
    for got, want in zip(many_grads, one_grads):
        torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-4)


def test_build_failure_falls_back_to_eager_with_one_warning(
    fusion_on: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(native_spans, "_library", None)
    monkeypatch.setenv("SELFEXPLAIN_CACHE", str(tmp_path))
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    layer, hidden, valid, starts, ends = _layer_and_inputs()
    eager, _ = _run(layer, hidden, valid, starts, ends)
    layer.fused = True
    with pytest.warns(UserWarning, match="native span kernels unavailable"):
        fallback, _ = _run(layer, hidden, valid, starts, ends)
    torch.testing.assert_close(fallback.pooled, eager.pooled)
    assert not native_spans.fusion_allowed()


def test_environment_switch_keeps_the_compiler_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFEXPLAIN_FUSED", "0")
    monkeypatch.setattr(native_spans, "_build", pytest.fail)
    layer, hidden, valid, starts, ends = _layer_and_inputs()
    layer.fused = True
    out, _ = _run(layer, hidden, valid, starts, ends)
    assert torch.isfinite(out.pooled).all()


@needs_compiler
def test_load_model_fused_explains_like_eager(fusion_on: None, tiny_model_dir: Path) -> None:
    eager = load_model(tiny_model_dir).explain("a gorgeous , witty film that never drags")
    fused_model = load_model(tiny_model_dir, fused=True)
    assert fused_model.model.span_layer is not None and fused_model.model.span_layer.fused
    fused = fused_model.explain("a gorgeous , witty film that never drags")
    assert fused.label == eager.label
    torch.testing.assert_close(torch.as_tensor(fused.probabilities), torch.as_tensor(eager.probabilities))
    assert [s.text for s in fused.top_spans(5)] == [s.text for s in eager.top_spans(5)]


@needs_compiler
def test_native_refuses_shapes_that_would_read_out_of_bounds(fusion_on: None) -> None:
    features = torch.randn(2, 6, 12)
    weight, bias = torch.randn(4), torch.zeros(())
    starts, ends = span_index(6)
    valid = torch.ones(2, starts.numel(), dtype=torch.bool)
    with pytest.raises(ValueError, match="outside 0..4"):
        native_spans.native_sic(features[:, :5], weight, bias, starts, ends, valid)
    with pytest.raises(ValueError, match="do not fit"):
        native_spans.native_sic(features, torch.randn(5), bias, starts, ends, valid)
    with pytest.raises(ValueError, match="do not fit"):
        native_spans.native_sic(features, weight, bias, starts, ends, valid[:, :-1])
    logits, pooled = native_spans.native_sic(features, weight, bias, starts, ends, valid)
    assert logits.shape == (2, starts.numel()) and pooled.shape == (2, 4)


def _library_path(cache: Path) -> Path:
    """Build once into ``cache`` (``SELFEXPLAIN_CACHE``) and return the library file."""
    native_spans._build()
    (found,) = (cache / "native").glob("sic_kernels-*.so")
    return found


@needs_compiler
def test_cache_is_private_even_with_umask_000(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    cache = tmp_path / "cache"
    monkeypatch.setenv("SELFEXPLAIN_CACHE", str(cache))
    old = os.umask(0)
    try:
        library = _library_path(cache)
    finally:
        os.umask(old)
    for path in (cache, cache / "native", library):
        assert path.stat().st_mode & 0o077 == 0, oct(path.stat().st_mode)


@needs_compiler
def test_an_empty_library_is_rebuilt(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SELFEXPLAIN_CACHE", str(tmp_path / "first"))
    name = _library_path(tmp_path / "first").name  # (a loaded library must not be truncated in place)
    cache = tmp_path / "cache"
    (cache / "native").mkdir(parents=True, mode=0o700)
    (cache / "native" / name).write_bytes(b"")
    monkeypatch.setenv("SELFEXPLAIN_CACHE", str(cache))
    native_spans._build()
    assert (cache / "native" / name).stat().st_size > 0


@needs_compiler
def test_planted_or_linked_libraries_and_open_folders_are_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import os

    cache = tmp_path / "cache"
    monkeypatch.setenv("SELFEXPLAIN_CACHE", str(cache))
    library = _library_path(cache)
    real = library.with_suffix(".real")
    library.rename(real)
    library.symlink_to(real)
    with pytest.raises(RuntimeError, match="not a library this user built"):
        native_spans._build()
    library.unlink()
    real.rename(library)
    os.chmod(library, 0o777)
    with pytest.raises(RuntimeError, match="writable by other users"):
        native_spans._build()
    os.chmod(library, 0o700)
    os.chmod(cache / "native", 0o777)
    with pytest.raises(RuntimeError, match="must be private"):
        native_spans._build()
    os.chmod(cache / "native", 0o700)
    if os.getuid() == 0:  # as root, give the file to another user: a library planted by someone else
        os.chown(library, 12345, 12345)
        with pytest.raises(RuntimeError, match="not a library this user built"):
            native_spans._build()
