"""The app's results cache is bounded in bytes across inputs and sessions."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_results_stay_within_the_byte_budget(tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pages.ui.loading import results_cache

    monkeypatch.setenv("SELFEXPLAIN_CACHE_MB", "1")
    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(tiny_model_dir.parent))
    results_cache.clear()
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["model"] = "tiny-sst"
    at.run()
    long_words = " ".join(f"word{i} is fine" for i in range(60))  # ~300 tokens: windows, a large dense grid
    for i in range(6):
        at.text_area(key="text").input(f"{i} {long_words}").run()
        assert not at.exception
        assert results_cache().bytes <= 2**20
    assert len(results_cache()) < 6  # older inputs were evicted by weight, not by count
    results_cache.clear()


def test_a_session_keeps_no_explanation_of_an_earlier_input(tiny_model_dir: Path, monkeypatch) -> None:
    """Streamlit keeps every widget's callback for the whole session, and the grid's widget id changes
    with each input: callbacks must not hold an explanation (that was ~0.7 MB a sentence on the server)."""
    import gc

    from pages.ui.loading import results_cache
    from selfexplain.core.results.explanation import Explanation

    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(tiny_model_dir.parent))
    results_cache.clear()
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["model"] = "tiny-sst"
    at.run()
    for i in range(4):
        at.text_area(key="text").input(f"the film number {i} is warm and moving").run()
        assert not at.exception
    results_cache.clear()
    gc.collect()
    alive = [o for o in gc.get_objects() if isinstance(o, Explanation)]
    assert alive == []
