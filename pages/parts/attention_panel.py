"""Explain page section: the encoder's raw self-attention beside the alpha grid."""

from __future__ import annotations

import streamlit as st
from plotly.graph_objects import Figure

from pages.ui import PLOT_CONFIG
from selfexplain.attention import AGGREGATES, aggregate_attention
from selfexplain.explanation import Explanation
from selfexplain.views.figures import attention_figure
from selfexplain.views.style import apply_layout


def on_model_view_select() -> None:
    """A head of the model view was clicked: show that layer and head beside the grid."""
    points = st.session_state.get("model_view", {}).get("selection", {}).get("points", [])
    if points:
        heads = int(st.session_state.get("attn_heads", 1))
        index = int(points[0]["point_index"])  # markers are laid out layer-major
        st.session_state.attn_aggregate = "head"
        st.session_state.attn_layer, st.session_state.attn_head = divmod(index, heads)


def attention_figure_for(explanation: Explanation) -> Figure:
    """The attention map chosen in the selectors (layer, head, mean or rollout), titled by what it is."""
    aggregate = st.session_state.get("attn_aggregate", "mean over heads")
    layer = int(st.session_state.get("attn_layer", explanation.attentions.shape[0] - 1))
    head = int(st.session_state.get("attn_head", 0))
    matrix = aggregate_attention(explanation.attentions, aggregate, layer, head)
    titles = {  # layers and heads are numbered from 1 everywhere in the app
        "head": f"Raw self-attention (layer {layer + 1}, head {head + 1})",
        "mean over heads": f"Raw self-attention (layer {layer + 1}, mean over heads)",
        "mean over layers": "Self-attention averaged over every layer and head",
        "rollout": "Attention rollout through all layers (Abnar & Zuidema)",
    }
    title = titles.get(aggregate, f"Self-attention ({aggregate})")
    return attention_figure(matrix, explanation.attention_tokens, title)


def render_attention(explanation: Explanation, present: bool = False) -> None:
    if explanation.attentions is None:
        st.info(
            "Raw self-attention is shown for inputs that fit one encoder window; this text was read in "
            f"{len(explanation.windows or ())} windows. Shorten it to compare alpha with attention side by side."
        )
        return
    layers, heads = explanation.attentions.shape[:2]
    st.session_state.attn_heads = heads
    st.session_state.setdefault("attn_aggregate", "mean over heads")
    st.session_state.setdefault("attn_layer", layers - 1)
    st.session_state.setdefault("attn_head", 0)
    st.session_state.attn_layer = min(int(st.session_state.attn_layer), layers - 1)
    st.session_state.attn_head = min(int(st.session_state.attn_head), heads - 1)
    if not present:
        a1, a2, a3 = st.columns([2, 1, 1])
        aggregate = a1.selectbox("Attention", AGGREGATES, key="attn_aggregate")
        a2.selectbox(
            "Layer", list(range(layers)), key="attn_layer", format_func=lambda i: str(i + 1),
            disabled=aggregate in ("mean over layers", "rollout"),
        )  # fmt: skip
        a3.selectbox(
            "Head", list(range(heads)), key="attn_head", format_func=lambda i: str(i + 1), disabled=aggregate != "head"
        )
    figure = attention_figure_for(explanation)
    figure = apply_layout(figure, present=True) if present else figure
    st.plotly_chart(figure, key="attention", config=PLOT_CONFIG, theme=None)
    st.caption(
        "How to read it: a different kind of grid. Each row is a token inside the encoder (including [CLS] and "
        "[SEP]) and each column a token it attends to; a row sums to 1. Attention mixes token vectors inside the "
        "encoder; it is not a weight of a span, and the [CLS] row never reaches a self-explaining model's output."
    )
