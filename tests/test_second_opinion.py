"""A second opinion beside alpha (issue 23 item 3): leave-one-out per word on the alpha grid's words."""

from __future__ import annotations

import numpy as np
import pytest
from evidence_models import sparse_explainer
from helpers import open_page

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.words import word_view
from selfexplain.methods.analysis.compare import rank_agreement
from selfexplain.methods.analysis.second_opinion import SecondOpinion, agreement_sentence, second_opinion
from selfexplain.methods.explainers import get_method
from selfexplain.views.figures import span_grid_figure
from selfexplain.views.second_opinion import second_opinion_figure

TEXT = "The flabbergastingly wooden plot dragged."


def test_leave_one_out_removes_whole_words(tiny_explainer: SelfExplainer) -> None:
    opinion = second_opinion(tiny_explainer, TEXT)
    instance = tiny_explainer.instance(TEXT)
    view = word_view(instance.explanation)
    assert opinion.labels == view.labels and opinion.scores.shape == (len(view.labels),)
    tokens = get_method("loo").attribute(tiny_explainer, instance)  # one token at a time
    pieces = np.bincount(view.word_of_token)
    single = np.flatnonzero(pieces == 1)
    index = {w: int(np.flatnonzero(view.word_of_token == w)[0]) for w in single.tolist()}
    np.testing.assert_allclose(opinion.scores[single], tokens[[index[w] for w in single.tolist()]], atol=1e-5)
    assert (pieces > 1).any()  # "flabbergastingly" is several pieces, removed together
    alpha = instance.explanation.token_scores()
    assert opinion.alpha.sum() >= alpha.max() - 1e-9 and np.all(opinion.alpha >= 0)


def test_agreement_ignores_ties_at_zero(tiny_encoder) -> None:
    explainer = sparse_explainer(tiny_encoder, peak=30.0)
    opinion = second_opinion(explainer, TEXT)
    ranked_alpha = int((opinion.alpha > 0).sum())
    assert opinion.agreement.nonzero_a == ranked_alpha < len(opinion.labels)  # zeros are not ranked
    expected = rank_agreement(opinion.alpha, opinion.scores, np.arange(len(opinion.labels)),
                              np.arange(len(opinion.labels)), "word")  # fmt: skip
    assert opinion.agreement.jaccard == pytest.approx(expected.jaccard)


def opinion_of(alpha: list[float], scores: list[float]) -> SecondOpinion:
    words = np.arange(len(alpha))
    agreement = rank_agreement(np.array(alpha), np.array(scores), words, words, "word")
    labels = tuple(f"w{i}" for i in words)
    return SecondOpinion(labels, np.array(alpha), np.array(scores), "Leave-one-out", agreement)


def test_the_agreement_in_one_line() -> None:
    said = agreement_sentence(opinion_of([0.6, 0.4, 0.0, 0.0], [0.3, -0.1, 0.2, 0.0]))
    assert said == (
        "Alpha and Leave-one-out share 1 of their top 2 words (“w0”); over every word with a score above 0: "
        "Jaccard 0.33, rank-biased overlap 0.76."
    )
    assert "nothing to compare" in agreement_sentence(opinion_of([0.0, 0.0], [0.1, 0.2]))


def test_the_figure_uses_the_grids_words(tiny_explainer: SelfExplainer) -> None:
    opinion = second_opinion(tiny_explainer, TEXT)
    fig = second_opinion_figure(opinion)
    grid = span_grid_figure(tiny_explainer.explain(TEXT), level="word")
    assert list(fig.layout.xaxis2.ticktext) == list(grid.layout.xaxis.ticktext)
    np.testing.assert_allclose(fig.data[1].y, opinion.scores)


def test_the_explain_page_shows_it_on_request(tiny_model_dir) -> None:
    at = open_page(str(__import__("pathlib").Path(__file__).resolve().parents[1] / "app.py"), tiny_model_dir)
    at.text_area(key="text").input(TEXT).run()
    assert not any("second_opinion_chart" == c.key for c in at.get("plotly_chart"))
    at.toggle(key="second_opinion").set_value(True).run()
    assert not at.exception and not at.error
    assert any(m.value.startswith("Alpha and Leave-one-out share") for m in at.markdown)


def test_a_word_that_pushes_against_the_decision_is_named() -> None:
    """Issue 58 item 12: "gorgeous" argues for positive in a sentence the model calls negative, and alpha gives it
    no weight: the page says so in one line."""
    from selfexplain.methods.analysis.second_opinion import contrast_sentence

    labels = ("The", "visuals", "are", "gorgeous", "but", "thin")
    alpha, scores = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.01, 0.0, 0.0, -0.12, 0.02, 0.4]
    words = np.arange(len(labels))
    agreement = rank_agreement(np.array(alpha), np.array(scores), words, words, "word")
    probabilities = np.array([0.8, 0.2])  # negative, positive: the model says negative
    removed = np.tile(probabilities, (len(labels), 1))
    removed[:, 0] -= scores
    removed[:, 1] += scores
    names = ("negative", "positive")
    opinion = SecondOpinion(labels, np.array(alpha), np.array(scores), "Leave-one-out", agreement, probabilities,
                            removed, names, 0)  # fmt: skip
    assert contrast_sentence(opinion) == (
        "Leave-one-out: “gorgeous” pushes towards positive (without it, negative gets 12 points more likely); "
        "alpha gives it no weight."
    )
    assert contrast_sentence(opinion, plain=True) == (
        "Without “gorgeous” the answer negative gets 12 points more likely: the word pushes towards positive, and "
        "the model gives it no weight."
    )
    calm = SecondOpinion(labels, np.array(alpha), np.abs(scores), "Leave-one-out", agreement, probabilities,
                         removed, names, 0)  # fmt: skip
    assert contrast_sentence(calm) is None  # no word pushes against the decision
    assert contrast_sentence(opinion_of(alpha, scores)) is None  # not leave-one-out: no probabilities kept


def test_the_contrast_line_shows_in_presentation_mode(tiny_encoder, tmp_path) -> None:
    from helpers import make_explainer

    from selfexplain.core.modeling.checkpoint import save_model
    from selfexplain.methods.analysis.second_opinion import contrast_sentence
    from selfexplain.views.highlight import escape_text

    explainer = make_explainer(tiny_encoder, seed=3)  # removing "The" makes its label 3 points more likely
    line = contrast_sentence(second_opinion(explainer, TEXT))
    assert line is not None and line.startswith("Leave-one-out: “The” pushes towards")
    line = escape_text(line)
    save_model(explainer.model, explainer.tokenizer, tmp_path / "tiny-contrast")
    at = open_page(
        str(__import__("pathlib").Path(__file__).resolve().parents[1] / "app.py"), tmp_path / "tiny-contrast"
    )
    at.text_area(key="text").input(TEXT).run()
    at.toggle(key="second_opinion").set_value(True).run()
    assert not at.exception and line in [m.value for m in at.markdown]
    at.toggle(key="present").set_value(True).run()
    plain = escape_text(contrast_sentence(second_opinion(explainer, TEXT), plain=True) or "")
    assert not at.exception and plain.startswith("Without “The” the answer") and plain in [m.value for m in at.markdown]
