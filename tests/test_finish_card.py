"""scripts/finish_card.py: writing one part of a shipped card leaves the other parts as they were."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.model_card import Measure, card_from_config, read_model_card, write_model_card

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
