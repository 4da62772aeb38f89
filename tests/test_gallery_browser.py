"""Pin in a real browser (Debian's chromium via Playwright), restart the app server, and the pin is
still in the Gallery and its permalink opens it. Screenshot at 1,440 px.

Skipped when Playwright or chromium is missing; .ci/run installs both.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from browser_support import CHROMIUM, COLD_START_MS, DONE, app_server, chromium, drawn, free_port

from selfexplain.gallery.store import GalleryStore

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
TEXT = "The visuals are gorgeous, but the story is thin and the ending falls flat."
NOTE = "<img src=x onerror=alert(1)> Show this one on **Monday**"

sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.shipped,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
]


@contextmanager
def gallery_app(port: int, home: Path) -> Iterator[str]:
    """The app on ``port`` with its gallery in ``home`` (SQLite there, whatever the caller's database)."""
    with app_server({"SELFEXPLAIN_HOME": str(home), "SELFEXPLAIN_DB_URL": None}, port=port) as app:
        yield app.url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as launched:
        yield launched


def new_page(browser, dialogs: list[str]):
    page = browser.new_page(viewport={"width": 1440, "height": 1800})
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    return page


def test_pin_survives_a_restart_and_its_permalink_opens_it(browser, tmp_path: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    home, port, dialogs = tmp_path / "home", free_port(), []
    with gallery_app(port, home) as url:
        page = new_page(browser, dialogs)
        page.goto(url, timeout=COLD_START_MS)
        page.wait_for_selector("textarea", timeout=COLD_START_MS)  # a cold server: imports, model, example
        page.wait_for_selector(DONE, timeout=COLD_START_MS)  # the first example's run ends before typing
        box = page.locator("textarea").first
        box.fill(TEXT)
        box.press("Control+Enter")
        page.wait_for_selector("text=Self-explaining alpha", timeout=COLD_START_MS)
        page.wait_for_selector(DONE, timeout=COLD_START_MS)
        drawn(page)
        note = page.get_by_label("Note for the gallery (optional)")
        note.fill(NOTE)
        note.press("Enter")
        page.wait_for_selector(DONE, timeout=60_000)
        page.get_by_role("button", name="Pin", exact=True).click()
        page.wait_for_selector("text=Pinned as", timeout=60_000)
        pin_id = re.search(r"Pinned as ([0-9a-f]{12})", page.locator("text=Pinned as").inner_text()).group(1)
        link = page.locator("[data-testid='stCode']").filter(has_text="?pin=").inner_text().strip()
        assert link == f"{url}/Gallery?pin={pin_id}"
        page.close()
    [pin] = GalleryStore(f"sqlite:///{home / 'gallery.sqlite3'}").list()
    assert (pin.id, pin.text, pin.note, pin.model) == (pin_id, TEXT, NOTE, "sst5-minilm")

    with gallery_app(port, home) as url:  # a new server process on the same port: the permalink still works
        page = new_page(browser, dialogs)
        page.goto(link, timeout=COLD_START_MS)
        page.wait_for_selector(f"text=Pin {pin_id}", timeout=COLD_START_MS)  # a new, cold server process
        page.wait_for_selector(DONE, timeout=COLD_START_MS)
        drawn(page)
        page.wait_for_selector("[data-testid='stCode'] >> text=?pin=", timeout=30_000)
        page.wait_for_selector(".js-plotly-plot .bars", timeout=30_000)
        page.wait_for_timeout(1000)
        assert page.locator(".selfexplain-note").inner_text() == NOTE  # shown as text, not run
        assert page.locator("img[src='x']").count() == 0
        marks = page.locator(".selfexplain-highlight mark")
        assert "1" in [mark.get_attribute("data-rank") for mark in marks.all()]  # marks are in text order
        assert page.locator("text=1 of 1 pin(s) · kept in SQLite").count() == 1
        page.screenshot(path=str(ARTIFACTS / "gallery.png"), full_page=True)

        page.goto(f"{url}/Gallery")  # the list of the restarted server holds the pin; open it from there
        page.wait_for_selector("text=1 of 1 pin(s) · kept in SQLite", timeout=90_000)
        assert page.locator(f"text=Pin {pin_id}").count() == 0
        page.locator("[data-testid='stSelectbox']").filter(has_text="Open a pin").click()
        page.get_by_role("option").filter(has_text=pin_id).click()
        page.wait_for_selector(f"text=Pin {pin_id}", timeout=60_000)
        assert f"pin={pin_id}" in page.url
        page.close()
    assert dialogs == []
