from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
import torch

from selfexplain.core.inputs import plan_inputs
from selfexplain.core.modeling.normalisers import normalise
from selfexplain.data import Example
from selfexplain.methods.training.loop import TrainOptions, batch_loss
from selfexplain.methods.training.objectives import (
    batch_effects,
    complement_loss,
    erasure_loss,
    removal_loss,
    sufficiency_loss,
    top_span_inputs,
)
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


@pytest.mark.parametrize("representation", ["mean", "sic"])
def test_complement_loss_backward_through_a_chunked_span_layer(tiny_encoder: Path, representation: str) -> None:
    """The uniform-alpha reread is checkpointed chunk by chunk when the spans do not fit one chunk; its
    backward recomputes each chunk after the layer is switched back to its own alpha, and must still see
    the uniform one (it raised CheckpointError for mean span vectors, and for "sic" without the native
    kernels). Chunked and whole give the same gradient."""
    texts = ["a dull and long film that never ends", "bright warm fun"]
    grads = []
    for chunked in (False, True):
        explainer = make_explainer(
            tiny_encoder, seed=3, span_unit="word", span_representation=representation, normaliser="entmax15"
        )
        layer = explainer.model.span_layer
        if chunked:  # three spans per chunk
            layer.grad_chunk_elements = len(texts) * layer.W1.weight.shape[0] * 3
        _, output = _forward(explainer, texts)
        complement_loss(explainer.model, output).backward()
        assert layer.uniform is False and layer.normaliser == "entmax15"
        grads.append(explainer.model.encoder.embeddings.word_embeddings.weight.grad.clone())
    assert grads[0].abs().sum() > 0
    torch.testing.assert_close(grads[1], grads[0], atol=1e-6, rtol=1e-4)


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


def _erasure_reference(output, effects: torch.Tensor, temperature: float) -> torch.Tensor:
    """The erasure term span by span (the loss computes it without a loop over spans)."""
    rows = []
    for b in range(effects.shape[0]):
        valid = output.span_valid[b].nonzero().flatten().tolist()
        if effects[b].max() <= 0 or not valid:
            continue
        scores = torch.tensor(
            [effects[b, output.span_starts[s] : output.span_ends[s] + 1].mean().item() for s in valid]
        )
        target = torch.softmax(scores / temperature, dim=0)
        log_p = torch.log_softmax(output.span_logits[b, valid], dim=0)
        rows.append(-(target * log_p).sum())
    return torch.stack(rows).mean()


def test_erasure_loss_matches_span_by_span_cross_entropy_and_skips_rows_without_a_needed_word(
    tiny_encoder: Path,
) -> None:
    explainer = make_explainer(tiny_encoder, seed=4, span_unit="word", max_span_width=3)
    batch, output = _forward(explainer, ["a dull and long film", "bright warm fun", "so so"])
    width = batch.input_ids.shape[1]
    torch.manual_seed(0)
    effects = torch.rand(3, width) * 0.4 - 0.1
    effects[2] = -0.05  # no word the teacher needs: the row takes no part
    effects[:, 0] = 0.0
    loss = erasure_loss(explainer.model, output, effects, temperature=0.05)
    assert torch.allclose(loss, _erasure_reference(output, effects, 0.05), atol=1e-5)
    other = effects.clone()
    other[2] = torch.linspace(-0.5, 0.0, width)  # still no needed word: the term is unchanged
    assert torch.allclose(erasure_loss(explainer.model, output, other, temperature=0.05), loss, atol=1e-6)
    # a batch where no row has a needed word adds nothing (and no NaN)
    assert erasure_loss(explainer.model, output, torch.full((3, width), -0.1)).item() == 0.0


@pytest.mark.parametrize("normaliser", ["softmax", "sparsemax"])
def test_erasure_loss_trains_the_span_scores_towards_the_needed_word(tiny_encoder: Path, normaliser: str) -> None:
    # a sparse normaliser scores the slots without gradient in its forward: the term must score them again
    explainer = make_explainer(
        tiny_encoder, seed=6, span_unit="word", max_span_width=2, dropout=0.0, normaliser=normaliser
    )
    model = explainer.model.train()
    texts = ["a dull and long film"]
    plan = plan_inputs(explainer.tokenizer, texts, None, 128, "truncate")
    [(_, batch)] = plan.batches
    dull = batch.tokens[0].index("dull")
    effects = torch.zeros(1, batch.input_ids.shape[1])
    effects[0, dull] = 0.3  # the teacher needs "dull" alone
    head = [p for n, p in model.named_parameters() if not n.startswith("encoder.")]
    optimizer = torch.optim.Adam(head, lr=1e-2)
    for _ in range(40):
        loss = erasure_loss(model, model(**batch.model_inputs()), effects)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    output = model(**batch.model_inputs())
    top = int(output.alpha[0].argmax())
    assert (int(output.span_starts[top]), int(output.span_ends[top])) == (dull, dull)


def test_batch_effects_pads_each_row_and_leaves_rows_cut_to_fit_out() -> None:
    rows = batch_effects([torch.tensor([0.0, 0.25, 0.5]), torch.tensor([0.0, 0.5]), torch.tensor([0.75])], 4,
                         [False, False, True])  # fmt: skip
    assert rows.tolist() == [[0.0, 0.25, 0.5, 0.0], [0.0, 0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
    assert batch_effects([torch.zeros(0)], 2, [False]).tolist() == [[0.0, 0.0]]


def test_batch_loss_adds_the_erasure_term_with_its_weight(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=2, span_unit="word", lambda_=0.0, dropout=0.0)
    chunk = [Example("a dull and long film", None, 0), Example("bright warm fun all through", None, 3)]
    batch, output = _forward(explainer, [e.text for e in chunk])
    effects = [torch.linspace(-0.1, 0.3, len(row)) for row in batch.tokens]
    plain = batch_loss(explainer.model, explainer.tokenizer, chunk, TrainOptions(), torch.device("cpu"))
    options = TrainOptions(erasure_weight=2.0)
    weighted = batch_loss(explainer.model, explainer.tokenizer, chunk, options, torch.device("cpu"), None, effects)
    term = erasure_loss(explainer.model, output, batch_effects(effects, batch.input_ids.shape[1], [False, False]))
    assert term.item() > 0
    assert torch.allclose(weighted, plain + 2.0 * term, atol=1e-5)


def test_train_command_refuses_negative_weights(tmp_path: Path) -> None:
    from selfexplain.cli import main

    args = ["train", "--train", "x.txt", "--dev", "x.txt", "--out", str(tmp_path / "run")]
    assert main([*args, "--complement-weight", "-1"]) == 2
    assert main([*args, "--sufficiency-weight", "-0.5"]) == 2
    assert main([*args, "--removal-weight", "-2"]) == 2


def _removal_reference(model, output) -> torch.Tensor:
    """The removal term row by row: the top span out, the normaliser over the rest, the classifier."""
    layer = model.span_layer
    features = layer.token_features(output.span_inputs)
    vectors = layer.span_vectors(features, output.span_starts, output.span_ends)  # [B, S, H]
    terms = []
    for b in range(output.alpha.shape[0]):
        rest = output.span_valid[b].clone()
        rest[int(output.alpha[b].argmax())] = False
        alpha = normalise(layer.normaliser, output.span_logits[b : b + 1].detach(), rest.unsqueeze(0))[0]
        probs = torch.softmax(model.output(alpha @ vectors[b]), dim=-1)
        terms.append(-torch.log(1 - probs[int(output.logits[b].argmax())]))
    return torch.stack(terms).mean()


@pytest.mark.parametrize("normaliser", ["softmax", "sparsemax"])
def test_removal_loss_reads_the_prediction_with_the_top_span_out_of_alpha(tiny_encoder: Path, normaliser: str) -> None:
    explainer = make_explainer(
        tiny_encoder, seed=5, span_unit="word", max_span_width=3, dropout=0.0, normaliser=normaliser
    )
    model = explainer.model.eval()
    batch, output = _forward(explainer, ["a dull and long film", "bright warm fun", "so so"])
    loss = removal_loss(model, output)
    with torch.no_grad():
        assert torch.allclose(loss, _removal_reference(model, output), atol=1e-5)
    assert loss.item() > 0
    loss.backward()
    assert model.output.weight.grad is not None and model.output.weight.grad.abs().sum() > 0
    # a row with a single valid span has no rest: it takes no part, and a batch of such rows adds 0
    single = output.span_valid & (torch.arange(output.span_valid.shape[1]) == output.alpha.argmax(dim=1, keepdim=True))
    assert removal_loss(model, dataclasses.replace(output, span_valid=single)).item() == 0.0


def test_removal_loss_teaches_the_other_spans_not_to_reach_the_decision(tiny_encoder: Path) -> None:
    explainer = make_explainer(
        tiny_encoder, seed=7, span_unit="word", max_span_width=2, dropout=0.0, normaliser="sparsemax"
    )
    model = explainer.model.train()
    chunk = [Example("a dull and long film", None, 0), Example("bright warm fun all through", None, 4)]
    plan = plan_inputs(explainer.tokenizer, [e.text for e in chunk], None, 128, "truncate")
    [(_, batch)] = plan.batches
    labels = torch.tensor([e.label for e in chunk])
    head = [p for n, p in model.named_parameters() if not n.startswith("encoder.")]
    optimizer = torch.optim.Adam(head, lr=1e-2)
    for _ in range(60):
        output = model(**batch.model_inputs(), labels=labels)
        (output.loss + removal_loss(model, output)).backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    output = model(**batch.model_inputs())
    assert output.logits.argmax(dim=1).tolist() == [0, 4]  # the full input still decides as labelled
    assert removal_loss(model, output).item() < 0.1  # and the rest of alpha no longer does
