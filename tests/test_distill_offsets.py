"""``selfexplain distill --label-offsets``: per-label offsets of a surrogate's output bias, fitted on the
dev split so that its probabilities follow the teacher's; alpha stays as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from helpers import make_explainer
from test_distill import _distill, _texts, bert_teacher

from selfexplain.core.modeling.checkpoint import load_model_directory, save_model, shift_output_bias
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.model_card import read_model_card
from selfexplain.lab.distill.fidelity import measure_fidelity
from selfexplain.lab.distill.offsets import applied_offsets, describe_offsets, fit_label_offsets


def test_the_fit_finds_a_students_lean_and_removes_it() -> None:
    generator = torch.Generator().manual_seed(0)
    teacher_logits = torch.randn(400, 4, generator=generator, dtype=torch.float64) * 2
    lean = torch.tensor([0.6, -0.2, -0.9, 0.5], dtype=torch.float64)
    teacher = teacher_logits.softmax(dim=1)
    student = (teacher_logits + lean).softmax(dim=1)  # the same student, leaning to labels 0 and 3
    found = fit_label_offsets(student, teacher)
    assert float(found.sum()) == pytest.approx(0.0, abs=1e-9)
    assert torch.allclose(found, -(lean - lean.mean()), atol=1e-4)
    before, after = measure_fidelity(student, teacher), measure_fidelity((student.log() + found).softmax(1), teacher)
    assert before.agreement < 0.95 and after.agreement == 1.0 and after.tvd < 1e-4 < before.tvd
    # a student without a lean gets no offsets
    assert torch.allclose(fit_label_offsets(teacher, teacher), torch.zeros(4, dtype=torch.float64), atol=1e-6)
    with pytest.raises(ValueError, match="one shape"):
        fit_label_offsets(student, teacher[:, :3])
    assert describe_offsets(torch.tensor([0.5, -0.25]), ["neg", "pos"]) == "neg +0.500, pos -0.250"


@pytest.mark.parametrize("compact", [False, True])
def test_shifting_the_output_bias_moves_only_the_bias(tiny_encoder: Path, tmp_path: Path, compact: bool) -> None:
    explainer = make_explainer(tiny_encoder, seed=3)
    save_model(explainer.model, explainer.tokenizer, tmp_path / "m", compact=compact)
    before, _ = load_model_directory(tmp_path / "m")
    shift = torch.linspace(-0.5, 0.5, before.config.num_labels)
    shift_output_bias(tmp_path / "m", shift)
    after, _ = load_model_directory(tmp_path / "m")
    old, new = before.state_dict(), after.state_dict()
    tolerance = 2e-3 if compact else 1e-6  # a compact folder keeps its head in float16
    assert torch.allclose(new["output.bias"] - old["output.bias"], shift, atol=tolerance)
    assert all(torch.equal(old[k], new[k]) for k in old if k != "output.bias")
    with pytest.raises(ValueError, match="cannot take a shift"):
        shift_output_bias(tmp_path / "m", torch.zeros(7))


@pytest.mark.slow
def test_distill_fits_offsets_on_the_dev_split_and_records_them(
    tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    teacher = bert_teacher(tiny_encoder, tmp_path / "teacher")
    texts = _texts(tmp_path / "texts.txt")
    out = tmp_path / "student"
    assert _distill(teacher, texts, out, "--epochs", "1", "--label-offsets") == 0
    printed = capsys.readouterr().out
    assert "label offsets fitted on the dev split (bad " in printed and "dev agreement" in printed
    config = ModelConfig.load(out / "best")
    offsets = applied_offsets(config)
    assert offsets.shape == (3,) and float(offsets.abs().sum()) > 0
    assert float(offsets.sum()) == pytest.approx(0, abs=1e-6)
    # one epoch: best/ is last/ plus the offsets in the output bias, and nothing else differs
    best, _ = load_model_directory(out / "best")
    last, _ = load_model_directory(out / "last")
    shifted = best.state_dict()["output.bias"] - last.state_dict()["output.bias"]
    assert torch.allclose(shifted.double(), offsets, atol=1e-5)
    scorer = "span_layer.interpret.weight"  # what alpha is computed from
    assert torch.equal(best.state_dict()[scorer], last.state_dict()[scorer])
    card = read_model_card(out / "best")
    assert dict(card.recipe)["label_offsets"] == describe_offsets(offsets, config.label_names)
    assert any("fitted the label offsets" in m.meaning for m in card.fidelity)
    held = json.loads(printed.strip().splitlines()[-1])
    assert held["examples"] == 12 and 0 <= held["agreement"] <= 1
    # a rerun on the finished run refits from the shifted model: the total barely moves
    assert _distill(teacher, texts, out, "--epochs", "1", "--label-offsets") == 0
    again = applied_offsets(ModelConfig.load(out / "best"))
    assert torch.allclose(again, offsets, atol=1e-3)
