"""Explain page: ``/?pin=ID`` opens that pin here (its input, explained again by its model).

The Gallery's permalink is ``/Gallery?pin=ID``; the same parameter on the Explain page used to be ignored
without a word. Now the pin's text, pair and model go to the URL and the boxes, and the page says which
pin it opened, with a link to the pin as it was saved; an unknown id is said so.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import streamlit as st

from pages.ui.gallery import gallery_store
from pages.ui.picker import model_choices
from selfexplain.errors import USER_ERRORS, PinNotFoundError
from selfexplain.views.highlight import escape_text


def _opened(pin_id: str, model: str, known: bool, note: str, link: str) -> None:
    where = (
        f"Its input is explained again by its model, {escape_text(model)}."
        if known
        else (
            f"It was made with the model {escape_text(model)}, which this server does not have: its input is "
            "explained by the model chosen in the sidebar."
        )
    )
    noted = f" Note: “{escape_text(' '.join(note.split())[:200])}”." if note else ""
    st.info(
        f"Opened pin {escape_text(pin_id)} from the Gallery. {where}{noted} "
        f"The pin as it was saved: [{escape_text(link)}]({link})"
    )


def open_linked_pin() -> Callable[[], None] | None:
    """Read ``?pin=ID`` once (it leaves the URL): put the pin's text, pair and model where the page reads
    its input, and return what to show under the title (None without a pin parameter). Call it before
    the model picker."""
    wanted = st.query_params.get("pin")
    if not wanted:
        return None
    del st.query_params["pin"]
    from selfexplain.gallery.view import permalink

    try:
        pin = gallery_store().get(wanted)
    except PinNotFoundError:
        return partial(
            st.warning,
            f"No pin with id “{escape_text(wanted)}” (it may have been deleted); the Gallery lists the pins there are.",
        )
    except USER_ERRORS as err:
        return partial(st.error, f"Cannot open pin “{escape_text(wanted)}”: {escape_text(str(err))}")
    st.query_params["text"] = pin.text
    if pin.pair is not None:
        st.query_params["pair"] = pin.pair
    elif "pair" in st.query_params:
        del st.query_params["pair"]
    known = pin.model in model_choices()
    if known:
        st.query_params["model"] = pin.model
        st.session_state.model_choice = pin.model  # the sidebar picker, set before it is drawn
    st.session_state.pop("selected_span", None)
    st.session_state._input_from_link = True  # a model switch keeps the pin's input (not the model's example)
    return partial(_opened, pin.id, pin.model, known, pin.note, permalink(pin.id, st.context.url))
