"""AppTest checks of issue 23 on the Explain and Compare pages: sparse models' zero spans are no evidence
(item 1), a zero cell has no rank when selected (defect 2), a model switch loads that model's own example
(defect 9), and ``/?pin=ID`` opens the pin on the Explain page (defect 10)."""

from __future__ import annotations

from pathlib import Path

import pytest
from evidence_models import SENTENCE, save_sparse
from helpers import APP_MODELS
from streamlit.testing.v1 import AppTest

from selfexplain.core.pipeline import load_model

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
COMPARE = str(ROOT / "pages" / "1_Compare.py")
EXAMPLES = {
    "tiny-sst": [{"title": "A single text, but fine", "text": "A single text example, but a fine one."}],
    "tiny-nli": [{"title": "A pair, but simple", "text": "A man plays a guitar.", "pair": "Someone makes music."}],
}


# the app's two models, and two sparse ones: one span carries all the weight, or a few spans do
MODELS = {
    **APP_MODELS,
    "tiny-one": lambda encoder, folder: save_sparse(encoder, folder, peak=30.0),
    "tiny-few": lambda encoder, folder: save_sparse(encoder, folder, peak=1.0),
}


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, models_dir: Path, tmp_path: Path) -> Path:
    """The models folder as the app's SELFEXPLAIN_MODELS_DIR, a fresh gallery, the tiny models' examples."""
    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(models_dir))
    monkeypatch.setenv("SELFEXPLAIN_DB_URL", f"sqlite:///{tmp_path / 'gallery.sqlite3'}")
    monkeypatch.setattr("pages.ui.examples.examples_for", lambda name: EXAMPLES.get(name, []))
    return models_dir


def open_app(page: str = APP, **params: str) -> AppTest:
    at = AppTest.from_file(page, default_timeout=120)
    at.query_params.update(params)
    return at.run()


def texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info]


def test_one_span_model_says_so_and_lists_no_zero_span(served: Path) -> None:
    at = open_app(model="tiny-one", text=SENTENCE)
    assert not at.exception and not at.error
    shown = texts(at)
    assert any(t.startswith("One phrase carries 100% of the weight: “") for t in shown)
    assert not any(s.key == "top_k" for s in at.slider)  # one span: nothing to choose
    assert "One span carries weight." in shown
    table = at.dataframe[0].value
    assert len(table) == 1 and table["alpha"].iloc[0] > 0 and list(table["rank"]) == [1]
    assert any("One span carries all the weight" in t for t in shown)  # the flip panel says why it has no set


def test_the_slider_offers_no_more_spans_than_carry_weight(served: Path) -> None:
    count = load_model(str(served / "tiny-few")).explain(SENTENCE).num_evidence
    assert 2 <= count < 20
    at = open_app(model="tiny-few", text=SENTENCE, k="20")
    assert not at.exception
    slider = at.slider(key="top_k")
    assert slider.max == count and slider.value == count
    assert any(t.startswith(f"{count} phrases carry all the weight: ") for t in texts(at))
    assert len(at.dataframe[0].value) == count
    at.selectbox(key="model_choice").set_value("tiny-sst").run()  # softmax: the 20 asked for come back
    assert not at.exception
    assert at.slider(key="top_k").value == 20 and at.slider(key="top_k").max == 20
    assert not any("carry all the weight" in t for t in texts(at))


def test_a_selected_zero_span_has_no_rank(served: Path) -> None:
    """Defect 2: selecting a cell of alpha 0 said "Selected: rank 2, alpha 0.0000"."""
    explanation = load_model(str(served / "tiny-few")).explain(SENTENCE)
    zero = next(s for s in explanation.spans if s.alpha == 0 and s.start_token > 0)
    at = open_app(model="tiny-few", text=SENTENCE, level="token", span=f"{zero.start_token}-{zero.end_token}")
    assert not at.exception
    captions = [c.value for c in at.caption if c.value.startswith("Selected")]
    assert captions == ["Selected: alpha 0, not ranked (this span carries no weight)"]
    best = explanation.evidence_spans(1)[0]
    at = open_app(model="tiny-few", text=SENTENCE, level="token", span=f"{best.start_token}-{best.end_token}")
    assert [c.value for c in at.caption if c.value.startswith("Selected")] == [
        f"Selected: rank 1, alpha {best.alpha:.4f}"
    ]


def test_switching_to_a_pair_model_loads_its_own_example(served: Path) -> None:
    """Defect 9: the single-text example stayed in the Premise box and the Hypothesis was empty."""
    at = open_app(model="tiny-sst")
    assert at.text_area(key="text").value == EXAMPLES["tiny-sst"][0]["text"]  # first open: the model's example
    at.selectbox(key="model_choice").set_value("tiny-nli").run()
    assert not at.exception
    assert [t.label for t in at.text_area] == ["Premise", "Hypothesis"]
    assert at.text_area(key="text").value == "A man plays a guitar."
    assert at.text_area(key="pair").value == "Someone makes music."
    assert at.metric[0].value in ("entailment", "neutral", "contradiction")
    at.selectbox(key="model_choice").set_value("tiny-sst").run()  # and back: the single-text example
    assert at.text_area(key="text").value == EXAMPLES["tiny-sst"][0]["text"]
    typed = "My own sentence, typed by hand."
    at.text_area(key="text").input(typed).run()
    at.selectbox(key="model_choice").set_value("tiny-one").run()  # same kind of input: the typed text stays
    assert not at.exception and at.text_area(key="text").value == typed


def test_a_pin_link_on_the_explain_page_opens_the_pin(served: Path, tmp_path: Path) -> None:
    """Defect 10: ``/?pin=ID`` on the Explain page was ignored without a word."""
    from selfexplain.gallery.store import GalleryStore, database_url

    premise, hypothesis = "Two dogs run on a beach.", "Animals are outside."
    explanation = load_model(str(served / "tiny-nli")).explain(premise, pair=hypothesis)
    store = GalleryStore(database_url())
    pin = store.add(explanation, "tiny-nli", note="for <b>Monday</b>", text=premise, pair=hypothesis)
    at = open_app(pin=pin.id)
    assert not at.exception and not at.error
    assert at.selectbox(key="model_choice").value == "tiny-nli"
    assert at.text_area(key="text").value == premise and at.text_area(key="pair").value == hypothesis
    opened = [i.value for i in at.info if i.value.startswith(f"Opened pin {pin.id}")]
    assert len(opened) == 1 and "tiny-nli" in opened[0] and f"Gallery?pin={pin.id}" in opened[0]
    assert "<b>" not in opened[0] and "Monday" in opened[0]
    assert "pin" not in at.query_params and at.metric
    at = open_app(pin="no-such-pin", model="tiny-sst")
    assert not at.exception
    assert any("No pin with id “no-such-pin”" in w.value for w in at.warning)


def test_compare_says_when_a_model_has_a_single_span(served: Path) -> None:
    at = open_app(COMPARE, model_a="tiny-one", model_b="tiny-few", text=SENTENCE)
    assert not at.exception and not at.error
    caption = next(c.value for c in at.caption if "Rank-biased overlap" in c.value)
    assert "Model A (tiny-one) puts all its weight on a single word span" in caption
    assert "Overlap of the two sets (Jaccard)" in caption and "Spearman" not in caption
    assert any(c.value.startswith("One phrase carries 100% of the weight") for c in at.caption)
