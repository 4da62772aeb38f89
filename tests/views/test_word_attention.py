"""Attention on the alpha grid's word axis and the head view (issue 23 item 2): pure functions."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_explanation import make_explanation

from selfexplain.views.figures import span_grid_figure
from selfexplain.views.style import HEAD_LINE_FOCUS
from selfexplain.views.word_attention import (
    LINE_BINS,
    MERGE_RULE,
    explanation_group_attention,
    group_attention,
    head_view_figure,
    word_attention_figure,
)
from selfexplain.words import word_view

XSS = "<img src=x onerror=alert(1)>"


def attention(size: int, seed: int = 0) -> np.ndarray:
    matrix = np.random.default_rng(seed).random((size, size))
    return matrix / matrix.sum(axis=1, keepdims=True)


def test_pieces_merge_by_sum_over_keys_and_mean_over_queries() -> None:
    matrix = attention(6)  # [CLS] t0 t1 t2 t3 [SEP]
    positions = np.array([1, 2, 3, 4])
    groups = np.array([0, 1, 1, 2])  # t1 and t2 are one word
    words = group_attention(matrix, positions, groups)
    assert words.shape == (3, 3)
    # word 1 (queries t1, t2) -> word 1 (keys t1, t2): mean over query pieces of the sum over key pieces
    expected = (matrix[2, 2] + matrix[2, 3] + matrix[3, 2] + matrix[3, 3]) / 2
    assert words[1, 1] == pytest.approx(expected)
    assert words[0, 1] == pytest.approx(matrix[1, 2] + matrix[1, 3])
    assert words[1, 0] == pytest.approx((matrix[2, 1] + matrix[3, 1]) / 2)
    # a row sums to what the word's pieces give real tokens (no [CLS], no [SEP]), averaged
    sums = [matrix[1, 1:5].sum(), matrix[2:4, 1:5].sum(1).mean(), matrix[4, 1:5].sum()]
    np.testing.assert_allclose(words.sum(axis=1), sums)
    # one group per token: the real-token block itself
    np.testing.assert_allclose(group_attention(matrix, positions, np.arange(4)), matrix[1:5, 1:5])


def test_word_attention_uses_the_alpha_grids_words_in_order() -> None:
    exp = make_explanation(n=4)
    pieces = list(exp.tokens)
    pieces[2] = replace(pieces[2], start=pieces[1].end, end=pieces[1].end + 2, piece="##w2")
    pieces[3] = replace(pieces[3], start=8, end=10)
    merged = replace(exp, tokens=tuple(pieces), text="w0 w1w2 w3", token_positions=np.arange(1, 5))
    view = word_view(merged)
    words = explanation_group_attention(merged, attention(6), view.word_of_token)
    fig = word_attention_figure(words, view.labels, "t")
    grid = span_grid_figure(merged, level="word")
    assert list(fig.layout.xaxis.ticktext) == list(grid.layout.xaxis.ticktext) == ["w0", "w1w2", "w3"]
    assert list(fig.layout.xaxis.tickvals) == list(grid.layout.xaxis.tickvals)
    assert np.array(fig.data[0].z).shape == (3, 3)
    with pytest.raises(ValueError, match="no attention"):
        explanation_group_attention(replace(merged, token_positions=None), attention(6), None)


def test_word_attention_follows_the_grids_viewport() -> None:
    words = attention(10)
    fig = word_attention_figure(words, [f"w{i}" for i in range(10)], "t", view=(3, 7))
    assert list(fig.layout.xaxis.tickvals) == [3, 4, 5, 6]
    np.testing.assert_allclose(np.array(fig.data[0].z, dtype=float), words[3:7, 3:7])


def test_head_view_draws_banded_lines_without_one_trace_per_word() -> None:
    size = 40
    words = attention(size, seed=2) ** 4
    words /= words.sum(axis=1, keepdims=True)
    fig = head_view_figure(words, [f"w{i}" for i in range(size)], "Head view")
    lines = [t for t in fig.data if t.mode == "lines"]
    assert 1 <= len(lines) <= len(LINE_BINS)  # bands, not lines, make traces
    drawn = sum(np.isnan(np.array(t.x, dtype=float)).sum() for t in lines)
    expected = sum(min(3, int((row >= LINE_BINS[0]).sum())) for row in words)
    assert drawn == expected
    left = next(t for t in fig.data if t.name == "attending words")
    assert list(left.customdata) == list(range(size))
    top = int(np.argmax(words[0]))
    assert f"w{top} {words[0, top]:.2f}" in left.hovertext[0]


def test_head_view_focus_and_escaping() -> None:
    words = np.full((4, 4), 0.25)
    labels = [XSS, "b", "c", "d"]
    fig = head_view_figure(words, labels, "t", focus=2)
    lines = [t for t in fig.data if t.mode == "lines"]
    focused = [t for t in lines if t.line.color == HEAD_LINE_FOCUS]
    assert focused and all(t.opacity > 0.5 for t in focused)  # the focused word's lines stand out
    assert np.array(focused[0].y, dtype=float)[0] == 2
    assert all(t.opacity < 0.1 for t in lines if t.line.color != HEAD_LINE_FOCUS)  # the rest fade
    left = next(t for t in fig.data if t.name == "attending words")
    assert "<img" not in left.text[0] and "&lt;img" in left.text[0] and "<img" not in left.hovertext[1]


def test_head_view_is_cut_to_its_word_limit() -> None:
    fig = head_view_figure(attention(200), [f"w{i}" for i in range(200)], "t", view=(100, 200))
    left = next(t for t in fig.data if t.name == "attending words")
    assert len(left.y) == 60 and left.y[0] == 100


def test_the_merge_rule_is_stated() -> None:
    assert "sum over" in MERGE_RULE and "mean over" in MERGE_RULE
