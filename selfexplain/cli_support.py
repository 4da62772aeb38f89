"""Pieces every ``selfexplain`` subcommand shares: the data-column options and reading a
labelled file with a model's label names."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from selfexplain.core.formats.examples import read_examples
from selfexplain.core.formats.text import TXT_HELP
from selfexplain.core.modeling.config import APOSTROPHES
from selfexplain.data import Example

if TYPE_CHECKING:  # views.files imports plotly: keep it off every command's start-up
    from selfexplain.views.files import WrittenFigures

# The --help of every option that takes labelled data (train, eval, faithfulness, sharpness, anatomy).
LABELLED_DATA_HELP = f"CSV, TSV, JSONL or TXT file, or hf:NAME[:CONFIG]; {TXT_HELP['labelled']}"


def add_data_columns(parser: argparse.ArgumentParser) -> None:
    """``--text-column``, ``--pair-column`` and ``--label-column`` for CSV/TSV/JSONL files."""
    parser.add_argument("--text-column", default="text", help="text column of CSV/TSV/JSONL files")
    parser.add_argument("--pair-column", default=None, help="second-text column for sentence pairs")
    parser.add_argument("--label-column", default="label", help="label column of CSV/TSV/JSONL files")


def add_apostrophes_option(parser: argparse.ArgumentParser) -> None:
    """``--apostrophes split|joined``: where a word-level model's words end (``ModelConfig.apostrophes``)."""
    parser.add_argument(
        "--apostrophes", choices=APOSTROPHES, default="split",
        help="word spans: split at every apostrophe as the tokenizer does (default), or keep \"doesn't\" one word",
    )  # fmt: skip


def add_span_edges_option(parser: argparse.ArgumentParser) -> None:
    """``--span-edges any|words``: whether a span may start or end on punctuation (``ModelConfig.punctuation_ids``)."""
    parser.add_argument(
        "--span-edges", choices=("any", "words"), default="any",
        help="words: no span starts or ends on a punctuation piece, so the closing full stop cannot carry the "
        "decision (default any: every span)",
    )  # fmt: skip


def add_fused_option(parser: argparse.ArgumentParser) -> None:
    """``--no-fused``: run the span layer eager instead of natively (selfexplain.core.modeling.native_spans)."""
    parser.add_argument(
        "--no-fused",
        action="store_true",
        help="run the span layer in eager PyTorch instead of the native kernels (same numbers to ~1e-6, slower)",
    )


def add_selectivity_terms(parser: argparse.ArgumentParser) -> None:
    """``--complement-weight``, ``--sufficiency-weight`` and ``--removal-weight`` (``train`` and ``distill``;
    docs/sharpness.md)."""
    parser.add_argument(
        "--complement-weight", type=float, default=0.0, metavar="W",
        help="weight of the complement term: uniform alpha must not decide (0 = off; docs/sharpness.md)",
    )  # fmt: skip
    parser.add_argument(
        "--sufficiency-weight", type=float, default=0.0, metavar="W",
        help="weight of the sufficiency term: the top span alone must decide as the whole input (0 = off)",
    )  # fmt: skip
    parser.add_argument(
        "--removal-weight", type=float, default=0.0, metavar="W",
        help="weight of the removal term: with the top span out of alpha, the other spans must not reach "
        "the same decision (0 = off)",
    )  # fmt: skip


def check_selectivity_terms(args: argparse.Namespace) -> None:
    """Refuse a negative weight of any of the terms in one line."""
    from selfexplain.errors import InvalidInputError

    if not min(args.complement_weight, args.sufficiency_weight, args.removal_weight) >= 0:
        raise InvalidInputError("--complement-weight, --sufficiency-weight and --removal-weight must be 0 or above")


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """``--freeze-layers``, ``--encoder-precision``, ``--checkpoint-steps``, ``--stop-after-steps``,
    ``--device`` and ``--keep``: how a training run spends its machine, and which epoch it keeps (``train``
    and ``distill``)."""
    parser.add_argument(
        "--freeze-layers", type=int, default=0, metavar="N",
        help="keep the embeddings and encoder layers 1..N as pretrained (faster, and a smaller --compact delta)",
    )  # fmt: skip
    parser.add_argument(
        "--encoder-precision", choices=["float32", "bfloat16"], default="float32",
        help="bfloat16: the encoder runs under bf16 autocast while training (about 1.7x faster on CPUs with bf16)",
    )  # fmt: skip
    parser.add_argument(
        "--checkpoint-steps", type=int, default=0, metavar="N",
        help="also checkpoint every N steps within an epoch (an interrupted run resumes from there; 0 = epoch ends)",
    )  # fmt: skip
    parser.add_argument(
        "--stop-after-steps", type=int, default=0, metavar="N",
        help="checkpoint and stop after N steps; the same command continues (0 = run to the end)",
    )  # fmt: skip
    parser.add_argument(
        "--device", choices=["auto", "cpu", "cuda"], default="auto", help="auto: a GPU when there is one"
    )
    parser.add_argument(
        "--keep", choices=["best", "last"], default="best",
        help="which epoch best/ holds: the best on dev, or the last (for a recipe whose last epoch is its point)",
    )  # fmt: skip


def run_options(args: argparse.Namespace) -> dict[str, object]:
    """The :class:`~selfexplain.methods.training.loop.TrainOptions` fields :func:`add_run_options` reads."""
    from selfexplain.errors import InvalidInputError

    if args.freeze_layers < 0 or args.checkpoint_steps < 0 or args.stop_after_steps < 0:
        raise InvalidInputError("--freeze-layers, --checkpoint-steps and --stop-after-steps must be 0 or above")
    return {
        "freeze_layers": args.freeze_layers, "encoder_precision": args.encoder_precision,
        "checkpoint_steps": args.checkpoint_steps, "stop_after_steps": args.stop_after_steps, "device": args.device,
        "keep": args.keep,
    }  # fmt: skip


def add_max_chars_option(parser: argparse.ArgumentParser) -> None:
    """``--max-chars N``: the longest text accepted (default ``SELFEXPLAIN_MAX_CHARS`` or 100,000);
    :func:`selfexplain.cli.main` applies it around the command (see :mod:`selfexplain.support.limits`)."""
    parser.add_argument(
        "--max-chars",
        default=None,
        metavar="N",
        help="longest text in characters (default: $SELFEXPLAIN_MAX_CHARS, else 100,000)",
    )


def note_figures(written: WrittenFigures) -> None:
    """Say on stderr why figures were written as HTML only (no kaleido or no browser)."""
    if written.png_skipped:
        print(f"note: {written.png_skipped}; HTML figures written", file=sys.stderr)


def read_model_examples(
    args: argparse.Namespace,
    source: str | Path,
    label_names: list[str] | None,
    split: str = "test",
    phrases: bool = False,
    min_phrase_words: int = 1,
) -> list[Example]:
    """The examples of ``source`` read with the columns named in ``args`` and the model's label names;
    ``phrases`` adds the labelled phrases of an SST tree file."""
    return read_examples(
        source,
        txt="labelled",
        text_column=args.text_column,
        pair_column=args.pair_column,
        label_column=args.label_column,
        label_names=label_names,
        split=split,
        phrases=phrases,
        min_phrase_words=min_phrase_words,
    )
