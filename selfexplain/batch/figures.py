"""Plotly figures of a batch result: pure functions of the tables in :mod:`selfexplain.batch.explore`."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from selfexplain.style import ALPHA_SCALE, ATTENTION_SCALE, HIGHLIGHT, apply_layout, label_colours


def confusion_figure(table: pd.DataFrame) -> go.Figure:
    """Heatmap of gold (rows) x predicted (columns) counts, counts written in the cells."""
    fig = go.Figure(
        go.Heatmap(
            z=table.to_numpy(),
            x=list(table.columns),
            y=list(table.index),
            colorscale=ATTENTION_SCALE,
            text=table.to_numpy(),
            texttemplate="%{text}",
            hovertemplate="gold %{y} → predicted %{x}: %{z}<extra></extra>",
        )
    )
    fig.update_xaxes(title="predicted")
    fig.update_yaxes(title="gold", autorange="reversed")
    return apply_layout(fig, "Confusion matrix", 140 + 50 * len(table))


def top_spans_figure(table: pd.DataFrame) -> go.Figure:
    """Horizontal bars of the most frequent top spans, one panel per predicted class."""
    labels = list(dict.fromkeys(table["label"]))
    fig = px.bar(
        table,
        x="count",
        y="span",
        color="mean_alpha",
        facet_col="label",
        facet_col_wrap=min(3, max(1, len(labels))),
        orientation="h",
        color_continuous_scale=ALPHA_SCALE,
        hover_data={"mean_alpha": ":.3f"},
        category_orders={"label": labels},
    )
    fig.update_yaxes(matches=None, showticklabels=True, autorange="reversed", title=None)
    rows = -(-len(labels) // 3) if labels else 1
    return apply_layout(fig, "Most frequent top spans per predicted class", 120 + 330 * rows)


def span_length_figure(table: pd.DataFrame) -> go.Figure:
    """Stacked bars: how many examples have a top span of each length (tokens), by predicted class."""
    fig = px.bar(
        table, x="top_span_length", y="count", color="label",
        color_discrete_map=label_colours(sorted(table["label"].unique())),
    )  # fmt: skip
    fig.update_xaxes(title="top span length (tokens)", dtick=1)
    return apply_layout(fig, "Length of the top alpha span", 380)


def entropy_figure(frame: pd.DataFrame) -> go.Figure:
    """Normalised alpha entropy vs normalised [CLS]-attention entropy, one point per example
    (histogram of alpha entropy alone when attention was not stored)."""
    rows = frame.dropna(subset=["alpha_entropy_norm"])
    if rows["attention_entropy_norm"].notna().any():
        rows = rows.dropna(subset=["attention_entropy_norm"])
        fig = px.scatter(
            rows,
            x="attention_entropy_norm",
            y="alpha_entropy_norm",
            color="label",
            color_discrete_map=label_colours(sorted(rows["label"].unique())),
            hover_data={"text": True, "index": True},
            marginal_x="histogram",
            marginal_y="histogram",
        )
        fig.update_xaxes(title="attention entropy / log(tokens)", row=1, col=1)
        fig.update_yaxes(title="alpha entropy / log(spans)", row=1, col=1)
        return apply_layout(fig, "How spread out: alpha over spans vs [CLS] attention over tokens", 520)
    fig = px.histogram(
        rows, x="alpha_entropy_norm", color="label", nbins=30,
        color_discrete_map=label_colours(sorted(rows["label"].unique())),
    )  # fmt: skip
    fig.update_xaxes(title="alpha entropy / log(spans)")
    return apply_layout(fig, "How spread out alpha is (0 = one span, 1 = uniform)", 400)


def accuracy_figure(table: pd.DataFrame, column: str, title: str) -> go.Figure:
    """Accuracy per group of ``column`` as bars, the number of examples in the hover and the text."""
    fig = go.Figure(
        go.Bar(
            x=table[column].astype(str),
            y=table["accuracy"],
            text=[f"n={n}" for n in table["examples"]],
            textposition="outside",
            marker_color=HIGHLIGHT,
            hovertemplate="%{x}: %{y:.1%}<extra></extra>",
        )
    )
    fig.update_yaxes(range=[0, 1.1], tickformat=".0%", title="accuracy")
    fig.update_xaxes(title=column.replace("_", " "), type="category")
    return apply_layout(fig, title, 380)
