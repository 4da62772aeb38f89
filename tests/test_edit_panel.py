"""AppTest checks of the Explain page's edit section: apply, compare, history, undo, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
TEXT = "the film is slow but warm"


def opened(models_dir: Path, name: str, text: str = TEXT, pair: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input(str(models_dir / name)).run()
    at.text_area(key="text").input(text)
    if pair is not None:
        at.text_area(key="pair").input(pair)
    return at.run()


def chart_titles(at: AppTest) -> list[str]:
    return [(json.loads(c.proto.spec)["layout"].get("title") or {}).get("text", "") for c in at.get("plotly_chart")]


def words_slider(at: AppTest):  # noqa: ANN201
    return next(s for s in at.select_slider if str(s.key).startswith("edit_words_"))


def test_replace_a_word_rescores_and_shows_the_change(models_dir: Path) -> None:
    at = opened(models_dir, "tiny-sst")
    assert "How the edit moved alpha" not in chart_titles(at)
    words_slider(at).set_range(3, 3)
    at.text_input(key="edit_new").input("brisk")
    at.button(key="edit_apply").click().run()
    assert not at.exception and not at.error
    assert at.text_area(key="text").value == "the film is brisk but warm"
    assert "How the edit moved alpha" in chart_titles(at)
    assert any("replace “slow” → “brisk”" in c.value for c in at.caption)
    table = next(df for df in at.dataframe if "change" in df.value.columns).value
    assert len(table) > 0 and (table["change"] == table["after"] - table["before"]).all()
    metrics = {m.label: m for m in at.metric}
    assert "Prediction after the edit" in metrics


@pytest.mark.slow
def test_undo_restores_the_text_and_history(models_dir: Path) -> None:
    at = opened(models_dir, "tiny-sst")
    at.segmented_control(key="edit_action").set_value("Delete").run()
    words_slider(at).set_range(0, 1)
    at.button(key="edit_apply").click().run()
    assert at.text_area(key="text").value == "is slow but warm"
    at.segmented_control(key="edit_action").set_value("Insert").run()
    words_slider(at).set_value(4)
    at.text_input(key="edit_new").input("indeed")
    at.button(key="edit_apply").click().run()
    assert at.text_area(key="text").value == "is slow but warm indeed"
    assert len(at.session_state["edit_history"]) == 2
    at.button(key="edit_undo").click().run()
    assert at.text_area(key="text").value == "is slow but warm"
    at.button(key="edit_undo").click().run()
    assert at.text_area(key="text").value == TEXT
    assert at.button(key="edit_undo").disabled
    assert "How the edit moved alpha" not in chart_titles(at)


def test_an_empty_replacement_is_refused_and_nothing_is_lost(models_dir: Path) -> None:
    at = opened(models_dir, "tiny-sst")
    at.button(key="edit_apply").click().run()  # Replace with no new words
    assert any("replacement" in e.value for e in at.error)
    assert at.text_area(key="text").value == TEXT
    assert "edit_history" not in at.session_state or not at.session_state["edit_history"]


def test_edit_the_hypothesis_of_a_pair(models_dir: Path) -> None:
    at = opened(models_dir, "tiny-nli", "a man sleeps on a bench", "a man is awake")
    at.segmented_control(key="edit_segment").set_value("Hypothesis").run()
    words_slider(at).set_range(3, 3)
    at.text_input(key="edit_new").input("asleep")
    at.button(key="edit_apply").click().run()
    assert not at.exception
    assert at.text_area(key="pair").value == "a man is asleep"
    assert at.text_area(key="text").value == "a man sleeps on a bench"
    assert "How the edit moved alpha" in chart_titles(at)


def test_user_text_in_the_history_is_escaped(models_dir: Path) -> None:
    at = opened(models_dir, "tiny-sst", "a **bold** <b>claim</b>")
    words_slider(at).set_range(1, 1)
    at.text_input(key="edit_new").input("![x](http://example.invalid/x.png)")
    at.button(key="edit_apply").click().run()
    history = next(c.value for c in at.caption if c.value.startswith("Edits so far"))
    assert "![x](" not in history and "**bold**" not in history


def test_presentation_mode_hides_controls_and_explains_figures(models_dir: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["present"] = "1"
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input(str(models_dir / "tiny-sst")).run()
    at.text_area(key="text").input(TEXT).run()
    assert not at.exception
    assert at.toggle(key="present").value
    keys = {w.key for w in [*at.slider, *at.toggle, *at.button, *at.selectbox, *at.text_input]}
    hidden = {"top_k", "overlapping", "log_colour", "attn_aggregate", "edit_apply", "flip_button", "pin_note"}
    assert not keys & (hidden | {"pin_button"})
    specs = [json.loads(c.proto.spec)["layout"] for c in at.get("plotly_chart")]
    assert len(specs) == 3 and all(layout["font"]["size"] == 20 for layout in specs)
    titles = [layout["title"]["text"] for layout in specs]
    assert titles[:2] == ["How sure the model is", "How much each phrase counted"]
    assert titles[2] == "Where the model's layers look (not the explanation)"
    said = " ".join(m.value for m in at.markdown)
    assert "The model decided *" in said and "sure the answer is" in said and "darkest" in said
    said += " ".join(c.value for c in at.caption)
    assert "alpha" not in said.lower() and "[CLS]" not in said and "rollout" not in said
    assert at.metric[0].label == "The model's answer"
    assert at.query_params["present"] == "1"
    at.button(key="leave_present").click().run()
    assert not at.exception and not at.toggle(key="present").value
    assert at.slider(key="top_k").value == 5 and "present" not in at.query_params


def test_the_edit_control_of_a_pair_model_has_room_for_its_options(models_dir: Path) -> None:
    """Issue 58 item 7: "Insert" read "Ins..." in a pair model's edit row (a fifth of the page for three options)."""
    at = opened(models_dir, "tiny-nli", "a man sleeps on a bench", "a man is awake")
    assert not at.exception
    column = next(c for c in at.columns if any(w.key == "edit_action" for w in c.get("button_group")))
    assert column.weight * 980 / 3 >= 100  # Replace, Delete, Insert: 100 px each of a 980 px page (1,440, sidebar)
