"""Two-stage training: start from an already fine-tuned encoder, learn from a teacher's probabilities.

- **Warm start** (``train --init-from DIR``): the new model's encoder takes the weights of a model
  already fine-tuned on the task (a selfexplain folder, e.g. the mean-pooling baseline, or a Hugging
  Face folder). The encoder architecture must match the new model's; the base encoder named in the
  new model's config stays the reference for compact (delta) folders.
- **Distillation** (``train --teacher DIR``): a KL term towards a teacher's class probabilities,
  ``T^2 KL(p_teacher^(1/T) || p_student^(1/T))`` (Hinton et al. 2015). The teacher is any selfexplain
  folder or Hugging Face sequence-classification folder (safetensors only, no remote code); its
  probabilities over the training set are computed once before training.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from selfexplain.core.modeling.config import CONFIG_FILE
from selfexplain.core.modeling.model import SelfExplainingModel
from selfexplain.data import Example
from selfexplain.errors import InvalidInputError


def is_selfexplain_folder(source: str) -> bool:
    from selfexplain.core.modeling.model_folders import available_models

    return source in available_models() or (Path(source).expanduser() / CONFIG_FILE).is_file()


def load_hf_classifier(source: str) -> tuple[torch.nn.Module, object]:
    """A Hugging Face sequence-classification model and its fast tokenizer (safetensors only)."""
    from transformers import AutoModelForSequenceClassification

    from selfexplain.core.modeling.encoders import check_safe_weights, hub_allowed, load_tokenizer

    path = Path(source).expanduser()
    if path.is_dir():
        check_safe_weights(path)
    elif not hub_allowed():
        raise InvalidInputError(f"no model folder at {source!r} (Hub ids need the Hub allowed)")
    try:
        model = AutoModelForSequenceClassification.from_pretrained(
            str(path) if path.is_dir() else source,
            use_safetensors=True,
            trust_remote_code=False,
            local_files_only=not hub_allowed(),
        )
    except (OSError, ValueError) as err:
        raise InvalidInputError(f"cannot read {source!r} as a sequence-classification model: {err}") from None
    return model.eval(), load_tokenizer(str(path) if path.is_dir() else source)


def encoder_weights(source: str) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor] | None]:
    """The fine-tuned encoder's state dict, and the source's output layer (``weight``/``bias``) when it
    is a selfexplain mean-pooling model (whose pooled vector lives where span means live), else None."""
    if is_selfexplain_folder(source):
        from selfexplain.core.modeling.checkpoint import load_model_directory
        from selfexplain.core.modeling.model_folders import resolve_model

        model, _ = load_model_directory(resolve_model(source))
        output = None
        if model.config.head == "mean":
            output = {k: v.detach().clone() for k, v in model.output.state_dict().items()}
        return {k: v.detach().clone() for k, v in model.encoder.state_dict().items()}, output
    model, _ = load_hf_classifier(source)
    base = getattr(model, "base_model", model)
    return {k: v.detach().clone() for k, v in base.state_dict().items()}, None


def warm_start(model: SelfExplainingModel, source: str) -> list[str]:
    """Load ``source``'s fine-tuned encoder into ``model`` (and its output layer when it reads the same
    space: a mean-pooling source and a model with mean span vectors and the same labels). Returns what
    was copied, for the log. Raises :class:`InvalidInputError` when the encoders do not match."""
    encoder, output = encoder_weights(source)
    own = model.encoder.state_dict()
    missing = sorted(set(own) - set(encoder))
    mismatched = sorted(k for k in own if k in encoder and encoder[k].shape != own[k].shape)
    if missing or mismatched:
        detail = (missing or mismatched)[:3]
        raise InvalidInputError(f"--init-from {source}: its encoder does not match {model.config.encoder} ({detail})")
    model.encoder.load_state_dict({k: encoder[k] for k in own})
    copied = ["encoder"]
    same_space = model.config.head == "mean" or (
        model.span_layer is not None and model.config.span_representation == "mean"
    )
    if output is not None and same_space and output["weight"].shape == model.output.weight.shape:
        model.output.load_state_dict(output)
        copied.append("output layer")
    return copied


def hf_probabilities(
    model: torch.nn.Module, tokenizer: object, examples: Sequence[Example], max_length: int
) -> torch.Tensor:
    """``[E, C]`` class probabilities of a Hugging Face classifier for ``examples`` (one padded batch; a pair
    batch when any example has a second text; inputs cut to ``max_length`` or the tokenizer's own limit)."""
    pairs = [e.pair or "" for e in examples] if any(e.pair for e in examples) else None
    limit = min(max_length, int(getattr(tokenizer, "model_max_length", max_length) or max_length))
    encoded = tokenizer(  # type: ignore[operator]
        [e.text for e in examples], pairs, truncation=True, max_length=limit, padding=True, return_tensors="pt"
    )
    with torch.inference_mode():
        return torch.softmax(model(**encoded).logits.float(), dim=-1)


@dataclass(frozen=True)
class TeacherTargets:
    """The teacher's class probabilities ``[E, C]`` for the training examples, in their order."""

    probabilities: torch.Tensor
    source: str


def _label_order(teacher_names: Sequence[str], student_names: Sequence[str], source: str) -> list[int]:
    """Teacher column of each student label: by name when the names agree as sets, else by index."""
    if len(teacher_names) != len(student_names):
        raise InvalidInputError(
            f"--teacher {source}: it has {len(teacher_names)} labels, the model being trained {len(student_names)}"
        )
    if set(teacher_names) == set(student_names):
        return [list(teacher_names).index(name) for name in student_names]
    return list(range(len(student_names)))


def teacher_targets(
    source: str,
    examples: Sequence[Example],
    label_names: Sequence[str],
    max_length: int = 128,
    batch_size: int = 64,
    progress: bool = True,
    description: str = "teacher",
) -> TeacherTargets:
    """Run the teacher once over ``examples`` and return its probabilities ``[E, C]`` in the student's
    label order (a progress bar by batch, named ``description``)."""
    if is_selfexplain_folder(source):
        from selfexplain.core.pipeline import load_model
        from selfexplain.methods.training.evaluation import predict_examples

        explainer = load_model(source)
        order = _label_order(explainer.config.label_names, label_names, source)
        result = predict_examples(
            explainer, examples, batch_size, progress, description=description, max_length=max_length
        )
        return TeacherTargets(torch.from_numpy(result.probabilities[:, order].copy()), source)
    model, tokenizer = load_hf_classifier(source)
    id2label = getattr(model.config, "id2label", None) or {}
    names = [str(id2label.get(i, i)) for i in range(int(model.config.num_labels))]
    order = _label_order(names, label_names, source)
    rows = [
        hf_probabilities(model, tokenizer, examples[lo : lo + batch_size], max_length)
        for lo in tqdm(range(0, len(examples), batch_size), desc=description, disable=not progress)
    ]
    return TeacherTargets(torch.cat(rows)[:, order].contiguous(), source)


def distillation_loss(
    student_logits: torch.Tensor, teacher_probabilities: torch.Tensor, temperature: float
) -> torch.Tensor:
    """``T^2 KL(q || p)`` averaged over the batch, with ``q`` the teacher's probabilities ``[B, C]``
    sharpened/softened to temperature ``T`` and ``p`` the student's softmax at ``T``."""
    log_q = torch.log(teacher_probabilities.clamp_min(1e-8)) / temperature
    target = F.softmax(log_q, dim=-1)
    student = F.log_softmax(student_logits / temperature, dim=-1)
    return F.kl_div(student, target, reduction="batchmean") * temperature**2


def logit_matching_loss(student_logits: torch.Tensor, teacher_probabilities: torch.Tensor) -> torch.Tensor:
    """Mean squared difference of the student's and the teacher's logits ``[B, C]``, each centred per row
    (logits are defined up to a constant, and ``log q`` recovers the teacher's up to that constant).
    The high-temperature limit of the KL term: it weighs every label's logit, not only the probable
    ones (Hinton et al. 2015; Kim et al. 2021 found it the more faithful of the two)."""
    log_q = torch.log(teacher_probabilities.clamp_min(1e-8))
    teacher = log_q - log_q.mean(dim=-1, keepdim=True)
    student = student_logits - student_logits.mean(dim=-1, keepdim=True)
    return F.mse_loss(student, teacher)


TeacherLoss = Literal["kl", "mse"]


def teacher_loss(
    student_logits: torch.Tensor, teacher_probabilities: torch.Tensor, kind: TeacherLoss, temperature: float
) -> torch.Tensor:
    """The distillation term ``kind`` (``"kl"``: :func:`distillation_loss` at ``temperature``; ``"mse"``:
    :func:`logit_matching_loss`) for student logits and teacher probabilities ``[B, C]``."""
    if kind == "mse":
        return logit_matching_loss(student_logits, teacher_probabilities)
    if kind == "kl":
        return distillation_loss(student_logits, teacher_probabilities, temperature)
    raise ValueError(f"unknown teacher loss {kind!r} (kl or mse)")
