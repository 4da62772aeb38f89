"""Attention on the alpha grid's word axis and the head view (issue 23 item 2): pure functions."""

from __future__ import annotations

import html
import re
from dataclasses import replace

import numpy as np
import pytest
from test_explanation import make_explanation

from selfexplain.core.results.words import word_view
from selfexplain.views.figures import span_grid_figure
from selfexplain.views.style import HEAD_FADE, HEAD_LINE, HEAD_LINE_FOCUS
from selfexplain.views.word_attention import (
    HEAD_VIEW_TOP,
    LINE_BINS,
    MAX_HEAD_WORDS,
    MERGE_RULE,
    _top_links,
    explanation_group_attention,
    group_attention,
    head_view_html,
    word_attention_figure,
)

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


def lines(page: str) -> list[str]:
    return re.findall(r'<span class="se-hv-l"[^>]*>', page)


def groups(page: str) -> dict[int, str]:
    """Each attending word's element (its label and its lines), by ``data-word``."""
    found = re.findall(r'<div class="se-hv-q" data-word="(\d+)"(.*?)</div>', page, re.S)
    return {int(index): body for index, body in found}


def attr(element: str, name: str) -> str:
    match = re.search(rf'{name}="([^"]*)"', element)
    assert match, (name, element)
    return match.group(1)


def test_head_view_draws_one_line_per_link_inside_its_words_group() -> None:
    size = 40
    words = attention(size, seed=2) ** 4
    words /= words.sum(axis=1, keepdims=True)
    page = head_view_html(words, [f"w{i}" for i in range(size)], "Head view")
    rows, cols, weights = _top_links(words, HEAD_VIEW_TOP, LINE_BINS[0])
    assert len(lines(page)) == rows.size == sum(min(3, int((row >= LINE_BINS[0]).sum())) for row in words)
    shown = groups(page)
    assert sorted(shown) == list(range(size))
    for i, body in shown.items():  # each word's group holds exactly its own lines, to its top words
        assert [int(attr(line, "data-to")) for line in lines(body)] == cols[rows == i].tolist()
        assert f'<span class="se-hv-w">w{i}</span>' in body
    top = int(np.argmax(words[0]))
    assert f"w{top} {words[0, top]:.2f}" in attr(page[page.index('data-word="0"') :], "title")  # its numbers
    assert page.count('<div class="se-hv-k"') == size  # the attended words, right
    assert "<script" not in page and "<svg" not in page and "http" not in page  # no script, nothing fetched


def test_head_view_lines_grow_with_weight() -> None:
    words = np.array([[0.5, 0.3, 0.15], [0.07, 0.9, 0.03], [0.2, 0.2, 0.6]])
    found = lines(head_view_html(words, ["a", "b", "c"], "t"))
    assert len(found) == 8  # row 1's 0.03 is under the floor
    weight = np.array([float(attr(line, "data-weight")) for line in found])
    style = [attr(line, "style") for line in found]
    width = np.array([float(re.search(r"height:([\d.]+)px", s).group(1)) for s in style])  # the line's thickness
    opacity = np.array([float(re.search(r"opacity:([\d.]+)", s).group(1)) for s in style])
    order = np.argsort(weight)
    assert np.all(np.diff(width[order]) >= 0) and np.all(np.diff(opacity[order]) >= 0)
    assert width[weight == 0.9][0] > width[weight == 0.15][0] > width[weight == 0.07][0]
    # a line runs from its word (left) to the word it attends to (right): down, flat or up
    angle = {(float(attr(line, "data-weight")), attr(line, "data-to")): line for line in found}
    assert "rotate(0.00deg)" in angle[(0.5, "0")] and "rotate(-" in angle[(0.07, "0")]


def test_head_view_hover_rules_focus_one_word() -> None:
    page = head_view_html(np.full((3, 3), 1 / 3), ["a", "b", "c"], "t")
    css = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    assert f".se-hv-qs:hover .se-hv-q{{opacity:{HEAD_FADE}}}" in css  # hovering a word fades every word...
    assert ".se-hv-qs .se-hv-q:hover{opacity:1" in css  # ...but that one
    assert f".se-hv-q:hover .se-hv-l{{background:{HEAD_LINE_FOCUS}}}" in css  # whose lines take the focus colour
    assert HEAD_LINE in css
    assert all(name.startswith("se-hv") for name in re.findall(r"\.([a-zA-Z][\w-]*)", css))  # scoped classes


def test_head_view_escapes_every_text() -> None:
    hostile = [XSS, "&", 'say "hi"', "it's", "<script>alert(2)</script>"]
    page = head_view_html(np.full((5, 5), 0.2), hostile, 'Head view <b>"&"</b>')
    assert "<img" not in page and "<script" not in page and "<b>" not in page
    for text in (XSS, 'say "hi"', "it's", "<script>alert(2)</script>"):
        assert html.escape(text) in page  # shown as typed
    assert re.search(r"&(?!(amp|lt|gt|quot|#x27);)", page) is None  # every & starts an entity
    for tag in re.findall(r"<[^>]*>", page.split("</style>", 1)[1]):  # every quote inside a tag is an attribute's
        assert re.fullmatch(r'</?[a-z]+( [a-z-]+="[^"<>]*")*\s*/?>', tag), tag


def test_head_view_is_cut_to_its_word_limit_and_follows_the_viewport() -> None:
    page = head_view_html(attention(200), [f"w{i}" for i in range(200)], "t", view=(100, 200))
    assert sorted(groups(page)) == list(range(100, 100 + MAX_HEAD_WORDS))
    page = head_view_html(attention(20), [f"w{i}" for i in range(20)], "t", view=(3, 7))
    assert sorted(groups(page)) == [3, 4, 5, 6] and page.count('<div class="se-hv-k"') == 4
    assert {int(attr(line, "data-to")) for line in lines(page)} <= {3, 4, 5, 6}


def test_the_merge_rule_is_stated() -> None:
    assert "sum over" in MERGE_RULE and "mean over" in MERGE_RULE


def test_a_narrow_word_attention_figure_lays_its_bar_across_the_top_with_short_axis_titles() -> None:
    matrix = np.random.default_rng(0).random((4, 4))
    wide = word_attention_figure(matrix, ["a", "b", "c", "d"], "attention")
    narrow = word_attention_figure(matrix, ["a", "b", "c", "d"], "attention", narrow=True)
    assert wide.data[0].colorbar.orientation is None and wide.layout.xaxis.title.text == "attended to (key word)"
    assert narrow.data[0].colorbar.orientation == "h"
    assert (narrow.layout.xaxis.title.text, narrow.layout.yaxis.title.text) == ("key word", "query word")
    assert narrow.layout.margin.t > wide.layout.margin.t and narrow.layout.margin.l == wide.layout.margin.l
    np.testing.assert_array_equal(narrow.data[0].z, wide.data[0].z)
