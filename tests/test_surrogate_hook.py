"""The Explain page runs the surrogate check (pages/parts/surrogate_panel.py, issue 26) under the prediction."""

from __future__ import annotations

from pathlib import Path

from helpers import open_page
from test_surrogate_panel import _surrogate

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_the_explain_page_shows_the_teachers_answer_for_a_surrogate(tiny_encoder: Path, tmp_path: Path) -> None:
    at = open_page(APP, _surrogate(tiny_encoder, tmp_path, student_label=4, teacher_label=0))
    at.text_area(key="text").input("A plain sentence to explain.").run()
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert "Your model (my-model)" in labels and "The surrogate (explained here)" in labels
