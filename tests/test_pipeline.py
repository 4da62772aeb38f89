from __future__ import annotations

import numpy as np
import pytest

from selfexplain.core.pipeline import MAX_INPUT_CHARS, resolve_model
from selfexplain.errors import InputTooLongError, InvalidInputError, UnknownModelError


def test_explain_single_text(tiny_explainer) -> None:
    text = "The film's ending, however, isn't great."
    exp = tiny_explainer.explain(text)
    assert exp.label in exp.label_names
    assert exp.probabilities.sum() == pytest.approx(1.0, abs=1e-5)
    n = exp.num_tokens
    assert exp.alpha.shape == exp.span_mask.shape == (n, n)
    assert int(exp.span_mask.sum()) == n * (n + 1) // 2
    assert exp.alpha[exp.span_mask].sum() == pytest.approx(1.0, abs=1e-5)
    assert not np.tril(exp.span_mask, -1).any()
    for token in exp.tokens:
        assert token.text == text[token.start : token.end]
        assert token.text.lower().startswith(token.piece.lstrip("#").lower()[:1])
    assert exp.attentions is not None
    layers, heads, length, _ = exp.attentions.shape
    assert (layers, heads) == (2, 2) and length == n + 2  # [CLS] ... [SEP]
    np.testing.assert_allclose(exp.attentions.sum(-1), 1.0, atol=1e-5)
    assert exp.attention_tokens[0] == "[CLS]" and exp.attention_tokens[-1] == "[SEP]"
    assert [exp.attention_tokens[p] for p in exp.token_positions] == [t.piece for t in exp.tokens]


def test_pair_spans_stay_in_their_segment(tiny_pair_explainer) -> None:
    premise, hypothesis = "A man plays a guitar on stage.", "Nobody is playing music."
    exp = tiny_pair_explainer.explain(premise, pair=hypothesis)
    segments = np.array([t.segment for t in exp.tokens])
    assert set(segments.tolist()) == {0, 1}
    starts, ends = np.nonzero(exp.span_mask)
    assert (segments[starts] == segments[ends]).all()
    for span in exp.top_spans(None):
        source = premise if span.segment == 0 else hypothesis
        assert span.text == source[span.start_char : span.end_char]
    assert exp.alpha[exp.span_mask].sum() == pytest.approx(1.0, abs=1e-5)


def test_batch_matches_single(tiny_explainer) -> None:
    texts = ["short one", "a somewhat longer sentence about a film"]
    batch = tiny_explainer.explain_batch(texts)
    for text, exp in zip(texts, batch):
        alone = tiny_explainer.explain(text, attentions=False)
        np.testing.assert_allclose(exp.alpha, alone.alpha, atol=1e-5)
        np.testing.assert_allclose(exp.probabilities, alone.probabilities, atol=1e-5)


@pytest.mark.parametrize(
    ("text", "pair", "error", "message"),
    [
        ("   ", None, InvalidInputError, "empty"),
        ("x" * (MAX_INPUT_CHARS + 1), None, InvalidInputError, "characters"),
        ("fine", "a pair", InvalidInputError, "single text"),
    ],
)
def test_bad_inputs_give_clear_errors(tiny_explainer, text, pair, error, message) -> None:
    with pytest.raises(error, match=message):
        tiny_explainer.explain(text, pair=pair)


def test_too_long_pair_is_refused_clearly(tiny_pair_explainer) -> None:
    with pytest.raises(InputTooLongError, match="tokens long"):
        tiny_pair_explainer.explain("word " * 100, pair="word " * 100)


def test_pair_model_needs_second_text(tiny_pair_explainer) -> None:
    with pytest.raises(InvalidInputError, match="pair"):
        tiny_pair_explainer.explain("only a premise")


def test_unknown_model_names_the_choices() -> None:
    with pytest.raises(UnknownModelError, match="no model named 'no-such-model'"):
        resolve_model("no-such-model")
