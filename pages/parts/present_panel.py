"""Explain page in presentation mode, for stakeholders (issue 23 item 5): no sidebar and no controls, the
answer large, plain words instead of alpha, [CLS] and rollout (a glossary on hover), one sentence under
each figure about this input, no Pin box. The way back is one button."""

from __future__ import annotations

import streamlit as st
from plotly.graph_objects import Figure

from pages.parts.attention_panel import chosen_matrix
from pages.parts.second_opinion_panel import render_contrast
from pages.parts.surrogate_panel import render_surrogate_check
from pages.parts.view_state import keep
from pages.ui import PLOT_CONFIG
from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.words import level_view
from selfexplain.views.band import alpha_figure
from selfexplain.views.figures import probability_figure
from selfexplain.views.highlight import highlight_html
from selfexplain.views.present import (
    TITLES,
    attention_sentence,
    decision_sentence,
    glossary_html,
    grid_sentence,
    highlight_sentence,
    probability_sentence,
)
from selfexplain.views.style import CAPTION_TEXT, apply_layout
from selfexplain.views.word_attention import explanation_group_attention, word_attention_figure

PRESENT_CSS = f"""<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"],
[data-testid="stSidebarNav"] {{ display: none !important; }}
[data-testid="stMain"] p, [data-testid="stMain"] li, [data-testid="stCaptionContainer"] {{ font-size: 1.3rem; }}
[data-testid="stMetricValue"], [data-testid="stMetricValue"] * {{ font-size: 3.2rem !important; line-height: 1.15; }}
.selfexplain-text {{ font-size: 1.6rem !important; line-height: 2.4rem !important; }}
.selfexplain-glossary {{ font-size: 1.1rem; color: {CAPTION_TEXT}; }}
</style>"""
PRESENT_INTRO = (
    "This model gives every phrase of the text a weight and decides from the weighted phrases only, so the "
    "weights show why it decided."
)
SHOWN_PHRASES = 5  # the shaded text shows at most five phrases that share no word


def leave() -> None:
    """The "Leave presentation mode" button: the controls and the sidebar come back."""
    keep("present", False)


def plain(fig: Figure, title: str, colour: str | None = None, axes: tuple[str, str] | None = None) -> Figure:
    """``fig`` enlarged for a projector, with a plain title, colour bar title and axis titles."""
    fig = apply_layout(fig, title, present=True)
    if colour is not None:
        fig.update_traces(colorbar={"title": {"text": colour}}, selector={"type": "heatmap"})
    if axes is not None:
        fig.update_xaxes(title=axes[0])
        fig.update_yaxes(title=axes[1])
    return fig


def render_presentation(explanation: Explanation) -> None:
    """The answer, the shaded text, the weight grid beside where the layers look, each with its sentence."""
    st.html(PRESENT_CSS)
    head, bars = st.columns([1, 2])
    head.metric("The model's answer", explanation.label)
    head.markdown(decision_sentence(explanation))
    bars.plotly_chart(
        plain(probability_figure(explanation), TITLES["probabilities"]), config=PLOT_CONFIG, key="probabilities",
        theme=None,
    )  # fmt: skip
    bars.markdown(probability_sentence(explanation))
    render_surrogate_check(explanation, st.session_state.model_directory)  # a surrogate: its teacher's answer too

    st.subheader("What the model relied on")
    spans = explanation.top_spans_non_overlapping(SHOWN_PHRASES)  # phrases that carry weight only
    st.html(highlight_html(explanation, spans, None))
    st.markdown(highlight_sentence(len(spans)))
    render_contrast(explanation, st.session_state.model_directory)  # a word that argues the other way, if any

    level = "word" if explanation.span_unit == "word" else "token"
    grid, band = alpha_figure(explanation, level=level)
    if band:  # a long text: the band needs the page's width for its labels
        st.plotly_chart(
            plain(grid, TITLES["grid"], "weight", ("first word", "words in the phrase")), config=PLOT_CONFIG,
            key="grid", theme=None,
        )  # fmt: skip
        st.markdown(grid_sentence(explanation, band=True))
        grid_col, attn_col = st.container(), st.container()
    else:
        grid_col, attn_col = st.columns(2, gap="large")
        grid_col.plotly_chart(
            plain(grid, TITLES["grid"], "weight", ("last word", "first word")), config=PLOT_CONFIG, key="grid",
            theme=None,
        )  # fmt: skip
        grid_col.markdown(grid_sentence(explanation))
    if explanation.attentions is not None:
        groups = level_view(explanation, level)
        labels = list(groups.labels) if groups is not None else [t.piece or t.text for t in explanation.tokens]
        words = explanation_group_attention(
            explanation, chosen_matrix(explanation), None if groups is None else groups.word_of_token
        )
        figure = word_attention_figure(words, labels, TITLES["attention"])
        attn_col.plotly_chart(
            plain(figure, TITLES["attention"], "share", ("looked at", "looking")),
            config=PLOT_CONFIG, key="attention", theme=None,
        )  # fmt: skip
        attn_col.markdown(attention_sentence(words, labels))
    st.html(glossary_html())
    st.button("Leave presentation mode", key="leave_present", on_click=leave)
