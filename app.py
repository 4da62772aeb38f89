"""selfexplain: the Explain page (landing page).

Paste text (or a premise and hypothesis), see the prediction, the spans the
self-explaining model relied on, the alpha grid over all spans and, beside it,
the encoder's raw self-attention from the same forward pass.

Run: streamlit run serve.py (the model loaded when the server starts) or streamlit run app.py
"""

from __future__ import annotations

from contextlib import nullcontext

import streamlit as st

from pages.parts.baseline_panel import render_baseline
from pages.parts.document_panel import render_long_document
from pages.parts.edit_panel import render_edit_panel
from pages.parts.evidence_panel import render_evidence_controls, render_grids, render_highlight, render_span_table
from pages.parts.flip_panel import render_flip
from pages.parts.pin_link import open_linked_pin
from pages.parts.prediction_panel import render_prediction
from pages.parts.present_panel import PRESENT_INTRO, render_presentation
from pages.parts.tools_panel import render_downloads, render_model_view
from pages.parts.view_state import (
    apply_linked_span,
    bind,
    example_on_model_switch,
    init_inputs,
    init_view,
    use_example,
    write_view,
)
from pages.ui.examples import examples_for, opening_example
from pages.ui.first_view import pause_before_figures
from pages.ui.gallery import pin_widget
from pages.ui.input_limit import input_limit, input_limit_caption
from pages.ui.loading import cached_explanation
from pages.ui.navigation import sidebar_navigation
from pages.ui.picker import model_picker
from selfexplain.core.modeling.read_out import layers_read
from selfexplain.core.results.explanation import Explanation
from selfexplain.views.highlight import escape_text

st.set_page_config(page_title="selfexplain · Explain", page_icon=":mag:", layout="wide")


def main() -> None:
    sidebar_navigation()
    pin_message = open_linked_pin()  # ?pin=ID: the pin's input and model, before the picker reads them
    explainer = model_picker()
    init_view()
    present = st.sidebar.toggle(
        "Presentation mode",
        key="present",
        help="hide the controls, enlarge text and figures, explain each figure",
        **bind("present", False),
    )
    st.title("Why did the model decide that?")
    if pin_message is not None:
        pin_message()
    st.caption(
        PRESENT_INTRO
        if present
        else "A self-explaining classifier (Sun et al., 2020) gives every span of the input a weight alpha; the "
        "classifier reads the alpha-weighted sum, so alpha *is* the explanation. Compare it with the encoder's "
        "raw self-attention from the same forward pass."
    )
    if explainer is None:
        return
    pair_model = explainer.config.pair
    init_inputs()
    with st.expander("Change the input") if present else nullcontext():
        text, pair = render_inputs(explainer.name, pair_model)
    if not text.strip() or (pair_model and not (pair or "").strip()):
        need = "a premise and a hypothesis" if pair_model else "a sentence or a paragraph"
        st.info(f"Type or paste {need} above, or pick an example, then press Ctrl+Enter.")
        return
    if explainer.config.head != "span":  # a plain baseline: no alpha, gradient x input and attention instead
        render_baseline(explainer, st.session_state.model_directory, text, pair)
        return
    text_in, pair_in, truncated = text, pair, False
    if pair_model:  # a single long text is read in windows; a pair must fit one window
        text_in, pair_in, truncated = explainer.truncate_to_fit(text, pair)
    if truncated:
        st.warning(
            f"The pair is longer than the model's {explainer.max_tokens} tokens; only the first part of each text "
            f"is explained (premise up to “…{escape_text(text_in[-40:])}”)."
        )
    if render_long_document(explainer, st.session_state.model_directory, text_in, pair_in, present):
        return  # over 1,000 tokens: the document view (overview, top spans, one part up close)
    explanation = cached_explanation(st.session_state.model_directory, text_in, pair_in)
    st.session_state._shown = (st.session_state.model_directory, text_in, pair_in)
    if explanation.windows is not None:
        st.info(
            f"This text has {explanation.num_tokens:,} tokens, more than one encoder window "
            f"({explainer.max_tokens}); it was read in {len(explanation.windows)} overlapping windows with one alpha "
            "over the spans of all of them."
        )
    apply_linked_span(explanation)
    if present:
        render_presentation(explanation)  # no controls, no Pin box
    else:
        render(explanation, layers_read(explainer.model))
        pin_widget(explanation, explainer.name, text_in, pair_in)
    write_view(explanation)


def render_inputs(model_name: str, pair_model: bool) -> tuple[str, str | None]:
    """The example picker and the text boxes; returns ``(text, pair)`` and keeps them in the URL."""
    examples = examples_for(model_name)
    switched = example_on_model_switch(model_name, pair_model, examples)  # a model's own example on a switch
    st.session_state.examples = examples
    first = opening_example(examples)
    if (st.session_state.pop("_first_open", False) or switched) and first is not None:
        st.session_state.text, st.session_state.pair = first["text"], first.get("pair", "")
        st.session_state.pop("selected_span", None)
    if examples:
        st.selectbox(
            "Examples",
            [e["title"] for e in examples],
            index=None,
            placeholder="Pick an example…",
            key="example_choice",
            on_change=use_example,
        )
    limit = input_limit()
    if pair_model:
        left, right = st.columns(2)
        left.text_area("Premise", key="text", height=110, max_chars=limit)
        right.text_area("Hypothesis", key="pair", height=110, max_chars=limit)
    else:
        st.text_area("Text to explain", key="text", height=110, max_chars=limit)
    input_limit_caption()
    text = st.session_state.text
    pair = st.session_state.pair if pair_model else None
    st.query_params["text"] = st.session_state._url_text = text
    if pair_model:
        st.query_params["pair"] = st.session_state._url_pair = pair or ""
    elif "pair" in st.query_params:
        del st.query_params["pair"]
    return text, pair


def render(explanation: Explanation, reads: int | None = None) -> None:
    """The prediction, highlighted spans, the alpha grid beside the attention grid (``reads``: the encoder layers
    the model reads), the controls and tools (presentation mode has its own view:
    :func:`pages.parts.present_panel.render_presentation`)."""
    render_prediction(explanation)
    spans, level = render_evidence_controls(explanation)
    selection = render_highlight(explanation, spans)  # the explained text first, the figures after it
    pause_before_figures()
    grid = render_grids(explanation, level, reads)
    render_span_table(explanation)
    render_edit_panel(explanation, st.session_state.model_directory, selection)
    render_flip(explanation)
    render_model_view(explanation)
    render_downloads(explanation, spans, grid, level)


main()
