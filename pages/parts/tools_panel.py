"""Explain page sections at the foot of the page: the model view (every layer and head) and the downloads
(the explanation as JSON, the offline HTML report)."""

from __future__ import annotations

import json
from functools import partial

import streamlit as st
from plotly.graph_objects import Figure

from pages.parts.attention_panel import attention_figure_for, on_model_view_select
from pages.ui import PLOT_CONFIG
from selfexplain.core.results.explanation import Explanation, Span
from selfexplain.core.results.words import Level
from selfexplain.views.figures import model_view_figure, probability_figure
from selfexplain.views.html_report import report_html


def explanation_json(explanation: Explanation) -> str:
    """Every span that carries weight (alpha above 0: every valid span for softmax alpha) as JSON: built
    only when the download is clicked (a long text has ~10^6 spans)."""
    return json.dumps(explanation.to_dict(top_k=explanation.num_evidence), indent=1)


def explanation_report(explanation: Explanation, spans: list[Span], grid: Figure, level: Level) -> str:
    """The offline HTML report, with its figures built only when the download is clicked."""
    figures = [probability_figure(explanation), grid]
    if explanation.attentions is not None:
        figures.append(attention_figure_for(explanation, level))
    return report_html(explanation, spans, figures)


def render_model_view(explanation: Explanation) -> None:
    """Every layer and head's attention, in an expander, drawn only when its toggle is on."""
    with st.expander("Model view: every layer and head"):
        if explanation.attentions is None:
            st.info("Attention maps are shown for inputs that fit one encoder window.")
        # drawn only when asked: a collapsed expander still runs its contents and ships the figure
        elif st.toggle("Show every layer and head", key="show_model_view"):
            st.plotly_chart(
                model_view_figure(explanation.attentions),
                on_select=on_model_view_select,
                selection_mode="points",
                key="model_view",
                config=PLOT_CONFIG,
            )


def render_downloads(explanation: Explanation, spans: list[Span], grid: Figure, level: Level) -> None:
    """The JSON and HTML report download buttons."""
    # Both files are built on click (deferred). A click must not rerun the script: the rerun replaces
    # every deferred file with a new one, and a download request that arrives after it finished (the
    # clicked one under load, or the report clicked next) found its file gone (MediaFileStorageError,
    # issue 23 defect 5). The data depends only on the shown explanation, so nothing needs the rerun.
    d1, d2 = st.columns(2)
    d1.download_button(
        "Download explanation (JSON)",
        partial(explanation_json, explanation),
        file_name="explanation.json",
        mime="application/json",
        key="download_json",
        on_click="ignore",
    )
    d2.download_button(
        "Download report (HTML, works offline)",
        partial(explanation_report, explanation, spans, grid, level),
        file_name="selfexplain-report.html",
        mime="text/html",
        key="download_html",
        on_click="ignore",
    )
