"""Plotly figures of a batch result: pure functions of the tables in :mod:`selfexplain.batch.explore`."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from selfexplain.views.figures import plot_text
from selfexplain.views.style import (
    ALPHA_SCALE,
    ATTENTION_SCALE,
    AXIS_TITLE_ROOM,
    HIGHLIGHT,
    TICK_FONT,
    apply_layout,
    label_colours,
    label_room,
)

SPAN_LABEL_CHARS = 32  # longer span texts are cut with an ellipsis on the axis; the hover has them whole
ASSUMED_WIDTH = 1100  # pixels: the main column of a wide page, which panel gaps are a share of
MIN_PANEL_WIDTH = 220  # pixels of bars a panel keeps at least


def shorten(text: str, limit: int = SPAN_LABEL_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters, ending in an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _labelled(frame: pd.DataFrame, labels: Sequence[str] | None) -> tuple[pd.DataFrame, dict[str, str]]:
    """The frame with its ``label`` column escaped for plotly and the colour of each (escaped) label:
    colours follow ``labels`` (the model's order, the same in every chart of a page), then any other
    label found, sorted."""
    present = [str(v) for v in frame["label"].dropna().unique()]
    order = list(labels or []) + sorted(set(present) - set(labels or []))
    colours = {plot_text(name): colour for name, colour in label_colours(order).items()}
    return frame.assign(label=[plot_text(str(v)) for v in frame["label"]]), colours


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


def facet_room(labels: Sequence[str]) -> int:
    """Pixels that the longest of a bar panel's category ``labels`` takes beside its axis (plus a gap)."""
    return label_room(labels, TICK_FONT["size"]) - AXIS_TITLE_ROOM + 16


def top_spans_figure(
    table: pd.DataFrame,
    labels: Sequence[str] | None = None,
    item: str = "span",
    title: str = "Most frequent top spans per predicted class",
) -> go.Figure:
    """Horizontal bars of the most frequent ``item`` (``table``'s ``span`` or ``word`` column, with
    ``count`` and ``mean_alpha``), one panel per predicted class (panel titles in the label's colour).
    Texts longer than :data:`SPAN_LABEL_CHARS` end in an ellipsis on the axis; the hover shows them whole.

    Each panel's labels sit left of its bars, in the gap before it: the gap (and the left margin) is
    sized for the longest label on a page :data:`ASSUMED_WIDTH` pixels wide, and there are fewer panels a
    row when the labels are long, so no label runs into the neighbouring panel."""
    shown, colours = _labelled(table, labels)
    full = [plot_text(str(t)) for t in table[item]]
    cut: dict[str, str] = {}  # axis text -> full text: two spans cut to the same text stay two bars
    axis = []
    for text, whole in zip(table[item], full):
        short = plot_text(shorten(str(text)))
        while cut.setdefault(short, whole) != whole:
            short += "\u200b"  # an invisible character keeps the category apart
        axis.append(short)
    shown = shown.assign(**{item: axis}, full=full)
    panels = list(dict.fromkeys(shown["label"]))
    room = facet_room([shorten(str(t)) for t in table[item]] or [""])
    spacing = min(0.45, room / ASSUMED_WIDTH)
    per_row = max(1, min(3, len(panels), int((1 + spacing) / (spacing + MIN_PANEL_WIDTH / ASSUMED_WIDTH))))
    fig = px.bar(
        shown,
        x="count",
        y=item,
        color="mean_alpha",
        facet_col="label",
        facet_col_wrap=per_row,
        facet_col_spacing=spacing if per_row > 1 else 0.03,
        facet_row_spacing=0.12,
        orientation="h",
        color_continuous_scale=ALPHA_SCALE,
        custom_data=["full", "mean_alpha"],
        category_orders={"label": panels},
    )
    fig.update_traces(hovertemplate="%{customdata[0]}<br>count %{x}<br>mean alpha %{customdata[1]:.3f}<extra></extra>")
    fig.update_yaxes(matches=None, showticklabels=True, autorange="reversed", title=None, tickfont=TICK_FONT)
    fig.update_xaxes(dtick=1 if int(table["count"].max() if len(table) else 1) <= 10 else None)
    fig.for_each_annotation(
        lambda note: note.update(
            text=note.text.split("=", 1)[-1], font={"color": colours.get(note.text.split("=", 1)[-1])}
        )
    )
    rows = -(-len(panels) // per_row) if panels else 1
    return apply_layout(fig, title, 120 + 330 * rows, left=room)


def span_length_figure(table: pd.DataFrame, labels: Sequence[str] | None = None) -> go.Figure:
    """Stacked bars: how many examples have a top span of each length (tokens), by predicted class
    (each label in its colour from ``labels``, the model's label order)."""
    shown, colours = _labelled(table, labels)
    fig = px.bar(shown, x="top_span_length", y="count", color="label", color_discrete_map=colours)
    fig.update_xaxes(title="top span length (tokens)", dtick=1)
    return apply_layout(fig, "Length of the top alpha span", 380)


def entropy_figure(frame: pd.DataFrame, labels: Sequence[str] | None = None) -> go.Figure:
    """Normalised alpha entropy vs normalised [CLS]-attention entropy, one point per example
    (histogram of alpha entropy alone when attention was not stored); labels coloured as in
    :func:`span_length_figure`."""
    rows, colours = _labelled(frame.dropna(subset=["alpha_entropy_norm"]), labels)
    if rows["attention_entropy_norm"].notna().any():
        rows = rows.dropna(subset=["attention_entropy_norm"]).assign(
            text=lambda f: [plot_text(str(t)) for t in f["text"]]
        )
        fig = px.scatter(
            rows,
            x="attention_entropy_norm",
            y="alpha_entropy_norm",
            color="label",
            color_discrete_map=colours,
            hover_data={"text": True, "index": True},
            marginal_x="histogram",
            marginal_y="histogram",
        )
        fig.update_xaxes(title="attention entropy / log(tokens)", row=1, col=1)
        fig.update_yaxes(title="alpha entropy / log(spans)", row=1, col=1)
        return apply_layout(fig, "How spread out: alpha over spans vs [CLS] attention over tokens", 520)
    fig = px.histogram(rows, x="alpha_entropy_norm", color="label", nbins=30, color_discrete_map=colours)
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
