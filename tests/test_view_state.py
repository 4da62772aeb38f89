"""Issue 23 defect 1: switching models (or leaving the page) corrupted the Explain page's view state: the
Attention box and the chart disagreed, Grid level had nothing selected, the link carried stale values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evidence_models import SENTENCE, save_sparse
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
EXAMPLES = {
    "tiny-sst": [{"title": "A single text, but fine", "text": SENTENCE}],
    "tiny-nli": [{"title": "A pair, but simple", "text": "A man plays a guitar.", "pair": "Someone makes music."}],
}
VIEW = ("k", "level", "attention", "layer", "head")


# tiny-nli is sparse: one span, no slider
MODELS = {
    "tiny-sst": {"seed": 11},
    "tiny-nli": lambda encoder, folder: save_sparse(encoder, folder, peak=30.0, pair=True),
}


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, models_dir: Path) -> Path:
    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(models_dir))
    monkeypatch.setattr("pages.ui.examples.examples_for", lambda name: EXAMPLES.get(name, []))
    return models_dir


def titles(at: AppTest) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def chosen_view(at: AppTest) -> AppTest:
    at.selectbox(key="attn_aggregate").set_value("head").run()
    at.selectbox(key="attn_head").set_value(1).run()
    at.segmented_control(key="grid_level").set_value("token").run()
    at.slider(key="top_k").set_value(3).run()
    return at


def assert_view_kept(at: AppTest) -> None:
    assert not at.exception and not at.error
    assert at.selectbox(key="attn_aggregate").value == "head" and at.selectbox(key="attn_head").value == 1
    assert at.segmented_control(key="grid_level").value == "token"
    shown = titles(at)
    assert any(t.startswith("Raw self-attention (layer 2, head 2)") for t in shown), shown
    assert "Self-explaining alpha over spans (token level)" in shown
    params = {name: at.query_params[name] for name in VIEW}
    assert params == {"k": "3", "level": "token", "attention": "head", "layer": "2", "head": "2"}


def test_a_deselected_grid_level_keeps_the_level(served: Path) -> None:
    """Clicking the chosen level again left Grid level empty, drew the token grid and put level=token in the link."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["model"] = "tiny-sst"
    at.run()
    assert at.segmented_control(key="grid_level").value == "word"
    at.segmented_control(key="grid_level").set_value(None).run()
    assert not at.exception
    assert at.segmented_control(key="grid_level").value == "word"
    assert "Self-explaining alpha over spans (word level)" in titles(at)
    assert at.query_params["level"] == "word"


def test_the_view_survives_runs_that_do_not_draw_it(served: Path) -> None:
    """A run that stops early (an empty box) or another page drops the controls' keys; the view came back
    as defaults (mean over heads, the grid's default level) though the user had chosen otherwise."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["model"] = "tiny-sst"
    at.run()
    chosen_view(at)
    assert_view_kept(at)
    at.text_area(key="text").input("").run()  # no controls are drawn in this run
    for name in VIEW:  # and the link lost them, as when the sidebar opens another page and comes back
        del at.query_params[name]
    at.text_area(key="text").input(SENTENCE).run()
    assert_view_kept(at)


def test_switching_to_a_pair_model_and_back_keeps_the_view(served: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["model"] = "tiny-sst"
    at.run()
    chosen_view(at)
    at.selectbox(key="model_choice").set_value("tiny-nli").run()
    assert not at.exception
    assert at.query_params["k"] == "3"  # one span carries weight there: no slider, the wish stays
    assert at.selectbox(key="attn_aggregate").value == "head"
    assert at.segmented_control(key="grid_level").value == "token"
    at.selectbox(key="model_choice").set_value("tiny-sst").run()
    assert_view_kept(at)
