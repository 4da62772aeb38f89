"""The faithfulness lab on a text longer than one encoder window (tiny model: 128 positions, a
~330-token text in 3 windows): the instance is the windowed Explanation, the alpha tests read the
spans of every window, perturbations run the windows again, and the row says what was skipped."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from selfexplain.data import Example
from selfexplain.errors import InvalidInputError
from selfexplain.lab.faithfulness import alpha_tests, summary
from selfexplain.lab.faithfulness.experiment import LabOptions, analyse
from selfexplain.methods.explainers import get_method
from selfexplain.methods.explainers.occlusion import predict_kept

LONG = " ".join(["the film is good but slow and the ending is dull"] * 30)
OPTIONS = LabOptions(explainers=("alpha", "gradient", "loo", "random"), adversarial_steps=5, permutations=10)


@pytest.fixture(scope="module")
def long_instance(tiny_explainer):
    return tiny_explainer.instance(LONG)


def test_a_long_text_is_one_windowed_instance_with_the_apps_explanation(tiny_explainer, long_instance) -> None:
    assert tiny_explainer.max_tokens == 128 and long_instance.windowed
    assert long_instance.num_tokens > 300 and len(long_instance.plan.window_starts) == 3
    dense = tiny_explainer.explain_long(LONG)  # the same Explanation the app shows
    assert long_instance.tokens == [t.text for t in dense.tokens]
    np.testing.assert_allclose(long_instance.explanation.alpha, dense.alpha)
    np.testing.assert_allclose(long_instance.probabilities, dense.probabilities)
    assert long_instance.target == dense.predicted_index
    with pytest.raises(InvalidInputError, match="fits one encoder window"):
        get_method("gradient").attribute(tiny_explainer, long_instance)


def test_span_view_of_the_windows_reproduces_the_logits(tiny_explainer, long_instance) -> None:
    view = alpha_tests.span_view(tiny_explainer, long_instance)
    mask = long_instance.explanation.span_mask
    assert view.alpha.shape[0] == int(mask.sum())  # every span of every window, once
    assert mask[view.starts, view.ends].all()
    np.testing.assert_allclose(view.alpha, long_instance.explanation.alpha[view.starts, view.ends], atol=1e-6)
    np.testing.assert_allclose(view.logits(view.alpha), long_instance.output.logits[0].numpy(), atol=1e-4)
    # the uniform prediction is the model's own with alpha switched to uniform
    uniform = tiny_explainer.predict([LONG], uniform_alpha=True)[0]
    assert alpha_tests.uniform_prediction(view) == uniform


@pytest.mark.slow
def test_windowed_perturbations_rerun_the_windows(tiny_explainer, long_instance) -> None:
    count = long_instance.num_tokens
    keep = np.ones((3, count), dtype=bool)
    keep[1, 10:40] = False  # delete 30 tokens: the text becomes shorter and is laid out again
    keep[2] = False
    probs = predict_kept(tiny_explainer, long_instance, keep)
    np.testing.assert_allclose(probs[0], long_instance.probabilities, atol=1e-5)
    kept_text = " ".join(long_instance.tokens[:10] + long_instance.tokens[40:])
    expected = tiny_explainer.explain(kept_text, attentions=False).probabilities  # same word pieces
    np.testing.assert_allclose(probs[1], expected, atol=1e-5)
    assert probs[2].shape == (5,) and np.isclose(probs[2].sum(), 1.0)
    loo = get_method("loo").attribute(tiny_explainer, long_instance)
    assert loo.shape == (count,) and np.isfinite(loo).all()


@pytest.mark.slow
def test_lab_row_for_a_long_text(tiny_explainer, long_instance) -> None:
    row = analyse(tiny_explainer, Example(LONG, label=1), 0, OPTIONS)
    assert list(row["explainers"]) == ["alpha", "loo", "random"] and row["skipped"] == ["gradient"]
    assert row["windows"] == list(long_instance.plan.window_starts)
    assert len(row["tokens"]) == len(row["offsets"]) == long_instance.num_tokens
    tests = row["alpha"]
    assert tests["num_spans"] == int(long_instance.explanation.span_mask.sum())
    assert "top_attention_span" not in tests and "span_drop_attention" not in tests
    start, end = tests["top_span"]
    order = np.argsort(-long_instance.explanation.alpha[long_instance.explanation.span_mask], kind="stable")
    first, last = np.nonzero(long_instance.explanation.span_mask)
    assert (start, end) == (int(first[order[0]]), int(last[order[0]]))
    # a lab of one short and one long text: the tables cover each method's own inputs
    short = analyse(tiny_explainer, Example("good plot bad acting", label=3), 1, OPTIONS)
    table = summary.summary_table([short, row]).set_index("explainer")
    assert table.loc["gradient", "examples"] == 1 and table.loc["alpha", "examples"] == 2
    tests_table = summary.alpha_table([short, row]).set_index("test")["value"]
    expected = short["alpha"]["top_attention_span_predicted"] == short["predicted"]
    assert tests_table["prediction kept reading only the top attention span"] == float(expected)


def test_short_instance_keeps_its_numbers(tiny_explainer) -> None:
    """One window: the instance's explanation is explain()'s, and its forward the model's own."""
    text = "The visuals are gorgeous, but the story is thin."
    instance = tiny_explainer.instance(text)
    explanation = tiny_explainer.explain(text)
    assert not instance.windowed
    np.testing.assert_allclose(instance.explanation.alpha, explanation.alpha)
    np.testing.assert_allclose(instance.explanation.attentions, explanation.attentions)
    with torch.no_grad():
        direct = tiny_explainer.model(**instance.batch.model_inputs()).logits[0]
    np.testing.assert_allclose(instance.output.logits[0].numpy(), direct.numpy(), atol=1e-6)
    assert instance.output.hidden_states is not None and instance.output.attentions is not None
