"""The shipped MPNet models: small folders, the cut encoder, and the recorded output."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from selfexplain.core.modeling.model_folders import SHIPPED_MODELS_DIR
from selfexplain.core.pipeline import load_model

MAX_FOLDER_MB = 60  # a shipped folder stays small in git: the head plus an int8 delta of the trained layers


def _megabytes(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20


@pytest.mark.parametrize("folder", sorted(p.parent for p in SHIPPED_MODELS_DIR.glob("*/selfexplain.json")))
def test_every_shipped_folder_is_small(folder: Path) -> None:
    assert _megabytes(folder) <= MAX_FOLDER_MB


def test_the_demo_model_runs_the_eight_layers_it_reads_and_gives_the_recorded_output() -> None:
    explainer = load_model("sst2-mpnet")
    assert explainer.config.encoder == "all-mpnet-base-v2" and explainer.model.family.name == "mpnet"
    assert explainer.model.num_encoder_layers == 8
    assert explainer.model.dropped_layers == tuple(f"encoder.layer.{i}" for i in range(8, 12))
    explanation = explainer.explain("I could not put this novel down.", attentions=True)
    assert explanation.attentions is not None and explanation.attentions.shape[:2] == (8, 12)
    assert np.allclose(explanation.probabilities, [0.09138, 0.90862], atol=2e-4)
    top = [s for s in explanation.top_spans(5) if s.alpha > 0]
    assert [s.text for s in top] == ["down", "this", "this novel", "novel", "this novel down"]
    assert top[0].alpha == pytest.approx(0.692, abs=2e-3)
    assert explainer.config.span_edges == "words"  # no span ends on the closing full stop
    assert not any(s.text.endswith(".") for s in explanation.spans)
