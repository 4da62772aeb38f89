"""``selfexplain`` command line: train, eval, explain. Thin: parse, call, print.

Exit codes: 0 on success, 2 with a one-line message on bad input.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shlex
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from selfexplain.cli_support import (
    LABELLED_DATA_HELP,
    add_apostrophes_option,
    add_data_columns,
    add_fused_option,
    add_max_chars_option,
    add_run_options,
    add_selectivity_terms,
    add_span_edges_option,
    check_selectivity_terms,
    read_model_examples,
    run_options,
)
from selfexplain.core.modeling.normalisers import DEFAULT_NORMALISER, normaliser_names
from selfexplain.errors import USER_ERRORS
from selfexplain.support.limits import max_chars_setting, read_limited_text
from selfexplain.support.malloc_tuning import fix_mmap_threshold
from selfexplain.support.terminal import printable, say, warning_line

if TYPE_CHECKING:  # the document and data modules load numpy: keep them off the start-up
    from selfexplain.core.results.document import Document
    from selfexplain.data import Example


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="selfexplain", description="Self-explaining text classifiers.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True)

    train = commands.add_parser("train", help="train a model (resumes if OUT holds an interrupted run)")
    train.add_argument("--encoder", default="all-MiniLM-L6-v2", help="encoder folder, packaged alias or Hub id")
    train.add_argument("--train", required=True, help=f"training data: {LABELLED_DATA_HELP}")
    train.add_argument("--dev", required=True, help=f"dev data: {LABELLED_DATA_HELP}")
    train.add_argument("--out", required=True, type=Path, help="output folder")
    train.add_argument("--labels", default=None, help="comma-separated label names, in label-index order")
    train.add_argument("--name", default="", help="model name shown in the app")
    train.add_argument("--head", choices=["span", "cls", "mean"], default="span", help="span = self-explaining")
    train.add_argument("--span-representation", choices=["sic", "mean"], default="sic")
    train.add_argument("--encoder-layer", type=int, default=-1, help="hidden-state index feeding the span layer")
    train.add_argument("--max-span-width", type=int, default=None)
    train.add_argument(
        "--span-length-prior", type=float, default=0.0, metavar="P",
        help="taken from each span's score per piece beyond the first: favours short spans (0 = off)",
    )  # fmt: skip
    train.add_argument(
        "--span-unit", choices=["word", "piece"], default="word",
        help="word: spans start and end on word boundaries (default); piece: any sub-word piece",
    )  # fmt: skip
    add_apostrophes_option(train)
    add_span_edges_option(train)
    train.add_argument(
        "--normaliser", choices=normaliser_names(), default=DEFAULT_NORMALISER,
        help="map from span scores to alpha; sparsemax and entmax15 give alpha true zeros",
    )  # fmt: skip
    train.add_argument("--lambda", dest="lambda_", type=float, default=1.0, help="sparsity weight of sum(alpha^2)")
    train.add_argument(
        "--anneal-temperature", type=float, default=1.0, metavar="T0",
        help="divide span scores by T0 at the start and anneal to 1 over the first half (1 = off)",
    )  # fmt: skip
    add_selectivity_terms(train)
    train.add_argument(
        "--init-from", default=None, metavar="DIR",
        help="start the encoder from this fine-tuned model (selfexplain or Hugging Face folder; two-stage training)",
    )  # fmt: skip
    train.add_argument(
        "--teacher", default=None, metavar="DIR",
        help="distil: add a KL term towards this model's probabilities (selfexplain or HF classification folder)",
    )  # fmt: skip
    train.add_argument("--teacher-weight", type=float, default=1.0, metavar="W", help="weight of the KL term")
    train.add_argument("--teacher-temperature", type=float, default=1.0, metavar="T", help="KL temperature")
    train.add_argument(
        "--teacher-loss", choices=["kl", "mse"], default="kl",
        help="distillation term: KL at --teacher-temperature, or squared error between centred logits",
    )  # fmt: skip
    train.add_argument(
        "--pair-alpha", choices=["per-segment", "joint"], default="per-segment",
        help="pair models: one alpha over premise spans and one over hypothesis spans (default), or one over both",
    )  # fmt: skip
    train.add_argument("--epochs", type=int, default=3)
    train.add_argument("--batch-size", type=int, default=32)
    train.add_argument("--lr", type=float, default=3e-5, help="encoder learning rate")
    train.add_argument("--head-lr", type=float, default=1e-3, help="learning rate of the span and output layers")
    train.add_argument("--max-length", type=int, default=128, help="truncate training inputs to this many tokens")
    train.add_argument(
        "--long-inputs",
        choices=["truncate", "windows"],
        default="truncate",
        help="texts over --max-length tokens: cut them, or read them in overlapping windows",
    )
    train.add_argument("--window-stride", type=int, default=256, help="tokens between window starts")
    train.add_argument(
        "--uniform-alpha",
        action="store_true",
        help="fix alpha to the uniform distribution over spans (the paper's AvgSelf-Explaining baseline)",
    )
    train.add_argument(
        "--shuffle-words",
        action="store_true",
        help="shuffle the words of every training text (seeded; dev data is left as is), to test word-order reliance",
    )
    train.add_argument(
        "--phrases",
        action="store_true",
        help="SST tree files: train on every unique labelled phrase as well as the sentences",
    )
    train.add_argument("--min-phrase-words", type=int, default=1, help="shortest phrase kept by --phrases")
    train.add_argument("--seed", type=int, default=42)
    add_run_options(train)
    train.add_argument("--compact", action="store_true", help="save best/ as a delta against the encoder (small)")
    train.add_argument("--no-progress", action="store_true")
    add_data_columns(train)
    add_fused_option(train)

    evaluate = commands.add_parser("eval", help="accuracy of a model on a labelled file")
    evaluate.add_argument("--model", default=None, help="shipped model name or model folder")
    evaluate.add_argument("--data", required=True, help=f"labelled data: {LABELLED_DATA_HELP}")
    evaluate.add_argument("--predictions", type=Path, default=None, help="write per-example predictions (JSONL)")
    evaluate.add_argument(
        "--record", action="store_true", help="store the accuracy as test_accuracy in the model folder's config"
    )
    evaluate.add_argument("--batch-size", type=int, default=64)
    evaluate.add_argument("--no-progress", action="store_true")
    add_data_columns(evaluate)
    add_fused_option(evaluate)
    add_max_chars_option(evaluate)

    explain = commands.add_parser("explain", help="explain one input")
    explain.add_argument("text", nargs="?", default=None, help="the text; - reads it from standard input")
    explain.add_argument("--file", type=Path, default=None, help="read the text from this UTF-8 file")
    explain.add_argument("--pair", default=None, help="second text (hypothesis) for pair models")
    explain.add_argument("--model", default=None, help="shipped model name or model folder")
    explain.add_argument(
        "--top-k", type=int, default=10, metavar="K",
        help="spans to list, best first, never one with alpha 0 (no weight, no rank); 0 lists every valid span "
        "in the JSON, alpha-0 spans too (last, with rank 0)",
    )  # fmt: skip
    explain.add_argument("--json", action="store_true", help="print the Explanation as JSON")
    explain.add_argument("--attentions", action="store_true", help="include attention maps in the JSON")
    add_max_chars_option(explain)
    for module in feature_command_modules():
        module.add_command(commands)
    return parser


def feature_command_modules() -> list[ModuleType]:
    """Every feature's ``cli.py`` (``selfexplain/<feature>/cli.py`` or ``selfexplain/<floor>/<feature>/cli.py``,
    in feature-name order): each registers its subcommands with ``add_command(subparsers)`` and sets
    ``handler=`` on them (keep imports there lazy)."""
    import selfexplain

    # look before importing: importing a package without a cli.py (explainers) would load torch
    found = {
        ".".join(path.relative_to(root).with_suffix("").parts)
        for root in map(Path, selfexplain.__path__)
        for path in [*root.glob("*/cli.py"), *root.glob("*/*/cli.py")]
    }
    modules = []
    for relative in sorted(found, key=lambda name: name.split(".")[-2]):
        name = f"selfexplain.{relative}"
        try:
            modules.append(importlib.import_module(name))
        except ModuleNotFoundError as err:
            if err.name != name:
                raise
    return modules


def _label_names(text: str | None) -> list[str] | None:
    return [name.strip() for name in text.split(",")] if text else None


def run_train(args: argparse.Namespace) -> int:
    from selfexplain.core.inputs.words import span_edge_ids
    from selfexplain.core.modeling.config import ModelConfig
    from selfexplain.errors import InvalidInputError
    from selfexplain.methods.training.loop import TrainOptions, train

    if not args.anneal_temperature > 0:
        raise InvalidInputError("--anneal-temperature must be above 0 (1 switches annealing off)")
    check_selectivity_terms(args)
    if args.teacher_weight < 0 or not args.teacher_temperature > 0:
        raise InvalidInputError("--teacher-weight must be 0 or above and --teacher-temperature above 0")
    names = _label_names(args.labels)
    train_examples = read_model_examples(
        args, args.train, names, split="train", phrases=args.phrases, min_phrase_words=args.min_phrase_words
    )
    if args.shuffle_words:
        from selfexplain.lab.anatomy.perturb import shuffled_examples

        train_examples = shuffled_examples(train_examples, args.seed)
    dev_examples = read_model_examples(args, args.dev, names, split="validation")
    if names is None:
        count = 1 + max(int(e.label or 0) for e in [*train_examples, *dev_examples])
        names = [str(i) for i in range(count)]
    pair = args.pair_column is not None or any(e.pair for e in train_examples)
    try:  # ModelConfig checks every field once (as distill's student): a bad value is refused in one line
        config = ModelConfig(
            encoder=args.encoder,
            label_names=names,
            pair=pair,
            head=args.head,
            span_representation=args.span_representation,
            encoder_layer=args.encoder_layer,
            max_span_width=args.max_span_width,
            span_unit=args.span_unit,
            apostrophes=args.apostrophes,
            punctuation_ids=span_edge_ids(args.encoder, args.span_edges),
            normaliser=args.normaliser,
            span_length_prior=args.span_length_prior,
            segment_alpha=pair and args.head == "span" and args.pair_alpha == "per-segment",
            lambda_=args.lambda_,
            uniform_alpha=args.uniform_alpha,
            window_stride=args.window_stride,
            # a model trained on windows reads long texts in windows of the same size at inference
            max_length=args.max_length if args.long_inputs == "windows" else 512,
            name=args.name or Path(args.out).name,
        )
    except ValueError as err:
        raise InvalidInputError(f"the model: {err}") from err
    options = TrainOptions(
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.lr,
        head_learning_rate=args.head_lr,
        seed=args.seed,
        max_length=args.max_length,
        long_inputs=args.long_inputs,
        compact=args.compact,
        **run_options(args),
        progress=not args.no_progress,
        fused=not args.no_fused,
        temperature_start=args.anneal_temperature,
        complement_weight=args.complement_weight,
        sufficiency_weight=args.sufficiency_weight,
        removal_weight=args.removal_weight,
        init_from=args.init_from,
        teacher=args.teacher,
        teacher_weight=args.teacher_weight,
        teacher_temperature=args.teacher_temperature,
        teacher_loss=args.teacher_loss,
    )
    sources = {"train": args.train, "dev": args.dev, "command": shlex.join(["selfexplain", *args.argv])}
    if args.phrases:
        sources.update(phrases=True, min_phrase_words=args.min_phrase_words)
    if args.shuffle_words:
        sources["shuffle_words"] = True
    metrics = train(config, train_examples, dev_examples, args.out, options, sources)
    if metrics:  # empty on the non-main processes of a multi-process run
        print(f"best dev accuracy {metrics['best_dev_accuracy']:.4f}; model in {Path(args.out) / 'best'}")
    return 0


def run_eval(args: argparse.Namespace) -> int:
    from selfexplain.core.pipeline import load_model
    from selfexplain.methods.training.evaluation import predict_examples
    from selfexplain.support.output_paths import check_output

    if args.predictions is not None:
        check_output(args.predictions)  # before the run: never a device, FIFO or link

    explainer = load_model(args.model, fused=not args.no_fused)
    config = explainer.model.config
    examples = read_model_examples(args, args.data, config.label_names)
    check_lengths(examples, str(args.data))
    result = predict_examples(explainer, examples, args.batch_size, not args.no_progress, windows=True)
    if args.predictions is not None:
        args.predictions.parent.mkdir(parents=True, exist_ok=True)
        with args.predictions.open("w", encoding="utf-8") as handle:
            for example, probs, predicted in zip(examples, result.probabilities, result.predicted):
                row = {
                    "text": example.text,
                    "pair": example.pair,
                    "gold": config.label_names[example.label] if example.label is not None else None,
                    "predicted": config.label_names[int(predicted)],
                    "probabilities": dict(zip(config.label_names, map(float, probs))),
                }
                handle.write(json.dumps(row) + "\n")
    accuracy = result.accuracy
    summary = {"model": config.name, "data": str(args.data), "examples": len(examples), "accuracy": accuracy}
    if args.record and accuracy is not None and explainer.directory is not None:
        config.metrics = {**config.metrics, "test_accuracy": accuracy, "test_examples": float(len(examples))}
        config.save(explainer.directory)
        from selfexplain.core.modeling.model_card import record_evaluation

        record_evaluation(explainer.directory, config, str(args.data))
    print(json.dumps(summary))
    return 0


def run_explain(args: argparse.Namespace) -> int:
    from selfexplain.core.pipeline import load_model
    from selfexplain.errors import InvalidInputError

    if (args.text is None) == (args.file is None):
        raise InvalidInputError("give the text to explain, - for standard input, or --file PATH (one of them)")
    if args.top_k < 0:
        raise InvalidInputError("--top-k must be 0 (every span) or more")
    if args.file is not None:  # bounded reads: at most the character limit plus one chunk
        with args.file.open("rb") as handle:
            text = read_limited_text(handle, str(args.file))
    elif args.text == "-":
        text = read_limited_text(sys.stdin.buffer, "standard input")
    else:
        text = args.text
    explainer = load_model(args.model)
    explainer.check_input(text, args.pair)
    top_k = None if args.top_k == 0 else args.top_k
    if args.pair is None and explainer.window_count(text) > 1:  # a long text stays sparse: a Document
        return print_document(explainer.explain_document(text), top_k, args.json)
    explanation = explainer.explain(text, pair=args.pair, attentions=args.attentions)
    if args.json:
        data = explanation.to_dict(top_k=top_k, attentions=args.attentions)
        if explanation.windows is None:  # the certificate needs the input in one encoder window
            from selfexplain.lab.faithfulness.flip import flip_certificate

            certificate = flip_certificate(explainer, text, args.pair)
            data["flip"] = certificate.to_dict() if certificate is not None else None
        print(json.dumps(data))
        return 0
    probs = ", ".join(f"{n} {p:.3f}" for n, p in zip(explanation.label_names, explanation.probabilities))
    say(f"{explanation.label}  ({probs})")
    listed = explanation.top_spans(top_k)
    shown = [span for span in listed if span.alpha > 0]  # a sparse alpha's zeros say nothing
    for rank, span in enumerate(shown, start=1):
        say(f"{rank:>3}. {span.alpha:.4f}  {printable(span.text, lines=False)}")
    if len(shown) < len(listed):
        print(f"     (every other span has alpha 0: {int(explanation.span_mask.sum()) - len(shown):,} spans)")
    return 0


def print_document(document: Document, top_k: int | None, as_json: bool) -> int:
    """A long text's prediction and top spans, as text or as the JSON of a windowed Explanation."""
    if as_json:
        print(json.dumps({**document.to_dict(top_k=top_k), "flip": None}))  # no certificate across windows
        return 0
    probs = ", ".join(f"{n} {p:.3f}" for n, p in zip(document.label_names, document.probabilities))
    say(f"{document.label}  ({probs})  read in {len(document.window_starts)} windows")
    listed = document.top_spans(top_k)
    shown = [span for span in listed if span.alpha > 0]
    for rank, span in enumerate(shown, start=1):
        say(f"{rank:>3}. {span.alpha:.4f}  {printable(span.text, lines=False)}")
    if len(shown) < len(listed):
        print(f"     (every other span has alpha 0: {document.num_spans - len(shown):,} spans)")
    return 0


def check_lengths(examples: Sequence[Example], source: str) -> None:
    """Refuse a data file holding a text over the character limit (``--max-chars``), naming the example."""
    from selfexplain.errors import InvalidInputError
    from selfexplain.support.limits import limit_hint, max_input_chars

    limit = max_input_chars()
    for number, example in enumerate(examples, start=1):
        longest = max(len(example.text), len(example.pair or ""))
        if longest > limit:
            raise InvalidInputError(
                f"{source}: example {number} has {longest:,} characters; the limit is {limit:,} ({limit_hint()})"
            )


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("selfexplain")
    except PackageNotFoundError:
        return "unknown (not installed)"


def undecodable_argument(argv: Sequence[str]) -> int | None:
    """The 1-based position of the first argument that is not valid UTF-8 (Python keeps such bytes as
    lone surrogates, which no tokenizer or file accepts), or None."""
    for position, value in enumerate(argv, start=1):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return position
    return None


def main(argv: Sequence[str] | None = None) -> int:
    bad = undecodable_argument(sys.argv[1:] if argv is None else argv)
    if bad is not None:
        print(f"selfexplain: error: argument {bad} is not valid UTF-8 text", file=sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the command line, for model cards
    fix_mmap_threshold()
    warnings.formatwarning = warning_line  # one sanitised line: no source path, no line of code
    handlers = {"train": run_train, "eval": run_eval, "explain": run_explain}
    handler = handlers.get(args.command) or args.handler
    try:
        with max_chars_setting(getattr(args, "max_chars", None)):
            return int(handler(args))
    except USER_ERRORS as err:
        say(f"selfexplain: error: {printable(err, lines=False)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("selfexplain: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
