"""AppTest checks of the anatomy pages on a tiny model chosen through the sidebar."""

from __future__ import annotations

from pathlib import Path

from helpers import open_page
from streamlit.testing.v1 import AppTest

PAGES = Path(__file__).resolve().parents[1] / "pages"


def titles(at: AppTest) -> list[str]:
    import json

    return [(json.loads(e.proto.spec)["layout"].get("title") or {}).get("text", "") for e in at.get("plotly_chart")]


def test_attention_anatomy_page(tiny_model_dir: Path) -> None:
    at = open_page(PAGES / "3_Attention_anatomy.py", tiny_model_dir)
    at.slider(key="anat_limit").set_value(20).run()
    assert not at.exception and not at.error
    assert not titles(at) and any("switch on Run" in i.value for i in at.info)  # nothing computed on landing
    at.toggle(key="anat_run").set_value(True).run()
    shown = titles(at)
    assert "Attention to [CLS]" in shown and "No-op test: attention to [SEP] and its gradient" in shown
    assert any(t.startswith("Heads by behaviour") for t in shown)
    at.selectbox(key="anat_stat").set_value("entropy").run()
    at.checkbox(key="anat_conf").check().run()
    assert not at.exception
    assert "Confusion score by layer" in titles(at)


def test_probing_page(tiny_model_dir: Path) -> None:
    at = open_page(PAGES / "4_Probing.py", tiny_model_dir)
    assert not at.exception and not at.error
    assert not titles(at) and any("switch on Run" in i.value for i in at.info)  # nothing computed on landing
    at.toggle(key="probe_run").set_value(True).run()
    assert "Linear probe accuracy by layer" in titles(at)
    frame = at.dataframe[0].value
    assert set(frame["task"]) == {"label", "position", "top_span"} and len(frame) == 9


def test_adversarial_page_single_and_corpus(tiny_model_dir: Path) -> None:
    at = open_page(PAGES / "5_Adversarial.py", tiny_model_dir)
    assert not at.exception and not at.error
    assert [m.label for m in at.metric] == ["Prediction", "Prediction"]
    at.text_area(key="adv_text").input("<b>bold</b> good fun").run()
    at.selectbox(key="adv_kind").set_value("antonyms").run()
    assert not at.exception
    html = " ".join(str(e.proto) for e in at.get("html"))
    assert "<b>" not in html and "<mark>bad</mark>" in html  # escaped text, changed words marked
    at.slider(key="adv_limit").set_value(5).run()
    at.button(key="adv_run").click().run()
    assert not at.exception
    assert "Perturbations: accuracy, flips and explanation shift" in titles(at)
    assert len(at.dataframe[0].value) == 5
