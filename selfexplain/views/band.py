"""The band view of the alpha grid: a long input's spans as a band, start word across, span width down.

A model whose spans are at most ``max_width`` words wide (4 for the shipped ones) fills only a thin band
along the diagonal of the square (start, end) grid. Past :data:`~selfexplain.views.figures.LABELLED_UNITS`
words the square can no longer give every word a label and every cell room to point at, so the band is
drawn on its own: cell (start ``i``, width ``w``) is the alpha of the span of words ``i .. i + w - 1``.
No Streamlit here.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.words import Level, level_view
from selfexplain.views.figures import (
    GRID_PITCH,
    HOVER_DISTANCE,
    LABELLED_UNITS,
    MARKER_SIZE,
    PLOT_WIDTH,
    grid_data,
    plot_text,
    span_grid_figure,
)
from selfexplain.views.style import ALPHA_SCALE, AXIS_TITLE_ROOM, INK, MARGIN, TICK_FONT, apply_layout, label_room

BAND_MAX_WIDTH = 12  # a grid whose widest span covers at most this many units can be drawn as a band
BAND_ROW_UNITS = PLOT_WIDTH // GRID_PITCH  # start words a band row holds: 36, each GRID_PITCH px wide at 1,440 px
ROW_GAP = 12  # pixels between a band row's column labels and the next row
UNIT_NAMES = {"token": "tokens", "word": "words", "sentence": "sentences"}


def widest_unit_span(mask: np.ndarray) -> int:
    """The most units any valid span of the ``[G, G]`` span mask covers (1 when there is none)."""
    rows, cols = np.nonzero(mask)
    return int((cols - rows).max()) + 1 if rows.size else 1


def band_width(explanation: Explanation, level: Level) -> int | None:
    """The band's height (the widest span, in units) when the grid of ``explanation`` at ``level`` is drawn
    as a band: more than :data:`LABELLED_UNITS` units, spans at most :data:`BAND_MAX_WIDTH` units wide.
    None: the square grid."""
    groups = level_view(explanation, level)
    mask = explanation.span_mask if groups is None else groups.span_mask
    if mask.shape[0] <= LABELLED_UNITS:
        return None
    widest = widest_unit_span(mask)
    return widest if widest <= BAND_MAX_WIDTH else None


def band_caption(count: int, level: Level) -> str:
    """The one line that says a grid of ``count`` units is drawn as a band."""
    return f"{count:,} {UNIT_NAMES[level]}: spans drawn as a band, start {level} across, span width down."


def band_row_units(count: int) -> int:
    """Start units per band row for ``count`` units: as few rows of at most :data:`BAND_ROW_UNITS` as hold
    them, shared evenly (60 words: two rows of 30, not 36 and 24)."""
    rows = max(1, -(-count // BAND_ROW_UNITS))
    return max(1, -(-count // rows))


def band_cells(grid: np.ndarray, width: int) -> np.ndarray:
    """``[G, width]`` band of the ``[G, G]`` (start, end) ``grid``: ``band[i, w - 1] = grid[i, i + w - 1]``,
    NaN past the last unit (the cell's dtype is float)."""
    count = grid.shape[0]
    starts = np.arange(count)[:, None]
    ends = starts + np.arange(width)[None, :]
    inside = ends < count
    return np.where(inside, grid[starts, np.minimum(ends, count - 1)].astype(float), np.nan)


def span_band_figure(
    explanation: Explanation,
    log_colour: bool = False,
    max_width: int | None = None,
    level: Level = "word",
    selected: tuple[int, int] | None = None,
    view: tuple[int, int] | None = None,
    *,
    first_sentence: int = 0,
) -> go.Figure:
    """Alpha of the spans of at most ``max_width`` units (default: the widest valid span) within the viewport
    ``view`` (as :func:`~selfexplain.views.figures.grid_data`), drawn as a band: x = start unit, y = span
    width (1 at the top), cell (start ``i``, width ``w``) = the alpha of units ``i .. i + w - 1``; the
    ``selected`` span ``(start, end)`` (absolute units) outlined. At sentence level the units are numbered
    S1, S2, ... after ``first_sentence`` sentences.

    The band is cut into rows of at most :data:`BAND_ROW_UNITS` start units stacked top to bottom, each its
    own x axis (``xaxis``, ``xaxis2``, ...) with a label on every unit and the same pixel pitch: the page's
    plot area at 1,440 px (:data:`~selfexplain.views.figures.PLOT_WIDTH`, 720 px) gives each start unit
    :data:`GRID_PITCH` px, room for an upright label and a cell large enough to point at, and each width a
    row as tall. Rows rather than one figure that scrolls sideways: Streamlit fits a chart to its column, so
    a wider figure is squeezed rather than scrolled (and so is the HTML report's or the PNG's), which would
    thin the labels again.

    Each row holds a heatmap (``[max_width, units in the row]``, NaN off valid spans, one shared colour
    axis) and transparent small markers at the centre of each valid cell, for hover and clicks, with
    ``customdata`` = start, end, alpha, rank (absolute indices, as the square grid's): the cells with alpha
    above 0 in one trace named "spans" (hover "rank N · alpha x"), the cells with alpha 0 in another named
    "spans with alpha 0" (only when the row has any: hover "alpha 0, not ranked", rank 0).
    """
    alpha, ranks, labels, texts, lo = grid_data(explanation, level, None, view)
    count = len(labels)
    valid_grid = ~np.isnan(alpha)
    width = max(1, min(max_width if max_width is not None else widest_unit_span(valid_grid), max(count, 1)))
    band = band_cells(alpha, width)  # [G, W]
    band_ranks = np.nan_to_num(band_cells(ranks, width)).astype(int)
    colour = np.log10(np.clip(band, 1e-6, None)) if log_colour else band
    top = float(np.nanmax(colour)) if np.isfinite(colour).any() else 0.0
    low = -6.0 if log_colour else 0.0
    if level == "sentence":  # sentence labels are long: number them, the hover shows the text
        labels = [f"S{first_sentence + lo + i + 1}" for i in range(count)]
    names = [plot_text(x) for x in labels]

    per_row = band_row_units(count)
    rows = max(1, -(-count // per_row))
    row_px = width * GRID_PITCH
    ticks_px = label_room(names, TICK_FONT["size"]) - AXIS_TITLE_ROOM  # the column labels, upright
    gap = ticks_px + ROW_GAP
    bottom = ticks_px + AXIS_TITLE_ROOM
    plot_px = rows * row_px + (rows - 1) * gap
    height = int(MARGIN["t"]) + plot_px + bottom
    left = label_room([str(width)], TICK_FONT["size"])
    marker = {"size": MARKER_SIZE, "opacity": 0.0, "symbol": "square"}
    valid = ~np.isnan(band)

    fig = go.Figure()
    layout: dict[str, object] = {}
    for r in range(rows):
        first, last = r * per_row, min(count, (r + 1) * per_row)  # the row's start units, relative to lo
        suffix = "" if r == 0 else str(r + 1)
        x_ref, y_ref = f"x{suffix}", f"y{suffix}"
        starts = np.arange(first, last)
        fig.add_trace(
            go.Heatmap(
                z=colour[first:last].T,  # [W, units in the row]: width down, start across
                x=starts + lo,
                y=np.arange(1, width + 1),
                coloraxis="coloraxis",
                hoverinfo="skip",
                xgap=1,
                ygap=1,
                name="alpha",
                xaxis=x_ref,
                yaxis=y_ref,
            )
        )
        for weighted, hover, name in (
            (True, "rank %{customdata[3]} · alpha %{customdata[2]:.4f}", "spans"),
            (False, "alpha 0, not ranked", "spans with alpha 0"),
        ):
            cells = valid[first:last] & ((band_ranks[first:last] > 0) == weighted)
            i, w = np.nonzero(cells)
            i = i + first
            if not i.size and not weighted:
                continue  # sparse alpha only: a row without zeros has no zero trace
            fig.add_trace(
                go.Scatter(
                    x=i + lo,
                    y=w + 1,
                    mode="markers",
                    marker=marker,
                    customdata=np.stack([i + lo, i + w + lo, band[i, w], band_ranks[i, w]], axis=1),
                    text=[plot_text(texts[a][a + b]) for a, b in zip(i.tolist(), w.tolist())],
                    hovertemplate="<b>%{text}</b><br>" + hover + "<extra></extra>",
                    showlegend=False,
                    name=name,
                    xaxis=x_ref,
                    yaxis=y_ref,
                )
            )
        above = r * (row_px + gap)
        layout[f"xaxis{suffix}"] = {
            "anchor": y_ref,
            "domain": [0.0, 1.0],
            "range": [first + lo - 0.5, first + per_row + lo - 0.5],  # every row the same pitch
            "tickmode": "array",
            "tickvals": (starts + lo).tolist(),
            "ticktext": names[first:last],
            "tickfont": TICK_FONT,
            "showgrid": False,
            "zeroline": False,
            "title": {"text": f"start {level}" if r == rows - 1 else ""},
        }
        layout[f"yaxis{suffix}"] = {
            "anchor": x_ref,
            "domain": [1.0 - (above + row_px) / plot_px, 1.0 - above / plot_px],
            "range": [width + 0.5, 0.5],  # width 1 at the top
            "tickmode": "array",
            "tickvals": list(range(1, width + 1)),
            "ticktext": [str(v) for v in range(1, width + 1)],
            "tickfont": TICK_FONT,
            "showgrid": False,
            "zeroline": False,
            "title": {"text": "width"},
        }
    fig.update_layout(
        coloraxis={
            "colorscale": ALPHA_SCALE,
            "cmin": low,
            "cmax": top if top > low else low + 1.0,  # all zero (or empty): a scale 0..1
            "colorbar": {"title": "log10 alpha" if log_colour else "alpha"},
        },
        **layout,
    )
    if selected is not None:
        start, end = selected[0] - lo, selected[1] - lo
        if 0 <= start < count and 0 <= end - start < width:
            suffix = "" if start // per_row == 0 else str(start // per_row + 1)
            span_width = end - start + 1
            fig.add_shape(
                type="rect", xref=f"x{suffix}", yref=f"y{suffix}", x0=selected[0] - 0.5, x1=selected[0] + 0.5,
                y0=span_width - 0.5, y1=span_width + 0.5, line={"color": INK, "width": 3},
            )  # fmt: skip
    title = f"Self-explaining alpha over spans ({level} level, as a band)"
    fig = apply_layout(fig, title, height, labelled=True, left=left, bottom=bottom)  # every row's labels measured
    fig.update_layout(
        clickmode="event+select",
        dragmode=False,
        hovermode="closest",
        hoverdistance=HOVER_DISTANCE,
    )
    return fig


def alpha_figure(
    explanation: Explanation,
    log_colour: bool = False,
    max_width: int | None = None,
    level: Level = "word",
    selected: tuple[int, int] | None = None,
    view: tuple[int, int] | None = None,
    *,
    first_sentence: int = 0,
) -> tuple[go.Figure, bool]:
    """The alpha figure every page draws, and whether it is the band: past :data:`LABELLED_UNITS` units a
    width-limited model's spans as :func:`span_band_figure`, else the square grid of
    :func:`~selfexplain.views.figures.span_grid_figure` (the same arguments)."""
    band = band_width(explanation, level) is not None
    draw = span_band_figure if band else span_grid_figure
    return draw(explanation, log_colour, max_width, level, selected, view, first_sentence=first_sentence), band
