"""Explain page for a plain baseline (``--head cls`` / ``mean``): it reads no spans, so it has no alpha. The
page shows what Compare shows for it: the prediction, the probabilities, gradient x input per word and the
encoder's raw self-attention on the same words."""

from __future__ import annotations

import streamlit as st

from pages.parts.attention_panel import render_attention
from pages.parts.prediction_panel import render_prediction
from pages.ui import PLOT_CONFIG
from pages.ui.loading import cached_result
from selfexplain.core.modeling.read_out import layers_read
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.errors import USER_ERRORS
from selfexplain.methods.analysis.compare import Side, common_axis, explain_side, token_scores_on_axis
from selfexplain.views.compare import gradient_figure
from selfexplain.views.highlight import escape_text, highlight_html


def baseline_side(explainer: SelfExplainer, directory: str, text: str, pair: str | None) -> Side:
    """The baseline's reading of one window (prediction, attention, gradient x input), kept in the app's
    results cache: the model runs only when the input or the model changes."""
    return cached_result(
        ("baseline", directory, text, pair), "Explaining…", lambda: explain_side(explainer, text, pair)
    )  # type: ignore[return-value]


def render_baseline(explainer: SelfExplainer, directory: str, text: str, pair: str | None) -> None:
    """The baseline's prediction, gradient x input per word beside the attention map (one encoder window: a
    longer input is cut, with a warning)."""
    text_in, pair_in, truncated = explainer.truncate_to_fit(text, pair)
    if truncated:
        st.warning(
            f"A plain baseline reads one window of {explainer.max_tokens} tokens; only the first part of the input "
            f"is explained (up to “…{escape_text(text_in[-40:])}”)."
        )
    try:
        side = baseline_side(explainer, directory, text_in, pair_in)
    except USER_ERRORS as err:
        st.error(f"Cannot explain this input: {escape_text(str(err))}")
        return
    explanation = side.explanation
    render_prediction(explanation)
    st.subheader("What the model relied on")
    st.info(
        f"{escape_text(explainer.name)} is a plain baseline ({escape_text(side.head)} head): it reads no spans, so "
        "it has no alpha. Shown instead: gradient x input, summed over each word's tokens (a positive bar supports "
        "the prediction), and the encoder's raw self-attention."
    )
    st.html(highlight_html(explanation, []))
    axis = common_axis(side)
    gradient = side.gradient
    scores = token_scores_on_axis(side, gradient, axis) if gradient is not None else None
    left, right = st.columns(2, gap="large")
    with left:
        if scores is not None:
            figure = gradient_figure(axis, scores, "Gradient x input per word")
            st.plotly_chart(figure, config=PLOT_CONFIG, key="baseline_gradient", theme=None)
    with right:
        render_attention(explanation, "word", None, layers_read(explainer.model))
