"""A plain baseline (mean head, no alpha) opens on every page that lists it: Explain shows its prediction,
gradient x input per word and the attention, Compare and the Model card draw it (issue 58 item 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
TEXT = "The visuals are gorgeous, but the story is thin."


MODELS = {"tiny-mean": {"seed": 8, "head": "mean"}, "tiny-nli-mean": {"seed": 9, "head": "mean", "pair": True}}


def titles(at: AppTest) -> list[str]:
    return [
        (json.loads(e.proto.spec).get("layout", {}).get("title") or {}).get("text", "") for e in at.get("plotly_chart")
    ]


def open_page(page: str, models_dir: Path, monkeypatch: pytest.MonkeyPatch, **params: str) -> AppTest:
    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(models_dir))
    at = AppTest.from_file(str(ROOT / page), default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    return at


@pytest.mark.parametrize("name", ["tiny-mean", "tiny-nli-mean"])
def test_explain_opens_a_baseline(name: str, models_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = open_page("app.py", models_dir, monkeypatch)
    at.selectbox(key="model_choice").set_value(name).run()  # as a user picks it in the sidebar
    if name == "tiny-nli-mean":
        at.text_area(key="text").input("A man plays a guitar.").run()
        at.text_area(key="pair").input("Someone makes music.").run()
    else:
        at.text_area(key="text").input(TEXT).run()
    assert not at.exception and not at.error
    assert at.metric[0].value  # the prediction
    assert any("plain baseline" in info.value and "no alpha" in info.value for info in at.info)
    shown = titles(at)
    assert "Gradient x input per word" in shown
    assert any(title.startswith("Raw self-attention") for title in shown)
    assert any("the layers this model reads" in caption.value for caption in at.caption)
    at.toggle(key="present").set_value(True).run()  # presentation mode too
    assert not at.exception and not at.error and "Gradient x input per word" in titles(at)


def test_compare_and_model_card_open_a_baseline(models_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = open_page("pages/1_Compare.py", models_dir, monkeypatch, model_a="tiny-mean", model_b="tiny-mean", text=TEXT)
    assert not at.exception and not at.error
    assert "A: gradient x input per word" in titles(at)
    at = open_page("pages/9_Model_card.py", models_dir, monkeypatch, model="tiny-mean")
    assert not at.exception and not at.error
    at = open_page("pages/5_Adversarial.py", models_dir, monkeypatch, model="tiny-mean")
    assert not at.exception and not at.error  # no alpha to perturb: a plain note, not an error
    assert any("plain baseline" in info.value for info in at.info)
