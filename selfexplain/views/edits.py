"""Figures and tables of an edit's effect (:class:`selfexplain.methods.analysis.edits.AlphaChange`).
Pure; no Streamlit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from selfexplain.methods.analysis.edits import AlphaChange
from selfexplain.views.figures import MAX_GRID_UNITS, _token_axes, plot_text
from selfexplain.views.style import DIFFERENCE_SCALE, apply_layout


def alpha_change_figure(change: AlphaChange) -> go.Figure:
    """Heatmap of alpha after minus alpha before over the word spans of the edited input (start word on
    the y axis, end word on the x axis), on a symmetric scale so that white means unchanged. At most
    :data:`MAX_GRID_UNITS` words (the first ones) reach the browser."""
    size = min(len(change.labels), MAX_GRID_UNITS)
    delta = change.delta[:size, :size]
    finite = delta[~np.isnan(delta)]
    bound = float(np.abs(finite).max()) if finite.size else 0.0
    bound = bound if bound > 0 else 1e-6
    axis = list(range(size))
    labels = change.labels[:size]
    heat = go.Heatmap(
        z=delta,
        x=axis,
        y=axis,
        zmin=-bound,
        zmax=bound,
        zmid=0.0,
        colorscale=DIFFERENCE_SCALE,
        colorbar={"title": "alpha change"},
        customdata=np.array(
            [[plot_text(" ".join(labels[i : j + 1])) if j >= i else "" for j in axis] for i in axis], dtype=object
        ),
        hovertemplate="<b>%{customdata}</b><br>alpha change %{z:+.4f}<extra></extra>",
        xgap=1,
        ygap=1,
    )
    fig = go.Figure([heat])
    side = _token_axes(fig, axis, labels, "end word", "start word")
    shown = f" (first {size} of {len(change.labels)} words)" if size < len(change.labels) else ""
    title = "How the edit moved alpha" + shown
    fig = apply_layout(fig, title, side, labelled=True)
    fig.update_layout(dragmode=False)
    return fig


def alpha_change_table(change: AlphaChange) -> pd.DataFrame:
    """The spans that moved most: ``span``, ``before``, ``after``, ``change`` (after minus before)."""
    frame = pd.DataFrame(list(change.rows), columns=["span", "before", "after"])
    frame["change"] = frame["after"] - frame["before"]
    return frame
