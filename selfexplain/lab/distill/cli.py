"""``selfexplain distill`` (train a self-explaining surrogate of a classifier), ``selfexplain fidelity``
(measure how closely a surrogate follows its teacher on any file) ``selfexplain review-sentences``
(unlabelled in-domain text from the movie reviews) and ``selfexplain augment-texts`` (word-dropout variants). Found by
:func:`selfexplain.cli.feature_command_modules`; imports stay inside the handlers."""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any

from selfexplain.cli_support import (
    add_apostrophes_option,
    add_data_columns,
    add_fused_option,
    add_run_options,
    add_selectivity_terms,
    add_span_edges_option,
    check_selectivity_terms,
    run_options,
)
from selfexplain.core.formats.text import TXT_HELP
from selfexplain.core.modeling.normalisers import DEFAULT_NORMALISER, normaliser_names

DATA_HELP = (
    f"CSV, TSV, JSONL or TXT file of texts (labels, if any, are ignored); {TXT_HELP['lines']} "
    "(--txt labelled: SST lines, their labels ignored)"
)


def _add_data(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, help=DATA_HELP)
    parser.add_argument(
        "--txt", choices=["lines", "labelled"], default="lines",
        help=f"what a .txt file holds: lines ({TXT_HELP['lines']}) or labelled ({TXT_HELP['labelled']})",
    )  # fmt: skip
    add_data_columns(parser)
    parser.add_argument(
        "--teacher", required=True, metavar="DIR", help="Hugging Face classification folder, or selfexplain folder"
    )


def add_command(commands: Any) -> None:
    distill = commands.add_parser(
        "distill", help="train a self-explaining surrogate of a classifier, with its fidelity measured"
    )
    _add_data(distill)
    distill.add_argument("--out", required=True, type=Path, help="output folder (rerun to resume)")
    distill.add_argument("--encoder", default=None, help="student encoder (default: the teacher's own)")
    distill.add_argument(
        "--pretrained-encoder", action="store_true",
        help="start the student's encoder from its published weights, not the teacher's fine-tuned ones "
        "(a selfexplain teacher: its base encoder; a Hugging Face teacher: needs --encoder)",
    )  # fmt: skip
    distill.add_argument("--holdout", type=float, default=0.1, help="share of the data held out to measure fidelity")
    distill.add_argument("--dev-fraction", type=float, default=0.05, help="share used to choose the checkpoint")
    distill.add_argument("--name", default="", help="model name shown in the app")
    distill.add_argument("--span-representation", choices=["sic", "mean"], default="sic")
    distill.add_argument("--span-unit", choices=["word", "piece"], default="word")
    add_apostrophes_option(distill)
    add_span_edges_option(distill)
    distill.add_argument(
        "--encoder-layer", type=int, default=-1, help="hidden-state index feeding the span layer (as train)"
    )
    distill.add_argument("--max-span-width", type=int, default=None, help="longest span, in span units (as train)")
    distill.add_argument(
        "--span-length-prior", type=float, default=0.0, metavar="P", help="favours short spans (as train; 0 = off)"
    )
    distill.add_argument("--normaliser", choices=normaliser_names(), default=DEFAULT_NORMALISER)
    distill.add_argument("--lambda", dest="lambda_", type=float, default=1.0, help="sparsity weight of sum(alpha^2)")
    distill.add_argument("--anneal-temperature", type=float, default=1.0, metavar="T0")
    distill.add_argument(
        "--teacher-weight", type=float, default=1.0, metavar="W", help="weight of the distillation term"
    )
    distill.add_argument("--temperature", type=float, default=2.0, metavar="T", help="KL temperature")
    distill.add_argument(
        "--teacher-loss", choices=["kl", "mse"], default="kl",
        help="distillation term: KL at --temperature, or squared error between centred logits",
    )  # fmt: skip
    add_selectivity_terms(distill)
    distill.add_argument(
        "--erasure-weight", type=float, default=0.0, metavar="W",
        help="weight of the erasure term: the span scores learn how much deleting each word lowers the "
        "teacher's probability of its label (one teacher pass per word of every text, cached; 0 = off; "
        "in a pair, a word of either text is cut from its own; docs/surrogates.md)",
    )  # fmt: skip
    distill.add_argument(
        "--erasure-texts", type=int, default=None, metavar="N",
        help="with --erasure-weight: measure the effects on N training texts (a seeded choice; default all)",
    )  # fmt: skip
    distill.add_argument(
        "--erasure-temperature", type=float, default=0.05, metavar="T",
        help="with --erasure-weight: temperature of the target over spans (softmax of mean effect / T); "
        "lower puts the target on the one most needed word",
    )  # fmt: skip
    distill.add_argument(
        "--own-erasure-epoch", type=int, default=None, metavar="K",
        help="with --erasure-weight: from epoch K on, the erasure targets also read the student's own "
        "word-deletion effects, measured on each batch (no gradient; those epochs take about 2.5 times as long)",
    )  # fmt: skip
    distill.add_argument(
        "--own-erasure-share", type=float, default=1.0, metavar="S",
        help="with --own-erasure-epoch: the student's share of the mixed target (the teacher's is 1 - S)",
    )  # fmt: skip
    distill.add_argument(
        "--label-offsets", action="store_true",
        help="after training, fit one offset per label on the dev split so that the surrogate's probabilities "
        "follow the teacher's (the output bias only: alpha is unchanged; docs/surrogates.md)",
    )  # fmt: skip
    distill.add_argument(
        "--dropout", type=float, default=None, metavar="P",
        help="dropout rate while training, in the head and every encoder layer (default: the head's 0.1 and the "
        "encoder's own; docs/surrogates.md)",
    )  # fmt: skip
    distill.add_argument("--epochs", type=int, default=3)
    distill.add_argument("--batch-size", type=int, default=32)
    distill.add_argument("--lr", type=float, default=3e-5, help="encoder learning rate")
    distill.add_argument("--head-lr", type=float, default=1e-3)
    distill.add_argument("--max-length", type=int, default=128)
    distill.add_argument("--seed", type=int, default=42, help="seeds the split and the training")
    distill.add_argument("--compact", action="store_true", help="save best/ as a delta against the encoder")
    add_run_options(distill)
    distill.add_argument("--no-progress", action="store_true")
    add_fused_option(distill)
    distill.set_defaults(handler=run_distill)

    fidelity = commands.add_parser("fidelity", help="agreement and TVD of a surrogate with its teacher on a file")
    _add_data(fidelity)
    fidelity.add_argument("--model", required=True, help="the surrogate (model folder or name)")
    fidelity.add_argument("--record", action="store_true", help="add the figures to the surrogate's model card")
    fidelity.add_argument(
        "--deletion", action="store_true",
        help="also measure whether deleting the surrogate's top span lowers the teacher's probability more "
        "than deleting a random span of as many words (what its alpha says about the teacher)",
    )  # fmt: skip
    fidelity.add_argument("--seed", type=int, default=0, help="seed of the random deletions (--deletion)")
    fidelity.add_argument("--max-length", type=int, default=128)
    fidelity.add_argument("--no-progress", action="store_true")
    add_fused_option(fidelity)
    fidelity.set_defaults(handler=run_fidelity)

    line = "the movie reviews' sentences, one a line and tags dropped: unlabelled in-domain text for distillation"
    reviews = commands.add_parser("review-sentences", help=line, description=line)
    reviews.add_argument("folder", type=Path, help="the movie-review folder, e.g. ../shared/data/movie_rationales")
    reviews.add_argument("target", type=Path, help="the text file to write")
    reviews.add_argument("--min-words", type=int, default=4)
    reviews.add_argument("--max-words", type=int, default=60)
    reviews.add_argument("--ended", action="store_true", help="only sentences whose last word is . ? or !")
    reviews.add_argument("--sample", type=int, default=None, metavar="N", help="a seeded choice of N sentences")
    reviews.add_argument("--seed", type=int, default=0, help="seed of --sample's choice")
    reviews.add_argument(
        "--drop-end-mark", action="store_true", help="write each sentence without its closing . ? or !"
    )
    reviews.set_defaults(handler=run_review_sentences)

    line = "word-dropout variants of texts, for distillation on more unlabelled text than one has"
    augment = commands.add_parser("augment-texts", help=line, description=line)
    augment.add_argument("source", type=Path, help="one text a line (SST lines with --labelled)")
    augment.add_argument("target", type=Path, help="the text file to write: every text, then the variants")
    augment.add_argument("--variants", type=int, default=2)
    augment.add_argument("--drop", type=float, default=0.15)
    augment.add_argument("--seed", type=int, default=42)
    augment.add_argument("--labelled", action="store_true", help="lines are SST lines: 'LABEL TEXT'")
    augment.set_defaults(handler=run_augment_texts)


def run_review_sentences(args: argparse.Namespace) -> int:
    from selfexplain.lab.distill.reviews import run

    return run(args)


def run_augment_texts(args: argparse.Namespace) -> int:
    from selfexplain.lab.distill.augment import run

    return run(args)


def _texts(args: argparse.Namespace) -> list:
    from selfexplain.core.formats.examples import read_examples
    from selfexplain.data import Example
    from selfexplain.errors import InvalidInputError

    examples = read_examples(
        args.data, text_column=args.text_column, pair_column=args.pair_column, label_column=None, txt=args.txt
    )
    if not examples:
        raise InvalidInputError(f"{args.data}: no texts")
    return [Example(e.text, e.pair) for e in examples]


def run_distill(args: argparse.Namespace) -> int:
    from selfexplain.errors import InvalidInputError
    from selfexplain.lab.distill.run import distill
    from selfexplain.methods.training.loop import TrainOptions

    if args.teacher_weight < 0 or not args.temperature > 0 or not args.anneal_temperature > 0:
        raise InvalidInputError("--teacher-weight must be 0 or above, --temperature and --anneal-temperature above 0")
    check_selectivity_terms(args)
    if not args.erasure_weight >= 0:
        raise InvalidInputError("--erasure-weight must be 0 or above")
    if args.erasure_texts is not None and args.erasure_texts < 1:
        raise InvalidInputError("--erasure-texts must be 1 or more")
    if not args.erasure_temperature > 0:
        raise InvalidInputError("--erasure-temperature must be above 0")
    if args.own_erasure_epoch is not None:
        if not args.erasure_weight > 0:
            raise InvalidInputError("--own-erasure-epoch needs --erasure-weight above 0")
        if not 1 <= args.own_erasure_epoch <= args.epochs:
            raise InvalidInputError(f"--own-erasure-epoch must be between 1 and --epochs ({args.epochs})")
    if not 0 < args.own_erasure_share <= 1:
        raise InvalidInputError("--own-erasure-share must be above 0 and at most 1")
    if args.dropout is not None and not 0 <= args.dropout < 1:
        raise InvalidInputError("--dropout must be at least 0 and below 1")
    examples = _texts(args)
    student = {
        "span_representation": args.span_representation, "span_unit": args.span_unit,
        "apostrophes": args.apostrophes, "span_edges": args.span_edges,
        "normaliser": args.normaliser, "lambda_": args.lambda_, "name": args.name or args.out.name,
        "encoder_layer": args.encoder_layer, "max_span_width": args.max_span_width,
        "span_length_prior": args.span_length_prior,
    }  # fmt: skip
    if args.dropout is not None:
        student["dropout"] = args.dropout
    options = TrainOptions(
        epochs=args.epochs, batch_size=args.batch_size, learning_rate=args.lr, head_learning_rate=args.head_lr,
        seed=args.seed, max_length=args.max_length, compact=args.compact, progress=not args.no_progress,
        fused=not args.no_fused, temperature_start=args.anneal_temperature, teacher_weight=args.teacher_weight,
        teacher_temperature=args.temperature, teacher_loss=args.teacher_loss,
        complement_weight=args.complement_weight, sufficiency_weight=args.sufficiency_weight,
        removal_weight=args.removal_weight,
        erasure_weight=args.erasure_weight, erasure_temperature=args.erasure_temperature,
        own_erasure_epoch=args.own_erasure_epoch, own_erasure_share=args.own_erasure_share,
        encoder_dropout=args.dropout, **run_options(args),
    )  # fmt: skip
    sources = {"data": str(args.data), "command": shlex.join(["selfexplain", *args.argv])}
    result = distill(
        args.teacher, examples, args.out, student, options, args.holdout, args.dev_fraction, args.encoder, sources,
        args.pretrained_encoder, args.erasure_texts, args.label_offsets,
    )  # fmt: skip
    print(f"fidelity on the held-out split: {result.holdout.describe()}")
    print(result.alpha.describe())
    print(json.dumps({"student": str(result.student), "teacher": args.teacher, **result.holdout.to_dict()}))
    return 0


def run_fidelity(args: argparse.Namespace) -> int:
    from selfexplain.core.pipeline import load_model
    from selfexplain.errors import InvalidInputError
    from selfexplain.lab.distill.fidelity import agreement_by_margin, describe_bands, measure_fidelity
    from selfexplain.lab.distill.record import record_fidelity
    from selfexplain.lab.distill.teacher import read_teacher, teacher_probabilities
    from selfexplain.methods.training.evaluation import predict_examples

    teacher = read_teacher(args.teacher)
    explainer = load_model(args.model, fused=not args.no_fused)
    if list(explainer.config.label_names) != list(teacher.label_names):
        raise InvalidInputError(f"{args.model} and the teacher {args.teacher} have different labels")
    examples = _texts(args)
    progress = not args.no_progress
    student = predict_examples(
        explainer, examples, progress=progress, description="surrogate", max_length=args.max_length
    )
    targets = teacher_probabilities(teacher, examples, args.max_length, progress=progress)
    fidelity = measure_fidelity(student.probabilities, targets)
    if args.record and explainer.directory is not None:
        command = shlex.join(["selfexplain", *args.argv])
        record_fidelity(explainer.directory, teacher.name, fidelity, str(args.data), command)
    bands = agreement_by_margin(student.probabilities, targets)
    print(fidelity.describe())
    print("agreement by the teacher's margin (the gap between its two most probable labels):")
    print(describe_bands(bands))
    figures = {"model": explainer.name, "teacher": args.teacher, "data": str(args.data), **fidelity.to_dict(),
               "by_margin": [band.to_dict() for band in bands]}  # fmt: skip
    if args.deletion:
        from selfexplain.lab.distill.predictor import TeacherPredictor
        from selfexplain.lab.distill.transfer import teacher_deletion

        if explainer.model.span_layer is None:
            raise InvalidInputError(f"{args.model} has no alpha (a {explainer.config.head} head): --deletion needs one")
        deletion = teacher_deletion(
            explainer, TeacherPredictor(teacher), examples, args.seed, progress=progress, max_length=args.max_length
        )
        print(deletion.describe())
        figures.update(deletion.to_dict())
    print(json.dumps(figures))
    return 0
