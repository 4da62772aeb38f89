"""Two-stage training: --init-from copies a fine-tuned encoder, --teacher adds a KL term."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

from selfexplain.core.modeling.checkpoint import save_model
from selfexplain.data import Example
from selfexplain.errors import InvalidInputError
from selfexplain.methods.training.loop import TrainOptions, train
from selfexplain.methods.training.warm_start import (
    distillation_loss,
    logit_matching_loss,
    teacher_loss,
    teacher_targets,
    warm_start,
)
from tests.helpers import SST5_LABELS, make_explainer

TEXTS = ["a dull and long film", "bright warm fun", "not good at all", "a great ride", "flat, tired jokes"]


def _examples() -> list[Example]:
    return [Example(text, None, label) for label, text in zip([0, 4, 1, 3, 0], TEXTS)]


def _saved(tiny_encoder: Path, directory: Path, seed: int, **overrides: object) -> Path:
    explainer = make_explainer(tiny_encoder, seed=seed, **overrides)
    with torch.no_grad():  # a "fine-tuned" encoder: different from the pretrained one
        for parameter in explainer.model.encoder.parameters():
            parameter.add_(0.01 * torch.randn_like(parameter))
    save_model(explainer.model, explainer.tokenizer, directory)
    return directory


def test_warm_start_copies_the_encoder_and_the_mean_head_when_span_vectors_are_means(
    tiny_encoder: Path, tmp_path: Path
) -> None:
    source = _saved(tiny_encoder, tmp_path / "baseline", seed=7, head="mean")
    reference = make_explainer(tiny_encoder, seed=7, head="mean")
    fresh = make_explainer(tiny_encoder, seed=1, span_representation="mean", normaliser="sparsemax").model
    copied = warm_start(fresh, str(source))
    assert copied == ["encoder", "output layer"]
    own = fresh.encoder.state_dict()
    pretrained = reference.model.encoder.state_dict()
    changed = [k for k in own if not torch.equal(own[k], pretrained[k])]
    assert changed, "the encoder kept its pretrained weights"
    # a SIC span model reads another space: only the encoder is copied
    sic = make_explainer(tiny_encoder, seed=1).model
    output_before = sic.output.weight.detach().clone()
    assert warm_start(sic, str(source)) == ["encoder"]
    assert torch.equal(sic.output.weight, output_before)


def test_warm_start_refuses_an_encoder_of_another_shape(tiny_encoder: Path, tmp_path: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_encoder)
    other = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=48, num_hidden_layers=1, num_attention_heads=2,
                       intermediate_size=64, max_position_embeddings=128, num_labels=5)  # fmt: skip
    BertForSequenceClassification(other).save_pretrained(tmp_path / "hf", safe_serialization=True)
    tokenizer.save_pretrained(tmp_path / "hf")
    with pytest.raises(InvalidInputError, match="does not match"):
        warm_start(make_explainer(tiny_encoder).model, str(tmp_path / "hf"))


def test_teacher_targets_from_a_hugging_face_classifier_follow_the_label_names(
    tiny_encoder: Path, tmp_path: Path
) -> None:
    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(tiny_encoder)
    reversed_names = list(reversed(SST5_LABELS))
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128, num_labels=5,
                        id2label=dict(enumerate(reversed_names)),
                        label2id={n: i for i, n in enumerate(reversed_names)})  # fmt: skip
    teacher = BertForSequenceClassification(config).eval()
    teacher.save_pretrained(tmp_path / "hf", safe_serialization=True)
    tokenizer.save_pretrained(tmp_path / "hf")
    targets = teacher_targets(str(tmp_path / "hf"), _examples(), SST5_LABELS, progress=False).probabilities
    with torch.no_grad():
        direct = torch.softmax(teacher(**tokenizer(TEXTS, padding=True, return_tensors="pt")).logits, dim=-1)
    assert targets.shape == (5, 5)
    assert torch.allclose(targets, direct.flip(-1), atol=1e-5)  # columns in the student's label order
    with pytest.raises(InvalidInputError, match="5 labels, the model being trained 3"):
        teacher_targets(str(tmp_path / "hf"), _examples(), ["a", "b", "c"], progress=False)


def test_distillation_loss_is_zero_at_the_teacher_and_scales_with_temperature_squared() -> None:
    teacher = torch.tensor([[0.7, 0.2, 0.1]])
    assert distillation_loss(teacher.log(), teacher, 1.0).item() < 1e-6
    student = torch.tensor([[0.0, 0.0, 0.0]])
    kl = (teacher * (teacher.log() - math.log(1 / 3))).sum().item()
    assert distillation_loss(student, teacher, 1.0).item() == pytest.approx(kl, rel=1e-5)


def test_logit_matching_is_blind_to_a_shift_of_the_logits_and_weighs_improbable_labels() -> None:
    teacher = torch.tensor([[0.7, 0.2, 0.1]])
    assert logit_matching_loss(teacher.log() + 3.0, teacher).item() < 1e-10  # logits up to a constant
    centred = teacher.log() - teacher.log().mean()
    assert logit_matching_loss(torch.zeros(1, 3), teacher).item() == pytest.approx((centred**2).mean().item())
    # moving only the least probable label's logit: the KL term hardly notices, logit matching does
    moved = teacher.log() + torch.tensor([[0.0, 0.0, -2.0]])
    assert logit_matching_loss(moved, teacher).item() > 5 * distillation_loss(moved, teacher, 1.0).item()


def test_train_with_init_from_and_teacher_records_both_and_learns(tiny_encoder: Path, tmp_path: Path) -> None:
    source = _saved(tiny_encoder, tmp_path / "baseline", seed=7, head="mean")
    config = make_explainer(tiny_encoder, seed=2, normaliser="sparsemax").model.config
    options = TrainOptions(epochs=1, batch_size=2, seed=3, progress=False, fused=False, init_from=str(source),
                           teacher=str(source), teacher_weight=1.0, teacher_temperature=2.0)  # fmt: skip
    metrics = train(config, _examples(), _examples(), tmp_path / "run", options)
    assert metrics["options"]["init_from"] == str(source) and metrics["options"]["teacher"] == str(source)
    card = (tmp_path / "run" / "best" / "README.md").read_text(encoding="utf-8")
    assert "teacher" in card


def test_an_unknown_teacher_loss_is_refused() -> None:
    teacher = torch.tensor([[0.7, 0.2, 0.1]])
    with pytest.raises(ValueError, match="unknown teacher loss 'MSE'"):
        teacher_loss(teacher.log(), teacher, "MSE", 1.0)  # type: ignore[arg-type]
    assert teacher_loss(teacher.log() + 1.0, teacher, "mse", 1.0).item() < 1e-10
