"""Explain page state: inputs and view read from and written to the share link, the selected span."""

from __future__ import annotations

import streamlit as st

from pages.ui.input_limit import input_limit
from selfexplain.core.results.attention import AGGREGATES
from selfexplain.core.results.explanation import Explanation, Span
from selfexplain.core.results.words import LEVELS


def init_inputs() -> None:
    """Inputs come from the URL, so a view can be shared as a link; a URL that changed since this
    page last wrote it (a link opened from another page) replaces what the boxes held."""
    if "text" not in st.session_state and not st.query_params.get("text"):
        st.session_state._first_open = True  # main() shows an example instead of an empty box
    for key in ("text", "pair"):
        in_url = st.query_params.get(key)
        if key not in st.session_state or (in_url is not None and in_url != st.session_state.get(f"_url_{key}")):
            st.session_state[key] = (in_url or "")[: input_limit()]
            st.session_state[f"_url_{key}"] = in_url
            st.session_state._input_from_link = True  # a model switch in the same run keeps this input


def example_on_model_switch(model_name: str, pair_model: bool, examples: list[dict[str, str]]) -> bool:
    """Whether the model just changed so that the boxes should show the new model's own example: the
    input kind changed (one text <-> a premise and a hypothesis), or the boxes held the last model's
    example. Text the user typed stays for a model of the same kind, and so does an input opened from a
    link in this run. Resets the example picker on any switch."""
    state = st.session_state
    last, last_pair = state.get("_inputs_model"), state.get("_inputs_pair")
    from_link = state.pop("_input_from_link", False)
    state._inputs_model, state._inputs_pair = model_name, pair_model
    if last is None or last == model_name:
        return False
    state.example_choice = None  # the last model's example titles mean nothing here
    if from_link or not examples:
        return False
    shown = (state.get("text", ""), state.get("pair", "") or "")
    was_example = any((e["text"], e.get("pair", "") or "") == shown for e in state.get("examples", []))
    return last_pair != pair_model or was_example or not shown[0].strip()


# view state kept in the share link: URL parameter -> (session key, parse); parse raises ValueError on junk
VIEW_PARAMS: dict[str, tuple[str, object]] = {
    "k": ("top_k_wanted", lambda v: min(20, max(1, int(v)))),  # the slider shows at most the spans with weight
    "overlap": ("overlapping", lambda v: v == "1"),
    "level": ("grid_level", lambda v: v if v in LEVELS else "token"),
    "attention": ("attn_aggregate", lambda v: v if v in AGGREGATES else "mean over heads"),
    "layer": ("attn_layer", lambda v: max(0, int(v) - 1)),  # 1-based in the link, as on screen
    "head": ("attn_head", lambda v: max(0, int(v) - 1)),
    "present": ("present", lambda v: v == "1"),
}


SHADOW = "_view_"  # the kept value of view widget ``key`` lives in ``_view_<key>``


def kept(key: str, default: object = None) -> object:
    """The kept value of view setting ``key`` (a widget's key, or ``top_k_wanted``), else ``default``."""
    return st.session_state.get(SHADOW + key, default)


def keep(key: str, value: object) -> None:
    st.session_state[SHADOW + key] = value


def bind(key: str, default: object) -> dict[str, object]:
    """Before drawing view widget ``key``: give it the kept value (``default`` the first time) and return
    the widget arguments that keep its changes (``on_change``, ``args``).

    Streamlit drops a widget's own key from the session whenever a run does not draw it (another page, a
    run that stops early, a model with one span and no slider); the widget then came back with a default
    while the browser still showed the old choice, and the link took whichever it saw (issue 23 defect 1).
    The kept value is a plain key, which Streamlit never drops, written to the widget's key each run."""
    value = st.session_state.get(SHADOW + key, default)
    st.session_state[SHADOW + key] = value
    st.session_state[key] = value
    return {"on_change": store, "args": (key,)}


def store(key: str) -> None:
    """A view widget changed: keep its value. A deselected choice (a segmented control clicked again
    gives None) is undone: the view always has a value and the control always shows it."""
    value = st.session_state.get(key)
    if value is None:
        st.session_state[key] = st.session_state.get(SHADOW + key)
    else:
        st.session_state[SHADOW + key] = value


def init_view() -> None:
    """On a fresh session, take the view (span count, grid level, attention mode, layer, head, the
    selected span) from the share link; junk values are ignored."""
    for param, (key, parse) in VIEW_PARAMS.items():
        value = st.query_params.get(param)
        target = key if key == "top_k_wanted" else SHADOW + key
        if value is not None and target not in st.session_state:
            try:
                st.session_state[target] = parse(value)  # type: ignore[operator]
            except ValueError:
                pass
    if "_view_loaded" not in st.session_state:  # the linked span is read once, on the session's first run
        st.session_state._view_loaded = True
        st.session_state._url_span = st.query_params.get("span")


def write_view(explanation: Explanation) -> None:
    """Put the current view into the URL so a copied link reopens exactly this view."""
    state = st.session_state
    values = {
        "k": str(state.get("top_k_wanted", 5)),
        "overlap": "1" if kept("overlapping") else "0",
        "level": str(kept("grid_level") or "token"),
        "attention": str(kept("attn_aggregate", "mean over heads")),
        "layer": str(int(kept("attn_layer", 0)) + 1),  # type: ignore[call-overload]
        "head": str(int(kept("attn_head", 0)) + 1),  # type: ignore[call-overload]
    }
    if kept("present"):
        values["present"] = "1"
    elif "present" in st.query_params:
        del st.query_params["present"]
    selection = selected_span(explanation)
    if selection is not None:
        values["span"] = f"{selection.start_token}-{selection.end_token}"
    elif "span" in st.query_params:
        del st.query_params["span"]
    for name, value in values.items():
        if st.query_params.get(name) != value:
            st.query_params[name] = value


def apply_linked_span(explanation: Explanation) -> None:
    """Select the span named in the share link (``span=START-END``, token indices), once."""
    link = st.session_state.pop("_url_span", None)
    if not link or st.session_state.get("selected_span"):
        return
    try:
        start, end = (int(part) for part in str(link).split("-"))
    except ValueError:
        return
    span = explanation.span_at(start, end)
    if span is not None:
        remember(explanation, span)


def keep_top_k() -> None:
    """The "Spans to show" slider moved: that is the count asked for from now on (an input with fewer
    spans that carry weight shows them all, and the next input gets the count asked for again)."""
    st.session_state.top_k_wanted = int(st.session_state.top_k)


def use_example() -> None:
    example = st.session_state.get("example_choice")
    for item in st.session_state.get("examples", []):
        if item["title"] == example:
            st.session_state.text = item["text"]
            st.session_state.pair = item.get("pair", "")
            st.session_state.pop("selected_span", None)


def selected_span(explanation: Explanation) -> Span | None:
    """The span picked in the grid or the table, if it belongs to this input. Picked on another model's
    reading of the same input (the model was switched), it is read again with this model's alpha and
    rank (None when this model has no such span), so the caption never shows another model's numbers."""
    chosen = st.session_state.get("selected_span")
    if not chosen or chosen.get("key") != (explanation.text, explanation.pair):
        return None
    span = Span(**chosen["span"])
    if chosen.get("model") == explanation.model_name:
        return span
    return explanation.span_at(span.start_token, span.end_token) if span.end_token < explanation.num_tokens else None


def remember(explanation: Explanation, span: Span) -> None:
    st.session_state.selected_span = {
        "key": (explanation.text, explanation.pair),
        "model": explanation.model_name,
        "span": span.__dict__,
    }
