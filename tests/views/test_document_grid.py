"""Issue 23 defect 3: a long text's "One paragraph up close" drew its alpha colour bar from -0.5 to 0.5, its
grid in one colour though the paragraph held 62.8% of alpha, and word labels that overlapped."""

from __future__ import annotations

import numpy as np
import pytest

from selfexplain.core.results.explanation import Explanation, Token
from selfexplain.core.results.words import word_view
from selfexplain.views.document import mass_in_view, part_grid_level
from selfexplain.views.figures import MAX_GRID_UNITS, TICK_FONT, grid_data, grid_view, span_grid_figure


def paragraph(words: int = 150, per_sentence: int = 15, mass: float = 0.628) -> Explanation:
    """A part of a document as Document.part gives it: word tokens, sparse alpha (one span over the whole
    paragraph holds ``mass``; every other span has alpha 0), not renormalised."""
    names = [("." if (i + 1) % per_sentence == 0 else f"w{i}") for i in range(words)]
    starts = np.cumsum([0] + [len(n) + 1 for n in names[:-1]])
    tokens = tuple(Token(n, int(s), int(s) + len(n), 0, n) for n, s in zip(names, starts))
    mask = np.triu(np.ones((words, words), dtype=bool))
    alpha = np.zeros((words, words), dtype=np.float32)
    alpha[0, words - 1] = mass
    text = " ".join(names)
    return Explanation(text, None, tokens, ("neg", "pos"), np.array([0.4, 0.6]), alpha, mask, "m", span_unit="word")


def heat_range(fig) -> tuple[float, float]:
    return float(fig.data[0].zmin), float(fig.data[0].zmax)


def test_a_long_paragraph_opens_by_sentence_and_shows_its_mass() -> None:
    part = paragraph()
    assert len(word_view(part).labels) > MAX_GRID_UNITS
    level = part_grid_level(part)
    assert level == "sentence"
    alpha = grid_data(part, level)[0]
    assert mass_in_view(alpha) == pytest.approx(0.628, rel=1e-5)
    fig = span_grid_figure(part, level=level)
    assert heat_range(fig) == pytest.approx((0.0, 0.628), rel=1e-5)
    assert part_grid_level(paragraph(words=60)) == "word"


def test_the_alpha_scale_never_runs_below_zero() -> None:
    part = paragraph()
    fig = span_grid_figure(part, level="word", view=grid_view(150, 0))  # a viewport holding only zeros
    low, high = heat_range(fig)
    assert low == 0.0 and high > low
    assert mass_in_view(grid_data(part, "word", None, grid_view(150, 0))[0]) == 0.0
    low, high = heat_range(span_grid_figure(part, log_colour=True, level="sentence"))
    assert low == -6.0 and high == pytest.approx(np.log10(0.628), rel=1e-5)


def test_labels_of_a_dense_grid_do_not_overlap() -> None:
    fig = span_grid_figure(paragraph(words=MAX_GRID_UNITS + 10), level="word")
    shown = len(fig.layout.xaxis.ticktext)
    assert shown < MAX_GRID_UNITS
    margin = fig.layout.margin
    pitch = (fig.layout.height - margin.t - margin.b) / shown  # the plot area's pixels per label
    assert pitch >= TICK_FONT["size"] + 2
    assert len(fig.layout.xaxis.tickvals) == shown
    small = span_grid_figure(paragraph(words=20, per_sentence=5), level="word")
    assert len(small.layout.xaxis.ticktext) == 20  # a small grid keeps a label on every row


def test_a_parts_attention_shares_its_grids_axis() -> None:
    from selfexplain.core.results.document import WindowAttention
    from selfexplain.views.document import part_word_attention_figure, window_positions

    part = paragraph(words=30, per_sentence=10)
    first = 40  # the part is document tokens 40..69; the window holds 20..79 after [CLS]
    index = np.concatenate([[-1], np.arange(20, 80), [-1]])
    rng = np.random.default_rng(0)
    maps = rng.random((2, 2, index.size, index.size))
    maps /= maps.sum(-1, keepdims=True)
    window = WindowAttention(20, tuple(["[CLS]", *(f"t{i}" for i in range(60)), "[SEP]"]), index, maps)
    np.testing.assert_array_equal(window_positions(window, np.array([20, 40, 79, 80])), [1, 21, 60, -1])
    fig = part_word_attention_figure(window, 1, part, first, "sentence")
    grid = span_grid_figure(part, level="sentence")
    assert list(fig.layout.xaxis.ticktext) == list(grid.layout.xaxis.ticktext) == ["S1", "S2", "S3"]
    z = np.array(fig.data[0].z, dtype=float)
    rows = maps[-1].mean(0)[21:51, 21:51]  # the part's tokens, mean over heads of the last layer
    assert z[0, 1] == pytest.approx(rows[0:10, 10:20].sum(1).mean())
    words = part_word_attention_figure(window, 1, part, first, "word", view=(0, 20))
    same = span_grid_figure(part, level="word", view=(0, 20))
    assert list(words.layout.xaxis.ticktext) == list(same.layout.xaxis.ticktext)
