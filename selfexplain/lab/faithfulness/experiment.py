"""Run the lab over inputs: one JSON row per input, appended to ``results.jsonl`` (a
:class:`~selfexplain.support.progress_log.ProgressLog`) so a killed run resumes where it stopped (rows are keyed by
input index; a torn last line is dropped); ``run.json`` holds the settings a resumed run must share."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.instance import Instance
from selfexplain.data import Example
from selfexplain.errors import InvalidInputError
from selfexplain.lab.faithfulness import alpha_tests
from selfexplain.lab.faithfulness.metrics import kendall_tau, top_evidence
from selfexplain.lab.faithfulness.tokens import token_experiments
from selfexplain.lab.faithfulness.workers import analyse_in_workers
from selfexplain.methods.explainers import FAST_METHODS, METHODS, get_method, is_method
from selfexplain.methods.explainers.attention_rows import AttentionRowsMethod
from selfexplain.methods.explainers.occlusion import REMOVALS, Removal, predict_kept
from selfexplain.methods.explainers.random_baseline import instance_rng
from selfexplain.support.progress_log import ProgressLog, check_same_run, fingerprint, read_state, write_state

RESULTS_FILE = "results.jsonl"
RUN_FILE = "run.json"
Progress = Callable[[int, int], None]
# The default set (also the page's), the methods flagged ``fast``: alpha, attention, gradients, leave-one-out and
# two reference baselines. Opt-in: LIME and KernelSHAP (200 forward passes per input), integrated gradients (20),
# and captum's saliency, DeepLift, feature ablation and occlusion, which cover the ground of gradient,
# grad_x_input, loo. The CLI's default is the larger core set (selfexplain.methods.explainers.CORE_METHODS).
FAST_EXPLAINERS: tuple[str, ...] = FAST_METHODS


@dataclass(frozen=True)
class LabOptions:
    """``explainers``: registry names (default :data:`FAST_EXPLAINERS`; the slow ones are opt-in);
    ``removal``: delete (default) or mask; ``seed`` for the random explainer, random token and random
    span order; ``alpha_tests``: run the span-layer experiments (span-head models);
    ``permutations``/``adversarial_steps`` for those."""

    explainers: tuple[str, ...] = FAST_EXPLAINERS
    removal: Removal = "delete"
    seed: int = 0
    alpha_tests: bool = True
    permutations: int = 100
    adversarial_steps: int = 100
    top_tokens: int = 5
    extra: dict[str, str] = field(default_factory=dict)

    def check(self) -> None:
        unknown = [n for n in self.explainers if not is_method(n)]
        if unknown or not self.explainers:
            raise InvalidInputError(f"unknown explainers {unknown}; choose from {', '.join(METHODS)}")
        if self.removal not in REMOVALS:
            raise InvalidInputError(f"removal must be one of {', '.join(REMOVALS)}")


def analyse(explainer: SelfExplainer, example: Example, index: int, options: LabOptions) -> dict[str, object]:
    """Every metric for one input (target = the predicted class) -> one JSON-ready row. A single text
    longer than one encoder window is read in windows: it gets the methods that score windowed texts
    (the others are listed under ``skipped``) and the alpha tests without the attention comparisons."""
    instance = explainer.instance(example.text, example.pair)
    rng = instance_rng(options.seed, instance)
    methods = {name: get_method(name) for name in options.explainers}
    usable = {name: m for name, m in methods.items() if m.windows or not instance.windowed}
    scores = {name: method.attribute(explainer, instance) for name, method in usable.items()}
    random_token = int(rng.integers(instance.num_tokens))
    tokens = token_experiments(explainer, instance, scores, random_token, options.removal)
    names = list(scores)
    tau = {f"{a}|{b}": kendall_tau(scores[a], scores[b]) for i, a in enumerate(names) for b in names[i + 1 :]}
    row: dict[str, object] = {
        "index": index,
        "text": example.text,
        "pair": example.pair,
        "label": example.label,
        "predicted": instance.target,
        "probabilities": np.round(instance.probabilities, 6).tolist(),
        "tokens": instance.tokens,
        "offsets": [[token.start, token.end] for token in instance.explanation.tokens],
        "explainers": {
            name: {**tokens[name], "top": top_evidence(scores[name], options.top_tokens).tolist()} for name in names
        },
        "scores": {name: np.round(scores[name], 6).tolist() for name in names},
        "tau": {k: (None if np.isnan(v) else round(v, 6)) for k, v in tau.items()},
    }
    if instance.windowed:
        row["windows"] = list(instance.plan.window_starts)
        row["skipped"] = [name for name in methods if name not in usable]
    if options.alpha_tests and explainer.config.head == "span":
        row["alpha"] = _alpha_row(explainer, instance, rng, options)
    return row


def _alpha_row(
    explainer: SelfExplainer, instance: Instance, rng: np.random.Generator, options: LabOptions
) -> dict[str, object]:
    view = alpha_tests.span_view(explainer, instance)
    windowed = instance.windowed  # windows have no attention maps: no attention comparison there
    attention = np.zeros(instance.num_tokens) if windowed else AttentionRowsMethod().attribute(explainer, instance)
    # row 0 of each: the top alpha span, and the attention window of the same length
    alpha_k, attention_k = alpha_tests.top_span_masks(view, attention, instance.num_tokens)
    (start, end), (a_start, a_end) = (_ends(alpha_k[0]), _ends(attention_k[0]))
    only = np.stack([alpha_k[0]] if windowed else [alpha_k[0], attention_k[0]])
    removed = [~alpha_k] if windowed else [~alpha_k, ~attention_k]
    probs = predict_kept(explainer, instance, np.concatenate([only, *removed]), options.removal)
    target, k = instance.target, len(alpha_k)
    drops = instance.probabilities[target] - probs[len(only) :, target]  # [2 * k_max]: alpha spans, then attention
    row = {
        "four_way": alpha_tests.four_way(view, rng),
        **alpha_tests.permutation_test(view, rng, options.permutations),
        **alpha_tests.adversarial_alpha(view, options.adversarial_steps, seed=options.seed),
        "uniform_predicted": alpha_tests.uniform_prediction(view),
        "top_span": [start, end],
        "top_attention_span": None if windowed else [a_start, a_end],
        "top_span_predicted": int(probs[0].argmax()),
        "top_attention_span_predicted": None if windowed else int(probs[1].argmax()),
        "span_drop_alpha": float(drops[0]),
        "span_drop_attention": None if windowed else float(drops[k]),
        "span_drop_alpha_k": np.round(drops[:k], 6).tolist(),
        "span_drop_attention_k": None if windowed else np.round(drops[k:], 6).tolist(),
        "num_spans": int(view.alpha.shape[0]),
    }
    return {key: value for key, value in row.items() if value is not None}


def _ends(mask: np.ndarray) -> tuple[int, int]:
    """First and last True position of a contiguous ``[T]`` mask."""
    where = np.flatnonzero(mask)
    return int(where[0]), int(where[-1])


def run_lab(
    explainer: SelfExplainer,
    examples: Sequence[Example],
    options: LabOptions,
    out: Path | None = None,
    progress: Progress | None = None,
    workers: int = 1,
) -> list[dict[str, object]]:
    """Analyse every example (skipping those already in ``out/results.jsonl``); rows by index.

    ``workers > 1`` analyses in that many single-threaded processes
    (:mod:`selfexplain.lab.faithfulness.workers`; the model must have a folder); rows are the same.
    """
    options.check()
    done: dict[int, dict[str, object]] = {}
    log = None
    if out is not None:
        log = _resume(explainer, examples, options, out)
        done = {int(r["index"]): r for r in log.finished()}  # type: ignore[call-overload]
    todo = [(index, example) for index, example in enumerate(examples) if index not in done]
    finished = len(examples) - len(todo)
    if workers > 1 and len(todo) > 1:
        rows: Iterable[dict[str, object]] = analyse_in_workers(
            explainer, todo, options, min(workers, len(todo)), analyse
        )
    else:
        rows = (analyse(explainer, example, index, options) for index, example in todo)
    with log or contextlib.nullcontext():
        if progress is not None and finished:
            progress(finished, len(examples))
        for row in rows:
            done[int(row["index"])] = row  # type: ignore[call-overload]
            if log is not None:
                log.append([row])
            finished += 1
            if progress is not None:
                progress(finished, len(examples))
    return [done[i] for i in sorted(done) if i < len(examples)]


def _resume(explainer: SelfExplainer, examples: Sequence[Example], options: LabOptions, out: Path) -> ProgressLog:
    """The results log of ``out``, after checking that ``out`` holds no run with other settings (the
    inputs themselves are fingerprinted: another file of the same length must not resume this run)."""
    out.mkdir(parents=True, exist_ok=True)
    inputs = json.dumps([[e.text, e.pair, e.label] for e in examples]).encode("utf-8")
    settings = {
        "model": explainer.name,
        "precision": explainer.model.encoder_precision,
        "examples": len(examples),
        "inputs_sha256": fingerprint(inputs),
        **asdict(options),
    }
    settings["explainers"] = list(options.explainers)
    run_file = out / RUN_FILE
    remedy = "choose another --out folder"
    check_same_run(
        read_state(run_file, "the settings file", remedy, InvalidInputError),
        settings,
        str(out),
        remedy,
        InvalidInputError,
    )
    write_state(run_file, settings, indent=2)
    return ProgressLog(out / RESULTS_FILE)
