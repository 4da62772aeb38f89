from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import torch

from selfexplain.data import Example
from selfexplain.inputs import plan_inputs
from selfexplain.training.loop import TrainOptions, batch_loss
from selfexplain.training.objectives import complement_loss, sufficiency_loss, top_span_inputs
from tests.helpers import make_explainer


def _forward(explainer, texts, pairs=None):
    plan = plan_inputs(explainer.tokenizer, texts, pairs, 128, "truncate")
    [(_, batch)] = plan.batches
    return batch, explainer.model(**batch.model_inputs())


def test_complement_loss_is_log_classes_minus_entropy_of_the_uniform_alpha_prediction(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=3, span_unit="word")
    model = explainer.model.eval()
    texts = ["a dull and long film", "bright warm fun"]
    batch, output = _forward(explainer, texts)
    # the same input through a model whose alpha is uniform by construction
    model.span_layer.uniform = True
    uniform_logits = model(**batch.model_inputs()).logits
    model.span_layer.uniform = False
    probs = torch.softmax(uniform_logits, dim=-1)
    expected = (math.log(probs.shape[-1]) + (probs * probs.log()).sum(-1)).mean()
    loss = complement_loss(model, output)
    assert torch.allclose(loss, expected, atol=1e-5)
    assert loss.item() >= 0 and model.span_layer.uniform is False and model.span_layer.normaliser == "softmax"
    loss.backward()  # the term trains the encoder and the span layer through the uniform pooling
    assert model.span_layer.W1.weight.grad is not None and model.span_layer.W1.weight.grad.abs().sum() > 0


def test_top_span_inputs_read_the_characters_of_the_highest_alpha_span(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, pair=True, seed=1, span_unit="word")
    texts, pairs = ["A man plays guitar.", "Two dogs run"], ["A person makes music", "cats sleep"]
    batch, output = _forward(explainer, texts, pairs)
    alpha = torch.zeros_like(output.alpha)
    starts, ends = output.span_starts, output.span_ends
    # row 0: the span "plays guitar" of the first text; row 1: "cats" of the second
    tokens0, tokens1 = batch.tokens[0], batch.tokens[1]
    plays, guitar = tokens0.index("plays"), tokens0.index("guitar")
    cats = len(tokens1) - 1 - tokens1[::-1].index("cats")
    alpha[0, ((starts == plays) & (ends == guitar)).nonzero()[0, 0]] = 1.0
    alpha[1, ((starts == cats) & (ends == cats)).nonzero()[0, 0]] = 1.0
    reduced, reduced_pairs = top_span_inputs(batch, dataclasses.replace(output, alpha=alpha), texts, pairs)
    assert reduced == ["plays guitar", "Two dogs run"]
    assert reduced_pairs == ["A person makes music", "cats"]


def test_sufficiency_loss_is_zero_when_the_top_span_decides_alike_and_holds_the_full_prediction_fixed() -> None:
    full = torch.tensor([[2.0, 0.0, -1.0]], requires_grad=True)
    assert sufficiency_loss(full, full.detach().clone()).item() < 1e-7
    top = torch.tensor([[0.0, 1.0, 0.0]], requires_grad=True)
    loss = sufficiency_loss(full, top)
    assert loss.item() > 0.5
    loss.backward()
    assert full.grad is None and top.grad is not None


def test_batch_loss_adds_each_term_with_its_weight(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=2, span_unit="word", lambda_=0.0, dropout=0.0)
    chunk = [Example("a dull and long film", None, 0), Example("bright warm fun all through", None, 3)]
    plain = batch_loss(explainer.model, explainer.tokenizer, chunk, TrainOptions(), torch.device("cpu"))
    both = TrainOptions(complement_weight=1.0, sufficiency_weight=1.0)
    torch.manual_seed(0)
    with_terms = batch_loss(explainer.model, explainer.tokenizer, chunk, both, torch.device("cpu"))
    batch, output = _forward(explainer, [e.text for e in chunk])
    reduced, _ = top_span_inputs(batch, output, [e.text for e in chunk], None)
    _, top = _forward(explainer, reduced)
    expected = plain + complement_loss(explainer.model, output) + sufficiency_loss(output.logits, top.logits)
    assert torch.allclose(with_terms, expected, atol=1e-5)
    assert with_terms.item() > plain.item()


def test_train_command_refuses_negative_weights(tmp_path: Path) -> None:
    from selfexplain.cli import main

    args = ["train", "--train", "x.txt", "--dev", "x.txt", "--out", str(tmp_path / "run")]
    assert main([*args, "--complement-weight", "-1"]) == 2
    assert main([*args, "--sufficiency-weight", "-0.5"]) == 2
