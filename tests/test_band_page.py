"""The Explain page draws the alpha grid as a band past 48 words for a model whose spans are a few words wide
(issue 58 item 3), says so in a caption, outlines the selected span there, and reads a click on a band cell
as the span the square grid's click names; 48 words or fewer keep the square grid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pages.parts.grid_panel import clicked_cell
from selfexplain.core.pipeline import load_model
from selfexplain.core.results.words import word_view

APP = str(Path(__file__).resolve().parents[1] / "app.py")
MODELS = {"tiny-band": {"seed": 11, "max_span_width": 4}}  # spans of at most 4 words, as the shipped models
SENTENCE = (
    "Despite a sluggish first act , the film finds its footing and the final scenes make it quietly unforgettable ."
)
LONG = " ".join((SENTENCE.split() * 4)[:60])


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, models_dir: Path, tmp_path: Path) -> Path:
    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(models_dir))
    monkeypatch.setenv("SELFEXPLAIN_DB_URL", f"sqlite:///{tmp_path / 'gallery.sqlite3'}")
    monkeypatch.setattr("pages.ui.examples.examples_for", lambda name: [])
    return models_dir


def alpha_grid(at: AppTest) -> dict:
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return next(s for s in specs if s["layout"]["title"]["text"].startswith("Self-explaining alpha"))


def open_app(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(params)
    return at.run()


def test_past_48_words_the_grid_is_a_band(served: Path) -> None:
    explanation = load_model(str(served / "tiny-band")).explain(LONG)
    words = word_view(explanation)
    assert len(words.labels) == 60
    span = next(s for s in explanation.evidence_spans(None) if s.end_token > s.start_token)  # a span of 2+ tokens
    at = open_app(model="tiny-band", text=LONG, level="word", span=f"{span.start_token}-{span.end_token}")
    assert not at.exception and not at.error
    grid = alpha_grid(at)
    assert grid["layout"]["title"]["text"] == "Self-explaining alpha over spans (word level, as a band)"
    captions = [c.value for c in at.caption]
    assert "60 words: spans drawn as a band, start word across, span width down." in captions
    assert any(
        c.startswith("How to read it: each cell is one span of the input, starting at the word") for c in captions
    )
    x_axes = sorted((k for k in grid["layout"] if k.startswith("xaxis")), key=lambda k: int(k[5:] or 1))
    labels = [t for k in x_axes for t in grid["layout"][k]["ticktext"]]
    assert labels == list(words.labels)  # every word labelled, none thinned
    first, last = int(words.word_of_token[span.start_token]), int(words.word_of_token[span.end_token])
    (shape,) = grid["layout"]["shapes"]  # the selected span outlined at its start word and width
    assert shape["x0"] == first - 0.5 and shape["y0"] == last - first + 0.5


def test_48_words_or_fewer_keep_the_square_grid(served: Path) -> None:
    at = open_app(model="tiny-band", text=SENTENCE, level="word")
    assert not at.exception
    grid = alpha_grid(at)
    assert "band" not in grid["layout"]["title"]["text"] and "xaxis2" not in grid["layout"]
    assert grid["layout"]["xaxis"]["ticktext"] == SENTENCE.split()
    assert not any("drawn as a band" in c.value for c in at.caption)


def test_a_click_on_a_band_cell_selects_the_span_a_grid_click_does() -> None:
    band_point = {"x": 17, "y": 3, "customdata": [17, 19, 0.01, 4], "curve_number": 4}  # start 17, width 3
    grid_point = {"x": 19, "y": 17, "customdata": [17, 19, 0.01, 4], "curve_number": 1}  # row 17, column 19
    assert clicked_cell([band_point]) == clicked_cell([grid_point]) == (17, 19)
    assert clicked_cell([{"x": 19, "y": 17}]) == (17, 19)  # no customdata: the square grid's row and column
    # what the browser sends for a row of numpy customdata (a typed array): keys "0", "1", ...; a band click
    # read as x, y would be (3, 17), a different span (the first click in a browser raised KeyError here)
    typed = {"x": 17, "y": 3, "customdata": {"0": 17.0, "1": 19.0, "2": 0.01, "3": 4.0, "10": 0.0}}
    assert clicked_cell([typed]) == (17, 19)
    assert clicked_cell([]) is None and clicked_cell([{"curve_number": 0}]) is None


def test_presentation_mode_draws_the_band_across_the_page_past_48_words(served: Path) -> None:
    at = open_app(model="tiny-band", text=LONG, level="word")
    at.toggle(key="present").set_value(True).run()
    assert not at.exception and not at.error
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    (band,) = [s for s in specs if s["layout"]["title"]["text"] == "How much each phrase counted"]
    x_axes = sorted((k for k in band["layout"] if k.startswith("xaxis")), key=lambda k: int(k[5:] or 1))
    assert len(x_axes) == 2  # 60 words: two rows of 30
    assert [t for k in x_axes for t in band["layout"][k]["ticktext"]] == LONG.split()
    assert band["layout"]["xaxis"]["title"]["text"] == "first word"
    assert any(m.value.startswith("Each square is one phrase, starting at the word above it") for m in at.markdown)


def test_presentation_mode_keeps_the_square_grid_for_a_sentence(served: Path) -> None:
    at = open_app(model="tiny-band", text=SENTENCE, level="word")
    at.toggle(key="present").set_value(True).run()
    assert not at.exception
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    (grid,) = [s for s in specs if s["layout"]["title"]["text"] == "How much each phrase counted"]
    assert "xaxis2" not in grid["layout"] and grid["layout"]["xaxis"]["title"]["text"] == "last word"
    assert any(m.value.startswith("Each square is one phrase, from the word on its row") for m in at.markdown)
