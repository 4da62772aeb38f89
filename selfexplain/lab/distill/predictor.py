"""A teacher loaded once and asked again and again (the Explain page checks each input against it), and
where a surrogate's teacher is: the folder its model card records, when it is on this machine."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from selfexplain.core.modeling.model_card import ModelCard
from selfexplain.data import Example
from selfexplain.lab.distill.teacher import Teacher, read_teacher


class TeacherPredictor:
    """The teacher's class probabilities for given inputs, in its own label order; the model is loaded
    once (a selfexplain folder through :func:`~selfexplain.core.pipeline.load_model`, a Hugging Face folder
    as a sequence-classification model, safetensors only)."""

    def __init__(self, teacher: Teacher) -> None:
        self.teacher = teacher
        self._explainer = None
        self._model: torch.nn.Module | None = None
        self._tokenizer = None
        if teacher.kind == "selfexplain":
            from selfexplain.core.pipeline import load_model

            self._explainer = load_model(teacher.location)
        else:
            from selfexplain.methods.training.warm_start import load_hf_classifier

            self._model, self._tokenizer = load_hf_classifier(teacher.location)

    @property
    def label_names(self) -> tuple[str, ...]:
        return self.teacher.label_names

    def probabilities(self, examples: Sequence[Example], max_length: int = 512) -> np.ndarray:
        """``[E, C]`` probabilities of ``examples`` (inputs over ``max_length`` tokens are cut)."""
        if self._explainer is not None:
            from selfexplain.methods.training.evaluation import predict_examples

            return predict_examples(self._explainer, examples, progress=False, windows=True).probabilities
        from selfexplain.methods.training.warm_start import hf_probabilities

        assert self._model is not None and self._tokenizer is not None
        return hf_probabilities(self._model, self._tokenizer, examples, max_length).numpy()


def teacher_location(card: ModelCard | None, allowed: Sequence[Path] | None = None) -> str | None:
    """The local folder of a surrogate's teacher as its card records it (``teacher_folder``, else the
    ``teacher`` option), when that folder exists on this machine; None otherwise. ``allowed``: only a
    folder inside one of these (a shared deployment loads models from its models folders only)."""
    if card is None or not card.surrogate_of:
        return None
    recipe = dict(card.recipe)
    for key in ("teacher_folder", "teacher"):
        value = recipe.get(key)
        if not isinstance(value, str) or not value:
            continue
        path = Path(value).expanduser()
        if not path.is_dir():
            continue
        if allowed is not None:
            resolved = path.resolve()
            if not any(resolved.is_relative_to(Path(root).resolve()) for root in allowed):
                continue
        return str(path)
    return None


def load_teacher(location: str) -> TeacherPredictor:
    """Read, check and load the teacher at ``location`` (refused in one line like ``distill --teacher``)."""
    return TeacherPredictor(read_teacher(location))
