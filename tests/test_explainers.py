"""Explainers on a tiny random model: registry, shapes, hand-checkable identities."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from selfexplain.errors import InvalidInputError
from selfexplain.methods.explainers import METHODS, get_method
from selfexplain.methods.explainers.alpha import covering_mass
from selfexplain.methods.explainers.integrated_gradients import IntegratedGradientsMethod
from selfexplain.methods.explainers.occlusion import perturbed_inputs, predict_kept

TEXT = "The visuals are gorgeous, but the story is thin."


def test_registry_names_and_unknown_name() -> None:
    assert list(METHODS) == [  # rank order (tests/test_explainers_registry.py checks the default sets)
        "alpha",
        "attention_rows",
        "rollout_rows",
        "attention_cls",
        "attention_mean",
        "rollout",
        "gradient",
        "grad_x_input",
        "integrated_gradients",
        "saliency",
        "deeplift",
        "loo",
        "feature_ablation",
        "occlusion",
        "lime",
        "kernel_shap",
        "position_prior",
        "random",
    ]
    with pytest.raises(InvalidInputError, match="unknown attribution method"):
        get_method("shap")


@pytest.mark.parametrize("name", list(METHODS))
def test_every_explainer_scores_every_token(tiny_explainer, name: str) -> None:
    instance = tiny_explainer.instance(TEXT)
    scores = get_method(name).attribute(tiny_explainer, instance)
    assert scores.shape == (instance.num_tokens,) and np.isfinite(scores).all()
    if name in ("attention_cls", "attention_mean", "rollout", "gradient"):
        assert (scores >= 0).all()


def test_alpha_scores_match_the_explanation(tiny_explainer) -> None:
    instance = tiny_explainer.instance(TEXT)
    explanation = tiny_explainer.explain(TEXT)
    spans = get_method("alpha").span_scores(tiny_explainer, instance)
    np.testing.assert_allclose(spans, explanation.alpha, atol=1e-6)
    np.testing.assert_allclose(get_method("alpha").attribute(tiny_explainer, instance), explanation.token_scores())
    # hand case: spans (0,0)=.5, (0,1)=.3, (1,2)=.2 -> tokens .8, .5, .2
    toy = np.zeros((3, 3))
    toy[0, 0], toy[0, 1], toy[1, 2] = 0.5, 0.3, 0.2
    np.testing.assert_allclose(covering_mass(toy), [0.8, 0.5, 0.2])


def test_random_is_seeded_per_input(tiny_explainer) -> None:
    instance = tiny_explainer.instance(TEXT)
    a = get_method("random").attribute(tiny_explainer, instance)
    b = METHODS["random"]().attribute(tiny_explainer, instance)
    c = METHODS["random"](seed=1).attribute(tiny_explainer, instance)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_integrated_gradients_completeness(tiny_explainer) -> None:
    """Sum of IG scores ~= logit(input) - logit(baseline) (the completeness axiom)."""
    instance = tiny_explainer.instance(TEXT)
    method = IntegratedGradientsMethod(steps=64, batch_size=32)
    scores = method.attribute(tiny_explainer, instance)
    net = tiny_explainer.model
    embeds = net.encoder.get_input_embeddings()(instance.batch.input_ids)
    base = method.baseline_embeddings(tiny_explainer, instance, embeds)
    with torch.no_grad():
        inputs = instance.batch.model_inputs()
        full = net(**inputs, inputs_embeds=embeds).logits[0, instance.target]
        empty = net(**inputs, inputs_embeds=base).logits[0, instance.target]
    assert scores.sum() == pytest.approx(float(full - empty), rel=0.05, abs=1e-3)


def test_deletion_equals_the_shorter_input(tiny_explainer) -> None:
    instance = tiny_explainer.instance("good plot bad acting")
    keep = np.array([[True, True, True, True], [True, False, True, True], [False, False, False, False]])
    inputs = perturbed_inputs(tiny_explainer, instance, keep, "delete")
    ids = instance.batch.input_ids[0].tolist()  # [CLS] good plot bad acting [SEP]
    assert inputs["input_ids"][1, : len(ids) - 1].tolist() == ids[:2] + ids[3:]
    assert inputs["attention_mask"].sum(dim=1).tolist() == [6, 5, 3]  # the empty row keeps one filler token
    assert inputs["input_ids"][2, 1].item() == tiny_explainer.tokenizer.mask_token_id
    masked = perturbed_inputs(tiny_explainer, instance, keep[1:2], "mask")
    assert masked["input_ids"][0, 2].item() == tiny_explainer.tokenizer.mask_token_id
    assert masked["attention_mask"].sum().item() == 6
    probs = predict_kept(tiny_explainer, instance, keep[:2])
    np.testing.assert_allclose(probs[0], instance.probabilities, atol=1e-5)
    shorter = tiny_explainer.explain("good bad acting", attentions=False)
    np.testing.assert_allclose(probs[1], shorter.probabilities, atol=1e-5)


def test_shared_and_reordered_perturbations_give_each_row_its_own_answer(tiny_explainer) -> None:
    instance = tiny_explainer.instance("good plot bad acting , truly")
    rng = np.random.default_rng(0)
    distinct = rng.random((7, instance.num_tokens)) < 0.5
    rows = distinct[[3, 0, 3, 6, 1, 0, 5, 2, 4, 3]]  # duplicates, any order
    together = predict_kept(tiny_explainer, instance, rows, batch_size=3)
    one_by_one = np.concatenate([predict_kept(tiny_explainer, instance, row[None]) for row in rows])
    np.testing.assert_allclose(together, one_by_one, atol=1e-5)
    assert predict_kept(tiny_explainer, instance, rows[:0]).shape == (0, instance.probabilities.shape[0])


def test_leave_one_out_is_the_probability_drop(tiny_explainer) -> None:
    instance = tiny_explainer.instance("good plot bad acting")
    scores = get_method("loo").attribute(tiny_explainer, instance)
    target = instance.target
    without_plot = tiny_explainer.explain("good bad acting", attentions=False).probabilities[target]
    assert scores[1] == pytest.approx(instance.probabilities[target] - without_plot, abs=1e-5)


def test_attention_rows_and_position_prior(tiny_explainer) -> None:
    """The row-based attention scores average the real tokens' rows of the read layer; the prior is
    (t + 1)(T - t) per text."""
    from selfexplain.methods.explainers.attention_cls import attention_maps

    instance = tiny_explainer.instance("a quiet and moving film")
    maps = attention_maps(instance)
    rows = get_method("attention_rows").attribute(tiny_explainer, instance)
    expected = maps[-1].mean(axis=0)[instance.positions][:, instance.positions].mean(axis=0)
    np.testing.assert_allclose(rows, expected, rtol=1e-6)
    rolled = get_method("rollout_rows").attribute(tiny_explainer, instance)
    assert rolled.shape == (instance.num_tokens,) and (rolled > 0).all()
    count = instance.num_tokens
    prior = get_method("position_prior").attribute(tiny_explainer, instance)
    np.testing.assert_array_equal(prior, [(t + 1) * (count - t) for t in range(count)])
