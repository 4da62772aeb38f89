"""Pure figure builders: result tables -> plotly Figures (no Streamlit). Methods appear by their
human names and metrics by their names with the better direction (:mod:`.labels`)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from selfexplain.faithfulness.labels import axis_label, method_label
from selfexplain.faithfulness.metrics import METRICS
from selfexplain.highlight import escape_text
from selfexplain.style import DIFFERENCE_SCALE, apply_layout


def curve_figure(curves: pd.DataFrame) -> go.Figure:
    """Mean target-class probability as the top-ranked tokens are removed, one line per method."""
    fig = go.Figure()
    for name, part in curves.groupby("explainer", sort=False):
        fig.add_trace(
            go.Scatter(
                x=part["fraction_removed"],
                y=part["probability"],
                mode="lines+markers",
                name=escape_text(method_label(str(name))),
            )
        )
    fig.update_xaxes(title="share of tokens removed (most important first)", tickformat=".0%")
    fig.update_yaxes(title="probability of the predicted class")
    return apply_layout(fig, "Probability as top tokens are removed (falls faster = more faithful)")


def flip_figure(flips: pd.DataFrame) -> go.Figure:
    """Distribution of the fraction of tokens removed before the decision flips, one box per method."""
    fig = go.Figure()
    for name, part in flips.groupby("explainer", sort=False):
        fig.add_trace(go.Box(y=part["flip_fraction"], name=axis_label(str(name)), boxmean=True, showlegend=False))
    fig.update_yaxes(title="share removed until the label flips (1 = never)", range=[0, 1.02], tickformat=".0%")
    return apply_layout(fig, f"{METRICS['flip_fraction'].name} ({METRICS['flip_fraction'].direction})")


def tau_figure(tau: pd.DataFrame) -> go.Figure:
    """Heatmap of the mean Kendall tau between methods (1 = same ranking, 0 = unrelated, -1 = reversed)."""
    fig = go.Figure(
        go.Heatmap(
            z=tau.values,
            x=[axis_label(str(n)) for n in tau.columns],
            y=[axis_label(str(n), width=36) for n in tau.index],
            zmin=-1,
            zmax=1,
            colorscale=DIFFERENCE_SCALE,
            colorbar={"title": "Kendall tau"},
            text=tau.round(2).values,
            texttemplate="%{text}",
            hovertemplate="%{y}<br>vs %{x}<br>tau %{z:.2f}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(tickangle=0)
    return apply_layout(fig, "Do the methods rank tokens alike? (mean Kendall tau)", height=160 + 52 * len(tau))


def summary_bar_figure(summary: pd.DataFrame, metric: str) -> go.Figure:
    """One bar per method for ``metric`` (a column of the summary table), titled with its direction."""
    known = METRICS.get(metric)
    fig = go.Figure(go.Bar(x=[axis_label(str(n)) for n in summary["explainer"]], y=summary[metric]))
    fig.update_yaxes(title=known.heading if known else metric)
    title = f"{known.name} by method ({known.direction})" if known else f"{metric} by method"
    return apply_layout(fig, title, height=360)
