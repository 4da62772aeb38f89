from __future__ import annotations

import numpy as np
import pytest
from test_explanation import make_explanation

from selfexplain.core.results.attention import aggregate_attention, rollout
from selfexplain.core.results.words import level_view, word_view
from selfexplain.views.figures import (
    attention_figure,
    grid_data,
    model_view_figure,
    probability_figure,
    rank_matrix,
    span_grid_figure,
    span_table,
)
from selfexplain.views.highlight import escape_text, highlight_html
from selfexplain.views.html_report import report_html

XSS = "<img src=x onerror=alert(1)><script>alert(2)</script> **bold** $x$ [l](javascript:alert(3))"


def test_probability_bars_match_probabilities() -> None:
    exp = make_explanation()
    fig = probability_figure(exp)
    np.testing.assert_allclose(fig.data[0].x, exp.probabilities)
    assert list(fig.data[0].y) == ["neg", "pos"]


def test_span_grid_lower_triangle_blank_and_hover() -> None:
    exp = make_explanation(n=5)
    fig = span_grid_figure(exp)
    z = np.array(fig.data[0].z, dtype=float)
    assert z.shape == (5, 5)
    assert np.isnan(z[np.tril_indices(5, -1)]).all()
    np.testing.assert_allclose(z[np.triu_indices(5)], exp.alpha[np.triu_indices(5)])
    # hover and clicks: one marker per valid span, carrying (start, end, alpha, rank)
    picker = fig.data[1]
    assert "rank" in picker.hovertemplate and "alpha" in picker.hovertemplate
    assert len(picker.x) == 15
    cells = {(int(c[0]), int(c[1])): c for c in picker.customdata}
    assert set(cells) == {(i, j) for i in range(5) for j in range(i, 5)}
    top = exp.spans[0]
    assert cells[(top.start_token, top.end_token)][3] == 1
    assert cells[(top.start_token, top.end_token)][2] == pytest.approx(top.alpha)
    index = [k for k, c in enumerate(picker.customdata) if (c[0], c[1]) == (0, 2)][0]
    assert picker.text[index] == "w0 w1 w2"


def test_span_grid_width_log_and_selection() -> None:
    exp = make_explanation(n=6)
    fig = span_grid_figure(exp, log_colour=True, max_width=2, selected=(1, 2))
    z = np.array(fig.data[0].z, dtype=float)
    assert np.isfinite(z).sum() == 6 + 5
    assert np.nanmax(z) <= 0.0  # log10 of alpha <= 1
    assert len(fig.layout.shapes) == 1


def test_word_level_merges_pieces_and_keeps_mass() -> None:
    exp = make_explanation(n=4)
    pieces = list(exp.tokens)
    # make tokens 1 and 2 one word ("w1w2"): token 2 touches token 1
    from dataclasses import replace

    pieces[2] = replace(pieces[2], start=pieces[1].end, end=pieces[1].end + 2, piece="##w2")
    merged = replace(exp, tokens=tuple(pieces), text="w0 w1w2 w3")
    pieces[3] = replace(pieces[3], start=8, end=10)
    merged = replace(merged, tokens=tuple(pieces))
    view = word_view(merged)
    assert view.labels == ("w0", "w1w2", "w3")
    assert view.alpha.sum() == pytest.approx(merged.alpha.sum())
    alpha, ranks, labels, texts, _ = grid_data(merged, level="word")
    assert alpha.shape == (3, 3) and labels == ["w0", "w1w2", "w3"] and texts[0][2] == "w0 w1w2 w3"
    assert sorted(ranks[ranks > 0].tolist()) == list(range(1, 7))


def test_a_level_view_is_computed_once_per_explanation_and_read_only() -> None:
    exp = make_explanation(n=4)
    view = level_view(exp, "word")
    assert view is word_view(exp) is level_view(exp, "word") and level_view(exp, "token") is None
    assert level_view(exp, "sentence") is level_view(exp, "sentence") is not view
    assert level_view(make_explanation(n=4), "word") is not view  # another explanation, its own view
    with pytest.raises(ValueError):
        view.alpha[0, 0] = 1.0
    with pytest.raises(ValueError, match="unknown level"):
        level_view(exp, "paragraph")  # type: ignore[arg-type]


def test_sentence_level_groups_at_sentence_ends_and_keeps_mass() -> None:
    from selfexplain.core.results.explanation import Explanation, Token
    from selfexplain.core.results.words import group_span_at, level_view, sentence_of_token
    from selfexplain.views.figures import span_grid_figure

    text = "Slow start . But great ! Truly"
    words = text.split()
    offsets = [(text.index(w, sum(len(x) + 1 for x in words[:i])), 0) for i, w in enumerate(words)]
    tokens = tuple(Token(w, start, start + len(w), 0, w) for w, (start, _) in zip(words, offsets))
    n = len(tokens)
    mask = np.triu(np.ones((n, n), dtype=bool))
    alpha = np.where(mask, np.random.default_rng(0).random((n, n)), 0.0)
    alpha /= alpha.sum()
    exp = Explanation(text, None, tokens, ("neg", "pos"), np.array([0.4, 0.6]), alpha, mask, "demo")
    assert sentence_of_token(exp).tolist() == [0, 0, 0, 1, 1, 1, 2]
    view = level_view(exp, "sentence")
    assert view is not None and view.labels == ("Slow start .", "But great !", "Truly")
    assert view.alpha.sum() == pytest.approx(1.0)
    assert view.alpha[0, 1] == pytest.approx(alpha[0:3, 3:6].sum())
    span = group_span_at(exp, 1, 2, view)
    assert span is not None and span.text == "But great ! Truly" and (span.start_token, span.end_token) == (3, 6)
    fig = span_grid_figure(exp, level="sentence")
    assert list(fig.layout.xaxis.ticktext) == ["S1", "S2", "S3"] and "sentence level" in fig.layout.title.text
    assert level_view(exp, "token") is None
    with pytest.raises(ValueError, match="unknown level"):
        level_view(exp, "paragraph")  # type: ignore[arg-type]


def test_rank_matrix_is_a_permutation() -> None:
    exp = make_explanation()
    ranks = rank_matrix(exp)
    assert sorted(ranks[exp.span_mask].tolist()) == list(range(1, 22))


def test_attention_aggregates_and_rollout() -> None:
    rng = np.random.default_rng(0)
    maps = rng.random((3, 2, 4, 4))
    maps /= maps.sum(-1, keepdims=True)
    np.testing.assert_allclose(aggregate_attention(maps, "head", 1, 1), maps[1, 1])
    np.testing.assert_allclose(aggregate_attention(maps, "mean over heads", 2), maps[2].mean(0))
    np.testing.assert_allclose(aggregate_attention(maps, "mean over layers"), maps.mean((0, 1)))
    rolled = rollout(maps)
    np.testing.assert_allclose(rolled.sum(-1), 1.0)
    # identity attention rolls out to identity
    eye = np.broadcast_to(np.eye(4), (3, 2, 4, 4))
    np.testing.assert_allclose(rollout(eye), np.eye(4))
    with pytest.raises(ValueError):
        aggregate_attention(maps, "bogus")  # type: ignore[arg-type]
    fig = attention_figure(maps[0, 0], ["[CLS]", "a", "b", "[SEP]"], "t")
    assert np.array(fig.data[0].z).shape == (4, 4) and fig.data[0].text[0][1] == "[CLS] → a"


def test_model_view_tiles_every_head() -> None:
    maps = np.random.default_rng(1).random((2, 3, 4, 4))
    fig = model_view_figure(maps)
    tiles = np.array(fig.data[0].z, dtype=float)
    assert tiles.shape == (2 * 5, 3 * 5)
    np.testing.assert_allclose(tiles[5:9, 10:14], maps[1, 2])
    assert {tuple(c) for c in fig.data[1].customdata} == {(ly, h) for ly in range(2) for h in range(3)}
    assert list(fig.layout.yaxis.ticktext) == ["L1", "L2"]  # numbered from 1, as everywhere in the app


def test_model_view_size_does_not_grow_with_the_input() -> None:
    """A 510-token input used to tile into a 3078 x 6156 heatmap (over Streamlit's message limit)."""
    maps = np.random.default_rng(2).random((6, 12, 510, 510)).astype(np.float32)
    tiles = np.array(model_view_figure(maps).data[0].z, dtype=float)
    assert tiles.shape == (6 * 33, 12 * 33)  # 510 positions in blocks of 16: 32 cells + a gap
    np.testing.assert_allclose(tiles[0, 0], maps[0, 0, :16, :16].mean(), rtol=1e-5)


def test_span_table_columns_and_order() -> None:
    exp = make_explanation()
    table = span_table(exp, 20)
    assert list(table["rank"]) == list(range(1, 21))
    assert table["alpha"].is_monotonic_decreasing
    assert table.loc[0, "span"] == exp.spans[0].text


def test_markup_is_inert_everywhere() -> None:
    escaped = escape_text(XSS)
    for bad in ("<", ">", "**", "$x$", "](", "javascript:"):
        assert bad not in escaped
    import html

    assert html.unescape(escaped) == XSS
    exp = make_explanation(n=3)
    from dataclasses import replace

    tokens = (
        replace(exp.tokens[0], text=XSS[:4], start=0, end=4),
        replace(exp.tokens[1], start=5, end=30),
        replace(exp.tokens[2], start=31, end=len(XSS)),
    )
    hostile = replace(exp, text=XSS, tokens=tokens, label_names=("<b>neg</b>", "pos"), model_name="<script>")
    page = highlight_html(hostile, hostile.top_spans(3), hostile.spans[0])
    assert "<img" not in page and "<script" not in page and "onerror=alert(" not in page
    assert html.unescape(page).count(XSS[:4]) >= 1  # the markup shows as visible text
    report = report_html(hostile, hostile.top_spans(3), [])
    assert "<img" not in report and "<script>alert" not in report and "<b>neg" not in report


def test_long_grid_is_bounded_and_pans_along_the_diagonal() -> None:
    from selfexplain.views.figures import MAX_GRID_UNITS, grid_view

    exp = make_explanation(n=300)
    fig = span_grid_figure(exp, max_width=10)
    z = np.array(fig.data[0].z, dtype=float)
    assert z.shape == (MAX_GRID_UNITS, MAX_GRID_UNITS)
    view = grid_view(300, 250)
    assert view == (300 - MAX_GRID_UNITS, 300)
    panned = span_grid_figure(exp, max_width=10, view=view)
    assert list(panned.data[0].x)[0] == 300 - MAX_GRID_UNITS
    # absolute (start, end) on every clickable cell, inside the viewport, within the width band
    cells = np.array(panned.data[1].customdata)[:, :2]
    assert cells.min() >= 300 - MAX_GRID_UNITS and (cells[:, 1] - cells[:, 0]).max() == 9
    assert len(panned.data[1].x) <= MAX_GRID_UNITS * 10


def test_word_span_carries_word_alpha_and_rank() -> None:
    from selfexplain.core.results.words import group_span_at as word_span_at

    exp = make_explanation(n=4)
    view = word_view(exp)  # every token is its own word here
    span = word_span_at(exp, 1, 2)
    assert span is not None and span.text == "w1 w2"
    assert span.alpha == pytest.approx(view.alpha[1, 2])
    assert span.rank == exp.span_at(1, 2).rank
    assert word_span_at(exp, 2, 1) is None
