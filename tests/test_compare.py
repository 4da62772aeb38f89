"""The Compare library: common word axis, alpha on it, shared colour scale, rank agreement, baselines."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import make_explainer

from selfexplain.core.modeling.checkpoint import save_model
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.explanation import Explanation, Token
from selfexplain.core.results.words import word_view
from selfexplain.errors import InvalidInputError
from selfexplain.methods.analysis.compare import (
    Side,
    alpha_on_axis,
    check_compatible,
    common_axis,
    compare,
    covering_mass,
    default_partner,
    explain_side,
    fit_both,
    rank_agreement,
    rank_biased_overlap,
)
from selfexplain.views.compare import agreement_caption, agreement_figure, axis_grid_figure, gradient_figure
from selfexplain.views.style import HIGHLIGHT, PALETTE

TEXT = "The film isn't bad, it's un-watchable... really!"


@pytest.fixture(scope="module")
def models(tiny_encoder: Path) -> dict[str, SelfExplainer]:
    return {
        "a": make_explainer(tiny_encoder, seed=1),
        "b": make_explainer(tiny_encoder, seed=2),
        "piece": make_explainer(tiny_encoder, seed=3, span_unit="piece"),
        "base": make_explainer(tiny_encoder, seed=4, head="cls"),
        "nli": make_explainer(tiny_encoder, pair=True, seed=5),
    }


def hand_made(words: list[tuple[int, int]], alpha: dict[tuple[int, int], float], text: str = "unbelievably good"):
    """A word-level explanation of ``text`` whose tokens are ``words`` (character intervals)."""
    count = len(words)
    matrix = np.zeros((count, count))
    mask = np.zeros((count, count), dtype=bool)
    for (i, j), value in alpha.items():
        matrix[i, j], mask[i, j] = value, True
    tokens = tuple(Token(text[a:b], a, b) for a, b in words)
    return Side(Explanation(text, None, tokens, ("x", "y"), np.array([0.4, 0.6]), matrix, mask, span_unit="word"))


def test_a_model_compared_with_itself_agrees_perfectly(models: dict[str, SelfExplainer]) -> None:
    side = explain_side(models["a"], TEXT)
    result = compare(side, side)
    view = word_view(side.explanation)
    assert result.axis.labels == view.labels  # same tokenizer: the common words are the model's own words
    np.testing.assert_array_equal(result.alpha_a, result.alpha_b)
    np.testing.assert_allclose(result.alpha_a, view.alpha)
    agreement = result.agreement
    assert agreement.unit == "span" and agreement.rbo == pytest.approx(1.0) and agreement.jaccard == 1.0
    assert agreement.count == int(view.span_mask.sum()) == agreement.nonzero_a == agreement.both  # softmax: all
    assert result.zmax == pytest.approx(float(view.alpha.max()))


def test_two_seeds_share_one_colour_scale(models: dict[str, SelfExplainer]) -> None:
    a, b = explain_side(models["a"], TEXT), explain_side(models["b"], TEXT)
    result = compare(a, b)
    assert result.zmax == max(result.alpha_a.max(), result.alpha_b.max())
    assert result.alpha_a.sum() == pytest.approx(1.0) and result.alpha_b.sum() == pytest.approx(1.0)
    np.testing.assert_array_equal(result.mask_a, result.mask_b)
    assert result.agreement.rbo is not None and 0.0 <= result.agreement.rbo < 1.0
    figures = [axis_grid_figure(result.axis, al, m, result.zmax, t) for al, m, t in
               ((result.alpha_a, result.mask_a, "A"), (result.alpha_b, result.mask_b, "B"))]  # fmt: skip
    assert {f.data[0].zmax for f in figures} == {result.zmax}
    assert {f.data[0].zmin for f in figures} == {0.0}
    z = np.array(figures[0].data[0].z, dtype=float)
    assert np.isnan(z[~result.mask_a]).all() and np.allclose(z[result.mask_a], result.alpha_a[result.mask_a])


def test_a_piece_model_merges_the_axis_into_whitespace_words(models: dict[str, SelfExplainer]) -> None:
    a, piece = explain_side(models["a"], TEXT), explain_side(models["piece"], TEXT)
    result = compare(a, piece)
    assert result.axis.labels == ("The", "film", "isn't", "bad,", "it's", "un-watchable...", "really!")
    assert result.alpha_a.sum() == pytest.approx(1.0) and result.alpha_b.sum() == pytest.approx(1.0)
    assert result.axis.span_text(2, 3) == "isn't bad,"


def test_overlapping_words_of_two_tokenizers_merge_and_alpha_sums() -> None:
    # A: "un" | "believably" | "good"; B: "unbeliev" | "ably" | "good" (different word splits)
    first = hand_made(
        [(0, 2), (2, 12), (13, 17)],
        {(0, 0): 0.1, (0, 1): 0.2, (1, 1): 0.3, (0, 2): 0.1, (1, 2): 0.1, (2, 2): 0.2},
    )
    second = hand_made([(0, 8), (8, 12), (13, 17)], {(0, 0): 0.5, (1, 1): 0.25, (2, 2): 0.25})
    axis = common_axis(first, second)
    assert axis.labels == ("unbelievably", "good") and axis.extents == ((0, 0, 12), (0, 13, 17))
    alpha, valid = alpha_on_axis(first, axis)
    np.testing.assert_allclose(alpha, [[0.6, 0.2], [0.0, 0.2]])
    np.testing.assert_array_equal(valid, [[True, True], [False, True]])
    alpha_b, valid_b = alpha_on_axis(second, axis)
    np.testing.assert_allclose(alpha_b, [[0.75, 0.0], [0.0, 0.25]])
    np.testing.assert_array_equal(valid_b, [[True, False], [False, True]])
    np.testing.assert_allclose(covering_mass(alpha), [0.8, 0.4])


def test_pair_words_follow_the_premise(models: dict[str, SelfExplainer]) -> None:
    side = explain_side(models["nli"], "A dog runs.", "An animal moves.")
    axis = compare(side, side).axis
    assert axis.labels == ("A", "dog", "runs", ".", "An", "animal", "moves", ".")
    assert [e[0] for e in axis.extents] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert axis.span_text(4, 5) == "An animal"


def test_rank_biased_overlap() -> None:
    same = np.array([3, 1, 2])
    assert rank_biased_overlap(same, same) == pytest.approx(1.0)
    assert rank_biased_overlap(same, np.array([7, 8])) == 0.0
    assert rank_biased_overlap(np.array([], dtype=int), np.array([], dtype=int)) is None
    assert rank_biased_overlap(np.array([], dtype=int), same) == 0.0
    # one item against three that start with it: X_d / d = 1, 1/2, 1/3 weighted 0.9, 0.81, 0.729
    expected = (0.9 + 0.5 * 0.81 + 0.729 / 3) / (0.9 + 0.81 + 0.729)
    assert rank_biased_overlap(np.array([4]), np.array([4, 5, 6])) == pytest.approx(expected)
    # swapping the top two costs more than swapping the last two
    swapped_top = rank_biased_overlap(np.array([1, 2, 3, 4]), np.array([2, 1, 3, 4]))
    swapped_end = rank_biased_overlap(np.array([1, 2, 3, 4]), np.array([1, 2, 4, 3]))
    assert swapped_top < swapped_end < 1.0


def test_agreement_ranks_only_items_with_weight() -> None:
    """Sparse alpha: ties at 0 are no evidence. The agreement counts the nonzero sets (Jaccard) and the
    rank-biased overlap of the two rankings of those items; alpha-0 items have no rank (0)."""
    index = np.arange(6)
    a = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0])  # one span carries all the weight
    b = np.array([0.0, 0.7, 0.3, 0.0, 0.0, 0.0])
    found = rank_agreement(a, b, index, index, "span")
    assert (found.count, found.nonzero_a, found.nonzero_b, found.both) == (6, 1, 2, 1)
    assert found.jaccard == pytest.approx(0.5)
    assert found.rbo == pytest.approx((0.9 + 0.5 * 0.81) / (0.9 + 0.81))
    assert found.starts.tolist() == [1, 2] and found.ranks_a.tolist() == [1, 0] and found.ranks_b.tolist() == [1, 2]
    nothing = rank_agreement(np.zeros(3), np.zeros(3), index[:3], index[:3], "span")
    assert nothing.jaccard is None and nothing.rbo is None and nothing.union == 0
    words = rank_agreement(np.array([5.0, 4, 3, 2, 1]), np.array([4.0, 5, -1, 2, 3]), index[:5], index[:5], "word")
    assert words.nonzero_b == 4 and words.ranks_b.tolist() == [2, 1, 0, 4, 3]  # a negative score is not ranked


def test_baseline_side_has_no_spans_and_a_gradient(models: dict[str, SelfExplainer]) -> None:
    base = models["base"]
    side = explain_side(base, TEXT)
    explanation = side.explanation
    assert side.words.labels == word_view(explain_side(models["a"], TEXT).explanation).labels  # tokenizer words
    assert side.baseline and side.head == "cls"
    assert not explanation.span_mask.any() and explanation.top_spans(5) == []
    assert explanation.attentions is not None and explanation.attentions.shape[:2] == (2, 2)
    batch = base.encode([TEXT])
    output = base.run(batch)
    np.testing.assert_allclose(explanation.probabilities, torch.softmax(output.logits[0], -1).numpy(), rtol=1e-5)
    # gradient x input by hand: d logit_target / d embedding, dotted with the embedding, at the real tokens
    embeds = base.model.encoder.get_input_embeddings()(batch.input_ids).detach().requires_grad_(True)
    logits = base.model(**batch.model_inputs(), inputs_embeds=embeds).logits
    (grads,) = torch.autograd.grad(logits[0, explanation.predicted_index], embeds)
    expected = (grads * embeds).sum(-1)[0, batch.token_mask[0]].detach().numpy()
    np.testing.assert_allclose(side.gradient, expected, rtol=1e-4, atol=1e-7)
    span = explain_side(models["a"], TEXT)
    result = compare(span, side)
    assert result.axis.labels == word_view(span.explanation).labels  # not coarsened to whitespace words
    assert result.agreement.unit == "word" and result.agreement.count == len(result.axis)
    assert result.zmax == pytest.approx(float(result.alpha_a.max())) and not result.mask_b.any()
    assert result.word_scores_b.sum() == pytest.approx(float(side.gradient.sum()))
    np.testing.assert_allclose(result.word_scores_a, covering_mass(result.alpha_a))
    bars = gradient_figure(result.axis, result.word_scores_b, "B")
    assert list(bars.data[0].marker.color) == [HIGHLIGHT if v >= 0 else PALETTE[0] for v in result.word_scores_b]


def test_pair_and_single_models_are_refused(models: dict[str, SelfExplainer]) -> None:
    with pytest.raises(InvalidInputError, match="takes a premise and a hypothesis but model B"):
        check_compatible(models["nli"].config, models["a"].config)
    check_compatible(models["a"].config, models["base"].config)  # a baseline is fine
    with pytest.raises(InvalidInputError):
        explain_side(models["base"], TEXT, "a pair for a single-text model")


def test_default_partner_takes_the_same_input_kind(models: dict[str, SelfExplainer], tmp_path: Path) -> None:
    folders = {}
    for name in ("a", "b", "nli"):
        folders[name] = tmp_path / name
        save_model(models[name].model, models[name].tokenizer, folders[name])
    assert default_partner("a", folders) == "b"
    assert default_partner("nli", folders) is None
    (tmp_path / "a" / "selfexplain.json").write_text(json.dumps({"broken": 1}), encoding="utf-8")
    assert default_partner("b", folders) is None  # an unreadable config is skipped


def test_fit_both_cuts_to_a_prefix_that_both_models_read(models: dict[str, SelfExplainer]) -> None:
    long = " ".join(["the", "plot", "drags", "but", "the", "cast", "shines"] * 40)
    text, pair, cut = fit_both((models["a"], models["piece"]), long, None)
    assert cut and pair is None and long.startswith(text) and len(text) < len(long)
    assert all(m.token_counts([text])[0] <= m.max_tokens for m in (models["a"], models["piece"]))
    assert fit_both((models["a"], models["b"]), TEXT, None) == (TEXT, None, False)


def test_agreement_figure_escapes_text_and_states_rho(models: dict[str, SelfExplainer]) -> None:
    text = "<b>bold</b> and & more"
    a, b = explain_side(models["a"], text), explain_side(models["b"], text)
    result = compare(a, b)
    figure = agreement_figure(result.agreement, result.axis, "<i>a</i>", "b")
    assert f"RBO {result.agreement.rbo:.2f}" in figure.layout.title.text
    assert "&lt;i&gt;a&lt;/i&gt;" in figure.layout.xaxis.title.text
    hover = " ".join(figure.data[1].text)
    assert "<b>" not in hover and "&lt;b&gt;" in hover
    assert len(figure.data[1].x) == result.agreement.union == result.agreement.count  # softmax: every span
    grid = axis_grid_figure(result.axis, result.alpha_a, result.mask_a, result.zmax, "A")
    assert all("<" not in label for label in grid.layout.xaxis.ticktext)


def test_sparse_models_agree_on_their_nonzero_sets_and_say_so() -> None:
    """Two sparse models: the scatter shows only the spans that carry weight in either (an alpha-0 side
    on its "not ranked" line), and the caption names the single span of a one-span model (escaped)."""
    text = "a <b>dull</b> film"
    words = [(0, 1), (2, 12), (13, 17)]
    every = {(i, j): 0.0 for i in range(3) for j in range(i, 3)}
    one = hand_made(words, every | {(1, 1): 1.0}, text)
    two = hand_made(words, every | {(1, 1): 0.6, (1, 2): 0.4}, text)
    result = compare(one, two)
    found = result.agreement
    assert (found.nonzero_a, found.nonzero_b, found.both, found.union) == (1, 2, 1, 2)
    assert found.jaccard == pytest.approx(0.5)
    figure = agreement_figure(found, result.axis, "one", "two")
    points = figure.data[-1]
    assert sorted(zip(points.x, points.y)) == [(1, 1), (2, 2)]  # "dull film": not ranked by A (its line: 2)
    assert list(figure.layout.xaxis.ticktext)[-1] == "not ranked"
    caption = agreement_caption(found, result.axis, "one <i>", "two")
    assert "Jaccard): 0.50" in caption and f"{found.rbo:.2f}" in caption
    assert "puts all its weight on a single word span" in caption and "Model B" not in caption
    assert "<b>" not in caption and "<i>" not in caption and "Spearman" not in caption


def test_default_partner_is_a_self_explaining_model_of_the_same_task(
    models: dict[str, SelfExplainer], tmp_path: Path
) -> None:
    """Issue 58 item 11: Compare sets alpha against alpha when two self-explaining models of one task exist."""
    folders = {}
    for name, key in (("a", "a"), ("aa-base", "base"), ("b", "b"), ("nli", "nli")):
        folders[name] = tmp_path / name
        save_model(models[key].model, models[key].tokenizer, folders[name])
    assert default_partner("a", folders) == "b"  # not the baseline, though it comes first
    assert default_partner("aa-base", folders) == "a"  # a baseline: the first model of its input kind
    del folders["b"]
    assert default_partner("a", folders) == "aa-base"  # one self-explaining model: as before


def test_the_rank_chart_reads_when_one_alpha_is_one_hot() -> None:
    from selfexplain.methods.analysis.compare import WordAxis, rank_agreement
    from selfexplain.views.compare import agreement_figure

    count = 40
    one_hot = np.zeros(count)
    one_hot[3] = 1.0
    spread = np.linspace(1.0, 0.1, count)
    items = np.arange(count)
    agreement = rank_agreement(one_hot, spread, items, items, "word")
    labels = tuple(f"w{i}" for i in items)
    axis = WordAxis(" ".join(labels), None, labels, tuple((0, 3 * i, 3 * i + 2) for i in items))
    fig = agreement_figure(agreement, axis, "one-hot", "spread")
    assert tuple(fig.layout.xaxis.range) == (0.5, 2.5)  # rank 1 and "not ranked" across the whole width
    assert tuple(fig.layout.yaxis.range) == (0.5, count + 1.5)
    assert list(fig.layout.xaxis.ticktext) == ["1", "not ranked"]
