"""The sidebar's page links. Streamlit's own list is off (``client.showSidebarNavigation = false`` in
.streamlit/config.toml) because it names the landing page after its file, "app"; these links name every
page for what it shows and keep each page's address (``/``, ``/Compare``, ``/Faithfulness``…). The pages are
those of :data:`pages.ui.page_registry.PAGES`, read from the files."""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from pages.ui.page_registry import PAGES
from selfexplain.settings import apply_app_defaults

APP = Path(__file__).resolve().parents[2] / "app.py"


def sidebar_navigation() -> None:
    """The app's deployment defaults (:func:`selfexplain.settings.apply_app_defaults`: models restricted,
    no Hub, unless the operator set otherwise), then a link to every page at the top of the sidebar (the
    open page is marked by Streamlit). Call it first in a page's ``main()``: before anything loads a model,
    and so the links sit above the page's own sidebar controls.

    The links are drawn only when the app is served from app.py: a page run on its own (``streamlit run
    pages/X.py``, an AppTest of one page file) has no other pages to link to."""
    apply_app_defaults()
    context = get_script_run_ctx()
    if context is None or Path(context.main_script_path).resolve() != APP:
        return
    with st.sidebar:
        for page in PAGES.values():
            st.page_link(page.script, label=page.label)
        st.divider()
