from __future__ import annotations

from pathlib import Path

import pytest
import torch
from helpers import make_explainer

from selfexplain.core.inputs import encode
from selfexplain.core.modeling.checkpoint import ModelDirectoryError, atomic_directory, load_model_directory, save_model
from selfexplain.core.modeling.encoders import UnsafeWeightsError


def _logits(explainer, texts):
    batch = encode(explainer.tokenizer, texts)
    with torch.no_grad():
        return explainer.model.eval()(**batch.model_inputs()).logits


@pytest.mark.parametrize("compact", [False, True])
def test_save_load_round_trip(tiny_encoder: Path, tmp_path: Path, compact: bool) -> None:
    explainer = make_explainer(tiny_encoder, seed=3)
    with torch.no_grad():  # move the encoder away from its base so the delta is not empty
        for p in explainer.model.encoder.parameters():
            p.add_(0.01 * torch.randn_like(p))
    save_model(explainer.model, explainer.tokenizer, tmp_path / "m", compact=compact)
    files = {p.name for p in (tmp_path / "m").iterdir()}
    assert not any(name.endswith((".bin", ".pt", ".pkl")) for name in files)
    model, tokenizer = load_model_directory(tmp_path / "m")
    assert model.config == explainer.model.config
    texts = ["a fine , moving film", "dull"]
    reloaded = _logits(type(explainer)(model, tokenizer), texts)
    # compact stores the encoder delta as int8 rows and the head as float16
    tolerance = 2e-2 if compact else 1e-6
    torch.testing.assert_close(reloaded, _logits(explainer, texts), atol=tolerance, rtol=tolerance)


def test_pickle_only_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pytorch_model.bin").write_bytes(b"not loaded")
    with pytest.raises(UnsafeWeightsError, match="pickle"):
        load_model_directory(tmp_path)
    with pytest.raises(ModelDirectoryError):
        load_model_directory(tmp_path / "missing")


def test_atomic_directory_keeps_old_content_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.mkdir()
    (target / "keep.txt").write_text("old")
    with pytest.raises(RuntimeError), atomic_directory(target) as staging:
        (staging / "keep.txt").write_text("new")
        raise RuntimeError("killed mid-write")
    assert (target / "keep.txt").read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    with atomic_directory(target) as staging:
        (staging / "keep.txt").write_text("new")
    assert (target / "keep.txt").read_text() == "new"
