"""Presentation mode's plain words (issue 23 item 5): one sentence per figure from spans with weight only."""

from __future__ import annotations

import numpy as np
from test_explanation import make_explanation

from selfexplain.core.results.explanation import Explanation, Token
from selfexplain.views.present import (
    GLOSSARY,
    attention_sentence,
    decision_sentence,
    glossary_html,
    grid_sentence,
    highlight_sentence,
    probability_sentence,
)

LABELS = ("negative", "positive")


def review(weights: dict[tuple[int, int], float], label_names: tuple[str, ...] = LABELS) -> Explanation:
    """The review "the acting was wooden and it dragged" with alpha only on ``weights`` (every other span 0)."""
    words = "the acting was wooden and it dragged".split()
    starts = np.cumsum([0] + [len(w) + 1 for w in words[:-1]])
    tokens = tuple(Token(w, int(s), int(s) + len(w), 0, w) for w, s in zip(words, starts))
    n = len(words)
    alpha = np.zeros((n, n))
    for cell, weight in weights.items():
        alpha[cell] = weight
    mask = np.triu(np.ones((n, n), dtype=bool))
    return Explanation(" ".join(words), None, tokens, label_names, np.array([0.8, 0.2]), alpha, mask, "m")


def test_the_decision_is_read_from_phrases_with_weight_only() -> None:
    sparse = review({(3, 3): 0.6, (6, 6): 0.4})
    assert decision_sentence(sparse) == "The model decided *negative* mostly because of “wooden” and “dragged”."
    single = review({(3, 3): 1.0})
    alone = "The model decided *negative* because of “wooden” alone: it carries all the weight."
    assert decision_sentence(single) == alone
    assert "no phrase" in decision_sentence(review({}))
    dense = make_explanation(n=5)
    top = dense.top_spans_non_overlapping(2)
    assert all(span.text in decision_sentence(dense) for span in top)


def test_sentences_under_each_figure() -> None:
    exp = review({(3, 3): 0.75, (6, 6): 0.25})
    assert probability_sentence(exp) == "The model is 80% sure the answer is *negative*; next comes *positive* at 20%."
    assert "The darkest, “wooden”, got 75% of the weight." in grid_sentence(exp)
    assert highlight_sentence(2).startswith("The 2 phrases") and highlight_sentence(1).startswith("The phrase")
    words = np.array([[0.1, 0.9], [0.2, 0.8]])
    said = attention_sentence(words, ["a", "film"])
    assert "“film” (85% of all looking)" in said and "not why it decided" in said


def test_user_text_and_labels_are_escaped_and_the_glossary_has_tooltips() -> None:
    exp = review({(3, 3): 1.0}, label_names=("<b>neg</b>*", "pos"))
    said = decision_sentence(exp)
    assert "<b>" not in said and "&#60;b&#62;neg" in said
    html = glossary_html()
    assert html.count("<abbr title=") == len(GLOSSARY) and "alpha" in html  # the technical name, on hover
    for text in (said, probability_sentence(exp), grid_sentence(exp), html):
        assert "[CLS]" not in text and "rollout" not in text
