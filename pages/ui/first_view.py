"""A new browser session's first view: the explained text reaches the screen before the figures.

Streamlit sends each element to the browser as the script produces it, and the browser fetches each
kind of element's code only when one arrives. The page's run takes about 0.1 s, so the highlighted
text and the plotly figures arrive together and their code loads together: plotly's 4.7 MB chunk then
holds the browser's main thread, and the text, though already received, is drawn with the figures
(1.6-2.9 s after opening the page on 2 cores, instead of 1.3 s; ``benchmarks/browser_load.py --first``).
A short pause between the two on a session's first run lets the browser draw the text first; later
runs have the code loaded and never pause.
"""

from __future__ import annotations

import time

import streamlit as st

FIRST_VIEW_PAUSE_S = 0.4
"""Seconds between the explained text and the figures on a browser session's first run."""

BROWSER_MARK = "Mozilla/"
"""In the User-Agent of every browser (Chromium, Firefox, Safari); absent in AppTest and protocol clients."""


def needs_pause(first_run: bool, user_agent: str) -> bool:
    """Whether to pause: only on a session's first run, and only for a browser (a script client has no
    code to load, so it gets the figures at once)."""
    return first_run and BROWSER_MARK in user_agent


def pause_before_figures() -> float:
    """Pause :data:`FIRST_VIEW_PAUSE_S` on a browser session's first run (after the explained text is
    sent, before any figure); returns the seconds paused (0 on every later run)."""
    first_run = not st.session_state.get("_figures_sent", False)
    st.session_state._figures_sent = True
    if not needs_pause(first_run, st.context.headers.get("User-Agent", "")):
        return 0.0
    time.sleep(FIRST_VIEW_PAUSE_S)
    return FIRST_VIEW_PAUSE_S
