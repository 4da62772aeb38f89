"""The captum methods on tiny random models: shapes, seeding, and one identity per method checked
against a direct forward/backward through the network."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import make_explainer

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.methods.explainers import ALIASES, METHODS, get_method
from selfexplain.methods.explainers.base import Instance, embedding_gradients, word_embeddings
from selfexplain.methods.explainers.deeplift import DeepLiftMethod
from selfexplain.methods.explainers.feature_ablation import FeatureAblationMethod
from selfexplain.methods.explainers.integrated_gradients import IntegratedGradientsMethod
from selfexplain.methods.explainers.kernel_shap import KernelShapMethod
from selfexplain.methods.explainers.lime import LimeMethod
from selfexplain.methods.explainers.window_occlusion import OcclusionMethod

CAPTUM = ("saliency", "input_x_gradient", "deeplift", "feature_ablation", "occlusion", "lime", "kernel_shap")
TEXT = "The visuals are gorgeous, but the story is thin."
PREMISE, HYPOTHESIS = "A man plays a guitar on stage.", "Someone makes music."


@pytest.fixture(scope="module")
def padded(tiny_encoder) -> SelfExplainer:
    """A tiny model whose pad embedding is not zero (BERT initialises it to zero), so the ``"pad"``
    and ``"zero"`` baselines differ."""
    model = make_explainer(tiny_encoder, seed=3)
    table = model.model.encoder.get_input_embeddings().weight
    with torch.no_grad():
        table[model.tokenizer.pad_token_id] = torch.randn(table.shape[1], generator=torch.Generator().manual_seed(1))
    return model


def direct_logits(model: SelfExplainer, instance: Instance, embeds: torch.Tensor) -> torch.Tensor:
    """Logits ``[C]`` of the network itself run on word embeddings ``[1, N, H]``."""
    return model.model(**instance.batch.model_inputs(), inputs_embeds=embeds).logits[0]


def direct_gradient(model: SelfExplainer, instance: Instance) -> tuple[torch.Tensor, torch.Tensor]:
    """Word embeddings ``[N, H]`` and the target logit's gradient there ``[N, H]`` by plain autograd."""
    embeds = model.model.encoder.get_input_embeddings()(instance.batch.input_ids).detach().requires_grad_(True)
    # autograd.grad, not backward(): the shared session models must keep no parameter gradients
    (grad,) = torch.autograd.grad(direct_logits(model, instance, embeds)[instance.target], embeds)
    return embeds.detach()[0], grad[0]


def pad_vector(model: SelfExplainer) -> torch.Tensor:
    return model.model.encoder.get_input_embeddings().weight[model.tokenizer.pad_token_id].detach()


def reference_integrated_gradients(
    model: SelfExplainer, instance: Instance, steps: int, baseline: str, batch_size: int
) -> np.ndarray:
    """The hand-written rule captum replaced: ``sum_h (e - b)_h * mean_k grad_h(b + a_k (e - b))``,
    ``a_k = (k + 0.5) / steps``, pad (or zero) baseline at real tokens, special tokens unchanged."""
    embeds = word_embeddings(model, instance)
    real = instance.batch.token_mask.unsqueeze(-1)
    fill = torch.zeros_like(embeds) if baseline == "zero" else pad_vector(model).expand_as(embeds)
    base = torch.where(real, fill, embeds)
    alphas = (torch.arange(steps, dtype=embeds.dtype) + 0.5) / steps
    total = torch.zeros_like(embeds[0])
    for lo in range(0, steps, batch_size):
        a = alphas[lo : lo + batch_size].view(-1, 1, 1)
        total += embedding_gradients(model, instance, base + a * (embeds - base)).sum(dim=0)
    return ((embeds - base)[0] * total / steps).sum(dim=-1)[instance.positions].double().numpy()


def test_registry_offers_the_captum_methods_with_distinct_labels() -> None:
    assert set(CAPTUM) <= set(METHODS) | set(ALIASES)  # input_x_gradient: an alias of grad_x_input
    labels = [cls.label for cls in METHODS.values()]
    assert all(labels) and len(set(labels)) == len(labels)
    assert METHODS["lime"].label == "LIME" and METHODS["kernel_shap"].label == "KernelSHAP"


@pytest.mark.parametrize("name", CAPTUM)
def test_single_and_pair_scores_are_finite_and_repeatable(tiny_explainer, tiny_pair_explainer, name: str) -> None:
    for model, text, pair in ((tiny_explainer, TEXT, None), (tiny_pair_explainer, PREMISE, HYPOTHESIS)):
        instance = model.instance(text, pair)
        torch.manual_seed(11)
        first = get_method(name).attribute(model, instance)
        torch.manual_seed(12)  # the global generator must not matter
        second = get_method(name).attribute(model, instance)
        assert first.shape == (instance.num_tokens,) and first.dtype == np.float64
        assert np.isfinite(first).all() and np.abs(first).max() > 0
        np.testing.assert_array_equal(first, second)
    one = tiny_explainer.instance("good")
    assert get_method(name).attribute(tiny_explainer, one).shape == (1,)


@pytest.mark.parametrize("baseline", ["pad", "zero"])
def test_captum_integrated_gradients_equals_the_hand_written_rule(padded, tiny_pair_explainer, baseline: str) -> None:
    for model, text, pair in ((padded, TEXT, None), (tiny_pair_explainer, PREMISE, HYPOTHESIS)):
        instance = model.instance(text, pair)
        scores = IntegratedGradientsMethod(steps=20, baseline=baseline, batch_size=7).attribute(model, instance)
        expected = reference_integrated_gradients(model, instance, 20, baseline, 20)
        np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-5)
    instance = padded.instance(TEXT)
    pad, zero = (IntegratedGradientsMethod(baseline=b).attribute(padded, instance) for b in ("pad", "zero"))
    assert np.abs(pad - zero).max() > 1e-3  # the two baselines really differ on this model


def test_saliency_is_the_l1_norm_of_the_gradient(tiny_explainer, tiny_pair_explainer) -> None:
    for model, text, pair in ((tiny_explainer, TEXT, None), (tiny_pair_explainer, PREMISE, HYPOTHESIS)):
        instance = model.instance(text, pair)
        _, grad = direct_gradient(model, instance)
        expected = grad.abs().sum(dim=-1)[instance.positions].double().numpy()
        np.testing.assert_allclose(get_method("saliency").attribute(model, instance), expected, rtol=1e-5)
        l2 = grad.norm(dim=-1)[instance.positions].double().numpy()
        np.testing.assert_allclose(get_method("gradient").attribute(model, instance), l2, rtol=1e-5)


def test_input_x_gradient_is_grad_x_input(padded, tiny_pair_explainer) -> None:
    """The alias gives the very scores of grad_x_input, which match plain autograd."""
    for model, text, pair in ((padded, TEXT, None), (tiny_pair_explainer, PREMISE, HYPOTHESIS)):
        instance = model.instance(text, pair)
        alias = get_method("input_x_gradient").attribute(model, instance)
        np.testing.assert_array_equal(alias, get_method("grad_x_input").attribute(model, instance))
        embeds, grad = direct_gradient(model, instance)
        np.testing.assert_allclose(alias, (embeds * grad).sum(-1)[instance.positions].numpy(), atol=1e-5)


@pytest.mark.parametrize("baseline", ["pad", "zero"])
def test_deeplift_is_difference_from_baseline_times_gradient(padded, baseline: str) -> None:
    """The tiny BERT has no nonlinear module captum's DeepLift rules cover on the path to the logits
    (GELU modules and the functional attention softmax pass their gradient), so DeepLift reduces to
    ``(e - b) . gradient at e``."""
    instance = padded.instance(TEXT)
    scores = DeepLiftMethod(baseline=baseline).attribute(padded, instance)
    embeds, grad = direct_gradient(padded, instance)
    base = torch.zeros_like(embeds[0]) if baseline == "zero" else pad_vector(padded)
    expected = ((embeds - base) * grad).sum(dim=-1)[instance.positions].numpy()
    np.testing.assert_allclose(scores, expected, atol=1e-5)


def probability_with(model: SelfExplainer, instance: Instance, removed: list[int], fill: torch.Tensor) -> float:
    """Target probability with the word embeddings of real tokens ``removed`` replaced by ``fill``."""
    embeds = word_embeddings(model, instance).clone()
    embeds[0, instance.positions[removed]] = fill
    with torch.no_grad():
        return float(torch.softmax(direct_logits(model, instance, embeds), dim=-1)[instance.target])


@pytest.mark.parametrize("baseline", ["pad", "zero"])
def test_feature_ablation_is_the_probability_drop_of_one_token(padded, tiny_pair_explainer, baseline: str) -> None:
    for model, text, pair in ((padded, TEXT, None), (tiny_pair_explainer, PREMISE, HYPOTHESIS)):
        instance = model.instance(text, pair)
        scores = FeatureAblationMethod(baseline=baseline, batch_size=4).attribute(model, instance)
        fill = torch.zeros(word_embeddings(model, instance).shape[-1]) if baseline == "zero" else pad_vector(model)
        full = float(instance.probabilities[instance.target])
        drops = [full - probability_with(model, instance, [t], fill) for t in range(instance.num_tokens)]
        np.testing.assert_allclose(scores, drops, atol=1e-6)
        assert np.abs(scores).max() > 1e-4


def test_occlusion_averages_the_drops_of_the_windows_over_each_token(padded) -> None:
    instance = padded.instance(TEXT)
    count, window = instance.num_tokens, 3
    full = float(instance.probabilities[instance.target])
    drops = [
        full - probability_with(padded, instance, list(range(w, w + window)), pad_vector(padded))
        for w in range(count - window + 1)
    ]
    expected = [np.mean(drops[max(0, t - window + 1) : min(t, count - window) + 1]) for t in range(count)]
    scores = OcclusionMethod(window=window, batch_size=5).attribute(padded, instance)
    np.testing.assert_allclose(scores, expected, atol=1e-6)
    single = OcclusionMethod(window=1).attribute(padded, instance)
    np.testing.assert_allclose(single, FeatureAblationMethod().attribute(padded, instance), atol=1e-7)


def test_kernel_shap_is_efficient_and_lime_agrees_with_ablation(padded) -> None:
    """KernelSHAP's values add up to ``p(x) - p(all tokens removed)``; on this nearly additive tiny
    model both surrogates follow the single-token ablation."""
    instance = padded.instance(TEXT)
    full = float(instance.probabilities[instance.target])
    empty = probability_with(padded, instance, list(range(instance.num_tokens)), pad_vector(padded))
    shap = KernelShapMethod(n_samples=300).attribute(padded, instance)
    assert shap.sum() == pytest.approx(full - empty, abs=1e-5)
    ablation = FeatureAblationMethod().attribute(padded, instance)
    lime = LimeMethod().attribute(padded, instance)
    assert np.corrcoef(lime, ablation)[0, 1] > 0.8 and np.corrcoef(shap, ablation)[0, 1] > 0.75


@pytest.mark.parametrize("cls", [LimeMethod, KernelShapMethod])
def test_sampling_methods_are_seeded_and_leave_the_global_generator_alone(tiny_explainer, cls) -> None:
    instance = tiny_explainer.instance(TEXT)
    state = torch.get_rng_state()
    a = cls(seed=0).attribute(tiny_explainer, instance)
    assert torch.equal(state, torch.get_rng_state())
    np.testing.assert_array_equal(a, cls(seed=0).attribute(tiny_explainer, instance))
    # batch_size regroups the same perturbations into other forward passes: float32 matmuls of another
    # batch shape round differently (~1e-9 here), while other samples move scores by ~1e-3.
    np.testing.assert_allclose(a, cls(seed=0, batch_size=7).attribute(tiny_explainer, instance), rtol=1e-4, atol=1e-7)
    assert np.abs(a - cls(seed=1).attribute(tiny_explainer, instance)).max() > 1e-5
    assert np.abs(a - cls(n_samples=50).attribute(tiny_explainer, instance)).max() > 1e-5


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="baseline"):
        DeepLiftMethod(baseline="mask")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_samples"):
        LimeMethod(n_samples=1)
    with pytest.raises(ValueError, match="window"):
        OcclusionMethod(window=0)
    with pytest.raises(ValueError, match="batch_size"):
        KernelShapMethod(batch_size=0)
