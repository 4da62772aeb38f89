"""Explain page section: the prediction (label, confidence, model), the probability of every label, and a
surrogate's check against its teacher."""

from __future__ import annotations

import streamlit as st

from pages.parts.surrogate_panel import render_surrogate_check
from selfexplain.core.results.explanation import Explanation
from selfexplain.views.highlight import escape_text
from selfexplain.views.probability_bars import probability_bars_html


def render_prediction(explanation: Explanation) -> None:
    """The predicted label and its confidence beside a bar per label, then (for a surrogate) its teacher's
    answer."""
    head, bars = st.columns([1, 2])
    head.metric("Prediction", explanation.label)
    head.caption(f"{explanation.confidence:.1%} confidence · model {escape_text(explanation.model_name)}")
    with bars:  # HTML, not plotly: the first view paints without waiting for plotly (docs/performance.md)
        st.html(probability_bars_html(explanation))
    bars.caption(
        "Each bar is the probability the model gives one label; the highlighted bar is its prediction. "
        "The spans below are what the classifier read to get there."
    )
    render_surrogate_check(explanation, st.session_state.model_directory)  # a surrogate: its teacher's answer too
