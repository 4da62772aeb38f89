"""The teacher of a surrogate: what it is (a selfexplain folder or a Hugging Face sequence-classification
folder or Hub id), its encoder family, its label names, where a student starts, and its probabilities.

A teacher whose label count or family cannot be read is refused with one line
(:class:`~selfexplain.errors.InvalidInputError`) before anything is trained: a config without
``id2label``/``num_labels``, one that is not a single-label classifier (regression, multi-label), one
whose ``model_type`` transformers does not know, or one whose architecture has no classification head
(loading it as a classifier would give it a random one).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import torch

from selfexplain.data import Example
from selfexplain.errors import InvalidInputError

TeacherKind = Literal["selfexplain", "huggingface"]
# encoder config fields that must agree before a student's encoder takes the teacher's weights
SHAPE_FIELDS = ("hidden_size", "num_hidden_layers", "intermediate_size", "vocab_size", "n_embd", "n_layer")
# the files of a teacher folder its predictions depend on (besides its *.safetensors weights)
READ_FILES = ("config.json", "selfexplain.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt", "merges.txt")
RECORDS = ("metrics", "name")  # selfexplain.json fields that record a model, not what it computes


@dataclass(frozen=True)
class Teacher:
    """``source``: as given; ``location``: the folder (or Hub id) it loads from; ``family``: its encoder's
    ``model_type``; ``encoder``: what a student's encoder is built from by default (the teacher's own
    folder for a Hugging Face classifier, the base encoder of a selfexplain folder); ``warm_start``:
    whether the student then copies the teacher's fine-tuned encoder
    (:func:`selfexplain.methods.training.warm_start.warm_start`)."""

    source: str
    location: str
    kind: TeacherKind
    family: str
    label_names: tuple[str, ...]
    encoder: str
    name: str
    encoder_config: dict[str, Any]

    @property
    def warm_start(self) -> bool:
        return self.kind == "selfexplain"


def config_dict(source: str, what: str) -> dict[str, Any]:
    """The raw ``config.json`` of a folder or Hub id, as written (no defaults filled in)."""
    from transformers import PretrainedConfig

    from selfexplain.core.modeling.encoders import hub_allowed, resolve_encoder

    local = resolve_encoder(source)  # a packaged alias (all-MiniLM-L6-v2) names a folder on this machine
    if not Path(local).is_dir() and not hub_allowed():
        raise InvalidInputError(f"{what} {source}: no such folder (Hub ids need the Hub allowed)")
    try:
        raw, _ = PretrainedConfig.get_config_dict(local, local_files_only=not hub_allowed(), trust_remote_code=False)
    except (OSError, ValueError, json.JSONDecodeError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InvalidInputError(f"{what} {source}: its config.json cannot be read ({first})") from None
    if not isinstance(raw, dict):
        raise InvalidInputError(f"{what} {source}: its config.json is not a JSON object")
    return raw


def _family(raw: dict[str, Any], source: str) -> str:
    from transformers import CONFIG_MAPPING

    family = raw.get("model_type")
    if not isinstance(family, str) or family not in CONFIG_MAPPING:
        shown = "no model_type" if family is None else f"model_type {family!r}"
        raise InvalidInputError(f"--teacher {source}: its family cannot be read ({shown} in config.json)")
    return family


def _hf_label_names(raw: dict[str, Any], source: str) -> tuple[str, ...]:
    problem = raw.get("problem_type")
    if problem not in (None, "single_label_classification"):
        raise InvalidInputError(f"--teacher {source}: a {problem} model; a surrogate needs a single-label classifier")
    architectures = raw.get("architectures") or []
    if not isinstance(architectures, list) or not any(
        isinstance(a, str) and a.endswith("ForSequenceClassification") for a in architectures
    ):
        shown = ", ".join(map(str, architectures)) if isinstance(architectures, list) and architectures else "none"
        raise InvalidInputError(f"--teacher {source}: not a sequence-classification model (architectures: {shown})")
    id2label = raw.get("id2label")
    count = raw.get("num_labels")
    if isinstance(id2label, dict) and id2label:
        try:
            by_index = {int(k): str(v) for k, v in id2label.items()}
        except (TypeError, ValueError):
            by_index = {}
        if sorted(by_index) == list(range(len(by_index))):
            names = tuple(by_index[i] for i in range(len(by_index)))
            if len(set(names)) == len(names) and len(names) >= 2:
                return names
    elif isinstance(count, int) and not isinstance(count, bool) and count >= 2:
        return tuple(f"LABEL_{i}" for i in range(count))
    raise InvalidInputError(
        f"--teacher {source}: its label count cannot be read (config.json needs id2label for 0..N-1 "
        "with distinct names, or num_labels, with 2 labels or more)"
    )


def read_teacher(source: str) -> Teacher:
    """Read and check the teacher named by ``source`` (refused in one line when it cannot be used)."""
    from selfexplain.methods.training.warm_start import is_selfexplain_folder

    if is_selfexplain_folder(source):
        from selfexplain.core.modeling.checkpoint import ENCODER_CONFIG_DIR
        from selfexplain.core.modeling.config import ModelConfig
        from selfexplain.core.modeling.model_folders import resolve_model

        folder = resolve_model(source)
        try:
            config = ModelConfig.load(folder)
        except (OSError, ValueError) as err:
            raise InvalidInputError(f"--teacher {source}: its selfexplain.json cannot be read ({err})") from None
        saved = folder / ENCODER_CONFIG_DIR  # a full folder keeps its encoder's config
        raw = config_dict(str(saved) if (saved / "config.json").is_file() else config.encoder, "--teacher")
        return Teacher(
            source, str(folder), "selfexplain", _family(raw, source), tuple(config.label_names), config.encoder,
            config.name or folder.name, raw,
        )  # fmt: skip
    path = Path(source).expanduser()
    location = str(path.resolve()) if path.is_dir() else source
    if path.is_dir() and not (path / "config.json").is_file():
        raise InvalidInputError(f"--teacher {source}: no config.json; not a selfexplain or Hugging Face folder")
    raw = config_dict(location, "--teacher")
    family, names = _family(raw, source), _hf_label_names(raw, source)
    name = path.name if path.is_dir() else source
    return Teacher(source, location, "huggingface", family, names, location, name, raw)


def student_start(teacher: Teacher, encoder: str | None, pretrained: bool = False) -> tuple[str, str | None, str]:
    """The student's encoder, the folder its encoder weights are copied from (or None) and a line saying
    so. Without ``encoder`` the student takes the teacher's own encoder; with one of the same family and
    shape it copies the teacher's fine-tuned weights into it; otherwise it starts from ``encoder`` as is.
    ``pretrained``: never copy the teacher's weights (a fine-tuned encoder spreads the label into every
    token, so alpha can sit anywhere; docs/accuracy.md); the student starts from ``encoder``, or from a
    selfexplain teacher's base encoder, as published."""
    if pretrained:
        if encoder is None and not teacher.warm_start:
            raise InvalidInputError(
                "--pretrained-encoder needs --encoder with a Hugging Face teacher: its folder holds only "
                "fine-tuned weights"
            )
        chosen = encoder or teacher.encoder
        return chosen, None, f"student encoder: {chosen}, its own pretrained weights (none from the teacher)"
    if encoder is None:
        if teacher.warm_start:  # recorded as named (a shipped name, the user's path), not as this machine resolves it
            return teacher.encoder, teacher.source, f"student encoder: {teacher.encoder}, weights from the teacher"
        return teacher.encoder, None, "student encoder: the teacher's own (its fine-tuned weights)"
    raw = config_dict(encoder, "--encoder")
    same_shape = all(raw.get(key) == teacher.encoder_config.get(key) for key in SHAPE_FIELDS)
    if raw.get("model_type") == teacher.family and same_shape:
        return encoder, teacher.location, f"student encoder: {encoder}, weights from the teacher (same family)"
    return encoder, None, f"student encoder: {encoder} as it is (the teacher is a {teacher.family} of another shape)"


def teacher_probabilities(
    teacher: Teacher,
    examples: Sequence[Example],
    max_length: int = 128,
    batch_size: int = 64,
    progress: bool = True,
    description: str = "teacher",
) -> torch.Tensor:
    """The teacher's class probabilities ``[E, C]`` over ``examples``, in its own label order (a progress
    bar by batch, named ``description``)."""
    from selfexplain.methods.training.warm_start import teacher_targets

    labels = list(teacher.label_names)
    targets = teacher_targets(teacher.location, examples, labels, max_length, batch_size, progress, description)
    return targets.probabilities.float()


def teacher_fingerprint(teacher: Teacher) -> str:
    """What caches of the teacher's outputs are keyed by: SHA-256 over the files of its folder that its
    predictions depend on (weights, configs, tokenizer; ``selfexplain.json`` less its recorded metrics and
    name), so a moved or copied checkout keeps its caches and a retrained teacher does not. A Hub id (no
    folder here) as named."""
    folder = Path(teacher.location)
    if not folder.is_dir():
        return teacher.location
    digest = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        if not path.is_file() or (path.suffix != ".safetensors" and path.name not in READ_FILES):
            continue
        if path.name == "selfexplain.json":
            raw = json.loads(path.read_text(encoding="utf-8"))
            kept = {key: value for key, value in raw.items() if key not in RECORDS}
            part = hashlib.sha256(json.dumps(kept, sort_keys=True).encode("utf-8"))
        else:
            with path.open("rb") as handle:
                part = hashlib.file_digest(handle, "sha256")
        digest.update(path.name.encode("utf-8") + b"\0" + part.digest())
    return "sha256:" + digest.hexdigest()
