"""``streamlit run serve.py`` loads the default model and explains its opening example before the first
visitor, into the same caches the pages read (issue 23 item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pages.ui.examples import examples_for, opening_example
from pages.ui.loading import cached_explainer, results_cache
from pages.ui.warmup import warm_default_model
from selfexplain.pipeline import DEFAULT_MODEL, resolve_model

ROOT = Path(__file__).resolve().parents[1]


def test_the_first_session_reads_what_the_warm_up_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    results_cache.clear()
    seconds = warm_default_model()
    assert seconds is not None and seconds > 0
    directory = str(resolve_model(DEFAULT_MODEL))
    example = opening_example(examples_for(cached_explainer(directory).name))
    assert example is not None
    warmed = results_cache().get(("explanation", directory, example["text"], None))
    assert warmed is not None and warmed.text == example["text"]

    import selfexplain.pipeline as pipeline

    def no_forward(*args: object, **kwargs: object) -> None:
        raise AssertionError("the first session ran the model again")

    monkeypatch.setattr(pipeline.SelfExplainer, "explain", no_forward)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception
    assert at.text_area(key="text").value == example["text"]
    assert at.metric[0].value == warmed.label
    results_cache.clear()


def test_a_model_that_cannot_load_is_left_to_the_page(tmp_path: Path) -> None:
    assert warm_default_model(str(tmp_path / "missing")) is None


def test_serve_py_wraps_the_same_pages() -> None:
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "serve.py")
    assert found.is_asgi_app and found.app_name == "app"
