"""Eight browser sessions at once against one app process: each gets its own correct result."""

from __future__ import annotations

import time
import urllib.parse
from pathlib import Path

import psutil
import pytest
from browser_support import CHROMIUM, DONE, app_server, chromium

ROOT = Path(__file__).resolve().parents[2]
sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright")
pytestmark = [pytest.mark.browser, pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs chromium")]
TEXTS = [f"session {i}: the {w} film is {a}" for i, (w, a) in enumerate(
    [("long", "slow"), ("short", "sharp"), ("odd", "warm"), ("quiet", "dull"),
     ("bright", "funny"), ("dark", "tense"), ("loud", "messy"), ("new", "fresh")]
)]  # fmt: skip


def test_eight_concurrent_sessions(tiny_model_dir: Path, tiny_encoder: Path) -> None:
    from selfexplain.core.pipeline import load_model

    explainer = load_model(tiny_model_dir)
    expected = {text: explainer.explain(text, attentions=False).label for text in TEXTS}
    with app_server({"SELFEXPLAIN_MODELS_DIR": str(tiny_model_dir.parent)}) as app:
        with chromium() as browser:
            warm = browser.new_page()
            warm.goto(f"{app.url}/?model=tiny-sst&text=warm+up")
            warm.wait_for_selector("text=Self-explaining alpha", timeout=120_000)
            warm.close()
            baseline = psutil.Process(app.pid).memory_info().rss
            dialogs: list[str] = []
            pages = []
            for text in TEXTS:  # all eight sessions load at once; the server runs them concurrently
                page = browser.new_page()
                page.on("dialog", lambda d: dialogs.append(d.message))
                page.goto(f"{app.url}/?model=tiny-sst&text={urllib.parse.quote(text)}", wait_until="commit")
                pages.append(page)
            for text, page in zip(TEXTS, pages):
                page.wait_for_selector("text=Self-explaining alpha", timeout=180_000)
                page.wait_for_selector(DONE, timeout=180_000)
                try:  # the box is filled by the first rerun's render; poll rather than read once
                    sync_api.expect(page.get_by_label("Text to explain")).to_have_value(text, timeout=60_000)
                except AssertionError:
                    (ROOT / "artifacts").mkdir(exist_ok=True)
                    page.screenshot(path=str(ROOT / "artifacts" / "load-failure.png"), full_page=True)
                    raise
                shown = page.locator("[data-testid='stMetricValue']").first.inner_text().strip()
                assert shown == expected[text], text
                assert page.locator("[data-testid='stException']").count() == 0
            for page in pages:
                page.close()
        assert dialogs == []
        time.sleep(3)
        growth_mb = (psutil.Process(app.pid).memory_info().rss - baseline) / 2**20
        print(f"server RSS after 8 sessions: +{growth_mb:.0f} MB over the warm baseline")
        assert growth_mb < 400
