"""Bad and unusual input: a clear message or a correct explanation, never a crash, markup inert."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest

from selfexplain.cli import main
from selfexplain.core.pipeline import MAX_INPUT_CHARS
from selfexplain.errors import InvalidInputError
from selfexplain.views.figures import attention_figure, span_grid_figure, span_table
from selfexplain.views.highlight import highlight_html
from selfexplain.views.html_report import report_html

UNUSUAL = {
    "single token": "x",
    "only punctuation": "!!! ... ???",
    "control characters": "good\x00 film\x01 with a\x7f bell\x07",
    "emoji": "great 😀🎬 film 👍🏽",
    "combining marks": "cafe\u0301 and nai\u0308ve charm",
    "CJK": "这部电影很好看",
    "right-to-left": "הסרט היה נהדר مرحبا بكم",
    "mixed scripts": "good 电影 مرحبا 😀 ok",
    "newlines": "first line\n\nsecond line\r\n",
}
MARKUP = {
    "script": "<script>alert(1)</script> a fine film",
    "event handler": '<img src=x onerror="alert(2)"> dull',
    "javascript link": '<a href="javascript:alert(3)">click</a> moving',
    "markdown": "**bold** _it_ [x](javascript:alert(4)) `code`",
    "latex": "$\\frac{a}{b}$ and $$x^2$$ great",
}


@pytest.mark.parametrize("text", list(UNUSUAL.values()), ids=list(UNUSUAL))
def test_unusual_text_explains_with_offsets_into_the_input(tiny_explainer, text: str) -> None:
    exp = tiny_explainer.explain(text)
    assert exp.num_tokens >= 1
    assert float(exp.alpha[exp.span_mask].sum()) == pytest.approx(1.0, abs=1e-5)
    for token in exp.tokens:
        assert token.text == text[token.start : token.end]
    span = exp.top_spans(1)[0]
    assert span.text == text[span.start_char : span.end_char]


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "empty"), ("   \n\t ", "empty"), ("\u200b\u200b", "no tokens"), ("a" * (MAX_INPUT_CHARS + 1), "characters")],
    ids=["empty", "whitespace", "zero-width only", "over the character limit"],
)
def test_unreadable_text_gets_a_clear_message(tiny_explainer, text: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        tiny_explainer.explain(text)


def test_cli_long_input_is_one_line_exit_2(tiny_model_dir, capsys) -> None:
    assert main(["explain", "word " * (MAX_INPUT_CHARS // 4), "--model", str(tiny_model_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert "characters" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("text", list(MARKUP.values()), ids=list(MARKUP))
def test_markup_is_inert_in_every_view(tiny_explainer, text: str) -> None:
    exp = tiny_explainer.explain(text)
    spans = exp.top_spans(5)
    page = highlight_html(exp, spans, spans[0])
    report = report_html(exp, spans, [])
    for rendered in (page, report):
        assert "<script" not in rendered and "<img" not in rendered and "<a " not in rendered
        assert "**" not in rendered and "$" not in rendered and "javascript:" not in rendered
    visible = html.unescape(re.sub(r"<[^>]+>", "", page))  # our own tags removed; the user's are entities
    assert visible == text  # the markup is shown as the text the user typed
    grid = span_grid_figure(exp)
    for hover in grid.data[1].text:
        assert "<" not in hover.replace("&lt;", "")
    assert all("<" not in label.replace("&lt;", "") for label in grid.layout.xaxis.ticktext)
    attention = attention_figure(exp.attentions[0, 0], exp.attention_tokens, "t")
    assert all("<" not in label.replace("&lt;", "") for label in attention.layout.xaxis.ticktext)
    table = span_table(exp)
    assert table.loc[0, "span"] == spans[0].text  # data stays exact; Streamlit renders cells as text
    data = json.loads(json.dumps(exp.to_dict()))
    assert data["text"] == text


def test_pair_and_single_mismatches(tiny_explainer, tiny_pair_explainer) -> None:
    with pytest.raises(InvalidInputError, match="single text"):
        tiny_explainer.explain("one", pair="two")
    with pytest.raises(InvalidInputError, match="pair"):
        tiny_pair_explainer.explain("only one")


def test_encoder_without_attention_maps_still_explains(tiny_encoder) -> None:
    from helpers import make_explainer

    explainer = make_explainer(tiny_encoder, seed=4)
    explainer.model.encoder.config._attn_implementation = "sdpa"  # returns no attention maps
    exp = explainer.explain("a film without attention maps")
    assert exp.attentions is None
    assert float(exp.alpha[exp.span_mask].sum()) == pytest.approx(1.0, abs=1e-5)
    assert np.isfinite(exp.probabilities).all()
