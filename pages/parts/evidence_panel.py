"""Explain page sections around the evidence: the controls (spans to show, overlap, grid level), the
highlighted text, the alpha grid beside the attention grid, and the span table."""

from __future__ import annotations

import streamlit as st
from plotly.graph_objects import Figure

from pages.parts.attention_panel import render_attention
from pages.parts.grid_panel import render_grid, shown_explanation
from pages.parts.second_opinion_panel import render_second_opinion
from pages.parts.view_state import bind, keep_top_k, kept, remember, selected_span
from selfexplain.core.results.explanation import Explanation, Span
from selfexplain.core.results.words import LEVELS, Level, level_view
from selfexplain.views.evidence import selected_caption, weight_sentence
from selfexplain.views.figures import MAX_GRID_UNITS, side_by_side, span_table
from selfexplain.views.highlight import highlight_html


def render_evidence_controls(explanation: Explanation) -> tuple[list[Span], Level]:
    """The heading, a sentence on how the weight is spread, and the controls: spans to show, overlapping
    spans, grid level. Returns the spans to highlight and the grid level."""
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
    # a short label and no help icon: the toggle's label stays whole in its column at 1,024 px
    overlapping = c2.toggle("Overlapping spans", key="overlapping", **bind("overlapping", overlapping))
    level = c3.segmented_control(
        "Grid level",
        LEVELS,
        key="grid_level",
        help="merge wordpieces into words, or words into sentences (for long texts)",
        **bind("grid_level", level),
    ) or level  # fmt: skip
    spans = evidence[:k] if overlapping else explanation.top_spans_non_overlapping(k)  # weighted spans only
    return spans, level


def render_grids(explanation: Explanation, level: Level, reads: int | None = None) -> Figure:
    """The alpha grid beside the encoder's attention (same viewport; ``reads``: the encoder layers the model
    reads), then the second opinion; returns the alpha grid's figure (the HTML report includes it)."""
    groups = level_view(explanation, level)
    units = len(groups.labels) if groups is not None else explanation.num_tokens
    if side_by_side(min(units, MAX_GRID_UNITS)):
        grid_col, attn_col = st.columns(2, gap="large")
    else:  # each grid the page's width: a label on every word, cells large enough to point at
        grid_col, attn_col = st.container(), st.container()
    with grid_col:
        grid, view = render_grid(explanation, level)
    with attn_col:
        render_attention(explanation, level, view, reads)
    render_second_opinion(explanation, st.session_state.model_directory)
    return grid


def on_table_select() -> None:
    """A row of the span table was ticked: select its span (once per new selection)."""
    rows = st.session_state.get("span_table", {}).get("selection", {}).get("rows", [])
    if rows:
        explanation = shown_explanation()
        remember(explanation, explanation.evidence_spans(20)[rows[0]])  # the table lists these


def render_span_table(explanation: Explanation) -> None:
    """The top 20 spans by alpha (spans with alpha 0 are not listed); selecting a row selects its span."""
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


def render_highlight(explanation: Explanation, spans: list[Span]) -> Span | None:
    """The text with ``spans`` highlighted and the selected span marked, with a caption for the selection;
    returns the selected span.

    Drawn before the figures, so a new session sees its explained text while plotly is still loading in the
    browser. A click in the grid or the table is already known here: both select through callbacks, which
    run before the rerun."""
    selection = selected_span(explanation)
    st.html(highlight_html(explanation, spans, selection))
    if selection is not None:
        st.caption(selected_caption(selection))
    return selection
