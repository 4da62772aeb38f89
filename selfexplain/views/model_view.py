"""The model view: every layer x head of the raw self-attention as small multiples in one figure (pure, no
Streamlit); thumbnails are pooled so the figure's size does not grow with the input."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from selfexplain.views.style import ATTENTION_SCALE, apply_layout

MODEL_VIEW_CELLS = 32  # a thumbnail has at most 32 x 32 cells, whatever the input's length


def pooled_maps(attentions: np.ndarray, cells: int = MODEL_VIEW_CELLS) -> np.ndarray:
    """``[L, heads, N, N]`` -> ``[L, heads, n, n]`` with ``n = min(N, cells)``: block means over
    ``ceil(N / cells)`` positions per side (the last block may be smaller), so a thumbnail's size
    does not grow with the input."""
    size = attentions.shape[-1]
    block = -(-size // cells)
    if block == 1:
        return attentions
    count = -(-size // block)
    pad = count * block - size
    padded = np.pad(attentions, ((0, 0), (0, 0), (0, pad), (0, pad)), constant_values=np.nan)
    shaped = padded.reshape(*attentions.shape[:2], count, block, count, block)
    return np.nanmean(shaped, axis=(3, 5))


def model_view_figure(attentions: np.ndarray) -> go.Figure:
    """Small multiples of every layer x head, tiled into one heatmap (fast to draw); each thumbnail
    is pooled to at most :data:`MODEL_VIEW_CELLS` cells a side. Layers and heads are numbered from 1.

    A transparent marker at each thumbnail's centre carries ``customdata`` =
    (layer, head) (0-based) so a click can open that head.
    """
    attentions = pooled_maps(attentions)
    layers, heads, size, _ = attentions.shape
    cell = size + 1
    tiles = np.full((layers, cell, heads, cell), np.nan)
    tiles[:, :size, :, :size] = attentions.transpose(0, 2, 1, 3)
    tiles = tiles.reshape(layers * cell, heads * cell)
    centre_layer, centre_head = np.meshgrid(np.arange(layers), np.arange(heads), indexing="ij")
    fig = go.Figure(
        [
            go.Heatmap(z=tiles, colorscale=ATTENTION_SCALE, showscale=False, hoverinfo="skip"),
            go.Scatter(
                x=(centre_head.ravel() * cell + size / 2),
                y=(centre_layer.ravel() * cell + size / 2),
                mode="markers",
                marker={"size": 24, "opacity": 0.0},
                customdata=np.stack([centre_layer.ravel(), centre_head.ravel()], axis=1),
                text=[f"layer {ly + 1} head {h + 1}" for ly in range(layers) for h in range(heads)],
                hovertemplate="%{text}<extra></extra>",
                showlegend=False,
            ),
        ]
    )
    fig.update_xaxes(
        tickmode="array",
        tickvals=[h * cell + size / 2 for h in range(heads)],
        ticktext=[f"h{h + 1}" for h in range(heads)],
    )
    fig.update_yaxes(
        autorange="reversed",
        tickmode="array",
        tickvals=[ly * cell + size / 2 for ly in range(layers)],
        ticktext=[f"L{ly + 1}" for ly in range(layers)],
    )
    fig = apply_layout(fig, "Model view: every layer x head (click one to open it)", 80 + 70 * layers)
    fig.update_layout(clickmode="event+select", dragmode=False)
    return fig
