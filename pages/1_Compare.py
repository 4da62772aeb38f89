"""Compare: one input, two models side by side on one word axis.

Predictions, the top spans in the text, both alpha grids with one colour scale, each model's raw
attention, and how far the two rankings agree. A plain baseline (``--head cls`` / ``mean``) has no
alpha: its column shows gradient x input per word instead of a grid.
"""

from __future__ import annotations

import streamlit as st

from pages.ui import PLOT_CONFIG
from pages.ui.examples import examples_for
from pages.ui.gallery import pin_widget
from pages.ui.input_limit import input_limit, input_limit_caption
from pages.ui.loading import cached_explainer, results_cache
from pages.ui.navigation import sidebar_navigation
from pages.ui.picker import choose_model
from selfexplain.core.modeling.read_out import layers_read
from selfexplain.core.pipeline import available_models
from selfexplain.core.results.attention import aggregate_attention
from selfexplain.errors import USER_ERRORS
from selfexplain.methods.analysis.compare import (
    Comparison,
    Side,
    axis_of_token,
    check_compatible,
    compare,
    default_partner,
    explain_side,
    fit_both,
)
from selfexplain.views.compare import agreement_caption, agreement_figure, axis_grid_figure, gradient_figure
from selfexplain.views.evidence import LISTED_PHRASES, weight_sentence
from selfexplain.views.figures import MAX_GRID_UNITS, grid_view, probability_figure
from selfexplain.views.highlight import escape_text, highlight_html
from selfexplain.views.word_attention import (
    MERGE_RULE,
    explanation_group_attention,
    layers_caption,
    word_attention_figure,
)

st.set_page_config(page_title="selfexplain · Compare", page_icon=":mag:", layout="wide")


def cached_side(directory: str, text: str, pair: str | None) -> Side:
    """One model's reading of the input; the model runs only when the input or the model changes
    (kept in the app's byte-bounded results cache)."""

    def compute() -> Side:
        with st.spinner("Explaining…"):
            return explain_side(cached_explainer(directory), text, pair)

    return results_cache().get_or_compute(("compare", directory, text, pair), compute)  # type: ignore[return-value]


def init_inputs() -> None:
    """The input comes from the URL (a share link); a URL changed since this page wrote it wins."""
    for key in ("text", "pair"):
        in_url = st.query_params.get(key)
        state = f"compare_{key}"
        if state not in st.session_state or (in_url is not None and in_url != st.session_state.get(f"_url_{state}")):
            st.session_state[state] = (in_url or "")[: input_limit()]
            st.session_state[f"_url_{state}"] = in_url


def read_input(pair_models: bool, example_model: str) -> tuple[str, str | None]:
    """The text boxes (one text, or a premise and a hypothesis); written back to the URL."""
    if not st.session_state.compare_text and "_compare_seeded" not in st.session_state:
        examples = examples_for(example_model)  # the first open shows an example instead of an empty box
        if examples:
            st.session_state.compare_text = examples[0]["text"]
            st.session_state.compare_pair = examples[0].get("pair", "")
    st.session_state._compare_seeded = True
    if pair_models:
        left, right = st.columns(2)
        left.text_area("Premise", key="compare_text", height=90, max_chars=input_limit())
        right.text_area("Hypothesis", key="compare_pair", height=90, max_chars=input_limit())
    else:
        st.text_area("Text to compare on", key="compare_text", height=90, max_chars=input_limit())
    input_limit_caption()
    text = st.session_state.compare_text
    pair = st.session_state.compare_pair if pair_models else None
    st.query_params["text"] = st.session_state._url_compare_text = text
    if pair_models:
        st.query_params["pair"] = st.session_state._url_compare_pair = pair or ""
    elif "pair" in st.query_params:
        del st.query_params["pair"]
    return text, pair


def render_side(
    side: Side, comparison: Comparison, letter: str, k: int, view: tuple[int, int] | None, reads: int
) -> None:
    """One model's column: prediction, probabilities, top spans in the text, grid or gradient view, attention
    (its last layer on the grids' word axis; ``reads``: the encoder layers the model reads)."""
    explanation = side.explanation
    if letter == "A":
        alpha, valid, scores = comparison.alpha_a, comparison.mask_a, comparison.word_scores_a
    else:
        alpha, valid, scores = comparison.alpha_b, comparison.mask_b, comparison.word_scores_b
    st.subheader(f"{letter}: {escape_text(explanation.model_name)}")
    st.metric("Prediction", explanation.label)
    st.caption(f"{explanation.confidence:.1%} confidence")
    st.plotly_chart(probability_figure(explanation), config=PLOT_CONFIG, key=f"probabilities_{letter}")
    if side.baseline:
        st.info(
            f"A plain baseline ({escape_text(side.head)} head) reads no spans, so it has no alpha; shown instead: "
            "gradient x input, summed over each word's tokens (positive supports the prediction)."
        )
        st.html(highlight_html(explanation, []))
        figure = gradient_figure(comparison.axis, scores, f"{letter}: gradient x input per word")
        st.plotly_chart(figure, config=PLOT_CONFIG, key=f"gradient_{letter}", theme=None)
    else:
        spans = explanation.top_spans_non_overlapping(k)  # only spans that carry weight
        st.html(highlight_html(explanation, spans))
        sentence = weight_sentence(
            explanation.evidence_spans(LISTED_PHRASES), explanation.num_evidence, int(explanation.span_mask.sum())
        )
        if sentence:
            st.caption(sentence)
        title = f"{letter}: alpha over word spans"
        figure = axis_grid_figure(comparison.axis, alpha, valid, comparison.zmax, title, view, narrow=True)
        st.plotly_chart(figure, config=PLOT_CONFIG, key=f"grid_{letter}", theme=None)
        pin_widget(
            explanation, explanation.model_name, explanation.text, explanation.pair, key=f"pin_{letter}", stacked=True
        )
    if explanation.attentions is not None:
        layers = explanation.attentions.shape[0]
        shown = min(reads, layers) if reads > 0 else layers  # the last layer the model reads
        matrix = aggregate_attention(explanation.attentions, "mean over heads", shown - 1)
        title = f"{letter}: raw self-attention, layer {shown}"
        words = explanation_group_attention(explanation, matrix, axis_of_token(side, comparison.axis))
        figure = word_attention_figure(words, comparison.axis.labels, title, view, narrow=True)
        st.plotly_chart(figure, config=PLOT_CONFIG, key=f"attention_{letter}", theme=None)
        st.caption(f"Layer {shown}, the mean over its heads. {layers_caption(reads, layers)} {MERGE_RULE}")
    else:
        st.info("This encoder returned no attention maps.")


def main() -> None:
    sidebar_navigation()
    st.title("Compare two models on one input")
    st.caption(
        "Both models read the same text. Their alpha grids share one word axis (words both tokenizers keep whole) "
        "and one colour scale, so the same colour is the same weight in both."
    )
    left, right = st.columns(2)
    with left:
        model_a = choose_model("Model A", "model_a")
    partner = default_partner(str(st.session_state.get("model_a_choice", "")), available_models())
    with right:
        model_b = choose_model("Model B", "model_b", default=partner)
    if model_a is None or model_b is None:
        return
    try:
        check_compatible(model_a.config, model_b.config)
    except USER_ERRORS as err:
        st.error(f"These two models cannot be compared: {escape_text(str(err))}.")
        return
    pair_models = model_a.config.pair
    init_inputs()
    text, pair = read_input(pair_models, model_a.name)
    if not text.strip() or (pair_models and not (pair or "").strip()):
        need = "a premise and a hypothesis" if pair_models else "a sentence"
        st.info(f"Type {need} above, then press Ctrl+Enter.")
        return
    k = st.slider("Spans to highlight", 1, 10, 3, key="compare_top_k")
    try:
        text_in, pair_in, truncated = fit_both((model_a, model_b), text, pair)
        side_a = cached_side(st.session_state.model_a_directory, text_in, pair_in)
        side_b = cached_side(st.session_state.model_b_directory, text_in, pair_in)
    except USER_ERRORS as err:
        st.error(f"Cannot explain this input: {escape_text(str(err))}")
        return
    if truncated:
        st.warning(
            "The input is longer than one encoder window of these models; both read only its first part "
            f"(up to “…{escape_text(text_in[-40:])}”)."
        )
    comparison = compare(side_a, side_b)
    view = None
    if len(comparison.axis) > MAX_GRID_UNITS:
        start = st.slider("Grid viewport (first word)", 0, len(comparison.axis) - MAX_GRID_UNITS, 0, key="compare_view")
        view = grid_view(len(comparison.axis), start)
        st.caption(f"The grids show words {view[0]}–{view[1] - 1} of {len(comparison.axis)}.")
    column_a, column_b = st.columns(2, gap="large")
    with column_a:
        render_side(side_a, comparison, "A", k, view, layers_read(model_a.model))
    with column_b:
        render_side(side_b, comparison, "B", k, view, layers_read(model_b.model))
    st.caption(
        f"How to read the grids: a cell is the span from the word on its row to the word in its column; its colour "
        f"is the alpha the model gives that span, on one scale from 0 to {comparison.zmax:.4f} for both models. "
        "Attention is a different grid on the same words: word to word inside the encoder, not a weight of a span."
    )
    st.subheader("Do the two models rank the input alike?")
    names = (side_a.explanation.model_name, side_b.explanation.model_name)
    st.plotly_chart(agreement_figure(comparison.agreement, comparison.axis, *names), config=PLOT_CONFIG, key="agree")
    st.caption(agreement_caption(comparison.agreement, comparison.axis, *names))


main()
