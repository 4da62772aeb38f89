"""Metric definitions on hand-computed toy cases (no model, or a fake additive one)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from selfexplain.lab.faithfulness import alpha_tests, tokens
from selfexplain.lab.faithfulness.metrics import (
    aopc,
    bin_sizes,
    first_flip,
    js_divergence,
    kendall_tau,
    top_k_masks,
    total_variation,
)


def test_basic_definitions() -> None:
    assert bin_sizes(10).tolist() == [1, 1, 1, 2, 5]
    assert bin_sizes(200).tolist() == [2, 10, 20, 40, 100]
    assert top_k_masks(np.array([2, 0, 1]), np.array([1, 2])).tolist() == [[False, False, True], [True, False, True]]
    assert aopc(0.9, np.array([0.5, 0.3])) == pytest.approx(0.5)
    assert js_divergence([0.5, 0.5], [0.5, 0.5]) == pytest.approx(0.0)
    assert js_divergence([1.0, 0.0], [0.0, 1.0]) == pytest.approx(np.log(2))
    assert total_variation([0.7, 0.3], [0.4, 0.6]) == pytest.approx(0.3)
    assert first_flip(np.array([1, 1, 0, 1]), 1) == 3 and first_flip(np.array([1, 1]), 1) is None
    assert kendall_tau(np.array([3.0, 1, 2]), np.array([30.0, 10, 20])) == pytest.approx(1.0)
    assert kendall_tau(np.array([3.0, 1, 2]), np.array([-3.0, -1, -2])) == pytest.approx(-1.0)
    assert np.isnan(kendall_tau(np.ones(3), np.arange(3.0)))


def test_oracle_ranking_beats_reversed_on_an_additive_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """p(class 1) = sum of the kept tokens' weights [.4, .3, .2, .1]; by hand (bins k = 1,1,1,1,2):
    oracle comprehensiveness (4 * .4 + .7) / 5 = .46, sufficiency (4 * .6 + .3) / 5 = .54, flips after 2 of 4;
    reversed ranking: comprehensiveness (4 * .1 + .3) / 5 = .14, flips after 3 of 4."""
    weights = np.array([0.4, 0.3, 0.2, 0.1])

    def fake_predict(model, instance, keep, removal="delete", batch_size=64):
        p1 = keep.astype(float) @ weights
        return np.stack([1 - p1, p1], axis=1)

    monkeypatch.setattr(tokens, "predict_kept", fake_predict)
    instance = SimpleNamespace(num_tokens=4, probabilities=np.array([0.0, 1.0]), target=1)
    scores = {"oracle": weights.copy(), "reversed": -weights}
    result = tokens.token_experiments(None, instance, scores, random_token=3)
    oracle, backwards = result["oracle"], result["reversed"]
    assert oracle["comprehensiveness"] == pytest.approx(0.46)
    assert oracle["sufficiency"] == pytest.approx(0.54)
    assert oracle["flip_fraction"] == pytest.approx(0.5) and oracle["flipped"]
    assert backwards["comprehensiveness"] == pytest.approx(0.14)
    assert backwards["flip_fraction"] == pytest.approx(0.75)
    # single-top erasure: JS(full, without token 0) - JS(full, without token 3)
    expected = js_divergence([0, 1], [0.4, 0.6]) - js_divergence([0, 1], [0.1, 0.9])
    assert oracle["js_difference"] == pytest.approx(expected) and oracle["js_difference"] > 0
    assert oracle["curve"][0] == 1.0 and oracle["curve"][-1] == pytest.approx(0.0)


@pytest.mark.parametrize("seed", range(6))
def test_staged_flip_search_finds_the_first_flip_of_every_prefix(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """A model whose decision flips and flips back as tokens go: the staged search must agree
    with trying every prefix, and the curve reads the prefix nearest each grid point."""
    rng = np.random.default_rng(seed)
    count = 17
    weights = rng.normal(size=count)
    calls: list[int] = []

    def wiggly_predict(model, instance, keep, removal="delete", batch_size=64):
        calls.append(len(keep))
        p1 = 1 / (1 + np.exp(-(np.sin(keep.astype(float) @ weights * 3))))
        return np.stack([1 - p1, p1], axis=1)

    monkeypatch.setattr(tokens, "predict_kept", wiggly_predict)
    full = wiggly_predict(None, None, np.ones((1, count), dtype=bool))[0]
    calls.clear()
    instance = SimpleNamespace(num_tokens=count, probabilities=full, target=int(np.argmax(full)))
    scores = {f"e{i}": rng.random(count) for i in range(4)}
    result = tokens.token_experiments(None, instance, scores, random_token=0)
    rows_run = sum(calls)
    for name, values in scores.items():
        order = np.argsort(-values, kind="stable")
        every = ~top_k_masks(order, np.arange(1, count))
        predicted = wiggly_predict(None, None, every).argmax(axis=1)
        changed = np.flatnonzero(predicted != np.argmax(full))
        expected = (changed[0] + 1) / count if changed.size else 1.0
        assert result[name]["flip_fraction"] == pytest.approx(expected)
        after_six = wiggly_predict(None, None, ~top_k_masks(order, np.array([round(0.3 * count)])))[0]
        assert result[name]["curve"][3] == pytest.approx(after_six[instance.target], abs=1e-6)
    assert rows_run <= 4 * (count + 5) + 1  # never more rows than trying every prefix


def toy_view() -> alpha_tests.SpanView:
    """Three spans; span 0 votes class 0 strongly, spans 1 and 2 vote class 1."""
    scores = np.log(np.array([0.6, 0.3, 0.1]))
    contributions = np.array([[4.0, 0.0], [0.0, 3.0], [0.0, 3.0]])
    return alpha_tests.SpanView(
        scores, alpha_tests.softmax(scores), contributions, np.zeros(2), np.array([0, 0, 1]), np.array([0, 1, 1])
    )


def test_span_removal_renormalises_alpha() -> None:
    view = toy_view()
    logits = alpha_tests.removal_logits(view, np.array([0, 1, 2]))
    # remove span 0: alpha -> [0, .75, .25]; remove 0 and 1: alpha -> [0, 0, 1]
    np.testing.assert_allclose(logits, [[0.0, 3.0], [0.0, 3.0]])
    logits = alpha_tests.removal_logits(view, np.array([2, 1, 0]))
    np.testing.assert_allclose(logits[0], np.array([0.6, 0.3]) / 0.9 @ view.contributions[:2])


def test_four_way_flip_and_uniform_and_permutation() -> None:
    view = toy_view()  # logits [2.4, 1.2] -> predicts class 0
    result = alpha_tests.four_way(view, np.random.default_rng(0))
    assert result["alpha"] == {
        "span_fraction": pytest.approx(1 / 3),
        "mass_fraction": pytest.approx(0.6),
        "flipped": True,
    }
    assert result["gradient"]["span_fraction"] == pytest.approx(1 / 3)  # gradient for class 0 = [4, 0, 0]
    assert alpha_tests.uniform_prediction(view) == 1  # mean contribution [4/3, 2]
    flat = alpha_tests.SpanView(view.scores, view.alpha, np.ones((3, 2)), np.zeros(2), view.starts, view.ends)
    assert alpha_tests.permutation_test(flat, np.random.default_rng(0))["median_tvd"] == pytest.approx(0.0)
    assert alpha_tests.adversarial_alpha(flat, steps=60)["adversarial_js"] > 0.2  # any alpha gives the same output


def test_top_span_masks_take_non_overlapping_spans_and_same_length_attention_windows() -> None:
    # spans over 6 tokens: (1,2) alpha .5, (2,3) .3 overlaps it, (5,5) .15, (0,0) .05
    view = alpha_tests.SpanView(
        np.zeros(4),
        np.array([0.5, 0.3, 0.15, 0.05]),
        np.zeros((4, 2)),
        np.zeros(2),
        np.array([1, 2, 5, 0]),
        np.array([2, 3, 5, 0]),
    )
    attention = np.array([0.0, 0.1, 0.1, 0.5, 0.3, 0.0])
    alpha_masks, attention_masks = alpha_tests.top_span_masks(view, attention, 6, k_max=3)
    assert alpha_masks.astype(int).tolist() == [[0, 1, 1, 0, 0, 0], [0, 1, 1, 0, 0, 1], [1, 1, 1, 0, 0, 1]]
    # windows of lengths 2, 1, 1 by attention mass: (3,4), then token 1 (0.1, the first of a tie), then 2
    assert attention_masks.astype(int).tolist() == [[0, 0, 0, 1, 1, 0], [0, 1, 0, 1, 1, 0], [0, 1, 1, 1, 1, 0]]


def test_top_tokens_list_only_tokens_scored_above_zero() -> None:
    from selfexplain.lab.faithfulness.metrics import top_evidence
    from selfexplain.lab.faithfulness.summary import drilldown_table

    scores = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0])  # only "warm" has alpha above 0
    assert top_evidence(scores, 5).tolist() == [3]
    assert top_evidence(np.array([0.2, -0.1, 0.5]), 5).tolist() == [2, 0]  # below 0 argues against
    tokens = ["A", "warm", ",", "funny", "and", "film"]
    row = {
        "tokens": tokens,
        "scores": {"alpha": [0.0, 1.0, 0.0, 0.0, 0.0, 0.0], "random": [0.0] * 6},
        "explainers": {  # a row written before the fix: zero-alpha tokens listed after "warm"
            name: {"top": [1, 0, 2, 3, 4], "comprehensiveness": 0.1, "sufficiency": 0.0, "flip_fraction": 1.0}
            for name in ("alpha", "random")
        },
    }
    table = drilldown_table(row).set_index("explainer")
    assert table.loc["alpha", "top tokens"] == "warm"
    assert table.loc["random", "top tokens"] == "none above 0"
