"""The one place for the look of every figure: fonts, colour scales, label colours and the layout."""

from __future__ import annotations

import plotly.graph_objects as go

FONT = {"size": 14}
TITLE_SIZE = 16
ALPHA_SCALE = "YlOrRd"  # single-hue sequential scales that still read in greyscale
ATTENTION_SCALE = "Blues"
DIFFERENCE_SCALE = "RdBu"  # diverging, white at zero: red lost, blue gained
HIGHLIGHT = "#c2410c"  # the predicted class, the chosen item
MUTED = "#9ca3af"
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f")


def label_colours(labels: list[str] | tuple[str, ...]) -> dict[str, str]:
    """The same colour for the same label in every chart of a page (labels in their model's order)."""
    return {label: PALETTE[i % len(PALETTE)] for i, label in enumerate(labels)}


def apply_layout(fig: go.Figure, title: str, height: int = 420) -> go.Figure:
    """Title at the top left, the shared font, white template, tight margins."""
    fig.update_layout(
        title={"text": title, "x": 0.0, "y": 0.99, "yanchor": "top", "font": {"size": TITLE_SIZE}},
        height=height,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        font=FONT,
        template="plotly_white",
    )
    return fig


PRESENT_FONT = {"size": 20}


def presentation_layout(fig: go.Figure) -> go.Figure:
    """The same figure for a projector: larger fonts and a third taller (a copy; ``fig`` is unchanged)."""
    big = go.Figure(fig)
    height = fig.layout.height or 420
    big.update_layout(font=PRESENT_FONT, height=int(height * 4 / 3), title_font={"size": TITLE_SIZE + 6})
    big.update_xaxes(tickfont={"size": 15})
    big.update_yaxes(tickfont={"size": 15})
    return big
