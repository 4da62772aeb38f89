"""The band view of the alpha grid past 48 words (issue 58 item 3): every word labelled, cells large enough to
point at, each hover marker at the centre of the cell it names, the square grid's hover and click contract."""

from __future__ import annotations

import numpy as np
import pytest

from selfexplain.core.results.explanation import Explanation, Token, evidence_ranks
from selfexplain.views.band import (
    BAND_ROW_UNITS,
    band_caption,
    band_cells,
    band_row_units,
    band_width,
    span_band_figure,
)
from selfexplain.views.figures import GRID_PITCH, LABELLED_UNITS, MARKER_SIZE, PLOT_WIDTH, span_grid_figure
from selfexplain.views.style import TICK_FONT

SENTENCE = (
    "Despite a sluggish first act , the film finds its footing and the final scenes make it quietly unforgettable ."
)
WIDTH = 4  # the shipped models' widest span, in words


def band_explanation(words: list[str], max_width: int | None = WIDTH, seed: int = 0) -> Explanation:
    """A word-level explanation of ``words`` whose spans are at most ``max_width`` words wide (None: any
    width), with seeded sparse alpha: about half the valid spans carry weight, the others have alpha 0."""
    starts = np.cumsum([0] + [len(w) + 1 for w in words[:-1]])
    tokens = tuple(Token(w, int(s), int(s) + len(w), 0, w) for w, s in zip(words, starts))
    count = len(words)
    rows, cols = np.indices((count, count))
    mask = cols >= rows
    if max_width is not None:
        mask &= cols - rows < max_width
    weights = np.random.default_rng(seed).random((count, count))
    alpha = np.where(mask & (weights > 0.5), weights, 0.0)
    alpha = (alpha / alpha.sum()).astype(np.float32)
    return Explanation(" ".join(words), None, tokens, ("neg", "pos"), np.array([0.3, 0.7]), alpha, mask, "m",
                       span_unit="word")  # fmt: skip


def words_of(count: int) -> list[str]:
    return (SENTENCE.split() * (count // 19 + 1))[:count]


def row_axes(fig) -> list[tuple[str, str]]:
    """The (x, y) axis names of each band row, top to bottom."""
    return [(h.xaxis or "x", h.yaxis or "y") for h in fig.data if h.type == "heatmap"]


def layout_axis(fig, ref: str):
    return fig.layout[ref[0] + "axis" + ref[1:]]


def pickers(fig, name: str) -> list:
    return [t for t in fig.data if t.type == "scatter" and t.name == name]


def cells(fig) -> dict[tuple[int, int], tuple[list[float], str, str]]:
    """Every hover marker: (start, end) -> (customdata, trace name, hover text)."""
    found = {}
    for trace in fig.data:
        if trace.type == "scatter":
            for data, text in zip(trace.customdata, trace.text):
                found[(int(data[0]), int(data[1]))] = (list(data), trace.name, text)
    return found


@pytest.mark.parametrize("count", [60, 120])
def test_every_word_is_labelled_and_every_cell_can_be_hit(count: int) -> None:
    words = words_of(count)
    fig = span_band_figure(band_explanation(words), level="word")
    axes = row_axes(fig)
    labels = [t for x, _ in axes for t in layout_axis(fig, x).ticktext]
    values = [v for x, _ in axes for v in layout_axis(fig, x).tickvals]
    assert labels == words and values == list(range(count))  # every word, none thinned, each once
    per_row = band_row_units(count)
    assert per_row <= BAND_ROW_UNITS and PLOT_WIDTH / per_row >= GRID_PITCH  # a column label and a cell to point at
    plot_px = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    for x, y in axes:
        lo, hi = layout_axis(fig, x).range
        assert hi - lo == per_row  # every row the same pitch, the last one too
        bottom, top = layout_axis(fig, y).domain
        assert (top - bottom) * plot_px / WIDTH >= GRID_PITCH - 1 >= TICK_FONT["size"] + 4  # a row per width
        assert list(layout_axis(fig, y).tickvals) == [1, 2, 3, 4]
    tops = [layout_axis(fig, y).domain[1] for _, y in axes]
    assert tops == sorted(tops, reverse=True)  # the rows run top to bottom, words left to right
    assert all(t.marker.size == MARKER_SIZE for t in fig.data if t.type == "scatter")
    assert fig.layout.clickmode == "event+select" and fig.layout.hoverdistance >= GRID_PITCH / 2
    assert band_caption(count, "word") == f"{count} words: spans drawn as a band, start word across, span width down."


def test_each_marker_sits_at_the_centre_of_its_cell() -> None:
    explanation = band_explanation(words_of(60))
    fig = span_band_figure(explanation, level="word")
    heat = {(h.xaxis or "x"): h for h in fig.data if h.type == "heatmap"}
    markers = 0
    for trace in (t for t in fig.data if t.type == "scatter"):
        grid = heat[trace.xaxis or "x"]
        assert (trace.yaxis or "y") == (grid.yaxis or "y")  # drawn over its own row
        z = np.asarray(grid.z, dtype=float)
        columns = {int(v): k for k, v in enumerate(grid.x)}
        for x, y, data in zip(trace.x, trace.y, trace.customdata):
            assert x == data[0] and y == data[1] - data[0] + 1  # x = start, y = width: the cell's centre
            assert list(grid.y)[int(y) - 1] == y  # heatmap cells are centred on whole starts and widths
            assert z[int(y) - 1, columns[int(x)]] == pytest.approx(data[2])  # the colour drawn there
            markers += 1
    count = 60
    assert markers == sum(min(WIDTH, count - i) for i in range(count))  # one marker per valid span


def test_hover_and_click_data_match_the_explanation_and_the_square_grid() -> None:
    explanation = band_explanation(words_of(60))
    ranks = evidence_ranks(explanation.alpha, explanation.span_mask)
    fig = span_band_figure(explanation, level="word")
    found = cells(fig)
    for start, end in [(0, 0), (2, 5), (17, 19), (30, 30), (44, 47), (59, 59)]:
        data, name, _ = found[(start, end)]
        assert data[2] == pytest.approx(explanation.alpha[start, end])
        assert data[3] == ranks[start, end]
        assert name == ("spans" if ranks[start, end] > 0 else "spans with alpha 0")
    for data, name, _ in found.values():  # alpha 0: its own trace, no rank
        assert (name == "spans with alpha 0") == (data[2] == 0) == (data[3] == 0)
    for zero in pickers(fig, "spans with alpha 0"):
        assert zero.hovertemplate.endswith("alpha 0, not ranked<extra></extra>")
    for ranked in pickers(fig, "spans"):
        assert "rank %{customdata[3]} · alpha %{customdata[2]:.4f}" in ranked.hovertemplate
    assert len(pickers(fig, "spans")) == len(pickers(fig, "spans with alpha 0")) == 2  # each of the two rows
    square = cells(span_grid_figure(explanation, max_width=WIDTH, level="word"))
    assert {k: v[0] for k, v in found.items()} == {k: v[0] for k, v in square.items()}  # one click contract
    assert found[(2, 5)][2] == "sluggish first act ,"


def test_words_are_escaped() -> None:
    words = words_of(60)
    words[3] = "<b>x</b>"
    fig = span_band_figure(band_explanation(words), level="word")
    labels = [t for x, _ in row_axes(fig) for t in layout_axis(fig, x).ticktext]
    assert labels[3] == "&lt;b&gt;x&lt;/b&gt;" and "<b>x</b>" not in labels
    assert cells(fig)[(3, 3)][2] == "&lt;b&gt;x&lt;/b&gt;"
    assert cells(fig)[(2, 4)][2] == "sluggish &lt;b&gt;x&lt;/b&gt; act"


def test_selection_log_colour_and_width() -> None:
    explanation = band_explanation(words_of(120))
    fig = span_band_figure(explanation, log_colour=True, level="word", selected=(41, 43))
    (shape,) = fig.layout.shapes
    per_row = band_row_units(120)
    assert (shape.xref, shape.yref) == ("x2", "y2") and 41 // per_row == 1  # in the row that holds word 41
    assert (shape.x0, shape.x1, shape.y0, shape.y1) == (40.5, 41.5, 2.5, 3.5)  # start 41, width 3
    z = np.concatenate([np.asarray(h.z, dtype=float).ravel() for h in fig.data if h.type == "heatmap"])
    assert np.nanmax(z) <= 0.0 and fig.layout.coloraxis.colorbar.title.text == "log10 alpha"
    narrow = span_band_figure(explanation, level="word", max_width=2, selected=(41, 44))  # wider than shown
    assert not narrow.layout.shapes and max(d[1] - d[0] + 1 for d, _, _ in cells(narrow).values()) == 2


def test_which_grids_are_bands() -> None:
    assert band_width(band_explanation(words_of(LABELLED_UNITS)), "word") is None  # the square labels them all
    assert band_width(band_explanation(words_of(LABELLED_UNITS + 1)), "word") == WIDTH
    assert band_width(band_explanation(words_of(60), max_width=None), "word") is None  # every span: no band
    assert band_row_units(60) == 30 and band_row_units(36) == 36 and band_row_units(37) == 19
    grid = np.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(band_cells(grid, 2), [[0, 1], [4, 5], [8, np.nan]])
