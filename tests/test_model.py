from __future__ import annotations

from pathlib import Path

import pytest
import torch
from helpers import make_explainer

from selfexplain.core.inputs import encode
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.model import SelfExplainingModel, sparsity_loss


def test_forward_returns_logits_alpha_attentions_and_states(tiny_pair_explainer) -> None:
    explainer = tiny_pair_explainer
    batch = encode(explainer.tokenizer, ["a man sleeps", "two dogs run fast"], ["he rests", "animals move"])
    out = explainer.model(**batch.model_inputs(), output_attentions=True, output_hidden_states=True)
    size, length = batch.input_ids.shape
    assert out.logits.shape == (size, 3)
    assert out.alpha.shape == out.span_valid.shape == (size, length * (length + 1) // 2)
    torch.testing.assert_close(out.alpha.sum(dim=1), torch.ones(size))
    assert len(out.attentions) == 2 and out.attentions[0].shape == (size, 2, length, length)
    assert len(out.hidden_states) == 3
    # no valid span crosses the separator or touches a special token
    valid = out.span_valid
    for b in range(size):
        seg = batch.segment_ids[b]
        starts, ends = out.span_starts[valid[b]], out.span_ends[valid[b]]
        assert bool((seg[starts] == seg[ends]).all())
        assert bool(batch.token_mask[b][starts].all() and batch.token_mask[b][ends].all())


def test_loss_is_cross_entropy_minus_lambda_alpha_squared() -> None:
    logits = torch.tensor([[2.0, 0.0], [0.0, 1.0]])
    labels = torch.tensor([0, 1])
    alpha = torch.tensor([[1.0, 0.0], [0.5, 0.5]])
    ce = torch.nn.functional.cross_entropy(logits, labels)
    expected = ce - 0.5 * (1.0 + 0.5) / 2
    torch.testing.assert_close(sparsity_loss(logits, labels, alpha, 0.5), expected)
    torch.testing.assert_close(sparsity_loss(logits, labels, None, 0.5), ce)


@pytest.mark.parametrize("head", ["cls", "mean"])
def test_baseline_heads_have_no_alpha(tiny_encoder: Path, head: str) -> None:
    explainer = make_explainer(tiny_encoder, head=head)
    batch = encode(explainer.tokenizer, ["fine film"])
    out = explainer.model(**batch.model_inputs(), labels=torch.tensor([1]))
    assert out.alpha is None and out.loss is not None and out.logits.shape == (1, 5)


def test_encoder_layer_and_width_options(tiny_encoder: Path) -> None:
    torch.manual_seed(0)
    config = ModelConfig(encoder=str(tiny_encoder), label_names=["a", "b"], encoder_layer=0, max_span_width=2)
    model = SelfExplainingModel(config).eval()
    explainer = make_explainer(tiny_encoder)
    batch = encode(explainer.tokenizer, ["one two three four"])
    out = model(**batch.model_inputs())
    assert int((out.span_ends - out.span_starts).max()) == 1
    # layer 0 = embeddings: the output must not depend on the transformer layers
    with torch.no_grad():
        for p in model.encoder.encoder.parameters():
            p.add_(1.0)
    torch.testing.assert_close(model(**batch.model_inputs()).logits, out.logits)


def test_bad_config_is_refused() -> None:
    with pytest.raises(ValueError):
        ModelConfig(encoder="x", label_names=[])
    with pytest.raises(ValueError):
        ModelConfig(encoder="x", label_names=["a"], head="other")  # type: ignore[arg-type]


def test_bfloat16_encoder_stays_close_to_float32_and_keeps_float32_outputs(tiny_model_dir: Path) -> None:
    from selfexplain.core.pipeline import load_model

    explainer = load_model(tiny_model_dir)
    batch = encode(explainer.tokenizer, ["a gorgeous , witty film", "dull and far too long"])
    exact = explainer.model(**batch.model_inputs(), output_attentions=True)
    explainer.model.set_encoder_precision("bfloat16")
    try:
        reduced = explainer.model(**batch.model_inputs(), output_attentions=True)
    finally:
        explainer.model.set_encoder_precision("float32")
    assert reduced.logits.dtype == reduced.alpha.dtype == reduced.attentions[0].dtype == torch.float32
    torch.testing.assert_close(reduced.alpha.sum(dim=1), torch.ones(2))
    torch.testing.assert_close(reduced.logits, exact.logits, atol=0.05, rtol=0.05)
    assert not torch.equal(reduced.logits, exact.logits)  # bf16 really ran
    with pytest.raises(ValueError, match="unknown encoder precision"):
        explainer.model.set_encoder_precision("float16")  # type: ignore[arg-type]
