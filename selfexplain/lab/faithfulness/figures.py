"""Pure figure builders: result tables -> plotly Figures (no Streamlit). Methods appear by their
human names and metrics by their names with the better direction (:mod:`.labels`)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from selfexplain.lab.faithfulness.labels import axis_label, method_label
from selfexplain.lab.faithfulness.metrics import METRICS
from selfexplain.views.highlight import escape_text
from selfexplain.views.style import DIFFERENCE_SCALE, LEGEND_BELOW, apply_layout


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
    height = 440 + 26 * len(fig.data)  # the legend sits under the plot, one method a line at half width
    title = "Probability as top tokens are removed (falls faster = more faithful)"
    return apply_layout(fig, title, height, legend={**LEGEND_BELOW, "y": -0.25})


def flip_figure(flips: pd.DataFrame) -> go.Figure:
    """Distribution of the fraction of tokens removed before the decision flips, one box per method."""
    fig = go.Figure()
    groups = list(flips.groupby("explainer", sort=False))
    for name, part in groups:
        fig.add_trace(
            go.Box(
                x=part["flip_fraction"],
                name=axis_label(str(name), width=30),
                boxmean=True,
                orientation="h",
                showlegend=False,
            )
        )
    fig.update_xaxes(title="share removed until the label flips (1 = never)", range=[0, 1.02], tickformat=".0%")
    fig.update_yaxes(autorange="reversed")
    title = f"{METRICS['flip_fraction'].name} ({METRICS['flip_fraction'].direction})"
    return apply_layout(fig, title, height=max(420, 120 + 48 * len(groups)))


def tau_figure(tau: pd.DataFrame) -> go.Figure:
    """Heatmap of the mean Kendall tau between methods (1 = same ranking, 0 = unrelated, -1 = reversed):
    method names on the rows with a number, the columns by that number (names in the hover)."""
    names = [escape_text(method_label(str(n))) for n in tau.columns]
    rows = [f"{axis_label(str(n), width=36)} ({i})" for i, n in enumerate(tau.index, start=1)]
    numbers = [str(i) for i in range(1, len(tau.columns) + 1)]
    fig = go.Figure(
        go.Heatmap(
            z=tau.values,
            x=numbers,
            y=rows,
            zmin=-1,
            zmax=1,
            colorscale=DIFFERENCE_SCALE,
            colorbar={"title": "Kendall tau"},
            text=tau.round(2).values,
            texttemplate="%{text}",
            customdata=[[f"{escape_text(method_label(str(r)))} vs {c}" for c in names] for r in tau.index],
            hovertemplate="%{customdata}<br>tau %{z:.2f}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title="the same methods, by their number", side="bottom")
    return apply_layout(fig, "Do the methods rank tokens alike? (mean Kendall tau)", height=200 + 52 * len(tau))


def summary_bar_figure(summary: pd.DataFrame, metric: str) -> go.Figure:
    """One bar per method for ``metric`` (a column of the summary table), titled with its direction."""
    known = METRICS.get(metric)
    fig = go.Figure(go.Bar(x=[axis_label(str(n)) for n in summary["explainer"]], y=summary[metric]))
    fig.update_yaxes(title=known.heading if known else metric)
    title = f"{known.name} by method ({known.direction})" if known else f"{metric} by method"
    return apply_layout(fig, title, height=360)
