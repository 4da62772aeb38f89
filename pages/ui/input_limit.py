"""The input character limit on the pages: the setting in force (``SELFEXPLAIN_MAX_CHARS``, see
:mod:`selfexplain.support.limits`) for every text box, and a caption that names it."""

from __future__ import annotations

import streamlit as st

from selfexplain.errors import USER_ERRORS
from selfexplain.support.limits import DEFAULT_MAX_INPUT_CHARS, MAX_CHARS_VARIABLE, max_input_chars
from selfexplain.views.highlight import escape_text


def input_limit() -> int:
    """The character limit in force; the default when ``SELFEXPLAIN_MAX_CHARS`` is not a number
    (:func:`input_limit_caption` says so on the page)."""
    try:
        return max_input_chars()
    except USER_ERRORS:
        return DEFAULT_MAX_INPUT_CHARS


def input_limit_caption() -> int:
    """A caption with the character limit under the text box; with a bad setting, an error that stops
    the page (nothing can be explained until it is fixed). Returns the limit."""
    try:
        limit = max_input_chars()
    except USER_ERRORS as err:
        st.error(f"Cannot explain anything: {escape_text(str(err))}. Fix or unset it and restart the app.")
        st.stop()
    st.caption(f"Limit {limit:,} characters; set {MAX_CHARS_VARIABLE} to change it.")
    return limit
