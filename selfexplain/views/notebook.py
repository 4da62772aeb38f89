"""An :class:`~selfexplain.core.results.explanation.Explanation` shown inline in Jupyter (``_repr_html_``) or as a file
(``show``): importing this module registers both for every Explanation (:mod:`selfexplain.core.results.display`).

Static HTML with an inline SVG grid: no script and nothing fetched from a CDN, so it renders offline
and stays in the saved notebook. It shows the prediction with every class probability, the text with
the top spans shaded (:func:`selfexplain.views.highlight.highlight_html`), the top spans, and the alpha grid
over ``(start, end)`` spans: one cell per word for word-level models (the model's own unit), per token
otherwise; a longer input is pooled into at most :data:`MAX_CELLS` x :data:`MAX_CELLS` cells (each
cell sums alpha over the spans that start in its row's words and end in its column's), and the
caption says so. Every piece of text is escaped.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from plotly.colors import get_colorscale

from selfexplain.core.results.display import register as register_display
from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.words import group_view, word_of_token
from selfexplain.views.highlight import escape_text, highlight_html
from selfexplain.views.style import (
    ALPHA_SCALE,
    CAPTION_TEXT,
    FONT_FAMILY,
    HIGHLIGHT,
    INK,
    MUTED,
    NOTE_TEXT,
    ZERO_FILL,
)

MAX_CELLS = 64  # the grid never has more than MAX_CELLS x MAX_CELLS cells
TOP_SPANS = 5
GRID_PX = 560  # side of the cell area
LABEL_CHARS = 18
TITLE_CHARS = 120  # a listed span
TIP_CHARS = 60  # a grid cell's tooltip


@dataclass(frozen=True)
class NotebookGrid:
    """The grid drawn inline: ``alpha`` ``[G, G]`` (alpha summed over the spans from row cell to column
    cell), ``mask`` ``[G, G]`` (cells holding a valid span), ``labels`` and ``extents`` ``[G]`` (each
    cell's text and its ``(segment, start_char, end_char)``), ``texts`` (the input's text and pair),
    ``unit`` ("word" or "token"), ``units`` (words or tokens before pooling)."""

    alpha: np.ndarray
    mask: np.ndarray
    labels: tuple[str, ...]
    extents: tuple[tuple[int, int, int], ...]
    texts: tuple[str, str]
    unit: str
    units: int

    @property
    def segments(self) -> np.ndarray:
        return np.array([extent[0] for extent in self.extents], dtype=int)

    def span_text(self, first: int, last: int) -> str:
        """The text from cell ``first`` to cell ``last`` (both in one segment for a valid cell)."""
        segment, start, _ = self.extents[first]
        return self.texts[segment][start : self.extents[last][2]]

    @property
    def pooled(self) -> bool:
        return len(self.labels) < self.units


def _pool(unit_of_token: np.ndarray, segments: np.ndarray, max_cells: int) -> np.ndarray:
    """``[T]`` cell of each token: consecutive units of one segment share a cell, each segment gets
    cells in proportion to its units (at least one), never more than ``max_cells`` in all."""
    cell = np.zeros_like(unit_of_token)
    first = [int(unit_of_token[segments == s].min()) for s in np.unique(segments)]
    counts = np.diff(np.r_[first, unit_of_token.max() + 1])
    shares = np.maximum(1, np.floor(max_cells * counts / counts.sum())).astype(int)
    shares = np.minimum(shares, counts)
    offset = 0
    for segment, start, count, share in zip(np.unique(segments), first, counts, shares):  # one or two segments
        where = segments == segment
        cell[where] = offset + (unit_of_token[where] - start) * share // count
        offset += share
    return cell


def notebook_grid(explanation: Explanation, max_cells: int = MAX_CELLS) -> NotebookGrid:
    """The alpha grid at the model's unit, pooled to at most ``max_cells`` cells a side."""
    count = explanation.num_tokens
    word_level = explanation.span_unit == "word"
    units = word_of_token(explanation) if word_level else np.arange(count)
    segments = np.array([t.segment for t in explanation.tokens], dtype=int)
    total = int(units.max()) + 1 if count else 0
    cells = _pool(units, segments, max_cells) if total > max_cells else units
    view = group_view(explanation, cells)
    texts = (explanation.text, explanation.pair or "")
    unit = "word" if word_level else "token"
    return NotebookGrid(view.alpha, view.span_mask, view.labels, view.extents, texts, unit, total)


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _colours(values: np.ndarray) -> list[str]:
    """Hex colours of the alpha scale for ``values`` in [0, 1] (linear between the scale's stops)."""
    stops = get_colorscale(ALPHA_SCALE)
    at = np.array([float(position) for position, _ in stops])
    rgb = np.array([[int(c) for c in colour[4:-1].split(",")] for _, colour in stops], dtype=float)
    mixed = np.stack([np.interp(values, at, rgb[:, k]) for k in range(3)], axis=1).round().astype(int)
    return [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in mixed.tolist()]


def grid_svg(grid: NotebookGrid) -> str:
    """The grid as inline SVG: start on the rows, end on the columns, a tooltip on every span cell."""
    size = len(grid.labels)
    if size == 0:
        return ""
    cell = max(8, min(28, GRID_PX // size))
    step = max(1, -(-11 // cell))  # label every step-th row and column so labels never overlap
    left, top = 8 + 7 * LABEL_CHARS, 8 + 5 * LABEL_CHARS
    rows, cols = np.nonzero(grid.mask)
    weights = grid.alpha[rows, cols]
    largest = float(weights.max()) if weights.size else 0.0
    fills = _colours(weights / largest if largest > 0 else weights)
    parts = []
    for i, j, weight, fill in zip(rows.tolist(), cols.tolist(), weights.tolist(), fills):  # at most 64 x 64 cells
        where = f"{grid.unit}s {i + 1}-{j + 1}" if not grid.pooled else f"groups {i + 1}-{j + 1}"
        title = escape_text(f"{where}: {_short(grid.span_text(i, j), TIP_CHARS)} · alpha {weight:.4f}")
        colour = fill if weight > 0 else ZERO_FILL
        parts.append(
            f'<rect x="{left + j * cell}" y="{top + i * cell}" width="{cell - 1}" height="{cell - 1}" '
            f'fill="{colour}"><title>{title}</title></rect>'
        )
    font = min(12, cell)
    for k in range(0, size, step):
        label = escape_text(_short(grid.labels[k], LABEL_CHARS))
        middle = k * cell + cell / 2
        row_y = top + middle + font / 3
        parts.append(f'<text x="{left - 4}" y="{row_y:.1f}" text-anchor="end" font-size="{font}">{label}</text>')
        x, y = left + middle + font / 3, top - 4
        parts.append(f'<text x="{x:.1f}" y="{y}" transform="rotate(-60 {x:.1f} {y})" font-size="{font}">{label}</text>')
    boundary = np.flatnonzero(np.diff(grid.segments)) + 1
    for k in boundary.tolist():  # a pair: the line between the two texts
        edge = k * cell - 0.5
        parts.append(
            f'<line x1="{left}" y1="{top + edge}" x2="{left + size * cell}" y2="{top + edge}" stroke="{INK}"/>'
        )
        parts.append(
            f'<line x1="{left + edge}" y1="{top}" x2="{left + edge}" y2="{top + size * cell}" stroke="{INK}"/>'
        )
    width, height = left + size * cell + 8, top + size * cell + 8
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="{FONT_FAMILY}" role="img">{"".join(parts)}</svg>'
    )


def _caption(grid: NotebookGrid) -> str:
    size = len(grid.labels)
    largest = float(grid.alpha[grid.mask].max()) if grid.mask.any() else 0.0
    text = (
        f"Alpha over spans, {grid.unit} level: row = first {grid.unit}, column = last {grid.unit}; colour relative "
        f"to the largest alpha ({largest:.3f}); grey: alpha 0. Hover a cell for its span."
    )
    if grid.pooled:
        text += (
            f" The {grid.units:,} {grid.unit}s are pooled into {size} groups (at most {MAX_CELLS} a side): "
            f"each cell sums alpha over the spans that start in its row's {grid.unit}s and end in its column's."
        )
    return escape_text(text)


def _probabilities(explanation: Explanation) -> str:
    rows = []
    for index, (name, p) in enumerate(zip(explanation.label_names, explanation.probabilities.tolist())):
        colour = HIGHLIGHT if index == explanation.predicted_index else MUTED
        rows.append(
            "<div style='display:flex;align-items:center;gap:8px;line-height:1.5'>"
            f"<span style='width:10em;text-align:right'>{escape_text(name)}</span>"
            f"<span style='display:inline-block;height:10px;width:{200 * p:.0f}px;background:{colour}'></span>"
            f"<span>{p:.1%}</span></div>"
        )
    return "".join(rows)


def explanation_html(explanation: Explanation, max_cells: int = MAX_CELLS) -> str:
    """The inline view: prediction, probabilities, highlighted text, top spans, alpha grid."""
    spans = explanation.evidence_spans(TOP_SPANS)  # a sparse alpha's zero spans are not evidence
    listed = "".join(
        f"<li>{escape_text(_short(span.text, TITLE_CHARS))} <span style='color:{NOTE_TEXT}'>"
        f"alpha {span.alpha:.4f}</span></li>"
        for span in spans
    )
    grid = notebook_grid(explanation, max_cells)
    model = f" · model <b>{escape_text(explanation.model_name)}</b>" if explanation.model_name else ""
    return (
        f"<div class='selfexplain-notebook' style='font-family:{FONT_FAMILY};color:{INK}'>"
        f"<div style='font-size:1.1em;margin-bottom:4px'>Prediction: <b>{escape_text(explanation.label)}</b> "
        f"({explanation.confidence:.1%}){model}</div>"
        f"{_probabilities(explanation)}"
        f"<div style='margin:8px 0'>{highlight_html(explanation, spans)}</div>"
        f"<div>Top spans:</div><ol style='margin-top:2px'>{listed}</ol>"
        f"<div style='font-size:0.85em;color:{CAPTION_TEXT};max-width:{GRID_PX + 150}px'>{_caption(grid)}</div>"
        f"{grid_svg(grid)}</div>"
    )


def _in_kernel() -> bool:
    """True inside a Jupyter kernel (not a terminal IPython, not plain Python)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def show(explanation: Explanation, path: str | Path | None = None) -> Path | None:
    """Display inline in a Jupyter kernel (returns None); elsewhere, or with ``path``, write a standalone
    HTML file (a new temporary file when ``path`` is None), print its path and return it."""
    body = explanation_html(explanation)
    if path is None and _in_kernel():
        from IPython.display import HTML, display

        display(HTML(body))
        return None
    if path is None:
        with tempfile.NamedTemporaryFile(prefix="selfexplain-", suffix=".html", delete=False) as handle:
            path = handle.name
    target = Path(path)
    title = escape_text(f"selfexplain: {explanation.label}")
    target.write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head><body>{body}</body></html>",
        encoding="utf-8",
    )
    print(f"explanation written to {target}")
    return target


register_display(explanation_html, show)  # Explanation._repr_html_ and Explanation.show (results import no view)
