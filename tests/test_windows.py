from __future__ import annotations

import numpy as np
import pytest
from families import build_family_encoder
from helpers import make_explainer

from selfexplain.core.inputs.windows import assign_spans, plan_windows, special_frame, window_starts


def test_window_starts_cover_the_text_and_end_aligned() -> None:
    assert window_starts(10, 16, 8) == [0]
    starts = window_starts(100, 30, 20)
    assert starts[0] == 0 and starts[-1] == 70
    assert all(b - a <= 20 for a, b in zip(starts, starts[1:]))
    with pytest.raises(ValueError):
        window_starts(100, 30, 0)


@pytest.mark.parametrize("max_width", [None, 5])
def test_every_span_that_fits_a_window_is_kept_exactly_once(max_width) -> None:
    num_tokens, inner, stride = 50, 16, 8
    starts = np.asarray(window_starts(num_tokens, inner, stride))
    window, first, last = assign_spans(starts, inner, num_tokens, max_width)
    pairs = list(zip(first.tolist(), last.tolist()))
    assert len(pairs) == len(set(pairs))
    expected = {
        (i, j)
        for i in range(num_tokens)
        for j in range(i, num_tokens)
        if any(s <= i and j < s + inner for s in starts) and (max_width is None or j - i < max_width)
    }
    assert set(pairs) == expected
    # each span lives in a window that holds it
    assert np.all(starts[window] <= first) and np.all(last < starts[window] + inner)


def test_plan_maps_slots_back_to_global_tokens(tiny_explainer) -> None:
    tokenizer = tiny_explainer.tokenizer
    prefix, suffix = special_frame(tokenizer)
    assert prefix == [tokenizer.cls_token_id] and suffix == [tokenizer.sep_token_id]
    text = " ".join(f"word{i % 7} film" for i in range(60))
    plan = plan_windows(tokenizer, text, window=32, stride=10)
    flat = plan.global_index.reshape(-1)
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    assert plan.num_tokens == len(ids)
    real = plan.global_index >= 0
    assert (plan.input_ids[real] == np.asarray(ids)[plan.global_index[real].numpy()]).all()
    starts, ends = flat[plan.span_starts], flat[plan.span_ends]
    assert bool((starts >= 0).all() and (ends >= starts).all())
    assert int((ends - starts).max()) == 30 - 1


def test_long_text_gets_one_prediction_and_one_alpha(tiny_explainer) -> None:
    text = " ".join(f"the plot{i % 5} was fine but slow ." for i in range(40))  # well over 128 tokens
    assert tiny_explainer.token_counts([text])[0] > tiny_explainer.max_tokens
    exp = tiny_explainer.explain(text)
    assert exp.windows is not None and len(exp.windows) > 1
    assert exp.attentions is None
    assert exp.num_tokens > tiny_explainer.max_tokens
    assert float(exp.alpha[exp.span_mask].sum()) == pytest.approx(1.0, abs=1e-4)
    assert exp.probabilities.sum() == pytest.approx(1.0, abs=1e-5)
    for token in exp.tokens[:50]:
        assert token.text == text[token.start : token.end]
    top = exp.top_spans(3)
    assert top[0].text == text[top[0].start_char : top[0].end_char]


def test_windows_agree_with_the_plain_path_on_a_short_text(tiny_explainer) -> None:
    text = "a gentle , funny and moving film about two brothers"
    plain = tiny_explainer.explain(text, attentions=False)
    windowed = tiny_explainer.explain_long(text)
    np.testing.assert_allclose(windowed.probabilities, plain.probabilities, atol=1e-5)
    np.testing.assert_allclose(windowed.alpha, plain.alpha, atol=1e-5)
    assert (windowed.span_mask == plain.span_mask).all()


@pytest.mark.parametrize("family", ["gpt2", "roberta"])
def test_byte_level_windows_give_the_short_paths_character_spans(family: str, tmp_path_factory) -> None:
    """Byte-level BPE counts the space before a word into its piece; both paths leave it out."""
    explainer = make_explainer(build_family_encoder(family, tmp_path_factory.mktemp(family)), seed=2)
    text = "the film is good but the ending is slow and dull"
    short, windowed = explainer.explain(text, attentions=False), explainer.explain_long(text)
    spans = [(t.start, t.end, t.text) for t in short.tokens]
    assert [(t.start, t.end, t.text) for t in windowed.tokens] == spans
    assert [t.text for t in short.tokens] == text.split()  # each word one piece here, no space in it
    assert [(s.start_char, s.end_char, s.text) for s in windowed.top_spans(5)] == [
        (s.start_char, s.end_char, s.text) for s in short.top_spans(5)
    ]
    long = " ".join([text] * 12)  # ~130 tokens: several windows of 128
    document = explainer.explain_document(long)
    assert len(document.window_starts) > 1
    assert [(t.start, t.end) for t in document.tokens[: len(spans)]] == [(a, b) for a, b, _ in spans]
    assert all(t.text == long[t.start : t.end] and not t.text.startswith(" ") for t in document.tokens)


@pytest.mark.parametrize("unit", ["word", "piece"])
def test_a_lone_whitespace_piece_bounds_no_span_in_windows_either(unit: str, tmp_path_factory) -> None:
    """GPT-2 reads a double space as a lone "Ġ" piece with no character once trimmed: the short path
    lets no span start or end on it, and the windows follow the same rule."""
    explainer = make_explainer(build_family_encoder("gpt2", tmp_path_factory.mktemp("gpt2")), seed=3, span_unit=unit)
    text = "the film is  good but  the ending is slow"
    short, windowed = explainer.explain(text, attentions=False), explainer.explain_long(text)
    assert any(t.start == t.end for t in windowed.tokens)  # the lone space piece is there
    alpha = {(s.start_char, s.end_char): s.alpha for s in short.spans}
    assert all(text[a:b] == text[a:b].strip() for a, b in alpha)
    assert {(s.start_char, s.end_char) for s in windowed.spans} == set(alpha)
    assert int(windowed.span_mask.sum()) == len(alpha)
    for span in windowed.spans:  # one softmax over the same spans
        assert span.alpha == pytest.approx(alpha[span.start_char, span.end_char], abs=1e-5)
    np.testing.assert_allclose(windowed.probabilities, short.probabilities, atol=1e-5)
