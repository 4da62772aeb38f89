"""Pure figure and table builders: Explanation (or arrays from it) -> plotly Figure / DataFrame.

No Streamlit here. Grids put the start token on the y axis (top to bottom) and
the end token on the x axis, so valid spans fill the upper-right triangle.
Colour scales are single-hue sequential ones that still read in greyscale.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from selfexplain.core.results.explanation import Explanation, evidence_ranks
from selfexplain.core.results.words import Level, level_view
from selfexplain.views.model_view import MODEL_VIEW_CELLS, model_view_figure, pooled_maps  # noqa: F401 (re-exported)
from selfexplain.views.style import (
    ALPHA_SCALE,
    ATTENTION_SCALE,
    HIGHLIGHT,
    INK,
    MARGIN,
    MUTED,
    TICK_FONT,
    apply_layout,
    label_room,
)

MAX_GRID_UNITS = 120  # a grid ships at most 120 x 120 cells to the browser
SIDE_BY_SIDE_UNITS = 14  # two grids of more units than this go one above the other, each the page's width


def side_by_side(units: int) -> bool:
    """Whether two grids of ``units`` rows each fit side by side, a label on every row and cells large enough
    to point at (half the page at 1,440 px, the sidebar open, holds about 14); past that they are stacked."""
    return units <= SIDE_BY_SIDE_UNITS


def plot_text(text: str) -> str:
    """Text for plotly labels and hover: plotly reads a subset of HTML (``<b>``, ``<a href>``, ``<br>``)
    in these strings, so user text is HTML-escaped to show as typed."""
    return html.escape(text, quote=False)


LABEL_PITCH = 4  # pixels between two axis labels beyond the font size
GRID_PITCH = 20  # pixels a grid's row gets: room for its label, a cell large enough to point at
PLOT_WIDTH = 720  # the plot area's width of a grid as wide as the page at 1,440 px (sidebar open): column labels
LABELLED_UNITS = 48  # a grid grows to label every row up to this many; a larger one labels every step-th
MARKER_SIZE = 4  # a grid's hover markers: small, so the cell under the pointer is the one whose centre is nearest
HOVER_DISTANCE = 40  # pixels from a cell's centre that still hover it (half the diagonal of a large cell)


def label_step(count: int, plot: int, tick_size: int = TICK_FONT["size"]) -> int:
    """Label every ``step``-th row and column of a ``count``-unit grid whose plot area is ``plot`` pixels a
    side, so that labels do not overlap (the hover still names every cell)."""
    return max(1, -(-count * (tick_size + LABEL_PITCH) // max(1, plot)))


def _token_axes(fig: go.Figure, axis: list[int], labels: Sequence[str], x_title: str, y_title: str) -> int:
    """Token labels on both axes of a square grid, the first row at the top; on a grid too dense for a
    label per row, every :func:`label_step`-th one (so they never overlap). Returns the figure's height in
    pixels (:func:`_square_side` with room for the labels)."""
    names = [plot_text(x) for x in labels]
    room = label_room(names, TICK_FONT["size"])
    side = _square_side(len(axis), room)
    step = label_step(len(axis), min(side - int(MARGIN["t"]) - room, PLOT_WIDTH))  # rows, and columns across
    ticks = {
        "tickmode": "array",
        "tickvals": axis[::step],
        "ticktext": names[::step],
        "tickfont": TICK_FONT,
    }
    fig.update_xaxes(title=x_title, **ticks)
    fig.update_yaxes(title=y_title, autorange="reversed", **ticks)
    return side


def _square_side(units: int, room: int | None = None) -> int:
    """Pixel height of a square grid of ``units`` rows whose labels take ``room`` pixels (default: a word of
    ten characters): :data:`GRID_PITCH` a row up to :data:`LABELLED_UNITS` rows, so every row has its label
    and a cell large enough to point at; at least 420."""
    room = label_room(["x" * 10], TICK_FONT["size"]) if room is None else room
    return max(420, int(MARGIN["t"]) + room + GRID_PITCH * min(units, LABELLED_UNITS))


def probability_figure(explanation: Explanation) -> go.Figure:
    """Horizontal bar of every class probability, the predicted class highlighted."""
    names = list(explanation.label_names)
    colours = [HIGHLIGHT if i == explanation.predicted_index else MUTED for i in range(len(names))]
    fig = go.Figure(
        go.Bar(
            x=explanation.probabilities,
            y=names,
            orientation="h",
            marker_color=colours,
            text=[f"{p:.1%}" for p in explanation.probabilities],
            textposition="auto",
            hovertemplate="%{y}: %{x:.3f}<extra></extra>",
        )
    )
    fig.update_xaxes(range=[0, 1], tickformat=".0%")
    fig.update_yaxes(autorange="reversed")
    return apply_layout(fig, "Class probabilities", 60 + 32 * len(names))


def rank_matrix(explanation: Explanation) -> np.ndarray:
    """``[T, T]`` rank of each valid span with alpha above 0 (1 = highest; the order of
    :attr:`Explanation.ranking`), 0 elsewhere: alpha-0 spans are not ranked."""
    return evidence_ranks(explanation.alpha, explanation.span_mask)


def grid_view(size: int, start: int = 0) -> tuple[int, int]:
    """The diagonal viewport ``[lo, hi)`` of at most :data:`MAX_GRID_UNITS` units starting near ``start``."""
    lo = max(0, min(start, size - MAX_GRID_UNITS))
    return lo, min(size, lo + MAX_GRID_UNITS)


def grid_data(
    explanation: Explanation,
    level: Level = "token",
    max_width: int | None = None,
    view: tuple[int, int] | None = None,
) -> tuple[np.ndarray, np.ndarray, list[str], list[list[str]], int]:
    """Alpha grid ready to draw, at token, word or sentence level, over the viewport ``view = (lo, hi)``
    (default: the first :data:`MAX_GRID_UNITS` units) and spans of at most ``max_width`` units.

    Returns ``(alpha [G,G] with NaN off valid spans, ranks [G,G] (0: alpha 0, not ranked), labels [G],
    span texts [G][G], lo)``.
    """
    groups = level_view(explanation, level)
    if groups is not None:
        alpha, mask, labels, extents = groups.alpha, groups.span_mask, list(groups.labels), groups.extents
        ranks = evidence_ranks(alpha, mask)  # the rule group_span_at uses: hover and click agree
    else:
        alpha, mask = explanation.alpha, explanation.span_mask
        labels = [t.piece or t.text for t in explanation.tokens]
        extents = [(t.segment, t.start, t.end) for t in explanation.tokens]
        ranks = rank_matrix(explanation)
    lo, hi = view if view is not None else grid_view(len(labels))
    alpha, mask, ranks = alpha[lo:hi, lo:hi], mask[lo:hi, lo:hi], ranks[lo:hi, lo:hi]
    size = hi - lo
    if max_width is not None:
        rows, cols = np.indices((size, size))
        mask = mask & ((cols - rows) < max_width)
    texts = [
        [
            explanation.segment_text(extents[lo + i][0])[extents[lo + i][1] : extents[lo + j][2]] if mask[i, j] else ""
            for j in range(size)
        ]
        for i in range(size)
    ]
    return np.where(mask, alpha, np.nan), np.where(mask, ranks, 0), labels[lo:hi], texts, lo


def span_grid_figure(
    explanation: Explanation,
    log_colour: bool = False,
    max_width: int | None = None,
    level: Level = "token",
    selected: tuple[int, int] | None = None,
    view: tuple[int, int] | None = None,
    *,
    first_sentence: int = 0,
) -> go.Figure:
    """Heatmap of alpha over the upper-triangular (start, end) grid, within the viewport ``view``; at sentence
    level the rows are numbered S1, S2, ... after ``first_sentence`` sentences (a document's part: its own).

    Invalid spans and the lower triangle are blank (NaN). A transparent marker
    sits on every valid cell for hover and clicks (``customdata`` = start, end, alpha, rank;
    indices are absolute): the cells with alpha above 0 in one trace (``data[1]``, hover "rank"),
    the cells with alpha 0 in another (``data[2]``, only when there are any: hover "alpha 0, not
    ranked", rank 0). At most ``MAX_GRID_UNITS**2`` cells reach the browser.
    """
    alpha, ranks, labels, texts, lo = grid_data(explanation, level, max_width, view)
    colour = np.log10(np.clip(alpha, 1e-6, None)) if log_colour else alpha
    axis = list(range(lo, lo + len(labels)))
    top = float(np.nanmax(colour)) if np.isfinite(colour).any() else 0.0
    low = -6.0 if log_colour else 0.0  # the scale starts at alpha 0 (log: 1e-6), never below
    heat = go.Heatmap(
        z=colour,
        x=axis,
        y=axis,
        zmin=low,
        zmax=top if top > low else low + 1.0,  # all zero (or empty): a scale 0..1, not plotly's -0.5..0.5
        colorscale=ALPHA_SCALE,
        colorbar={"title": "log10 alpha" if log_colour else "alpha"},
        hoverinfo="skip",
        xgap=1,
        ygap=1,
    )
    # Hover and clicks go through a transparent marker on every valid cell: plotly reports
    # selections for scatter points, not for heatmap cells.
    # Small markers: the hovered (and clicked) cell is the one whose centre is nearest the pointer, which is the
    # cell drawn under it; markers as large as a cell overlapped their neighbours and reported them instead.
    marker = {"size": MARKER_SIZE, "opacity": 0.0, "symbol": "square"}

    def picker(rows: np.ndarray, cols: np.ndarray, hover: str, name: str) -> go.Scatter:
        return go.Scatter(
            x=cols + lo,
            y=rows + lo,
            mode="markers",
            marker=marker,
            customdata=np.stack([rows + lo, cols + lo, alpha[rows, cols], ranks[rows, cols]], axis=1),
            text=[plot_text(texts[i][j]) for i, j in zip(rows.tolist(), cols.tolist())],
            hovertemplate="<b>%{text}</b><br>" + hover + "<extra></extra>",
            showlegend=False,
            name=name,
        )

    valid = ~np.isnan(alpha)
    rows, cols = np.nonzero(valid & (ranks > 0))
    traces = [heat, picker(rows, cols, "rank %{customdata[3]} · alpha %{customdata[2]:.4f}", "spans")]
    rows, cols = np.nonzero(valid & (ranks == 0))
    if rows.size:  # sparse alpha: its zeros carry no weight and have no rank
        traces.append(picker(rows, cols, "alpha 0, not ranked", "spans with alpha 0"))
    fig = go.Figure(traces)
    if selected is not None:
        i, j = selected
        fig.add_shape(type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5, line={"color": INK, "width": 3})
    if level == "sentence":  # sentence labels are long: number them, the hover shows the text
        labels = [f"S{first_sentence + lo + i + 1}" for i in range(len(labels))]
    side = _token_axes(fig, axis, labels, f"end {level}", f"start {level}")
    title = f"Self-explaining alpha over spans ({level} level)"
    fig = apply_layout(fig, title, side, labelled=True)
    fig.update_layout(clickmode="event+select", dragmode=False, hoverdistance=HOVER_DISTANCE)
    return fig


def _pair_labels(tokens: Sequence[str]) -> np.ndarray:
    """``[N, N]`` hover labels "query → key", escaped, built by broadcasting (no loop over the pairs)."""
    names = np.array([plot_text(t) for t in tokens], dtype=object)
    return names[:, None] + " → " + names[None, :]


def attention_figure(
    matrix: np.ndarray,
    tokens: list[str] | tuple[str, ...],
    title: str,
    start: int = 0,
    axis_titles: tuple[str, str] = ("attended to (key)", "attending (query)"),
    colorbar_above: bool = False,
) -> go.Figure:
    """``[N, N]`` attention heatmap: row ``i`` (query) attends to column ``j`` (key); the axis is numbered
    from ``start`` (a grid's viewport); ``axis_titles``: (x, y); ``colorbar_above``: as :func:`apply_layout`'s."""
    axis = list(range(start, start + len(tokens)))
    top = float(np.max(matrix)) if np.size(matrix) else 0.0
    fig = go.Figure(
        go.Heatmap(
            z=matrix,
            x=axis,
            y=axis,
            text=_pair_labels(tokens),
            zmin=0.0,  # attention is a share: the scale starts at 0 (one cell alone ran -0.48..0.52)
            zmax=top if top > 0 else 1.0,
            colorscale=ATTENTION_SCALE,
            colorbar={"title": "attention"},
            hovertemplate="%{text}<br>%{z:.4f}<extra></extra>",
        )  # no cell gaps: a full square map reads without them, and draws faster
    )
    side = _token_axes(fig, axis, tokens, *axis_titles)
    return apply_layout(fig, title, side, labelled=True, colorbar_above=colorbar_above)


def span_table(explanation: Explanation, k: int | None = 20) -> pd.DataFrame:
    """The top ``k`` spans that carry weight (all of them when ``None``; never a span with alpha 0):
    rank, text, alpha, token and character offsets."""
    rows = [
        {
            "rank": s.rank,
            "span": s.text,
            "alpha": s.alpha,
            "tokens": f"{s.start_token}-{s.end_token}",
            "chars": f"{s.start_char}-{s.end_char}",
            "segment": "premise"
            if s.segment == 0 and explanation.pair is not None
            else ("hypothesis" if s.segment == 1 else "text"),
            "start_token": s.start_token,
            "end_token": s.end_token,
        }
        for s in explanation.evidence_spans(k)
    ]
    columns = ["rank", "span", "alpha", "tokens", "chars", "segment", "start_token", "end_token"]
    return pd.DataFrame(rows, columns=columns)
