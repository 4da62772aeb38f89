"""The Compare page in a real browser (Debian's chromium via Playwright): two tiny models from
SELFEXPLAIN_MODELS_DIR, a baseline, markup in the text; screenshots at 1,440 px.

Skipped when Playwright or chromium is missing; .ci/run installs both.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import CHROMIUM, DONE, app_server, chromium
from helpers import make_explainer

from selfexplain.core.modeling.checkpoint import save_model

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
TEXT = "Despite a sluggish first act, the film finds its footing and the final scenes are quietly unforgettable."

sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
]


@pytest.fixture(scope="module")
def app_url(tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    models = tmp_path_factory.mktemp("compare-browser-models")
    for name, spec in {"tiny-a": {"seed": 1}, "tiny-b": {"seed": 2}, "tiny-base": {"seed": 3, "head": "cls"}}.items():
        explainer = make_explainer(tiny_encoder, **spec)
        explainer.model.config.name = name
        save_model(explainer.model, explainer.tokenizer, models / name)
    with app_server({"SELFEXPLAIN_MODELS_DIR": str(models)}) as app:
        yield app.url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as launched:
        yield launched


def open_compare(browser, url: str, dialogs: list[str], **params: str):
    page = browser.new_page(viewport={"width": 1440, "height": 2400})
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{url}/Compare?{urllib.parse.urlencode(params)}")
    page.wait_for_selector("text=Do the two models rank the input alike?", timeout=120_000)
    page.wait_for_selector(DONE, timeout=120_000)
    return page


def plot(page, title: str):
    """The plotly chart whose title contains ``title``, once plotly has drawn it."""
    found = page.locator(".js-plotly-plot").filter(has_text=title)
    found.first.wait_for(timeout=60_000)
    return found


def test_two_models_side_by_side_are_captured(browser, app_url: str) -> None:
    dialogs: list[str] = []
    page = open_compare(browser, app_url, dialogs, model_a="tiny-a", model_b="tiny-b", text=TEXT)
    assert page.locator("[data-testid='stException']").count() == 0
    # both predictions: awaited (a loaded machine has drawn the heading before the metrics at times)
    sync_api.expect(page.locator("[data-testid='stMetricValue']")).to_have_count(2, timeout=60_000)
    for title in ("A: alpha over word spans", "B: alpha over word spans", "Rank agreement over"):
        assert plot(page, title).count() == 1, title
    assert plot(page, "raw self-attention").count() == 2
    assert page.locator(".selfexplain-highlight mark").count() >= 2  # both models' top spans
    assert page.locator("text=Rank-biased overlap of the two rankings").count() == 1
    assert "model_a=tiny-a" in page.url and "model_b=tiny-b" in page.url
    height = page.evaluate("document.querySelector(\"[data-testid='stMain']\").scrollHeight")
    page.set_viewport_size({"width": 1440, "height": max(2400, int(height) + 40)})  # the whole page in one picture
    page.wait_for_timeout(1000)  # plotly redraws at the new size
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "compare.png"), full_page=True)
    assert page.viewport_size["width"] == 1440
    assert dialogs == []


def test_baseline_and_markup(browser, app_url: str) -> None:
    dialogs: list[str] = []
    markup = "<img src=x onerror=alert(1)><script>alert(2)</script> **not bold** a dull film"
    page = open_compare(browser, app_url, dialogs, model_a="tiny-a", model_b="tiny-base", text=markup)
    assert page.locator("[data-testid='stException']").count() == 0
    assert plot(page, "B: gradient x input per word").count() == 1
    assert plot(page, "A: alpha over word spans").count() == 1
    assert page.locator(".js-plotly-plot").filter(has_text="B: alpha over word spans").count() == 0
    page.wait_for_timeout(1000)
    assert dialogs == [] and page.locator("img[src='x']").count() == 0
    assert "<img src=x onerror=alert(1)>" in page.locator(".selfexplain-highlight").first.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "compare-baseline.png"), full_page=True)
