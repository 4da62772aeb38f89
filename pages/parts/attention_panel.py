"""Explain page section: the encoder's raw self-attention beside the alpha grid, on the grid's words (or its
tokens), and a head view of the same map (lines from each word to the words it attends to)."""

from __future__ import annotations

import numpy as np
import streamlit as st
from plotly.graph_objects import Figure

from pages.parts.view_state import bind, keep, kept
from pages.ui import PLOT_CONFIG
from selfexplain.core.results.attention import AGGREGATES, aggregate_attention
from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.words import Level, level_view
from selfexplain.views.figures import attention_figure
from selfexplain.views.word_attention import (
    MERGE_RULE,
    explanation_group_attention,
    head_view_html,
    layers_caption,
    word_attention_figure,
)


def on_model_view_select() -> None:
    """A head of the model view was clicked: show that layer and head beside the grid."""
    points = st.session_state.get("model_view", {}).get("selection", {}).get("points", [])
    if points:
        heads = int(st.session_state.get("attn_heads", 1))
        index = int(points[0]["point_index"])  # markers are laid out layer-major
        layer, head = divmod(index, heads)
        keep("attn_aggregate", "head")
        keep("attn_layer", layer)
        keep("attn_head", head)


def attention_title(explanation: Explanation) -> str:
    """What the chosen map is, in words (layers and heads numbered from 1, as everywhere in the app)."""
    aggregate = kept("attn_aggregate", "mean over heads")
    layer = int(kept("attn_layer", explanation.attentions.shape[0] - 1))  # type: ignore[call-overload, union-attr]
    head = int(kept("attn_head", 0))  # type: ignore[call-overload]
    titles = {
        "head": f"Raw self-attention (layer {layer + 1}, head {head + 1})",
        "mean over heads": f"Raw self-attention (layer {layer + 1}, mean over heads)",
        "mean over layers": "Self-attention averaged over every layer and head",
        "rollout": "Attention rollout through all layers (Abnar & Zuidema)",
    }
    return titles.get(str(aggregate), f"Self-attention ({aggregate})")


def chosen_matrix(explanation: Explanation) -> np.ndarray:
    """``[N, N]``: the attention map chosen in the selectors (layer, head, mean or rollout)."""
    assert explanation.attentions is not None
    aggregate = kept("attn_aggregate", "mean over heads")
    layer = int(kept("attn_layer", explanation.attentions.shape[0] - 1))  # type: ignore[call-overload]
    head = int(kept("attn_head", 0))  # type: ignore[call-overload]
    return aggregate_attention(explanation.attentions, aggregate, layer, head)  # type: ignore[arg-type]


def attention_figure_for(
    explanation: Explanation, level: Level | None = None, view: tuple[int, int] | None = None
) -> Figure:
    """The chosen map on the alpha grid's axis at ``level`` (its words, sentences or real tokens, within the
    grid's viewport ``view``), or over the encoder's tokens ([CLS], [SEP], pieces) when ``level`` is None."""
    matrix, title = chosen_matrix(explanation), attention_title(explanation)
    if level is None:
        return attention_figure(matrix, explanation.attention_tokens, title)
    groups = level_view(explanation, level)
    labels = list(groups.labels) if groups is not None else [t.piece or t.text for t in explanation.tokens]
    if level == "sentence":
        labels = [f"S{i + 1}" for i in range(len(labels))]
    words = explanation_group_attention(explanation, matrix, None if groups is None else groups.word_of_token)
    return word_attention_figure(words, labels, f"{title}, {level} level", view)


def render_attention(
    explanation: Explanation, level: Level = "word", view: tuple[int, int] | None = None, reads: int | None = None
) -> None:
    """The attention selectors, the map on the alpha grid's axis (``level``, viewport ``view``; the encoder's
    tokens behind a toggle) and, on request, the head view; ``reads``: the encoder layers ``1 .. reads`` the
    model reads (:func:`selfexplain.core.modeling.read_out.layers_read`), said under the selectors."""
    if explanation.attentions is None:
        st.info(
            "Raw self-attention is shown for inputs that fit one encoder window; this text was read in "
            f"{len(explanation.windows or ())} windows. Shorten it to compare alpha with attention side by side."
        )
        return
    layers, heads = explanation.attentions.shape[:2]
    st.session_state.attn_heads = heads
    keep("attn_layer", min(int(kept("attn_layer", layers - 1)), layers - 1))  # type: ignore[call-overload]
    keep("attn_head", min(int(kept("attn_head", 0)), heads - 1))  # type: ignore[call-overload]
    a1, a2, a3 = st.columns([2, 1, 1])
    aggregate = a1.selectbox(
        "Attention",
        AGGREGATES,
        key="attn_aggregate",
        **bind("attn_aggregate", "mean over heads"),  # type: ignore[arg-type]
    )
    a2.selectbox(
        "Layer", list(range(layers)), key="attn_layer", format_func=lambda i: str(i + 1),
        disabled=aggregate in ("mean over layers", "rollout"), **bind("attn_layer", layers - 1),  # type: ignore[arg-type]
    )  # fmt: skip
    a3.selectbox(
        "Head", list(range(heads)), key="attn_head", format_func=lambda i: str(i + 1),
        disabled=aggregate != "head", **bind("attn_head", 0),  # type: ignore[arg-type]
    )  # fmt: skip
    if reads is not None:
        st.caption(layers_caption(reads, layers))
    tokens = st.toggle(
        "Encoder tokens", key="attn_tokens", help="the raw map over wordpieces, [CLS] and [SEP]",
        **bind("attn_tokens", False),  # type: ignore[arg-type]
    )  # fmt: skip
    figure = attention_figure_for(explanation, None if tokens else level, None if tokens else view)
    st.plotly_chart(figure, key="attention", config=PLOT_CONFIG, theme=None)
    if tokens:
        st.caption(
            "How to read it: each row is a token inside the encoder (including [CLS] and [SEP]) and each column a "
            "token it attends to; a row sums to 1. Attention mixes token vectors inside the encoder; it is not a "
            "weight of a span, and the [CLS] row never reaches a self-explaining model's output."
        )
    else:
        st.caption(
            f"How to read it: the same {level}s, in the same order, as the alpha grid; each row is a "
            f"{level} attending to the {level} in each column. {MERGE_RULE} Attention mixes vectors inside the "
            "encoder; it is not a weight of a span."
        )
    if st.toggle("Head view: lines between words", key="show_head_view"):
        render_head_view(explanation, level, view)


def render_head_view(explanation: Explanation, level: Level, view: tuple[int, int] | None) -> None:
    """The chosen map as lines from each word (left) to the words it attends to most (right)."""
    matrix = chosen_matrix(explanation)
    groups = level_view(explanation, level)
    labels = list(groups.labels) if groups is not None else [t.piece or t.text for t in explanation.tokens]
    words = explanation_group_attention(explanation, matrix, None if groups is None else groups.word_of_token)
    st.html(head_view_html(words, labels, f"Head view: {attention_title(explanation)}", view))
    st.caption(
        f"The map chosen above (Attention: head for one layer and head). Each {level} on the left has lines to "
        f"the (at most 3) {level}s on the right it attends to most, thicker for more attention (from 0.05 up). "
        f"Hover a {level} on the left to focus its lines (the rest fade); rest on it for its numbers."
    )
