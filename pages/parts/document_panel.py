"""Explain page section for long documents: an overview of where the alpha mass lies, the top
spans, and one sentence or paragraph opened as an alpha grid beside the raw attention of the
encoder window that holds it.

Texts of more than :data:`LONG_TOKENS` tokens (more than two windows of the shipped models)
come here instead of the dense view. The :class:`~selfexplain.core.results.document.Document` keeps spans
sparse, and every chart sent to the browser is linear in the length (one bar per part) or at
most 120 x 120 cells (one part).
"""

from __future__ import annotations

import hashlib

import numpy as np
import streamlit as st

from pages.parts.document_present import render_document_presentation
from pages.ui import PLOT_CONFIG
from pages.ui.loading import cached_explainer, cached_result
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.attention import AGGREGATES
from selfexplain.core.results.document import Document, WindowAttention
from selfexplain.core.results.document_parts import PART_LEVELS, DocumentParts
from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.words import level_view
from selfexplain.errors import USER_ERRORS, InvalidInputError
from selfexplain.views.band import alpha_figure, band_caption
from selfexplain.views.document import (
    document_highlight_html,
    mass_in_view,
    part_attention_figure,
    part_grid_level,
    part_word_attention_figure,
    parts_overview_figure,
    snippet,
    top_spans_table,
)
from selfexplain.views.evidence import weight_sentence
from selfexplain.views.figures import (
    MAX_GRID_UNITS,
    grid_data,
    grid_view,
    probability_figure,
    side_by_side,
)
from selfexplain.views.highlight import escape_text
from selfexplain.views.word_attention import MERGE_RULE

LONG_TOKENS = 1_000  # longer texts are shown as a document (the shipped models' two windows hold 766)


@st.cache_data(show_spinner=False, max_entries=64)
def cached_token_count(directory: str, text: str) -> int:
    return cached_explainer(directory).token_counts([text])[0]


def cached_document(directory: str, text: str) -> Document:
    """The model runs only when the text (or the model) changes; kept in the byte-bounded results cache
    that every session shares (no copy per rerun)."""
    return cached_result(
        ("document", directory, text),
        "Reading the document window by window…",
        lambda: cached_explainer(directory).explain_document(text),
    )


# One window's maps weigh L x heads x n^2 floats (75 MB for MiniLM at 512 tokens), more than the whole
# results cache: the last two are kept, shared, not copied. (st.cache_data kept 32 copies: a session over
# 30 long texts grew the server by 1.5 GB, issue 24 item 7.)
@st.cache_resource(show_spinner="Running the window again for its attention…", max_entries=2)
def cached_window_attention(directory: str, text: str, window_start: int) -> WindowAttention:
    """One window's attention maps ``[L, heads, n, n]`` (read-only: sessions share the object)."""
    return cached_explainer(directory).window_attentions(text, window_start)


def render_long_document(
    explainer: SelfExplainer, directory: str, text: str, pair: str | None, present: bool = False
) -> bool:
    """Show ``text`` as a document when it has more than :data:`LONG_TOKENS` tokens (``present``: in
    presentation mode, no sidebar and no controls); returns whether it did (then the dense view is skipped)."""
    if pair is not None or explainer.config.pair or cached_token_count(directory, text) <= LONG_TOKENS:
        return False
    try:
        document = cached_document(directory, text)
    except USER_ERRORS as err:
        st.error(f"Cannot explain this text: {escape_text(str(err))}")
        return True
    if present:
        render_document_presentation(document)
    else:
        render_document(document, directory)
    return True


def on_overview_select() -> None:
    """A bar of the overview was clicked: open that part."""
    points = st.session_state.get("doc_overview", {}).get("selection", {}).get("points", [])
    if points and "customdata" in points[0]:
        st.session_state.doc_part = int(np.ravel(points[0]["customdata"])[0])


def chosen_part(document: Document, parts: DocumentParts) -> int:
    """The part to open: the one chosen for this document and level while it is a whole number in range;
    otherwise (another text, model or level, or anything else in ``doc_part``) the part most alpha reaches.

    ``doc_part`` is the part box's state. A browser that still shows an earlier text's box sends back that
    box's option *label*; Streamlit, finding no such option, hands the page the label string itself."""
    digest = hashlib.sha256(document.text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    owner = f"{document.model_name}|{digest}|{parts.level}"
    value = st.session_state.get("doc_part")
    in_range = isinstance(value, int | np.integer) and not isinstance(value, bool) and 0 <= value < len(parts)
    if st.session_state.get("doc_part_owner") != owner or not in_range:
        st.session_state.doc_part = int(np.argmax(parts.touching))
        st.session_state.doc_part_owner = owner
    return int(st.session_state.doc_part)


def render_document(document: Document, directory: str) -> None:
    """Prediction, the overview of the parts' alpha mass, the top spans and one part up close."""
    head, bars = st.columns([1, 2])
    head.metric("Prediction", document.label)
    head.caption(
        f"{document.confidence:.1%} confidence · model {escape_text(document.model_name)} · "
        f"{document.num_tokens:,} tokens in {len(document.window_starts)} overlapping windows · "
        f"{document.num_spans:,} spans under one alpha"
    )
    bars_slot = bars.empty()  # filled once a part (which carries the document's probabilities) is built

    st.subheader("Where the alpha mass lies")
    paragraphs = document.parts("paragraph")
    if "doc_level" not in st.session_state:  # paragraphs when there are several: spans often cross sentences
        st.session_state.doc_level = "paragraph" if len(paragraphs) > 1 else "sentence"
    level = st.segmented_control("Parts", PART_LEVELS, key="doc_level") or "sentence"
    parts = document.parts(level)
    chosen = chosen_part(document, parts)
    st.plotly_chart(
        parts_overview_figure(document, parts, chosen),
        on_select=on_overview_select,
        selection_mode="points",
        key="doc_overview",
        config=PLOT_CONFIG,
    )
    st.caption(
        f"Each bar is one {level}: in colour the alpha of the spans that lie inside it (these and the spans "
        f"crossing {level}s sum to 1), in grey the alpha of spans that cross into it from a neighbour. "
        f"Click a bar to open that {level} below."
    )

    st.subheader("Top spans")
    evidence = document.evidence_spans(20)  # a span with alpha 0 is never shown, ranked or counted
    sentence = weight_sentence(evidence, document.num_evidence, document.num_spans)
    if sentence:
        st.markdown(sentence)
    most = len(evidence)  # the slider offers no more spans than carry weight
    if most >= 2:
        k = st.slider(
            "Spans to show", 1, most, min(5, most), key=f"doc_top_k_{most}",
            help=f"{document.num_evidence:,} spans carry weight (alpha above 0)",
        )  # fmt: skip
    else:
        k = most
    spans = evidence[:k]
    st.dataframe(
        top_spans_table(document, parts, k),
        hide_index=True,
        column_config={"alpha": st.column_config.ProgressColumn("alpha", format="%.4f", min_value=0.0, max_value=1.0)},
    )
    with st.container(height=300):
        st.html(document_highlight_html(document, spans, paragraphs))

    try:
        explanation = document.part(chosen, level)
    except InvalidInputError as err:  # one sentence over the dense limit: no grid, the rest of the page stands
        bars_slot.plotly_chart(probability_figure(document), config=PLOT_CONFIG, key="doc_probabilities")  # type: ignore[arg-type]
        st.info(f"No grid for this {level}: {escape_text(str(err))}. Its top spans are listed above.")
        return
    bars_slot.plotly_chart(probability_figure(explanation), config=PLOT_CONFIG, key="doc_probabilities")
    render_part(document, directory, parts, chosen, explanation)


def part_label(document: Document, parts: DocumentParts, index: int) -> str:
    assert parts.mass is not None
    return f"{parts.label(index)} · mass {parts.mass[index]:.3f} · {snippet(parts.text(document.text, index), 60)}"


def render_part(
    document: Document, directory: str, parts: DocumentParts, chosen: int, explanation: Explanation
) -> None:
    """The chosen part's alpha grid (``explanation``, from :meth:`Document.part`) beside the raw
    attention of the window that holds it."""
    level = parts.level
    st.subheader(f"One {level} up close")
    options = list(range(len(parts)))
    st.selectbox(f"Open a {level}", options, key="doc_part", format_func=lambda i: part_label(document, parts, i))
    fine = "word" if explanation.span_unit == "word" else "token"
    grid_level = st.segmented_control(
        "Grid level", [fine, "sentence"], default=part_grid_level(explanation), key=f"doc_grid_{level}_{chosen}",
        help="a part with more words than one grid shows opens by sentence, so every span is on a cell",
    ) or part_grid_level(explanation)  # fmt: skip
    groups = level_view(explanation, grid_level)
    units = groups.word_of_token if groups is not None else np.arange(explanation.num_tokens)
    count = int(units[-1]) + 1 if len(units) else 1
    view = None
    if count > MAX_GRID_UNITS:  # the viewport opens on the part's highest-alpha span
        best = explanation.top_spans(1)
        near = max(0, min(int(units[best[0].start_token]) - 10, count - MAX_GRID_UNITS)) if best else 0
        start = st.slider(
            "Viewport (first unit)", 0, count - MAX_GRID_UNITS, near, key=f"doc_view_{level}_{chosen}_{count}"
        )
        view = grid_view(count, start)
    lo, hi = view if view is not None else (0, count)
    shown = np.flatnonzero((units >= lo) & (units < hi))
    first = int(parts.token_starts[chosen])
    sentences_before = int(document.parts("sentence").part_of_token[first])  # S37 is S37 in any close-up
    token_lo, token_hi = first + int(shown[0]), first + int(shown[-1]) + 1
    window_index = document.window_of(chosen, level)
    window_start = document.window_starts[window_index]
    st.caption(
        f"{parts.label(chosen)}: tokens {first:,}-{int(parts.token_ends[chosen]) - 1:,}, alpha mass "
        f"{parts.mass[chosen]:.4f}; held by window {window_index + 1} of {len(document.window_starts)} "
        f"(tokens {window_start:,}-{min(window_start + document.window_size, document.num_tokens) - 1:,})."
    )
    if side_by_side(hi - lo):
        grid_col, attn_col = st.columns(2, gap="large")
    else:  # each map the page's width: a label on every unit
        grid_col, attn_col = st.container(), st.container()
    with grid_col:
        grid, band = alpha_figure(explanation, False, None, grid_level, None, view, first_sentence=sentences_before)
        if band:  # past 48 units, spans a few units wide
            st.caption(band_caption(count, grid_level))
        st.plotly_chart(grid, key="doc_grid", config=PLOT_CONFIG, theme=None)
        shown = mass_in_view(grid_data(explanation, grid_level, None, view)[0])
        st.caption(
            f"The spans inside this {level} at {grid_level} level, with the alpha they have in the whole document "
            f"(not rescaled: they sum to the {level}'s mass, {parts.mass[chosen]:.1%} of alpha; the cells in "
            f"view hold {shown:.1%}). The colour scale runs from 0 to the largest cell."
        )
    with attn_col:
        try:
            window = cached_window_attention(directory, document.text, window_start)
        except USER_ERRORS as err:
            st.info(f"No attention for this window: {escape_text(str(err))}")
            return
        layers, heads = window.attentions.shape[:2]
        a1, a2, a3 = st.columns([2, 1, 1])
        aggregate = a1.selectbox("Attention", AGGREGATES, index=1, key="doc_attn_aggregate")
        layer = a2.selectbox(
            "Layer", list(range(layers)), index=layers - 1, key="doc_attn_layer", format_func=lambda i: str(i + 1)
        )
        head = a3.selectbox("Head", list(range(heads)), key="doc_attn_head", format_func=lambda i: str(i + 1))
        tokens = st.toggle("Encoder tokens", key="doc_attn_tokens", help="the raw map over wordpieces and [CLS]")
        if tokens:
            figure = part_attention_figure(
                window, window_index + 1, token_lo, token_hi, aggregate, int(layer), int(head)
            )
        else:
            figure = part_word_attention_figure(
                window, window_index + 1, explanation, first, grid_level, view, aggregate, int(layer), int(head),
                first_sentence=sentences_before,
            )  # fmt: skip
        st.plotly_chart(figure, key="doc_attention", config=PLOT_CONFIG, theme=None)
        if tokens:
            st.caption(
                "The encoder's raw self-attention from a forward pass of the window alone, cut to [CLS] and this "
                f"{level}'s tokens: a row sums to what it gives the tokens shown; the rest went to the window's "
                "other tokens."
            )
        else:
            st.caption(
                f"The encoder's raw self-attention from a forward pass of the window alone, on the grid's "
                f"{grid_level}s in the same order. {MERGE_RULE}"
            )
