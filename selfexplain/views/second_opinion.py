"""The second opinion beside alpha as a figure: two rows of bars over the alpha grid's words (pure, no Streamlit)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from selfexplain.methods.analysis.second_opinion import SecondOpinion
from selfexplain.views.figures import plot_text
from selfexplain.views.style import ACCENT, MUTED, OPINION, TICK_FONT, apply_layout


def second_opinion_figure(opinion: SecondOpinion) -> go.Figure:
    """Alpha mass per word (top row) and the method's score per word (bottom row, below 0 in grey: removing
    that word made the prediction more likely), on one word axis in the alpha grid's order; the hover names
    each word, its two scores and its two ranks (0: not ranked)."""
    count = len(opinion.labels)
    axis = np.arange(count)
    names = [plot_text(label) for label in opinion.labels]
    ranks_a = np.zeros(count, dtype=int)
    ranks_b = np.zeros(count, dtype=int)
    ranks_a[opinion.agreement.starts] = opinion.agreement.ranks_a
    ranks_b[opinion.agreement.starts] = opinion.agreement.ranks_b
    custom = np.stack([opinion.alpha, opinion.scores, ranks_a, ranks_b], axis=1)
    hover = (
        "<b>%{text}</b><br>alpha %{customdata[0]:.4f} (rank %{customdata[2]})<br>"
        + plot_text(opinion.method)
        + " %{customdata[1]:.4f} (rank %{customdata[3]})<extra></extra>"
    )
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08)
    fig.add_trace(
        go.Bar(x=axis, y=opinion.alpha, marker_color=ACCENT, name="alpha", text=names, textposition="none",
               customdata=custom, hovertemplate=hover),
        row=1, col=1,
    )  # fmt: skip
    colours = np.where(opinion.scores >= 0, OPINION, MUTED)
    fig.add_trace(
        go.Bar(x=axis, y=opinion.scores, marker_color=colours.tolist(), name=plot_text(opinion.method), text=names,
               textposition="none", customdata=custom, hovertemplate=hover),
        row=2, col=1,
    )  # fmt: skip
    fig.update_yaxes(title="alpha mass", row=1, col=1, rangemode="tozero")
    fig.update_yaxes(title=plot_text(opinion.method), row=2, col=1)
    step = max(1, -(-count // 60))  # at most 60 labels along the axis
    fig.update_xaxes(tickmode="array", tickvals=axis[::step].tolist(), ticktext=names[::step], tickangle=-60,
                     tickfont=TICK_FONT, row=2, col=1)  # fmt: skip
    title = f"Alpha and {plot_text(opinion.method)} on the same words"
    fig = apply_layout(fig, title, 480)
    fig.update_layout(showlegend=False, bargap=0.15)
    return fig
