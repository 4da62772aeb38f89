"""Pure figure builders for the Compare page: a model's alpha on the common word axis (one shared
colour scale), a baseline's gradient view, and the rank agreement of two models.

No Streamlit here. Grids put the start word on the y axis (top to bottom) and the end word on the
x axis, as in :mod:`selfexplain.views.figures`; every label goes through :func:`figures.plot_text`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from selfexplain.compare import RankAgreement, WordAxis
from selfexplain.views.figures import MAX_GRID_UNITS, plot_text
from selfexplain.views.style import ALPHA_SCALE, HIGHLIGHT, MUTED, PALETTE, TICK_FONT, apply_layout

MAX_AGREEMENT_POINTS = 2_000  # the scatter draws the items ranked highest by either model


def axis_grid_figure(
    axis: WordAxis,
    alpha: np.ndarray,
    valid: np.ndarray,
    zmax: float,
    title: str,
    view: tuple[int, int] | None = None,
) -> go.Figure:
    """Heatmap of ``alpha`` ``[C, C]`` over the common words ``view = [lo, hi)`` (default: the first
    :data:`MAX_GRID_UNITS`); cells where ``valid`` is False are blank; the colour runs from 0 to
    ``zmax`` (pass the same ``zmax`` to both models' grids to compare colours)."""
    lo, hi = view if view is not None else (0, min(len(axis), MAX_GRID_UNITS))
    shown = valid[lo:hi, lo:hi]
    z = np.where(shown, alpha[lo:hi, lo:hi], np.nan)
    size = hi - lo
    texts = [
        [plot_text(axis.span_text(lo + i, lo + j)) if shown[i, j] else "" for j in range(size)] for i in range(size)
    ]
    positions = list(range(lo, hi))
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=positions,
            y=positions,
            text=texts,
            zmin=0.0,
            zmax=zmax if zmax > 0 else 1.0,
            colorscale=ALPHA_SCALE,
            colorbar={"title": "alpha"},
            hovertemplate="<b>%{text}</b><br>alpha %{z:.4f}<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    ticks = {"tickmode": "array", "tickvals": positions, "ticktext": [plot_text(w) for w in axis.labels[lo:hi]]}
    fig.update_xaxes(title="end word", tickfont=TICK_FONT, **ticks)
    fig.update_yaxes(title="start word", autorange="reversed", tickfont=TICK_FONT, **ticks)
    return apply_layout(fig, title, max(380, min(760, 120 + 16 * size)))


def gradient_figure(axis: WordAxis, scores: np.ndarray, title: str) -> go.Figure:
    """Bars of a word score ``[C]`` (gradient x input summed per common word): positive (supports the
    prediction) in the highlight colour, negative in blue. At most :data:`MAX_GRID_UNITS` words."""
    count = min(len(axis), MAX_GRID_UNITS)
    values = scores[:count]
    positions = list(range(count))
    fig = go.Figure(
        go.Bar(
            x=positions,
            y=values,
            marker_color=[HIGHLIGHT if v >= 0 else PALETTE[0] for v in values.tolist()],
            text=[plot_text(w) for w in axis.labels[:count]],
            hovertemplate="<b>%{text}</b><br>%{y:.4g}<extra></extra>",
            textposition="none",
        )
    )
    fig.update_xaxes(
        tickmode="array", tickvals=positions, ticktext=[plot_text(w) for w in axis.labels[:count]], tickangle=-60
    )
    fig.update_yaxes(title="gradient x input", zeroline=True, zerolinecolor=MUTED)
    return apply_layout(fig, title, 380)


def agreement_figure(agreement: RankAgreement, axis: WordAxis, name_a: str, name_b: str) -> go.Figure:
    """Scatter of each item's rank under model A (x) against model B (y), rank 1 at the origin; the
    diagonal is perfect agreement. Draws at most :data:`MAX_AGREEMENT_POINTS` items (those ranked
    highest by either model)."""
    best = np.minimum(agreement.ranks_a, agreement.ranks_b)
    keep = np.argsort(best, kind="stable")[:MAX_AGREEMENT_POINTS]
    starts, ends = agreement.starts[keep], agreement.ends[keep]
    texts = [plot_text(axis.span_text(int(s), int(e))) for s, e in zip(starts.tolist(), ends.tolist())]
    top = max(float(agreement.ranks_a.max(initial=1.0)), float(agreement.ranks_b.max(initial=1.0)))
    fig = go.Figure(
        [
            go.Scatter(
                x=[1, top], y=[1, top], mode="lines", line={"color": MUTED, "dash": "dot"}, hoverinfo="skip",
                showlegend=False,
            ),
            go.Scatter(
                x=agreement.ranks_a[keep],
                y=agreement.ranks_b[keep],
                mode="markers",
                marker={"color": HIGHLIGHT, "size": 8, "opacity": 0.6},
                text=texts,
                hovertemplate="<b>%{text}</b><br>rank A %{x}<br>rank B %{y}<extra></extra>",
                showlegend=False,
            ),
        ]
    )  # fmt: skip
    unit = "word span" if agreement.unit == "span" else "word"
    fig.update_xaxes(title=f"{unit} rank under A: {plot_text(name_a)}", rangemode="tozero")
    fig.update_yaxes(title=f"{unit} rank under B: {plot_text(name_b)}", rangemode="tozero")
    rho = "n/a" if agreement.rho is None else f"{agreement.rho:.2f}"
    title = f"Rank agreement over {agreement.count:,} common {unit}s (Spearman rho {rho})"
    return apply_layout(fig, title, 460)
