"""Pure figure builders: result tables -> plotly Figures (no Streamlit)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from selfexplain.highlight import escape_text
from selfexplain.style import apply_layout


def curve_figure(curves: pd.DataFrame) -> go.Figure:
    """Mean target-class probability as the top-ranked tokens are removed, one line per explainer."""
    fig = go.Figure()
    for name, part in curves.groupby("explainer", sort=False):
        fig.add_trace(go.Scatter(x=part["fraction_removed"], y=part["probability"], mode="lines+markers", name=name))
    fig.update_xaxes(title="fraction of tokens removed (top-ranked first)", tickformat=".0%")
    fig.update_yaxes(title="probability of the predicted class")
    return apply_layout(fig, "Perturbation curves (lower = more faithful ranking)")


def flip_figure(flips: pd.DataFrame) -> go.Figure:
    """Distribution of the fraction of tokens removed before the decision flips, per explainer."""
    fig = go.Figure()
    for name, part in flips.groupby("explainer", sort=False):
        fig.add_trace(go.Box(y=part["flip_fraction"], name=name, boxmean=True))
    fig.update_yaxes(title="fraction removed until the label flips (1 = never)", range=[0, 1.02])
    return apply_layout(fig, "Decision-flip fractions (lower = more faithful)")


def tau_figure(tau: pd.DataFrame) -> go.Figure:
    """Heatmap of the mean Kendall tau between explainers."""
    names = [escape_text(str(n)) for n in tau.columns]
    fig = go.Figure(
        go.Heatmap(
            z=tau.values,
            x=names,
            y=names,
            zmin=-1,
            zmax=1,
            colorscale="RdBu",
            text=tau.round(2).values,
            texttemplate="%{text}",
        )
    )
    fig.update_yaxes(autorange="reversed")
    return apply_layout(fig, "Rank agreement (mean Kendall tau)", height=520)


def summary_bar_figure(summary: pd.DataFrame, metric: str) -> go.Figure:
    """One bar per explainer for ``metric`` (a column of the summary table)."""
    fig = go.Figure(go.Bar(x=summary["explainer"], y=summary[metric]))
    return apply_layout(fig, f"{metric} by explainer", height=360)
