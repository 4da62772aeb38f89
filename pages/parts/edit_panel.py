"""Explain page section: edit the input word by word, re-score, see what moved, undo."""

from __future__ import annotations

import numpy as np
import streamlit as st

from pages.ui import PLOT_CONFIG
from pages.ui.loading import cached_explanation
from selfexplain.core.results.explanation import Explanation, Span
from selfexplain.errors import InvalidInputError
from selfexplain.methods.analysis.edits import AlphaChange, Edit, alpha_change, apply_edit, word_extents
from selfexplain.views.edits import alpha_change_figure, alpha_change_table
from selfexplain.views.highlight import escape_text

ACTIONS = ("Replace", "Delete", "Insert")
# Column widths of the edit row: the "Edit" control's three options need about 250 px, which a fifth of the page
# (a pair model's row was [1, 1, 3]) did not give them: "Insert" read "Ins...".
PAIR_COLUMNS = (2, 3, 4)  # Text (premise or hypothesis), Edit, the words
TEXT_COLUMNS = (2, 3)  # Edit (three choices, whole at 1,024 px), the words
HISTORY = "edit_history"  # list of {"before": (text, pair), "after": (text, pair), "edit": description}


def _current() -> tuple[str, str]:
    return st.session_state.get("text", ""), st.session_state.get("pair", "")


def _commit(new_text: str, new_pair: str, description: str) -> None:
    before = _current()
    st.session_state.setdefault(HISTORY, []).append(
        {"before": before, "after": (new_text, new_pair), "edit": description}
    )
    st.session_state.text, st.session_state.pair = new_text, new_pair
    st.session_state.pop("selected_span", None)
    st.session_state.pop("edit_error", None)


def on_apply() -> None:
    """Apply the edit described by the widgets (a callback: it may set the text box's value)."""
    state = st.session_state
    segment = 1 if state.get("edit_segment") == "Hypothesis" else 0
    text, pair = _current()
    target = pair if segment else text
    chosen = state.get(state.get("edit_words_key", ""), 0)
    first, last = chosen if isinstance(chosen, tuple) else (chosen, chosen)
    kind = {"Replace": "replace", "Delete": "delete", "Insert": "insert"}[state.get("edit_action", "Replace")]
    edit = Edit(kind, int(first), int(last), state.get("edit_new", ""), segment)  # type: ignore[arg-type]
    try:
        edited = apply_edit(target, edit)
    except InvalidInputError as err:
        state.edit_error = str(err)
        return
    _commit(text if segment else edited, edited if segment else pair, edit.describe(target))


def on_delete_span(span: Span) -> None:
    """Delete the whitespace words that the selected span touches."""
    text, pair = _current()
    target = pair if span.segment else text
    covered = [i for i, (a, b) in enumerate(word_extents(target)) if a < span.end_char and b > span.start_char]
    edit = Edit("delete", covered[0], covered[-1], segment=span.segment)
    try:
        edited = apply_edit(target, edit)
    except InvalidInputError as err:
        st.session_state.edit_error = str(err)
        return
    _commit(text if span.segment else edited, edited if span.segment else pair, edit.describe(target))


def on_undo() -> None:
    history = st.session_state.get(HISTORY, [])
    if history:
        st.session_state.text, st.session_state.pair = history.pop()["before"]
        st.session_state.pop("selected_span", None)


def render_edit_panel(explanation: Explanation, directory: str, selection: Span | None) -> None:
    """The edit controls, the history with undo, and (right after an edit) what the edit changed."""
    st.subheader("Edit the input and watch alpha move")
    pair_model = explanation.pair is not None
    c1, c2, c3 = st.columns(PAIR_COLUMNS) if pair_model else (None, *st.columns(TEXT_COLUMNS))
    if c1 is not None:
        c1.segmented_control("Text", ["Premise", "Hypothesis"], default="Premise", key="edit_segment")
    segment = 1 if st.session_state.get("edit_segment") == "Hypothesis" else 0
    action = c2.segmented_control("Edit", ACTIONS, default="Replace", key="edit_action") or "Replace"
    target = explanation.segment_text(segment)
    words = [target[a:b] for a, b in word_extents(target)]
    # one widget per action and text: a stored choice never meets a word list it does not fit
    key = st.session_state.edit_words_key = f"edit_words_{action}_{segment}_{hash(target)}"
    if action == "Insert":
        c3.select_slider(
            "Insert before", list(range(len(words) + 1)), value=0, key=key,
            format_func=lambda i: f"{i + 1} · {words[i]}" if i < len(words) else "(the end)",
        )  # fmt: skip
    elif len(words) > 1:
        c3.select_slider(
            "Words", list(range(len(words))), value=(0, 0), key=key, format_func=lambda i: f"{i + 1} · {words[i]}"
        )
    else:
        st.session_state[key] = (0, 0)
        c3.caption(f"Word: {escape_text(words[0]) if words else '(none)'}")
    n1, n2, n3, n4 = st.columns([2, 1.2, 1.6, 1])  # every button label whole at 1,024 px
    n1.text_input(
        "New words", key="edit_new", disabled=action == "Delete", placeholder="the words to put in",
        label_visibility="collapsed",
    )  # fmt: skip
    n2.button("Apply edit", on_click=on_apply, key="edit_apply", type="primary")
    if selection is not None:
        n3.button("Delete selected span", on_click=on_delete_span, args=(selection,), key="edit_delete_span")
    history = st.session_state.get(HISTORY, [])
    n4.button("Undo", on_click=on_undo, key="edit_undo", disabled=not history)
    if st.session_state.get("edit_error"):
        st.error(escape_text(st.session_state.pop("edit_error")))
    if history:
        st.caption("Edits so far: " + " · ".join(f"{i + 1}. {escape_text(h['edit'])}" for i, h in enumerate(history)))
    last = history[-1] if history else None
    if last is None or tuple(last["after"]) != (explanation.text, explanation.pair or ""):
        return
    text, pair = last["before"]
    before = cached_explanation(directory, text, pair if pair_model else None)
    change = alpha_change(before, explanation)
    render_change(change, explanation)


def render_change(change: AlphaChange, explanation: Explanation) -> None:
    """Prediction and probability change, the difference grid and the spans that moved most."""
    m1, m2 = st.columns(2)
    index = explanation.predicted_index
    m1.metric("Prediction after the edit", change.label_after)
    m1.caption(
        f"Before the edit: {escape_text(change.label_before)}"
        + (" (unchanged)" if change.label_before == change.label_after else " (the decision changed)")
    )
    m2.metric(
        f"Probability of “{escape_text(change.label_after)}”",
        f"{explanation.probabilities[index]:.1%}",
        f"{change.probability_change[index]:+.1%}",
    )
    moved = np.abs(np.nan_to_num(change.delta))
    if not change.rows and (moved.size == 0 or moved.max() == 0):
        st.info(
            "The edit did not move alpha: every remaining span kept its weight, and no span that carried weight "
            "was removed. The probabilities changed only because the encoder read different words around the spans."
        )
        return
    left, right = st.columns([3, 2])
    left.plotly_chart(alpha_change_figure(change), config=PLOT_CONFIG, key="edit_change_grid", theme=None)
    left.caption(
        "Each cell is a word span of the edited text; blue spans gained alpha, red ones lost it, white is "
        "unchanged. A span that did not exist before the edit counts from zero."
    )
    table = alpha_change_table(change)
    right.caption("Spans that moved most (a removed span has alpha 0 after the edit)")
    right.dataframe(table, hide_index=True, key="edit_change_table", column_config={
        "before": st.column_config.NumberColumn(format="%.4f"),
        "after": st.column_config.NumberColumn(format="%.4f"),
        "change": st.column_config.NumberColumn(format="%+.4f"),
    })  # fmt: skip
