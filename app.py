"""selfexplain: the Explain page (landing page).

Paste text (or a premise and hypothesis), see the prediction, the spans the
self-explaining model relied on, the alpha grid over all spans and, beside it,
the encoder's raw self-attention from the same forward pass.

Run: streamlit run serve.py (the model loaded when the server starts) or streamlit run app.py
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from functools import partial

import streamlit as st
from plotly.graph_objects import Figure

from pages.parts.attention_panel import attention_figure_for, on_model_view_select, render_attention
from pages.parts.document_panel import render_long_document
from pages.parts.edit_panel import render_edit_panel
from pages.parts.flip_panel import render_flip
from pages.parts.grid_panel import render_grid, shown_explanation
from pages.parts.pin_link import open_linked_pin
from pages.parts.present_panel import PRESENT_INTRO, render_presentation
from pages.parts.second_opinion_panel import render_second_opinion
from pages.parts.surrogate_panel import render_surrogate_check
from pages.parts.view_state import (
    apply_linked_span,
    bind,
    example_on_model_switch,
    init_inputs,
    init_view,
    keep_top_k,
    kept,
    remember,
    selected_span,
    use_example,
    write_view,
)
from pages.ui import PLOT_CONFIG
from pages.ui.examples import examples_for, opening_example
from pages.ui.gallery import pin_widget
from pages.ui.input_limit import input_limit, input_limit_caption
from pages.ui.loading import cached_explanation
from pages.ui.navigation import sidebar_navigation
from pages.ui.picker import model_picker
from selfexplain.explanation import Explanation, Span
from selfexplain.views.evidence import selected_caption, weight_sentence
from selfexplain.views.figures import (
    model_view_figure,
    probability_figure,
    span_table,
)
from selfexplain.views.highlight import escape_text, highlight_html
from selfexplain.views.html_report import report_html
from selfexplain.words import LEVELS, Level

st.set_page_config(page_title="selfexplain · Explain", page_icon=":mag:", layout="wide")


def on_table_select() -> None:
    """A row of the span table was ticked: select its span (once per new selection)."""
    rows = st.session_state.get("span_table", {}).get("selection", {}).get("rows", [])
    if rows:
        explanation = shown_explanation()
        remember(explanation, explanation.evidence_spans(20)[rows[0]])  # the table lists these


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
    text_in, pair_in, truncated = text, pair, False
    if pair_model:  # a single long text is read in windows; a pair must fit one window
        text_in, pair_in, truncated = explainer.truncate_to_fit(text, pair)
    if truncated:
        st.warning(
            f"The pair is longer than the model's {explainer.max_tokens} tokens; only the first part of each text "
            f"is explained (premise up to “…{escape_text(text_in[-40:])}”)."
        )
    if render_long_document(explainer, st.session_state.model_directory, text_in, pair_in):
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
        render(explanation)
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


def render(explanation: Explanation) -> None:
    """The prediction, highlighted spans, the alpha grid beside the attention grid, the controls and tools
    (presentation mode has its own view: :func:`pages.parts.present_panel.render_presentation`)."""
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

    st.subheader("What the model relied on")
    evidence = explanation.evidence_spans(20)  # a span with alpha 0 is never shown, ranked or counted
    sentence = weight_sentence(evidence, explanation.num_evidence, int(explanation.span_mask.sum()))
    if sentence:
        st.markdown(sentence)
    st.session_state.setdefault("top_k_wanted", 5)  # the span count asked for (kept in the link)
    overlapping = bool(kept("overlapping", False))
    level = kept("grid_level") or ("word" if explanation.span_unit == "word" else "token")
    most = len(evidence)  # the slider offers no more spans than carry weight (at most 20)
    k = min(int(st.session_state.top_k_wanted), most)
    c1, c2, c3 = st.columns([2, 2, 3])
    if most >= 2:
        st.session_state.top_k = k  # the wish, bounded by this input's spans; moving the slider sets the wish
        k = c1.slider(
            "Spans to show",
            1,
            most,
            key="top_k",
            on_change=keep_top_k,
            help=f"{explanation.num_evidence:,} spans carry weight (alpha above 0)",
        )
    else:
        c1.caption("One span carries weight." if most == 1 else "No span carries weight.")
    overlapping = c2.toggle("Allow overlapping spans", key="overlapping", **bind("overlapping", overlapping))
    level = c3.segmented_control(
        "Grid level",
        LEVELS,
        key="grid_level",
        help="merge wordpieces into words, or words into sentences (for long texts)",
        **bind("grid_level", level),
    ) or level  # fmt: skip
    spans = evidence[:k] if overlapping else explanation.top_spans_non_overlapping(k)  # weighted spans only
    highlight_target = st.empty()

    grid_col, attn_col = st.columns(2, gap="large")
    with grid_col:
        grid, view = render_grid(explanation, level)
    with attn_col:
        render_attention(explanation, level, view)
    render_second_opinion(explanation, st.session_state.model_directory)

    table = span_table(explanation, 20)  # row i is evidence_spans(20)[i]: spans with alpha 0 are not listed
    zeros = int(explanation.span_mask.sum()) - explanation.num_evidence
    st.caption(
        f"Top {len(table)} spans by alpha — select a row to highlight it in the text."
        + (f" The other {zeros:,} spans have alpha 0 (this model's alpha is sparse)." if zeros > 0 else "")
    )
    st.dataframe(
        table.drop(columns=["start_token", "end_token"]),
        on_select=on_table_select,
        selection_mode="single-row",
        hide_index=True,
        key="span_table",
        column_config={"alpha": st.column_config.ProgressColumn("alpha", format="%.4f", min_value=0.0, max_value=1.0)},
    )
    selection = selected_span(explanation)
    with highlight_target.container():
        st.html(highlight_html(explanation, spans, selection))
        if selection is not None:
            st.caption(selected_caption(selection))

    render_edit_panel(explanation, st.session_state.model_directory, selection)
    render_flip(explanation)

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


main()
