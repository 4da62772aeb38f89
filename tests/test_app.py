"""AppTest checks of the Explain page: renders, reacts to input, pair mode, no exceptions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import make_explainer
from streamlit.testing.v1 import AppTest

from selfexplain.core.modeling.checkpoint import save_model

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def z_shape(trace: dict) -> tuple[int, ...]:
    """Shape of a heatmap's ``z``: a nested list, or plotly's typed array ``{dtype, bdata, shape}``."""
    z = trace["z"]
    if isinstance(z, dict):
        return tuple(int(part) for part in str(z["shape"]).split(","))
    return (len(z), len(z[0]) if z else 0)


def charts(at: AppTest) -> dict[str, dict]:
    found = {}
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        title = (spec.get("layout", {}).get("title") or {}).get("text", "")
        found[title] = spec
    return found


def open_model(models_dir: Path, name: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input(str(models_dir / name)).run()
    return at


def test_empty_input_shows_a_hint_not_an_error(models_dir: Path) -> None:
    at = open_model(models_dir, "tiny-sst")
    at.text_area(key="text").input("").run()  # (the first open shows the default model's example)
    assert not at.exception and not at.error
    assert any("Type or paste" in info.value for info in at.info)


def test_sentence_shows_prediction_grid_and_attention(models_dir: Path) -> None:
    at = open_model(models_dir, "tiny-sst")
    at.text_area(key="text").input("The visuals are gorgeous, but the story is thin.").run()
    assert not at.exception
    assert at.metric[0].value in ("very negative", "negative", "neutral", "positive", "very positive")
    titles = charts(at)
    assert any(t.startswith("Self-explaining alpha") for t in titles)
    assert any(t.startswith("Raw self-attention") for t in titles)
    assert "Class probabilities" not in titles  # HTML bars, drawn without plotly
    bars = [h.proto.body for h in at.get("html") if "selfexplain-probabilities" in h.proto.body]
    assert len(bars) == 1 and bars[0].count("data-label=") == 5
    assert not any("every layer" in t.lower() for t in titles)  # the model view is drawn only on request
    at.toggle(key="show_model_view").set_value(True).run()
    assert len(charts(at)) == len(titles) + 1
    assert len(at.dataframe) == 1 and len(at.dataframe[0].value) == 20
    # controls that do not change the input only redraw
    at.segmented_control(key="grid_level").set_value("word").run()
    at.selectbox(key="attn_aggregate").set_value("rollout").run()
    assert not at.exception
    assert any("rollout" in t for t in charts(at))
    shared = at.query_params["text"]  # the input is kept in the URL
    assert (shared[0] if isinstance(shared, list) else shared) == "The visuals are gorgeous, but the story is thin."


def test_long_text_is_read_in_windows_with_a_bounded_grid(models_dir: Path) -> None:
    at = open_model(models_dir, "tiny-sst")
    at.text_area(key="text").input(" ".join(["a slow but moving and well acted film ."] * 40)).run()
    assert not at.exception
    assert any("overlapping windows" in info.value for info in at.info)
    grid = next(spec for title, spec in charts(at).items() if title.startswith("Self-explaining alpha"))
    assert z_shape(grid["data"][0]) == (120, 120)  # 360 tokens: a 120-token viewport
    assert any(s.label.startswith("Viewport") for s in at.slider)
    at.segmented_control(key="grid_level").set_value("sentence").run()  # 40 sentences: one grid, no viewport
    assert not at.exception
    grid = next(spec for title, spec in charts(at).items() if title.startswith("Self-explaining alpha"))
    assert "sentence level" in grid["layout"]["title"]["text"] and z_shape(grid["data"][0]) == (40, 40)


def test_pair_model_shows_two_boxes_and_keeps_spans_apart(models_dir: Path) -> None:
    at = open_model(models_dir, "tiny-nli")
    labels = [t.label for t in at.text_area]
    assert labels == ["Premise", "Hypothesis"]
    at.text_area(key="text").input("A man plays a guitar on stage.")
    at.text_area(key="pair").input("A person performs music.").run()
    assert not at.exception
    assert at.metric[0].value in ("entailment", "neutral", "contradiction")
    assert set(at.dataframe[0].value["segment"]) <= {"premise", "hypothesis"}


def test_unloadable_folder_shows_an_error(tmp_path: Path) -> None:
    (tmp_path / "pytorch_model.bin").write_bytes(b"x")
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input(str(tmp_path)).run()
    assert not at.exception
    assert any("pickle" in e.value for e in at.error)


@pytest.mark.shipped
def test_default_model_explains_an_example() -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert at.selectbox(key="model_choice").value == "sst5-minilm"
    assert "but the story is thin" in at.text_area(key="text").value  # an example is shown on first open
    assert at.metric and not at.exception
    at.selectbox(key="example_choice").set_value("Clear negative").run()
    assert not at.exception
    assert "cutting-room floor" in at.text_area(key="text").value
    assert at.metric[0].value in ("negative", "very negative")


def test_a_link_with_new_text_replaces_the_old_input(models_dir: Path) -> None:
    at = open_model(models_dir, "tiny-sst")
    at.text_area(key="text").input("first sentence typed by hand").run()
    at.query_params["text"] = "a sentence opened from the batch page"
    at.run()
    assert not at.exception
    assert at.text_area(key="text").value == "a sentence opened from the batch page"


def test_reruns_of_a_long_text_build_no_download(models_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The JSON (every span) and HTML downloads are built when clicked, never on a rerun."""
    from selfexplain.core.results.explanation import Explanation
    from selfexplain.views import html_report

    calls: list[str] = []
    to_dict, report = Explanation.to_dict, html_report.report_html
    monkeypatch.setattr(Explanation, "to_dict", lambda self, *a, **k: calls.append("json") or to_dict(self, *a, **k))
    monkeypatch.setattr(html_report, "report_html", lambda *a, **k: calls.append("html") or report(*a, **k))
    at = open_model(models_dir, "tiny-sst")
    at.text_area(key="text").input(" ".join(["a slow but moving and well acted film ."] * 40)).run()
    at.slider(key="top_k").set_value(7).run()
    at.toggle(key="overlapping").set_value(True).run()
    assert not at.exception
    assert calls == []


def test_a_render_groups_an_explanation_once_per_level(models_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The grid, its figure and the attention map beside it (and its head view) share one level view."""
    from selfexplain.core.results import words

    calls: list[tuple[int, int]] = []
    group_view = words.group_view
    monkeypatch.setattr(words, "group_view", lambda e, g: calls.append((id(e), int(g.max()))) or group_view(e, g))
    at = open_model(models_dir, "tiny-sst")
    at.text_area(key="text").input("A slow film. But the acting is superb and the ending moves.").run()
    for level in ("word", "sentence"):
        at.segmented_control(key="grid_level").set_value(level).run()
        at.toggle(key="show_head_view").set_value(True).run()
        calls.clear()
        at.run()
        assert not at.exception
        assert len(calls) == len(set(calls)) <= 1, calls  # at most once a render: none once it is kept


def test_a_typed_model_path_is_not_rendered_as_markdown(tmp_path: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input("**bold** ![x](http://127.0.0.1:9/x.png)").run()
    assert at.error
    message = at.error[0].value
    assert "![x](" not in message and "**bold**" not in message  # escaped: shown as typed, nothing fetched


@pytest.mark.slow
def test_flip_certificate_on_request(models_dir: Path) -> None:
    at = open_model(models_dir, "tiny-sst")
    at.text_area(key="text").input("A dull, lifeless and overlong film with one bright moment.").run()
    at.button(key="flip_button").click().run()
    assert not at.exception
    shown = [m.label for m in at.metric] + [i.value for i in at.info]
    assert "Alpha without them (exact)" in shown or any("No set of the top 20" in str(v) for v in shown)


def test_the_share_link_keeps_the_whole_view(models_dir: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(
        {"text": "The visuals are gorgeous, but the story is thin.", "k": "7", "level": "token", "overlap": "1",
         "attention": "head", "layer": "2", "head": "2", "span": "1-2"}
    )  # fmt: skip
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input(str(models_dir / "tiny-sst")).run()
    assert not at.exception
    assert at.slider(key="top_k").value == 7 and at.toggle(key="overlapping").value is True
    assert at.segmented_control(key="grid_level").value == "token"
    assert at.selectbox(key="attn_aggregate").value == "head" and at.selectbox(key="attn_layer").value == 1
    assert any(c.value.startswith("Selected: rank") for c in at.caption)
    assert any("layer 2, head 2" in t for t in charts(at))
    at.slider(key="top_k").set_value(3).run()
    assert at.query_params["k"] in ("3", ["3"]) and at.query_params["span"] in ("1-2", ["1-2"])


def test_the_explained_text_is_drawn_before_the_grid(models_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new session sees the highlighted text while plotly still loads: the page sends it before the grid
    (the order of the calls is the order Streamlit sends the elements)."""
    import pages.parts.evidence_panel as evidence_panel
    import pages.parts.grid_panel as grid_panel

    drawn: list[str] = []

    def recording(name: str, function):  # noqa: ANN001, ANN202
        def call(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            drawn.append(name)
            return function(*args, **kwargs)

        return call

    at = open_model(models_dir, "tiny-sst")
    monkeypatch.setattr(evidence_panel, "highlight_html", recording("text", evidence_panel.highlight_html))
    monkeypatch.setattr(grid_panel, "alpha_figure", recording("grid", grid_panel.alpha_figure))
    at.text_area(key="text").input("The visuals are gorgeous, but the story is thin.").run()
    assert not at.exception
    assert drawn == ["text", "grid"]


def test_a_width_limited_model_offers_no_wider_grid_band(models_dir: Path, tiny_encoder: Path) -> None:
    """A model whose spans are at most 2 words offers "Max span width" up to 2, not up to the input's length."""
    from pages.parts.grid_panel import widest_span

    mask = np.triu(np.ones((6, 6), bool)) & ~np.triu(np.ones((6, 6), bool), 3)  # spans of at most 3 tokens
    assert widest_span(mask, np.arange(6)) == 3 and widest_span(mask, np.array([0, 0, 1, 1, 2, 2])) == 2
    assert widest_span(np.zeros((3, 3), bool), np.arange(3)) == 1
    explainer = make_explainer(tiny_encoder, seed=11, max_span_width=2)
    save_model(explainer.model, explainer.tokenizer, models_dir / "tiny-sst-w2")
    at = open_model(models_dir, "tiny-sst-w2")
    at.text_area(key="text").input("The visuals are gorgeous, but the story is thin.").run()
    assert not at.exception
    [width] = [n for n in at.number_input if n.label == "Max span width"]
    assert width.value == 2 and width.max == 2
