"""The training loop: AdamW with linear warm-up and decay, dev accuracy each epoch,
best checkpoint kept (with a model card), resumable after an interruption.

It runs through Hugging Face ``accelerate``: plain ``python`` on one CPU, or the
same command under ``accelerate launch`` for several GPUs or machines.

Output folder layout: ``best/`` (the best model by dev accuracy), ``last/`` (the
latest checkpoint with optimizer and random state, for resuming: each epoch's end and, with
``checkpoint_steps``, every so many steps within one), ``metrics.json``. A run resumed from ``last/``
ends exactly where the uninterrupted run would (with the eager span layer, ``fused=False``: the native
kernels sum in thread order, so fused runs agree to float rounding).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from tqdm.auto import tqdm
from transformers import PreTrainedTokenizerBase

from selfexplain.core.inputs import WindowSettings, plan_inputs
from selfexplain.core.modeling.checkpoint import atomic_directory, load_model_directory, save_model
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.encoders import load_tokenizer
from selfexplain.core.modeling.model import SelfExplainingModel
from selfexplain.core.modeling.model_card import card_from_training, write_model_card
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.data import Example
from selfexplain.errors import TrainingDivergedError
from selfexplain.methods.training.erasure_targets import with_own_effects
from selfexplain.methods.training.evaluation import predict_examples
from selfexplain.methods.training.objectives import (
    batch_effects,
    complement_loss,
    erasure_loss,
    removal_loss,
    sufficiency_loss,
    top_span_inputs,
)
from selfexplain.methods.training.warm_start import TeacherLoss, teacher_loss, teacher_targets, warm_start

STATE_TENSORS = "optimizer.safetensors"
STATE_JSON = "training_state.json"
RNG_STATE = "rng.safetensors"
# steps an epoch may skip for a non-finite gradient (or a tenth of its steps, if more) before training stops
MAX_SKIPPED_STEPS = 20


@dataclass(frozen=True)
class TrainOptions:
    epochs: int = 3
    batch_size: int = 32
    learning_rate: float = 3e-5
    head_learning_rate: float = 1e-3
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    seed: int = 42
    max_length: int = 128
    long_inputs: Literal["truncate", "windows"] = "truncate"
    freeze_word_embeddings: bool = True
    # encoder layers 1..n (and all embeddings) left as pretrained: no gradient, no optimizer state, no
    # backward pass through them, and nothing of theirs in a compact folder's delta
    freeze_layers: int = 0
    compact: bool = False
    progress: bool = True
    fused: bool = True  # the native span kernels (selfexplain.core.modeling.native_spans)
    # span-logit temperature at the first step, annealed geometrically to 1 over the first half of
    # training (1 = off): a sparse normaliser then starts dense and sharpens as the scores become reliable
    temperature_start: float = 1.0
    # weights of the auxiliary terms of selfexplain.methods.training.objectives (0 = off)
    complement_weight: float = 0.0
    sufficiency_weight: float = 0.0
    removal_weight: float = 0.0
    # two-stage training (selfexplain.methods.training.warm_start): the encoder starts from this fine-tuned model, and a
    # KL term pulls the predictions towards this teacher's probabilities at this temperature
    init_from: str | None = None
    teacher: str | None = None
    teacher_weight: float = 1.0
    teacher_temperature: float = 1.0
    # "kl": the temperature-scaled KL divergence; "mse": squared error between centred logits
    teacher_loss: TeacherLoss = "kl"
    # weight of the erasure term (selfexplain.methods.training.objectives.erasure_loss; 0 = off): span scores learn
    # the teacher's word-deletion effects, given by the caller (selfexplain distill --erasure-weight)
    erasure_weight: float = 0.0
    erasure_temperature: float = 0.05
    # from this epoch on (1-based; None = never) the erasure targets mix in the student's own word-deletion
    # effects at this share, read on each batch without gradient (training.erasure_targets.with_own_effects)
    own_erasure_epoch: int | None = None
    own_erasure_share: float = 1.0
    # the encoder's dropout rate while training (None: the rate in its own config); eval mode has none
    encoder_dropout: float | None = None
    # "bfloat16": the encoder runs under bf16 autocast (weights and optimizer stay float32): about 1.7x faster
    # on CPUs with bf16 instructions; the saved model runs in float32 unless asked otherwise
    encoder_precision: Literal["float32", "bfloat16"] = "float32"
    # also write last/ every this many steps within an epoch (0 = at epoch ends only)
    checkpoint_steps: int = 0
    # stop (after a checkpoint) once this invocation has taken this many steps; rerun to continue (0 = never)
    stop_after_steps: int = 0
    # "auto": the GPU when there is one, else the CPU
    device: Literal["auto", "cpu", "cuda"] = "auto"
    # which epoch best/ holds: "best" dev accuracy, or the "last" (a recipe whose final epoch is the point of
    # it, such as distill's own-erasure epoch, would otherwise lose it to an earlier, less selective epoch)
    keep: Literal["best", "last"] = "best"


def annealed_temperature(step: int, total: int, start: float) -> float:
    """``start ** (1 - step / (total / 2))`` for the first half of ``total`` steps, then 1."""
    if start == 1.0 or total <= 0:
        return 1.0
    progress = min(1.0, step / max(1.0, total / 2))
    return float(start ** (1.0 - progress))


def set_encoder_dropout(model: SelfExplainingModel, rate: float) -> int:
    """Set every dropout layer of ``model.encoder`` to ``rate``; returns how many were set. Only training
    sees the rate (it is not saved: the encoder config keeps its own)."""
    layers = [module for module in model.encoder.modules() if isinstance(module, torch.nn.Dropout)]
    for layer in layers:
        layer.p = rate
    return len(layers)


def freeze_lower_layers(model: SelfExplainingModel, count: int) -> int:
    """Stop gradients into the encoder's embeddings and its first ``count`` layers (0 = none); returns the
    number of parameters frozen. Layers are found by their module names (``...layer.3.``, ``h.3.``)."""
    if count <= 0:
        return 0
    frozen = 0
    for name, parameter in model.encoder.named_parameters():
        parts = name.split(".")
        index = next((int(p) for p in parts if p.isdecimal()), None)
        if "embeddings" in parts or (index is not None and index < count):
            parameter.requires_grad_(False)
            frozen += parameter.numel()
    return frozen


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def epoch_batches(examples: Sequence[Example], batch_size: int, seed: int) -> list[list[int]]:
    """Shuffled batches of similar length: shuffle, sort within pools of 50 batches, shuffle batches."""
    rng = random.Random(seed)
    order = list(range(len(examples)))
    rng.shuffle(order)
    pool = batch_size * 50
    batches: list[list[int]] = []
    for lo in range(0, len(order), pool):
        group = sorted(order[lo : lo + pool], key=lambda i: len(examples[i].text) + len(examples[i].pair or ""))
        batches.extend(group[i : i + batch_size] for i in range(0, len(group), batch_size))
    rng.shuffle(batches)
    return batches


def _optimizer(model: SelfExplainingModel, options: TrainOptions) -> torch.optim.AdamW:
    if options.freeze_word_embeddings:
        model.encoder.get_input_embeddings().weight.requires_grad_(False)
    freeze_lower_layers(model, options.freeze_layers)
    encoder = [p for p in model.encoder.parameters() if p.requires_grad]
    head = [p for n, p in model.named_parameters() if not n.startswith("encoder.")]
    return torch.optim.AdamW(
        [
            {"params": encoder, "lr": options.learning_rate, "base_lr": options.learning_rate},
            {"params": head, "lr": options.head_learning_rate, "base_lr": options.head_learning_rate},
        ],
        weight_decay=options.weight_decay,
    )


def _schedule(step: int, total: int, warmup: int) -> float:
    if step < warmup:
        return (step + 1) / max(1, warmup)
    return max(0.0, (total - step) / max(1, total - warmup))


def _save_state(directory: Path, optimizer: torch.optim.Optimizer, state: dict[str, object]) -> None:
    tensors = {}
    for index, values in optimizer.state_dict()["state"].items():
        for key, value in values.items():
            tensors[f"{index}.{key}"] = torch.as_tensor(value).contiguous()
    save_file(tensors, str(directory / STATE_TENSORS))
    (directory / STATE_JSON).write_text(json.dumps(state, indent=2), encoding="utf-8")


def _save_checkpoint(
    out: Path, core: SelfExplainingModel, tokenizer: PreTrainedTokenizerBase, optimizer: torch.optim.Optimizer,
    state: dict[str, object],
) -> None:  # fmt: skip
    """``out/last``: the model, optimizer state, ``state`` and the random state (atomically)."""
    with atomic_directory(out / "last") as staging:
        save_model(core, tokenizer, staging / "model")
        for item in (staging / "model").iterdir():
            item.rename(staging / item.name)
        (staging / "model").rmdir()
        save_file({"cpu": torch.get_rng_state()}, str(staging / RNG_STATE))
        _save_state(staging, optimizer, state)


def _load_state(directory: Path, optimizer: torch.optim.Optimizer) -> dict[str, object]:
    saved = optimizer.state_dict()
    tensors = load_file(str(directory / STATE_TENSORS))
    per_param: dict[int, dict[str, torch.Tensor]] = {}
    for key, value in tensors.items():
        index, name = key.split(".", 1)
        per_param.setdefault(int(index), {})[name] = value
    saved["state"] = per_param
    optimizer.load_state_dict(saved)
    return json.loads((directory / STATE_JSON).read_text(encoding="utf-8"))


def teacher_term(logits: torch.Tensor, targets: torch.Tensor, options: TrainOptions) -> torch.Tensor:
    """``options.teacher_weight`` times the distillation term for logits and teacher probabilities ``[B, C]``."""
    return options.teacher_weight * teacher_loss(logits, targets, options.teacher_loss, options.teacher_temperature)


def batch_loss(
    model: SelfExplainingModel,
    tokenizer: PreTrainedTokenizerBase,
    chunk: Sequence[Example],
    options: TrainOptions,
    device: torch.device,
    targets: torch.Tensor | None = None,
    effects: Sequence[torch.Tensor] | None = None,
    own_erasure: bool = False,
) -> torch.Tensor:
    """Mean loss over ``chunk``, each text tokenised once (:func:`~selfexplain.core.inputs.plan_inputs`). With
    ``long_inputs="windows"`` a single text longer than ``max_length`` tokens is read in windows (one
    forward each) instead of being cut. ``targets`` ``[len(chunk), C]``: a teacher's probabilities for the
    distillation term; ``effects``: per example, the teacher's word-deletion effects ``[N_i]`` over its
    tokens, for the erasure term (inputs cut to fit or read in windows take no part in it); with
    ``own_erasure`` they are mixed with the model's own effects, read first (``options.own_erasure_share``).
    Training runs its own model object, so it calls it here."""
    core = model.module if hasattr(model, "module") else model
    pairs = [e.pair or "" for e in chunk] if core.config.pair else None
    if own_erasure and effects is not None and core.span_layer is not None and options.erasure_weight:
        texts = [e.text for e in chunk]
        share = options.own_erasure_share
        effects = with_own_effects(core, tokenizer, texts, effects, share, options.max_length, pairs)
    windows = options.long_inputs == "windows" and not core.config.pair
    long = "windows" if windows else "truncate"
    plan = plan_inputs(
        tokenizer, [e.text for e in chunk], pairs, options.max_length, long, WindowSettings.of(core.config)
    )
    total = torch.zeros((), device=device)
    for indices, batch in plan.batches:
        labels = torch.tensor([chunk[i].label for i in indices], device=device)
        output = model(**batch.model_inputs(device), labels=labels)
        loss = output.loss
        if targets is not None and options.teacher_weight:
            loss = loss + teacher_term(output.logits, targets[indices].to(device), options)
        if core.span_layer is not None and options.complement_weight:
            loss = loss + options.complement_weight * complement_loss(core, output)
        if core.span_layer is not None and options.removal_weight:
            loss = loss + options.removal_weight * removal_loss(core, output)
        if core.span_layer is not None and options.erasure_weight and effects is not None:
            rows = batch_effects(
                [effects[i] for i in indices], batch.input_ids.shape[1], [i in plan.truncated for i in indices]
            )
            loss = loss + options.erasure_weight * erasure_loss(core, output, rows, options.erasure_temperature)
        if core.span_layer is not None and options.sufficiency_weight:
            texts = [chunk[i].text for i in indices]
            sides = [pairs[i] for i in indices] if pairs is not None else None
            reduced, reduced_pairs = top_span_inputs(batch, output, texts, sides)
            top = plan_inputs(
                tokenizer, reduced, reduced_pairs, options.max_length, "truncate", WindowSettings.of(core.config)
            )
            for rows, short in top.batches:
                logits = model(**short.model_inputs(device)).logits
                part = sufficiency_loss(output.logits[rows], logits) * len(rows) / len(indices)
                loss = loss + options.sufficiency_weight * part
        total = total + loss * len(indices)
    for index in sorted(plan.windows):
        label = torch.tensor([chunk[index].label], device=device)
        output = core.forward_windows(**plan.windows[index].model_inputs(device), labels=label)
        loss = output.loss
        if targets is not None and options.teacher_weight:
            loss = loss + teacher_term(output.logits, targets[index : index + 1].to(device), options)
        total = total + loss
    return total / len(chunk)


def train(
    config: ModelConfig,
    train_examples: Sequence[Example],
    dev_examples: Sequence[Example],
    out: Path,
    options: TrainOptions = TrainOptions(),
    sources: Mapping[str, str | int | float | bool | None] | None = None,
    teacher_probabilities: torch.Tensor | None = None,
    erasure_effects: Sequence[torch.Tensor] | None = None,
) -> dict[str, object]:
    """Train (or resume training) into ``out``; returns the metrics written to metrics.json
    (an empty dict on the other processes of an ``accelerate launch`` run). At the end ``OUT/best``
    gets a model card (``README.md``); ``sources`` adds what the caller knows about the data (the
    ``train`` and ``dev`` sources, the ``command`` line, options applied to the data).
    ``teacher_probabilities`` ``[E, C]``: the teacher's targets, already computed by the caller
    (``selfexplain distill``); then ``options.teacher`` only names the teacher. ``erasure_effects``: per
    training example, the teacher's word-deletion effects for ``options.erasure_weight``."""
    from accelerate import Accelerator

    if options.device == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: no CUDA GPU is visible to PyTorch here")
    accelerator = Accelerator(cpu=options.device == "cpu" or not torch.cuda.is_available())
    out = Path(out)
    seed_everything(options.seed)
    resume = (out / "last" / STATE_JSON).is_file()
    if resume:
        model, tokenizer = load_model_directory(out / "last")
        config = model.config
    else:
        tokenizer = load_tokenizer(config.encoder)
        model = SelfExplainingModel(config)
        if options.init_from:
            copied = warm_start(model, options.init_from)
            accelerator.print(f"warm start from {options.init_from}: {' and '.join(copied)} copied")
    if options.encoder_dropout is not None:
        set_encoder_dropout(model, options.encoder_dropout)
    targets = teacher_probabilities
    if options.teacher and targets is None:
        # computed before any training step (and again on resume: the teacher is fixed, so identically)
        targets = teacher_targets(
            options.teacher, train_examples, config.label_names, options.max_length, progress=options.progress
        ).probabilities
    model.set_fused(options.fused)
    model.set_encoder_precision(options.encoder_precision)
    optimizer = _optimizer(model, options)
    history: list[dict[str, float]] = []
    start_epoch, start_step, best, resumed = 0, 0, -1.0, {}
    if resume:
        resumed = _load_state(out / "last", optimizer)
        start_epoch, best = int(resumed["epoch"]), float(resumed["best_dev_accuracy"])
        start_step = int(resumed.get("step", 0))  # type: ignore[arg-type]
        history = list(resumed["history"])  # type: ignore[arg-type]
        where = f"step {start_step} of epoch {start_epoch + 1}" if start_step else f"epoch {start_epoch}"
        accelerator.print(f"resuming after {where} (best dev accuracy {best:.4f})")
    model, optimizer = accelerator.prepare(model, optimizer)
    steps_per_epoch = math.ceil(len(train_examples) / options.batch_size)
    total = steps_per_epoch * options.epochs
    warmup = int(total * options.warmup_ratio)
    core: SelfExplainingModel = accelerator.unwrap_model(model)
    taken = 0  # steps of this invocation
    for epoch in range(start_epoch, options.epochs):
        torch.manual_seed(options.seed + epoch)
        model.train()
        batches = epoch_batches(train_examples, options.batch_size, options.seed + epoch)
        shard = batches[accelerator.process_index :: accelerator.num_processes]
        first = start_step if epoch == start_epoch else 0
        running, skipped = 0.0, 0
        if first:
            running, skipped = float(resumed.get("running_loss", 0.0)), int(resumed.get("skipped", 0))  # type: ignore[arg-type]
            torch.set_rng_state(load_file(str(out / "last" / RNG_STATE))["cpu"])
        bar = tqdm(
            shard[first:],
            desc=f"epoch {epoch + 1}/{options.epochs}",
            initial=first,
            total=len(shard),
            disable=not (options.progress and accelerator.is_main_process),
        )
        for step, index in enumerate(bar, start=first):
            stop = bool(options.stop_after_steps) and taken >= options.stop_after_steps
            periodic = bool(options.checkpoint_steps) and step % options.checkpoint_steps == 0
            if step > first and (stop or periodic) and accelerator.is_main_process:
                mid = {"epoch": epoch, "step": step, "best_dev_accuracy": best, "history": history,
                       "running_loss": running, "skipped": skipped, "options": asdict(options)}  # fmt: skip
                _save_checkpoint(out, core, tokenizer, optimizer, mid)
            if stop:
                bar.close()
                accelerator.print(f"stopped after {taken} steps, at step {step} of epoch {epoch + 1}; rerun to go on")
                return {}
            taken += 1
            global_step = epoch * steps_per_epoch + step * accelerator.num_processes
            for group in optimizer.param_groups:
                group["lr"] = group["base_lr"] * _schedule(global_step, total, warmup)
            if core.span_layer is not None:
                core.span_layer.temperature = annealed_temperature(global_step, total, options.temperature_start)
            chunk = [train_examples[i] for i in index]
            chunk_targets = targets[index] if targets is not None else None
            chunk_effects = [erasure_effects[i] for i in index] if erasure_effects is not None else None
            own = options.own_erasure_epoch is not None and epoch + 1 >= options.own_erasure_epoch
            loss = batch_loss(model, tokenizer, chunk, options, accelerator.device, chunk_targets, chunk_effects, own)
            accelerator.backward(loss)
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            if not torch.isfinite(norm):
                # one NaN or inf step would poison every weight (and crash the next forward); the norm
                # is the same on every process after the all-reduce, so they all skip together
                optimizer.zero_grad(set_to_none=True)
                skipped += 1
                if skipped > max(MAX_SKIPPED_STEPS, steps_per_epoch // 10):
                    raise TrainingDivergedError(
                        f"training diverged: {skipped} steps of epoch {epoch + 1} had a non-finite loss or "
                        "gradient; lower --lr (and --head-lr) or the objective weights"
                    )
                continue
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            value = float(loss.detach())
            running = 0.98 * running + 0.02 * value if step else value
            bar.set_postfix(loss=f"{running:.3f}")
        if core.span_layer is not None:
            core.span_layer.temperature = 1.0  # evaluate and save as used at inference
        accelerator.wait_for_everyone()
        if not accelerator.is_main_process:
            continue
        core.set_encoder_precision("float32")  # dev accuracy as the saved model will run
        dev = predict_examples(
            SelfExplainer(core, tokenizer),
            dev_examples,
            progress=options.progress,
            description="dev",
            windows=options.long_inputs == "windows",
            max_length=options.max_length,
        )
        core.set_encoder_precision(options.encoder_precision)
        accuracy = float(dev.accuracy or 0.0)
        history.append({"epoch": epoch + 1, "dev_accuracy": accuracy, "train_loss": running, "skipped_steps": skipped})
        note = f" ({skipped} steps skipped: non-finite gradient)" if skipped else ""
        accelerator.print(f"epoch {epoch + 1}: dev accuracy {accuracy:.4f}{note}")
        if accuracy > best or options.keep == "last":
            best = accuracy  # the kept epoch's
            core.config.metrics = {"dev_accuracy": accuracy, "epoch": float(epoch + 1)}
            save_model(core, tokenizer, out / "best", compact=options.compact)
        state = {"epoch": epoch + 1, "step": 0, "best_dev_accuracy": best, "history": history,
                 "options": asdict(options)}  # fmt: skip
        _save_checkpoint(out, core, tokenizer, optimizer, state)
    if not accelerator.is_main_process:
        return {}  # under `accelerate launch` the main process evaluates, saves and reports
    metrics = {"best_dev_accuracy": best, "history": history, "options": asdict(options), "config": asdict(config)}
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2), encoding="utf-8")
    card = card_from_training(
        ModelConfig.load(out / "best"), asdict(options), sources, len(train_examples), len(dev_examples)
    )
    write_model_card(out / "best", card)
    return metrics
