"""The gallery's pin store for this server process and the Pin box pages put under an explanation."""

from __future__ import annotations

import streamlit as st

from selfexplain.core.results.explanation import Explanation
from selfexplain.errors import USER_ERRORS
from selfexplain.views.highlight import escape_text


@st.cache_resource(show_spinner=False)
def _gallery_store(url: str):
    from selfexplain.gallery.store import GalleryStore

    return GalleryStore(url)


def gallery_store():
    """The pin store of this server process (one per database URL: ``SELFEXPLAIN_DB_URL`` or
    ``$SELFEXPLAIN_HOME/gallery.sqlite3``); raises GalleryDatabaseError when it cannot be opened."""
    from selfexplain.gallery.store import database_url

    return _gallery_store(database_url())


def pin_widget(
    explanation: Explanation, model_name: str, text: str, pair: str | None, key: str = "pin", stacked: bool = False
) -> None:
    """A note box and a Pin button saving ``explanation`` (of ``text``/``pair`` by ``model_name``) to the
    gallery; once pinned, the pin's id and its permalink. ``key`` tells apart several boxes on one page.
    ``stacked``: the button under the box, not beside it (in half a page the side column cut it to "P")."""
    from selfexplain.gallery.records import MAX_NOTE_CHARS
    from selfexplain.gallery.view import permalink

    identity = [model_name, text, pair]
    note_col, button_col = (st, st) if stacked else st.columns([5, 1], vertical_alignment="bottom")
    note = note_col.text_input("Note for the gallery (optional)", key=f"{key}_note", max_chars=MAX_NOTE_CHARS)
    if button_col.button("Pin", key=f"{key}_button", help="save this explanation to the Gallery page"):
        try:
            pin = gallery_store().add(explanation, model_name, note=note, text=text, pair=pair)
        except USER_ERRORS as err:
            st.error(f"Cannot pin: {escape_text(str(err))}")
        else:
            st.session_state[f"{key}_pinned"] = {"key": identity, "id": pin.id}
    pinned = st.session_state.get(f"{key}_pinned")
    if pinned and pinned["key"] == identity:
        st.success(f"Pinned as {pinned['id']}. Permalink (opens it on the Gallery page):")
        st.code(permalink(pinned["id"], st.context.url), language=None)
