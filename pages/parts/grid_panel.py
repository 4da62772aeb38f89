"""Explain page section: the alpha grid (its controls, viewport and clicks) at token, word or sentence level."""

from __future__ import annotations

import numpy as np
import streamlit as st
from plotly.graph_objects import Figure

from pages.parts.view_state import bind, kept, remember, selected_span
from pages.ui import PLOT_CONFIG
from pages.ui.loading import cached_explanation
from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.words import Level, group_span_at, level_view
from selfexplain.views.band import alpha_figure, band_caption
from selfexplain.views.figures import MAX_GRID_UNITS, grid_view


def shown_explanation() -> Explanation:
    """The explanation on the page, fetched again (from the results cache) by its inputs.

    Widget callbacks look it up instead of holding it: Streamlit keeps every widget's callback for the
    life of the session, and the grid gets a new widget id for each input (its id hashes the figure),
    so a callback that held its explanation kept every explanation of the session alive (~0.7 MB each)."""
    directory, text, pair = st.session_state._shown
    return cached_explanation(directory, text, pair)


def on_grid_select() -> None:
    """A grid cell was clicked: select its span. Runs once per new selection (a callback, not on
    every rerun), so the grid and the table can both hold a selection without undoing each other."""
    cell = clicked_cell(st.session_state.get("grid", {}).get("selection", {}).get("points", []))
    if cell is None:
        return
    explanation = shown_explanation()
    groups = level_view(explanation, kept("grid_level") or "token")  # type: ignore[arg-type]
    row, col = cell
    picked = explanation.span_at(row, col) if groups is None else group_span_at(explanation, row, col, groups)
    if picked is not None:
        remember(explanation, picked)


def clicked_cell(points: list[dict]) -> tuple[int, int] | None:
    """The (start, end) units of the first clicked point of a grid or band selection: its ``customdata``
    (start, end, alpha, rank), which the square grid and the band view both carry; else the square grid's
    ``y`` (start) and ``x`` (end). None when nothing was clicked."""
    if not points:
        return None
    point = points[0]
    data = point.get("customdata")
    if isinstance(data, dict):  # a typed-array row (plotly sends numpy customdata so) arrives as {"0": .., "1": ..}
        data = [data[key] for key in sorted(data, key=int)]
    if data is not None and len(data) >= 2:
        return int(data[0]), int(data[1])
    if "x" in point and "y" in point:
        return int(point["y"]), int(point["x"])
    return None


def widest_span(span_mask: np.ndarray, units: np.ndarray) -> int:
    """The most units (words, sentences) any valid span covers; ``span_mask`` ``[T, T]``, ``units`` ``[T]``."""
    rows = np.flatnonzero(span_mask.any(axis=1))
    if not len(rows):
        return 1
    last = span_mask.shape[1] - 1 - np.argmax(span_mask[rows, ::-1], axis=1)  # each row's widest valid end
    return int((units[last] - units[rows]).max()) + 1


def render_grid(explanation: Explanation, level: Level) -> tuple[Figure, tuple[int, int] | None]:
    """The width and colour controls, the viewport slider of a long input and the
    clickable alpha grid at ``level``; returns the grid and its viewport ``(lo, hi)`` (None: all of it),
    which the attention map beside it shares."""
    groups = level_view(explanation, level)
    units = groups.word_of_token if groups is not None else np.arange(explanation.num_tokens)
    count = int(units[-1]) + 1 if len(units) else 1
    width_limit = max(1, min(count, widest_span(explanation.span_mask, units)))  # a width-limited model's cap
    default_width = width_limit if count <= MAX_GRID_UNITS else min(width_limit, 40)
    g1, g2 = st.columns(2)
    log_colour = g1.toggle(
        "Log colour", key="log_colour", help="a log scale shows the many small alphas too",
        **bind("log_colour", False),  # type: ignore[arg-type]
    )  # fmt: skip
    max_width = g2.number_input(
        "Max span width",
        1,
        width_limit,
        default_width,
        key=f"max_width_{width_limit}",
        help="a band along the diagonal",
    )
    view = None
    if count > MAX_GRID_UNITS:
        start = st.slider(
            "Viewport along the diagonal (first unit)", 0, count - MAX_GRID_UNITS, 0, key=f"grid_view_{count}"
        )
        view = grid_view(count, start)
        st.caption(f"Showing units {view[0]}–{view[1] - 1} of {count}.")
    selection = selected_span(explanation)
    cell = None
    if selection is not None:
        cell = (int(units[selection.start_token]), int(units[selection.end_token]))
    grid, band = alpha_figure(explanation, log_colour, int(max_width), level, cell, view)
    if band:  # past 48 units, spans a few units wide
        st.caption(band_caption(count, level))
    st.plotly_chart(
        grid,
        on_select=on_grid_select,
        selection_mode="points",
        key="grid",
        config=PLOT_CONFIG,
        theme=None,
    )
    weight = (
        "The colour is alpha, the weight the classifier gives that span; the weights sum to 1 and the prediction "
        "is read from them. Click a cell to highlight it."
    )
    if band:
        st.caption(
            f"How to read it: each cell is one span of the input, starting at the {level} in its column and "
            f"covering as many {level}s as the number on its row (1 at the top). {weight}"
        )
    else:
        st.caption(
            "How to read it: each cell is one span of the input, from the word on its row to the word in its "
            f"column (so only the upper triangle exists). {weight}"
        )
    return grid, view
