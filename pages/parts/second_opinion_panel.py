"""Explain page section: a second opinion beside alpha, leave-one-out on the same words, and how far the two
rankings agree (issue 23 item 3). Behind a toggle: it runs the model once more per word."""

from __future__ import annotations

import streamlit as st

from pages.parts.view_state import bind
from pages.ui import PLOT_CONFIG
from pages.ui.loading import cached_explainer
from selfexplain.core.results.explanation import Explanation
from selfexplain.errors import USER_ERRORS
from selfexplain.methods.analysis.second_opinion import (
    SecondOpinion,
    agreement_sentence,
    contrast_sentence,
    second_opinion,
)
from selfexplain.views.highlight import escape_text
from selfexplain.views.second_opinion import second_opinion_figure

MAX_TOKENS = 200  # leave-one-out runs one input per word: offered up to 200 tokens


@st.cache_data(show_spinner="Removing one word at a time…", max_entries=32)
def cached_opinion(directory: str, text: str, pair: str | None) -> SecondOpinion:
    """Leave-one-out per word for an input, computed once per model and input."""
    return second_opinion(cached_explainer(directory), text, pair)


def render_second_opinion(explanation: Explanation, directory: str) -> None:
    """The toggle and, when on, alpha and leave-one-out per word with their agreement in one line."""
    on = st.toggle(
        "Second opinion: leave-one-out per word",
        key="second_opinion",
        help="remove each word in turn and watch the prediction: one more run of the model per word",
        **bind("second_opinion", False),  # type: ignore[arg-type]
    )
    if not on:
        return
    if explanation.windows is not None or explanation.num_tokens > MAX_TOKENS:
        st.info(f"The second opinion is offered for inputs of up to {MAX_TOKENS} tokens (one encoder window).")
        return
    try:
        opinion = cached_opinion(directory, explanation.text, explanation.pair)
    except USER_ERRORS as err:
        st.error(f"No second opinion for this input: {escape_text(str(err))}")
        return
    st.plotly_chart(second_opinion_figure(opinion), key="second_opinion_chart", config=PLOT_CONFIG, theme=None)
    contrast = contrast_sentence(opinion)
    if contrast is not None:
        st.markdown(escape_text(contrast))
    st.markdown(escape_text(agreement_sentence(opinion)))
    st.caption(
        "Leave-one-out: how much the probability of the predicted label drops when the word is removed (below 0: "
        "the label got more likely without it). Alpha per word: the weight of every span that covers it. Only "
        "words scored above 0 are ranked, so words that both give 0 never count as agreement."
    )


def render_contrast(explanation: Explanation, directory: str) -> None:
    """Presentation mode: one plain line on a word that pushes against the decision (leave-one-out), when the
    input fits one window of at most :data:`MAX_TOKENS` tokens and some word does; nothing otherwise."""
    if explanation.windows is not None or explanation.num_tokens > MAX_TOKENS:
        return
    try:
        opinion = cached_opinion(directory, explanation.text, explanation.pair)
    except USER_ERRORS:
        return  # the line is an aside: the rest of the page stands without it
    contrast = contrast_sentence(opinion, plain=True)  # presentation mode: plain words
    if contrast is not None:
        st.markdown(escape_text(contrast))
