"""One distillation run: the teacher labels the data once (cached in ``OUT/teacher.safetensors``), the
data is split (seeded) into training, dev and held-out inputs, the student trains on the teacher's
labels (cross-entropy towards its argmax) and probabilities (``--teacher-weight`` times the term
``--teacher-loss`` names in :func:`selfexplain.methods.training.warm_start.teacher_loss`: KL, or squared error
between centred logits) with the span head's usual terms, through
:func:`selfexplain.methods.training.loop.train` (progress bar, best checkpoint by dev agreement, resumable from
``OUT/last``; with ``--erasure-weight`` its span scores also learn the teacher's word-deletion effects,
cached in ``OUT/erasure.safetensors``), and its fidelity is measured on the held-out inputs it never
saw, and its alpha checked there for a carrier span (:mod:`selfexplain.lab.distill.carrier`).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file

from selfexplain.core.inputs.words import span_edge_ids
from selfexplain.core.pipeline import SelfExplainer, load_model
from selfexplain.data import Example
from selfexplain.errors import InvalidInputError
from selfexplain.lab.distill.carrier import CARRIER_INPUTS, TopSpanRepeat, top_span_repeat
from selfexplain.lab.distill.fidelity import (
    Fidelity,
    Splits,
    data_fingerprint,
    measure_fidelity,
    split_indices,
    teacher_labelled,
)
from selfexplain.lab.distill.offsets import LabelOffsets
from selfexplain.lab.distill.record import record_distillation
from selfexplain.lab.distill.teacher import (
    Teacher,
    read_teacher,
    student_start,
    teacher_fingerprint,
    teacher_probabilities,
)
from selfexplain.methods.training.loop import TrainOptions, train

TEACHER_CACHE = "teacher.safetensors"
ERASURE_CACHE = "erasure.safetensors"
SPLITS_FILE = "distill.json"


@dataclass(frozen=True)
class DistillResult:
    """What a run measured: fidelity on the held-out split and on the dev split; where the student is."""

    holdout: Fidelity
    dev: Fidelity
    student: Path
    teacher: Teacher
    splits: Splits
    alpha: TopSpanRepeat
    offsets: LabelOffsets | None = None


def stamped(path: Path, stamp: dict[str, str], before: dict[str, str]) -> bool:
    """Whether the cache at ``path`` holds ``stamp`` (the teacher keyed by its fingerprint,
    :func:`~selfexplain.lab.distill.teacher.teacher_fingerprint`) or ``before``: the same run's stamp as
    caches written before fingerprints had it, keyed by the teacher's folder."""
    from safetensors import safe_open

    with safe_open(str(path), "pt") as handle:
        saved = handle.metadata() or {}
    return saved in (stamp, before)


def cached_teacher_probabilities(
    teacher: Teacher, examples: Sequence[Example], out: Path, options: TrainOptions, fingerprint: str | None = None
) -> torch.Tensor:
    """The teacher's probabilities over all ``examples``: read from ``OUT/teacher.safetensors`` when it
    holds this teacher (``fingerprint``, computed when not given) on this data, else computed and written.
    A folder holding a run on other data or another teacher is refused (resuming it would mix two runs)."""
    path = out / TEACHER_CACHE
    fingerprint = fingerprint or teacher_fingerprint(teacher)
    stamp = {"teacher": fingerprint, "data": data_fingerprint(examples), "labels": json.dumps(teacher.label_names)}
    if path.is_file():
        if stamped(path, stamp, {**stamp, "teacher": teacher.location}):
            return load_file(str(path))["probabilities"]
        if (out / "last").exists():
            raise InvalidInputError(
                f"{out} holds a distill run with another teacher or other data; choose another --out"
            )
    probabilities = teacher_probabilities(teacher, examples, options.max_length, progress=options.progress)
    out.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{TEACHER_CACHE}.tmp")
    save_file({"probabilities": probabilities.contiguous()}, str(staging), metadata=stamp)
    staging.replace(path)
    return probabilities


def cached_erasure_effects(
    teacher: Teacher,
    encoder: str,
    examples: Sequence[Example],
    probabilities: torch.Tensor,
    out: Path,
    options: TrainOptions,
    rows: Sequence[int],
    apostrophes: str = "split",
    fingerprint: str | None = None,
) -> list[torch.Tensor]:
    """The teacher's word-deletion effects (:mod:`selfexplain.lab.distill.erasure`) over the examples of
    ``rows`` (the others get none: an empty tensor), read from ``OUT/erasure.safetensors`` when it holds
    them for this teacher, data, rows, student tokenizer and student words (``apostrophes``), else
    computed (one teacher pass per word of every text) and written."""
    from selfexplain.core.modeling.encoders import load_tokenizer
    from selfexplain.lab.distill.erasure import erasure_effects, pack, unpack

    path = out / ERASURE_CACHE
    fingerprint = fingerprint or teacher_fingerprint(teacher)
    # a Hugging Face teacher's folder is also the student's tokenizer: keyed by its fingerprint too
    tokenizer_key = fingerprint if encoder == teacher.location else encoder
    stamp = {"teacher": fingerprint, "data": data_fingerprint(examples), "tokenizer": tokenizer_key}
    stamp["max_length"] = str(options.max_length)
    if apostrophes != "split":  # caches written before the option stay valid for split words
        stamp["apostrophes"] = apostrophes
    stamp["rows"] = hashlib.sha256(json.dumps(sorted(rows)).encode()).hexdigest()
    before = {**stamp, "teacher": teacher.location, "tokenizer": encoder}
    if path.is_file() and stamped(path, stamp, before):
        return unpack(load_file(str(path)))
    tokenizer = load_tokenizer(encoder)
    chosen = sorted(rows)
    texts = [examples[i] for i in chosen]
    found = erasure_effects(
        teacher, tokenizer, texts, probabilities[chosen], options.max_length, options.progress, apostrophes
    )
    effects = [torch.zeros(0) for _ in examples]
    for row, effect in zip(chosen, found):
        effects[row] = effect
    staging = path.with_name(f".{ERASURE_CACHE}.tmp")
    save_file(pack(effects), str(staging), metadata=stamp)
    staging.replace(path)
    return effects


def _student_fidelity(
    explainer: SelfExplainer, examples: Sequence[Example], targets: torch.Tensor, options: TrainOptions
) -> Fidelity:
    from selfexplain.methods.training.evaluation import predict_examples

    predicted = predict_examples(
        explainer, examples, progress=options.progress, description="fidelity", max_length=options.max_length
    )
    return measure_fidelity(predicted.probabilities, targets)


def distill(
    teacher_source: str,
    examples: Sequence[Example],
    out: Path,
    student: dict[str, Any],
    options: TrainOptions | None = None,
    holdout: float = 0.1,
    dev: float = 0.05,
    encoder: str | None = None,
    sources: dict[str, str] | None = None,
    pretrained_encoder: bool = False,
    erasure_texts: int | None = None,
    label_offsets: bool = False,
) -> DistillResult:
    """Train a self-explaining surrogate of ``teacher_source`` on the texts of ``examples`` (their labels,
    if any, are ignored) into ``out``; ``student`` holds :class:`~selfexplain.core.modeling.config.ModelConfig` fields
    (head, normaliser, ...); ``pretrained_encoder``: the student's encoder keeps its published weights
    (see :func:`~selfexplain.lab.distill.teacher.student_start`); ``erasure_texts``: with
    ``options.erasure_weight``, how many training texts (a seeded choice) get the teacher's word-deletion
    effects (None: all; each costs one teacher pass per word); ``label_offsets``: after training, fit
    per-label offsets of the output bias on the dev split (:mod:`selfexplain.lab.distill.offsets`). Returns the
    fidelity measured on the held-out split."""
    from selfexplain.core.modeling.config import ModelConfig

    out = Path(out)
    options = options or TrainOptions()
    sources = dict(sources or {})
    teacher = read_teacher(teacher_source)
    print(f"teacher: {teacher.name} ({teacher.kind}, {teacher.family}; labels {', '.join(teacher.label_names)})")
    student_encoder, init_from, note = student_start(teacher, encoder, pretrained_encoder)  # may refuse: first
    print(note)
    pair = any(e.pair for e in examples)
    student = dict(student)
    edges = span_edge_ids(student_encoder, student.pop("span_edges", "any"))
    try:  # the student's options are checked by the config itself, before the teacher labels anything
        config = ModelConfig(
            encoder=student_encoder, label_names=list(teacher.label_names), pair=pair,
            segment_alpha=pair and student.get("head", "span") == "span", punctuation_ids=edges, **student,
        )  # fmt: skip
    except ValueError as err:
        raise InvalidInputError(f"the student: {err}") from err
    splits = split_indices(len(examples), holdout, dev, options.seed)
    fingerprint = teacher_fingerprint(teacher)
    probabilities = cached_teacher_probabilities(teacher, examples, out, options, fingerprint)
    labelled = teacher_labelled(examples, probabilities)
    effects = None
    if options.erasure_weight:
        rows = list(splits.train)
        if erasure_texts is not None and erasure_texts < len(rows):
            rows = random.Random(options.seed).sample(rows, erasure_texts)
        effects = cached_erasure_effects(
            teacher, student_encoder, examples, probabilities, out, options, rows, config.apostrophes, fingerprint
        )
        # the term's pull against a carrier token weakens as it reaches fewer texts (docs/surrogates.md)
        share = len(rows) / len(splits.train)
        print(f"erasure effects: {len(rows):,} of {len(splits.train):,} training texts ({share:.0%})")
    options = replace(options, init_from=init_from, teacher=teacher.source)
    (out / SPLITS_FILE).write_text(
        json.dumps({"seed": options.seed, "holdout": holdout, "dev": dev, **splits.__dict__}), encoding="utf-8"
    )
    data = sources.get("data", "the data")
    train_sources: dict[str, str | None] = {
        "train": f"{data}, labelled by the teacher",
        "dev": f"{data}, labelled by the teacher",
        "command": sources.get("command"),
    }
    pick = [labelled[i] for i in splits.train], [labelled[i] for i in splits.dev]
    train(
        config, pick[0], pick[1], out, options, train_sources,
        teacher_probabilities=probabilities[splits.train],
        erasure_effects=[effects[i] for i in splits.train] if effects is not None else None,
    )  # fmt: skip
    best = out / "best"
    offsets = None
    if label_offsets:
        from selfexplain.lab.distill.offsets import offset_student

        dev_inputs = [examples[i] for i in splits.dev]
        offsets = offset_student(
            best, dev_inputs, probabilities[splits.dev], options.max_length, options.progress, options.fused
        )
    student_model = load_model(str(best), fused=options.fused)  # loaded once for the three measurements
    held_out = [examples[i] for i in splits.holdout]
    held = _student_fidelity(student_model, held_out, probabilities[splits.holdout], options)
    chosen = _student_fidelity(student_model, [examples[i] for i in splits.dev], probabilities[splits.dev], options)
    if offsets is not None:
        print(offsets.describe(chosen))
    alpha = top_span_repeat(student_model, held_out[:CARRIER_INPUTS], progress=options.progress)
    parts = (
        ("train", f"{data}: {len(splits.train):,} inputs, labelled by the teacher"),
        ("dev", f"{data}: {len(splits.dev):,} inputs (checkpoint choice)"),
        ("held out", f"{data}: {len(splits.holdout):,} inputs, never trained on (fidelity)"),
    )
    location = Path(teacher.location)
    folder = str(location.resolve()) if location.is_dir() else ""
    command = sources.get("command", "selfexplain distill")
    record_distillation(best, teacher.name, held, chosen, parts, command, folder, alpha)
    return DistillResult(held, chosen, best, teacher, splits, alpha, offsets)
