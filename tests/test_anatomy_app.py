"""AppTest checks of the anatomy pages on a tiny model chosen through the sidebar."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from helpers import open_page
from streamlit.testing.v1 import AppTest

PAGES = Path(__file__).resolve().parents[1] / "pages"


def titles(at: AppTest) -> list[str]:
    import json

    return [(json.loads(e.proto.spec)["layout"].get("title") or {}).get("text", "") for e in at.get("plotly_chart")]


def values(array: list | dict) -> list:
    """A plotly array from the figure JSON: a list, or a typed array ``{dtype, bdata}``."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)


def test_attention_anatomy_page(tiny_model_dir: Path) -> None:
    at = open_page(PAGES / "3_Attention_anatomy.py", tiny_model_dir)
    at.slider(key="anat_limit").set_value(20).run()
    assert not at.exception and not at.error
    assert not titles(at) and any("click Run" in i.value for i in at.info)  # nothing computed on landing
    at.button(key="anat_run").click().run()
    shown = titles(at)
    assert "Attention to [CLS]" in shown and "No-op test: attention to [SEP] and its gradient" in shown
    assert any(t.startswith("Heads by behaviour") for t in shown)
    sizes = " ".join(m.value for m in at.markdown)
    assert "**20** sentences · 2 layers × 2 heads, numbered from 1" in sizes  # the sample size is shown
    assert any("first 20 sentences" in c.value for c in at.caption)
    heat = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    assert heat["x"] == ["h1", "h2"] and heat["y"] == ["L1", "L2"]  # layers and heads from 1
    at.selectbox(key="anat_stat").set_value("entropy").run()
    assert not at.exception and "Attention entropy (nats)" in titles(at)
    at.slider(key="anat_limit").set_value(10).run()  # a changed setting does not recompute by itself
    assert any("settings changed" in i.value for i in at.info) and "Attention to [CLS]" not in titles(at)
    assert "**20** sentences" in " ".join(m.value for m in at.markdown)
    assert "Confusion score by layer" not in titles(at)
    at.button(key="anat_conf_run").click().run()
    assert not at.exception
    assert "Confusion score by layer" in titles(at)
    counts = next(m.value for m in at.markdown if "with a distractor" in m.value)
    assert counts.startswith("**") and "without a distractor 50" in counts


@pytest.mark.slow
def test_probing_page(tiny_model_dir: Path) -> None:
    at = open_page(PAGES / "4_Probing.py", tiny_model_dir)
    assert not at.exception and not at.error
    assert at.radio(key="probe_source").value == "Shipped sample (110 sentences)"
    assert not titles(at) and any("click Run" in i.value for i in at.info)  # nothing computed on landing
    at.button(key="probe_run").click().run()
    assert not at.exception and not at.error
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert chart["layout"]["title"]["text"].startswith("Linear probe accuracy by layer")
    frame = at.dataframe[0].value
    assert set(frame["Task"]) == {"Sentence label", "Token position", "Token inside the top alpha span"}
    assert len(frame) == 9 and (frame["Folds"] == 5).all()
    label = frame[frame["Task"] == "Sentence label"]
    assert (label["Test items"] == 110).all()  # every shipped sentence is scored once: >= 100 test items
    assert (frame["Test items"] >= 100).all() and not at.warning
    # the baseline: always the most frequent class of the test labels (23 of 110 shipped sentences are class 1)
    assert label["Majority-class baseline"].tolist() == [23 / 110] * 3
    sizes = next(m.value for m in at.markdown if "test items" in m.value)
    assert "**Sentence label**: 110 test items" in sizes
    lines = {t["name"]: t for t in chart["data"]}
    assert "Sentence label (test n=110)" in lines  # the test-set size next to the accuracy
    baseline = lines["Sentence label: always the most frequent test class"]
    assert baseline["line"]["dash"] == "dot" and values(baseline["y"]) == [23 / 110] * 3
    assert baseline["text"][-1] == "majority 21%"  # the line is labelled where it ends
    at.slider(key="probe_positions").set_value(5).run()  # a changed setting waits for Run
    assert any("settings changed" in i.value for i in at.info)
    at.button(key="probe_run").click().run()
    assert not any("settings changed" in i.value for i in at.info)
    position = at.dataframe[0].value
    position = position[position["Task"] == "Token position"]
    assert (position["Majority-class baseline"] < 0.5).all() and (position["Test items"] >= 100).all()


@pytest.mark.slow
def test_adversarial_page_single_and_corpus(tiny_model_dir: Path) -> None:
    at = open_page(PAGES / "5_Adversarial.py", tiny_model_dir)
    assert not at.exception and not at.error
    assert [m.label for m in at.metric] == ["Prediction", "Prediction"]
    original, perturbed = at.metric
    assert original.proto.delta.startswith("confidence ") and original.proto.delta.endswith("%")
    assert " points for " in perturbed.proto.delta and perturbed.proto.delta[0] in "+-"
    legend = next(str(e.proto) for e in at.get("html") if "How to read this" in str(e.proto))
    assert "<mark>marked</mark>" in legend and "original" in legend and "▼" in legend  # marks and arrows
    at.text_area(key="adv_text").input("<b>bold</b> good fun").run()
    at.selectbox(key="adv_kind").set_value("antonyms").run()
    assert not at.exception
    html = " ".join(str(e.proto) for e in at.get("html"))
    assert "<b>bold" not in html and "<mark>bad</mark>" in html  # escaped text, changed words marked
    assert at.selectbox(key="adv_kind").options[-1] == "Words swapped for antonyms"  # human names
    at.slider(key="adv_limit").set_value(5).run()
    assert "Perturbations: accuracy, changed predictions and explanation shift" not in titles(at)  # only on Run
    at.button(key="adv_run").click().run()
    assert not at.exception
    assert "Perturbations: accuracy, changed predictions and explanation shift" in titles(at)
    bars = json.loads(next(e.proto.spec for e in at.get("plotly_chart") if "changed predictions" in e.proto.spec))
    assert bars["data"][0]["x"][0] == "Words shuffled<br>n=5"
    assert any("Bars per perturbation" in c.value for c in at.caption)
    table = at.dataframe[0].value
    assert len(table) == 5 and table["Perturbation"].iloc[2] == "Top alpha span removed"
    assert {"Prediction changed", "Shift of alpha", "Examples"} <= set(table.columns)
    at.slider(key="adv_limit").set_value(10).run()  # a changed setting waits for the next Run
    assert any("settings changed" in i.value for i in at.info) and len(at.dataframe[0].value) == 5
