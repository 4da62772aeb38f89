"""A browser session's first run pauses between the explained text and the figures; nothing else does."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from pages.ui.first_view import FIRST_VIEW_PAUSE_S, needs_pause

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0"


def test_only_a_browser_session_first_run_pauses() -> None:
    assert needs_pause(True, CHROMIUM_AGENT)
    assert needs_pause(True, "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0")
    assert not needs_pause(False, CHROMIUM_AGENT)  # the code is loaded: later runs never wait
    assert not needs_pause(True, "")  # AppTest
    assert not needs_pause(True, "python-websockets/12.0")  # a protocol client has no code to load
    assert 0 < FIRST_VIEW_PAUSE_S < 1


def test_the_page_marks_its_first_run() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    assert "_figures_sent" not in at.session_state
    at.run()
    assert not at.exception
    assert at.session_state["_figures_sent"] is True  # every later run of this session goes straight on
    assert at.get("plotly_chart")  # the figures follow the text in the same run
