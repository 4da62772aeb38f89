"""scripts/finish_card.py: writing one part of a shipped card leaves the other parts as they were."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.model_card import Measure, card_from_config, read_model_card, write_model_card
from selfexplain.lab.distill.fidelity import Fidelity
from selfexplain.lab.distill.record import SURROGATE_LIMITATIONS, fidelity_measures

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "finish_card.py"


def test_a_limitation_alone_keeps_the_sharpness_table(tiny_model_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(tiny_model_dir, folder)
    measure = Measure("prediction kept with uniform alpha", "0.390", "lower is better", "first 300 test inputs (n=300)")
    write_model_card(folder, replace(card_from_config(ModelConfig.load(folder)), sharpness=(measure,)))
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(folder), "--limitation", "Long reviews: 78.3%."],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    card = read_model_card(folder)
    assert card.sharpness == (measure,)  # it wiped the table before
    assert card.limitations[0] == "Long reviews: 78.3%."
    assert "0 sharpness figures" in run.stdout


def test_a_distilled_student_ships_under_a_name_as_a_model_of_its_own(tiny_model_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "student"
    shutil.copytree(tiny_model_dir, folder)
    config = ModelConfig.load(folder)
    config.metrics = {"surrogate_agreement": 0.904, "surrogate_tvd": 0.07, "test_accuracy": 0.506}
    config.save(folder)
    measures = fidelity_measures(Fidelity(0.904, 0.07, 2210, 0.95, 0.8), "2,210 test inputs")  # as distill writes them
    card = card_from_config(config)
    inside = str(SCRIPT.parents[1] / "assets" / "models" / "teacher")  # an absolute path in this checkout
    recipe = (*card.recipe, ("teacher_folder", "runs/teacher"), ("init_from", inside))
    limitations = (*SURROGATE_LIMITATIONS, "Deletion beats random on 77%.")
    card = replace(card, surrogate_of="teacher", fidelity=measures, recipe=recipe, limitations=limitations)
    write_model_card(folder, card)
    (tmp_path / "dev.json").write_text('{"model": "x", "examples": 1101, "accuracy": 0.5}', encoding="utf-8")
    baseline = tmp_path / "baseline"
    shutil.copytree(tiny_model_dir, baseline)
    teacher = ModelConfig.load(baseline)
    teacher.name, teacher.metrics = "teacher", {"test_accuracy": 0.51}
    teacher.save(baseline)
    subprocess.run(
        [sys.executable, str(SCRIPT), str(folder), "--name", "sst5-new", "--own-model",
         "--dev-accuracy", str(tmp_path / "dev.json"), "--baseline", str(baseline)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    config, card = ModelConfig.load(folder), read_model_card(folder)
    assert config.name == card.name == "sst5-new"
    assert config.metrics == {"test_accuracy": 0.506, "dev_accuracy": 0.5} and card.dev_accuracy == 0.5
    assert card.surrogate_of == "" and "teacher_folder" not in dict(card.recipe)  # the app shows no teacher
    assert dict(card.recipe)["init_from"] == "assets/models/teacher"  # readable on any checkout
    assert card.baseline.startswith("teacher: linear head on mean pooling, the teacher this model was distilled from")
    assert card.baseline_accuracy == 0.51
    assert card.fidelity == measures  # its agreement stays on the card, in a section of its own
    assert card.limitations == ("Deletion beats random on 77%.",)
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert "## Agreement with the model it was distilled from" in text and "90.4%" in text
    section = text.split("## Agreement with the model it was distilled from")[1].split("\n## ")[0]
    assert "surrogate" not in section and "this model predicts its teacher's label" in section
