"""Per-segment alpha for pair models: one distribution over each text, the classifier reads both."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from selfexplain.core.modeling.checkpoint import load_model_directory, save_model
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.lab.faithfulness.alpha_tests import removal_logits, span_view, uniform_prediction
from selfexplain.lab.faithfulness.flip import flip_certificate, smallest_flip, subsets_by_size
from tests.helpers import make_explainer

PREMISE = "A woman in a red coat is walking her two dogs through the snowy park."
HYPOTHESIS = "Nobody is outside because of the storm."


@pytest.fixture(params=["sparsemax", "softmax"])
def explainer(tiny_encoder: Path, request: pytest.FixtureRequest) -> SelfExplainer:
    explainer = make_explainer(tiny_encoder, pair=True, seed=4, segment_alpha=True, normaliser=request.param)
    explainer.model.eval()
    return explainer


def test_each_text_holds_half_of_alpha_and_the_logits_are_linear_in_it(explainer: SelfExplainer) -> None:
    instance = explainer.instance(PREMISE, HYPOTHESIS)
    view = span_view(explainer, instance)
    assert view.segments is not None and set(np.unique(view.segments)) == {0, 1}
    for side in (0, 1):
        assert view.alpha[view.segments == side].sum() == pytest.approx(0.5, abs=1e-5)
    logits = instance.output.logits[0].double().numpy()
    assert np.allclose(view.logits(view.alpha), logits, atol=1e-4)
    assert explainer.model.output.in_features == 2 * explainer.model.encoder.config.hidden_size


def test_uniform_alpha_and_removal_follow_the_two_texts(explainer: SelfExplainer) -> None:
    instance = explainer.instance(PREMISE, HYPOTHESIS)
    view = span_view(explainer, instance)
    layer = explainer.model.span_layer
    layer.uniform = True
    try:
        uniform = explainer.instance(PREMISE, HYPOTHESIS).output.logits[0]
    finally:
        layer.uniform = False
    assert uniform_prediction(view) == int(uniform.argmax())
    order = np.argsort(-view.alpha, kind="stable")
    first = removal_logits(view, order)[0]
    keep = torch.ones(1, view.alpha.shape[0], dtype=torch.bool)
    keep[0, order[0]] = False
    expected = view.logits(view.renormalised(keep).numpy())[0]
    assert np.allclose(first, expected)
    kept = view.renormalised(keep).numpy()[0]
    for side in (0, 1):
        assert kept[view.segments == side].sum() == pytest.approx(0.5, abs=1e-6)


def test_smallest_flip_with_segments_matches_brute_force() -> None:
    rng = np.random.default_rng(0)
    segments = np.array([0, 0, 0, 1, 1, 1])
    alpha = np.array([0.3, 0.15, 0.05, 0.25, 0.2, 0.05])
    contributions = rng.normal(size=(6, 3))
    bias = rng.normal(size=3)
    predicted = int(np.argmax(alpha @ contributions + bias))

    def logits_without(removed: np.ndarray) -> np.ndarray | None:
        out = bias.copy()
        left_total = 0.0
        for side in (0, 1):
            inside = segments == side
            kept = inside & ~removed
            if alpha[kept].sum() > 0:
                out = out + alpha[kept] @ contributions[kept] * 0.5 / alpha[kept].sum()
                left_total += alpha[kept].sum()
        return out if left_total > 0 else None

    expected = None
    for bits in subsets_by_size(6):
        removed = np.zeros(6, dtype=bool)
        removed[np.argsort(-alpha, kind="stable")[bits]] = True
        logits = logits_without(removed)
        if logits is not None and int(np.argmax(logits)) != predicted:
            expected = np.sort(np.nonzero(removed)[0])
            break
    found = smallest_flip(alpha, contributions, bias, 6, segments)
    if expected is None:
        assert found is None
    else:
        assert found is not None and np.array_equal(np.sort(found), expected)


@pytest.mark.slow
def test_flip_certificate_and_saved_folder_keep_per_segment_alpha(explainer: SelfExplainer, tmp_path: Path) -> None:
    certificate = flip_certificate(explainer, PREMISE, HYPOTHESIS)
    if certificate is not None:
        assert set(certificate.probabilities) == set(explainer.config.label_names)
    save_model(explainer.model, explainer.tokenizer, tmp_path / "m")
    model, _ = load_model_directory(tmp_path / "m")
    assert model.config.segment_alpha is True


def test_older_pair_folders_load_with_one_alpha_over_both_texts() -> None:
    config = ModelConfig.from_json('{"encoder": "x", "label_names": ["a", "b"], "pair": true}')
    assert config.segment_alpha is False
    with pytest.raises(ValueError, match="pair model"):
        ModelConfig(encoder="x", label_names=["a", "b"], segment_alpha=True)


@pytest.mark.shipped
def test_the_shipped_pair_model_marks_both_texts() -> None:
    from selfexplain.core.pipeline import load_model

    explainer = load_model("snli-minilm")
    assert explainer.config.segment_alpha is True
    explanation = explainer.explain(PREMISE, HYPOTHESIS)
    sides = {span.segment for span in explanation.evidence_spans(10)}
    assert sides == {0, 1}
    assert sum(span.alpha for span in explanation.evidence_spans(None)) == pytest.approx(1.0, abs=1e-4)
