"""Explain page, a long document in presentation mode: no sidebar and no controls (no part picker, slider or
attention selectors), the answer large, the phrases that carry the most weight shaded in their paragraphs,
and where in the document the weight lies, each with one plain sentence. The way back is one button."""

from __future__ import annotations

import streamlit as st

from pages.parts.present_panel import PRESENT_CSS, leave, plain
from pages.ui import PLOT_CONFIG
from selfexplain.core.results.document import Document
from selfexplain.views.document import document_highlight_html, parts_overview_figure
from selfexplain.views.evidence import quoted
from selfexplain.views.figures import probability_figure
from selfexplain.views.highlight import escape_text
from selfexplain.views.present import TITLES, glossary_html, highlight_sentence

SHOWN_PHRASES = 5  # the shaded paragraphs show at most five phrases


def decision_line(document: Document) -> str:
    """ "The model decided *negative* mostly because of “a” and “b”." from the phrases with the most weight
    (never a phrase with weight 0), escaped for Markdown."""
    spans = document.evidence_spans(2)
    decided = f"The model decided *{escape_text(document.label)}*"
    if not spans:
        return f"{decided}; no phrase of this document carries weight."
    names = " and ".join(quoted(span.text, 40) for span in spans)
    return f"{decided} mostly because of {names}."


def render_document_presentation(document: Document) -> None:
    """The answer and how sure the model is, the top phrases in their paragraphs, where the weight lies."""
    st.html(PRESENT_CSS)
    head, bars = st.columns([1, 2])
    head.metric("The model's answer", document.label)
    head.markdown(decision_line(document))
    figure = plain(probability_figure(document), TITLES["probabilities"])  # type: ignore[arg-type]
    bars.plotly_chart(figure, config=PLOT_CONFIG, key="doc_present_probabilities", theme=None)
    st.subheader("What the model relied on")
    spans = document.evidence_spans(SHOWN_PHRASES)
    paragraphs = document.parts("paragraph")
    with st.container(height=420):
        st.html(document_highlight_html(document, spans, paragraphs))
    st.markdown(highlight_sentence(len(spans)))
    level = "paragraph" if len(paragraphs) > 1 else "sentence"
    parts = document.parts(level)
    overview = plain(parts_overview_figure(document, parts), "Where in the document the weight lies")
    st.plotly_chart(overview, config=PLOT_CONFIG, key="doc_present_overview", theme=None)
    st.markdown(
        f"Each bar is one {level} of the document, in reading order: the taller the bar, the more the model's "
        f"decision rests on that {level}."
    )
    st.html(glossary_html())
    st.button("Leave presentation mode", key="leave_present", on_click=leave)
