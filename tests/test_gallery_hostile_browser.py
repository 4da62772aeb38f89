"""Hostile pins in a real browser (issue 24.4, attack rows 1, 3, 7 and 9): rows written into the gallery
database past every check, opened by their permalinks on a running app server, show one message naming the
pin, never a traceback, an exception type or a server path.

Skipped when Playwright or chromium is missing; .ci/run installs both.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from browser_support import CHROMIUM, DONE, app_server, chromium, drawn

from selfexplain.gallery.schema import PINS
from selfexplain.gallery.store import GalleryStore

ROOT = Path(__file__).resolve().parents[1]
sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")]

HOSTILE = {  # the rows of the attack, as a database written before the pin schema could hold them
    "huge4e9": lambda e: e["spans"][0].update(end_token=4_000_000_000),
    "huge1e19": lambda e: e["spans"][0].update(end_token=10**19),
    "nocount": lambda e: e.pop("num_valid_spans"),
    "lots": lambda e: e.update(num_valid_spans="lots"),
    "storedlist": lambda e: e.update(stored=[1]),
    "labels": lambda e: e.update(probabilities={e["label"]: 0.5} | {f"l{n}": 0.5 / 200_000 for n in range(200_000)}),
}
LEAKS = ("Traceback", 'File "', str(ROOT), "site-packages", "KeyError", "ValueError", "AttributeError", "TypeError")


@pytest.fixture(scope="module")
def home(tiny_explainer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A gallery with one good pin and the hostile rows."""
    folder = tmp_path_factory.mktemp("hostile") / "home"
    folder.mkdir(mode=0o700)
    store = GalleryStore(f"sqlite:///{folder / 'gallery.sqlite3'}")
    good = store.add(tiny_explainer.explain("A warm and funny story.", attentions=False), "tiny-sst").to_dict()
    with store.engine.begin() as connection:
        for pin_id, change in HOSTILE.items():
            explanation = copy.deepcopy(good["explanation"])
            change(explanation)
            row = {key: good[key] for key in ("model", "text", "pair", "note", "label")}
            row |= {"id": pin_id, "created_at": datetime.fromisoformat(good["created"])}
            connection.execute(sa.insert(PINS).values(**row, explanation=json.dumps(explanation)))
    store.close()
    return folder


@pytest.fixture(scope="module")
def app(home: Path) -> Iterator[str]:
    with app_server({"SELFEXPLAIN_HOME": str(home), "SELFEXPLAIN_DB_URL": None}) as server:
        yield server.url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as launched:
        yield launched


@pytest.mark.parametrize("pin_id", list(HOSTILE))
def test_a_hostile_pin_opened_by_its_permalink_shows_one_message(browser, app: str, pin_id: str) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 1200})
    try:
        page.goto(f"{app}/Gallery?pin={pin_id}")
        page.wait_for_selector(f"text=pin {pin_id} in the gallery is damaged", timeout=120_000)
        page.wait_for_selector(DONE, timeout=60_000)
        drawn(page)  # the table's and the button's code load after the run: count them once drawn
        body = page.locator("body").inner_text()
        assert page.locator("[data-testid='stException']").count() == 0
        assert not [leak for leak in LEAKS if leak in body], body[:2000]
        assert page.get_by_role("button", name="Delete this pin").count() == 1
        assert page.locator("[data-testid='stDataFrame']").count() == 1  # the list is still there
    finally:
        page.close()
