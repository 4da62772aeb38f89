"""The Explain page's surrogate check (pages/parts/surrogate_panel.py): the teacher's prediction beside the
surrogate's, a warning where they differ, nothing for other models or a teacher a deployment may not load."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import torch
from helpers import make_explainer
from streamlit.testing.v1 import AppTest

from pages.parts.surrogate_panel import DISAGREE
from selfexplain.core.modeling.checkpoint import save_model
from selfexplain.core.modeling.model_card import card_from_config, write_model_card

TEXT = "the film is slow but warm"


def _biased(tiny_encoder: Path, folder: Path, label: int, name: str, runner_up: int | None = None) -> Path:
    """A tiny model that always predicts ``label`` (its output bias dominates), with ``runner_up`` a close
    second (a hesitant model) when given."""
    explainer = make_explainer(tiny_encoder, seed=label)
    explainer.model.config.name = name
    with torch.no_grad():
        explainer.model.output.bias.zero_()
        explainer.model.output.bias[label] = 20.0
        if runner_up is not None:  # logits = the bias alone: probabilities 52.5% and 47.5%
            explainer.model.output.weight.zero_()
            explainer.model.output.bias[runner_up] = 19.9
    save_model(explainer.model, explainer.tokenizer, folder)
    return folder


def _surrogate(
    tiny_encoder: Path, tmp_path: Path, student_label: int, teacher_label: int, teacher_runner_up: int | None = None
) -> Path:
    teacher = _biased(tiny_encoder, tmp_path / "teacher", teacher_label, "my-model", teacher_runner_up)
    student = _biased(tiny_encoder, tmp_path / "models" / "student", student_label, "surrogate")
    from selfexplain.core.modeling.config import ModelConfig

    card = card_from_config(ModelConfig.load(student))
    card = replace(card, surrogate_of="my-model", recipe=(*card.recipe, ("teacher_folder", str(teacher))))
    write_model_card(student, card)
    return student


def _run(student: Path) -> AppTest:
    script = (
        "from pages.parts.surrogate_panel import render_surrogate_check\n"
        "from selfexplain.core.pipeline import load_model\n"
        f"explainer = load_model({str(student)!r})\n"
        f"render_surrogate_check(explainer.explain({TEXT!r}), {str(student)!r})\n"
    )
    at = AppTest.from_string(script, default_timeout=120)
    return at.run()


def test_a_disagreement_is_flagged(tiny_encoder: Path, tmp_path: Path) -> None:
    at = _run(_surrogate(tiny_encoder, tmp_path, student_label=4, teacher_label=0))
    assert not at.exception
    assert [(m.label, m.value) for m in at.metric] == [
        ("Your model (my-model)", "very negative"), ("The surrogate (explained here)", "very positive")
    ]  # fmt: skip
    assert [w.value for w in at.warning] == [DISAGREE]


def test_an_agreement_says_what_the_spans_can_mean(tiny_encoder: Path, tmp_path: Path) -> None:
    at = _run(_surrogate(tiny_encoder, tmp_path, student_label=3, teacher_label=3))
    assert not at.exception and not at.warning
    assert any("agrees with your model on this input" in c.value for c in at.caption)


def test_a_hesitant_teacher_is_said_so(tiny_encoder: Path, tmp_path: Path) -> None:
    at = _run(_surrogate(tiny_encoder, tmp_path, student_label=3, teacher_label=3, teacher_runner_up=2))
    assert not at.exception and not at.warning
    notes = [c.value for c in at.caption if "hesitates" in c.value]
    assert len(notes) == 1
    assert "positive (5" in notes[0] and "neutral (4" in notes[0] and "less than 0.2 apart" in notes[0]


@pytest.mark.slow
def test_nothing_for_a_plain_model_or_a_teacher_outside_a_deployments_folders(
    tiny_encoder: Path, tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _run(tiny_model_dir)
    assert not at.exception and not at.metric and not at.caption
    student = _surrogate(tiny_encoder, tmp_path, student_label=4, teacher_label=0)
    monkeypatch.setenv("SELFEXPLAIN_RESTRICT_MODELS", "1")
    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(tmp_path / "models"))  # the student's, not the teacher's
    at = _run(student)
    assert not at.exception and not at.metric and not at.warning
    (tmp_path / "teacher").rename(tmp_path / "models" / "teacher")  # inside the models folders: shown
    card = (student / "README.md").read_text(encoding="utf-8")
    (student / "README.md").write_text(card.replace(str(tmp_path / "teacher"), str(tmp_path / "models" / "teacher")))
    at = _run(student)
    assert not at.exception and len(at.metric) == 2 and len(at.warning) == 1
