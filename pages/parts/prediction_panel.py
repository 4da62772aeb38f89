"""Explain page section: the prediction (label, confidence, model), the probability of every label, and a
surrogate's check against its teacher."""

from __future__ import annotations

import streamlit as st

from pages.parts.surrogate_panel import render_surrogate_check
from pages.ui import PLOT_CONFIG
from selfexplain.results.explanation import Explanation
from selfexplain.views.figures import probability_figure
from selfexplain.views.highlight import escape_text


def render_prediction(explanation: Explanation) -> None:
    """The predicted label and its confidence beside a bar per label, then (for a surrogate) its teacher's
    answer."""
    head, bars = st.columns([1, 2])
    head.metric("Prediction", explanation.label)
    head.caption(f"{explanation.confidence:.1%} confidence · model {escape_text(explanation.model_name)}")
    probabilities = probability_figure(explanation)
    # theme=None: views.style already styles it, and Streamlit's theme is restyled in the browser each time
    bars.plotly_chart(probabilities, config=PLOT_CONFIG, key="probabilities", theme=None)
    bars.caption(
        "Each bar is the probability the model gives one label; the highlighted bar is its prediction. "
        "The spans below are what the classifier read to get there."
    )
    render_surrogate_check(explanation, st.session_state.model_directory)  # a surrogate: its teacher's answer too
