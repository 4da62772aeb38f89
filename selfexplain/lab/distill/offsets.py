"""Label offsets (``selfexplain distill --label-offsets``): one constant per label added to a surrogate's
output bias, fitted after training so that its probabilities follow the teacher's on the dev split.

A student trained towards the teacher's probabilities can still lean towards some labels (the SST-5
surrogates predict "neutral" less often than their teacher). Where the teacher hesitates between two
labels, such a lean decides the student's label, and that is where most disagreements sit. The offsets
``b`` ``[C]`` minimise the mean cross-entropy from the teacher's probabilities to
``softmax(log p_student + b)`` over the dev split; that is convex in ``b``, so the fit has one answer.

Only the output layer's bias moves: alpha, the span vectors and the classifier's weights are untouched,
so every input keeps its spans and their weights, and the classifier still reads only the alpha-weighted
sum (plus its bias). The offsets are fitted on the dev split, never on the held-out one, so the held-out
fidelity stays a measurement. The total applied to a folder is kept in its ``metrics``
(``label_offset_0`` ..), so a rerun on a finished run refits from the shifted model and the total stays
right.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from selfexplain.core.modeling.checkpoint import shift_output_bias
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.data import Example
from selfexplain.lab.distill.fidelity import Fidelity, measure_fidelity

OFFSET_KEY = "label_offset_{}"


def fit_label_offsets(student: np.ndarray | torch.Tensor, teacher: np.ndarray | torch.Tensor) -> torch.Tensor:
    """``[C]`` float64 offsets (summing to 0) that minimise the mean cross-entropy from the teacher's
    probabilities ``teacher`` ``[E, C]`` to ``softmax(log student + b)``, ``student`` ``[E, C]`` being the
    student's probabilities on the same inputs."""
    s = torch.as_tensor(student, dtype=torch.float64)
    t = torch.as_tensor(teacher, dtype=torch.float64)
    if s.shape != t.shape or s.ndim != 2 or s.shape[0] == 0 or s.shape[1] < 2:
        raise ValueError(
            f"two probability tables [E, C] of one shape are needed, got {tuple(s.shape)} and {tuple(t.shape)}"
        )
    logits = s.clamp_min(1e-12).log()
    offsets = torch.zeros(s.shape[1], dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.LBFGS([offsets], max_iter=200, tolerance_grad=1e-10, line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        optimizer.zero_grad()
        value = -(t * torch.log_softmax(logits + offsets, dim=1)).sum(dim=1).mean()
        value.backward()
        return value

    optimizer.step(loss)
    found = offsets.detach()
    return found - found.mean()


def applied_offsets(config: ModelConfig) -> torch.Tensor:
    """``[C]`` the offsets already added to this folder's output bias (zeros when none)."""
    values = [config.metrics.get(OFFSET_KEY.format(i), 0.0) for i in range(config.num_labels)]
    return torch.tensor(values, dtype=torch.float64)


def describe_offsets(offsets: torch.Tensor, label_names: Sequence[str]) -> str:
    """``"very negative +0.04, negative +0.02, …"``: each label's offset."""
    return ", ".join(f"{name} {float(value):+.3f}" for name, value in zip(label_names, offsets))


@dataclass(frozen=True)
class LabelOffsets:
    """What ``--label-offsets`` did: the total offsets now in the folder's output bias ``[C]``, and the
    dev split's fidelity before the fit."""

    offsets: torch.Tensor
    label_names: tuple[str, ...]
    before: Fidelity

    def describe(self, after: Fidelity) -> str:
        """One line; ``after``: the dev split's fidelity measured on the shifted model."""
        return (
            f"label offsets fitted on the dev split ({describe_offsets(self.offsets, self.label_names)}): "
            f"dev agreement {self.before.agreement:.1%} -> {after.agreement:.1%}, "
            f"mean TVD {self.before.tvd:.3f} -> {after.tvd:.3f}"
        )


def offset_student(
    folder: Path, examples: Sequence[Example], teacher: torch.Tensor, max_length: int, progress: bool, fused: bool
) -> LabelOffsets:
    """Fit offsets on ``examples`` (the dev split; ``teacher`` ``[E, C]``: the teacher's probabilities on
    them), add them to the output bias of the model in ``folder`` and record the total in its metrics.
    The caller measures the shifted model from the folder (a compact folder rounds the bias to float16)."""
    from selfexplain.core.pipeline import load_model
    from selfexplain.methods.training.evaluation import predict_examples

    explainer = load_model(str(folder), fused=fused)
    student = predict_examples(
        explainer, examples, progress=progress, description="offsets", max_length=max_length
    ).probabilities
    found = fit_label_offsets(student, teacher)
    shift_output_bias(folder, found)
    config = ModelConfig.load(folder)
    total = applied_offsets(config) + found
    config.metrics = {**config.metrics, **{OFFSET_KEY.format(i): float(v) for i, v in enumerate(total)}}
    config.save(folder)
    return LabelOffsets(total, tuple(config.label_names), measure_fidelity(student, teacher))
