"""``selfexplain own-need``, ``needed-words``, ``deletion-direction``, ``token-labels`` and ``paired-test``."""

from __future__ import annotations

import argparse
from pathlib import Path

from selfexplain.core.formats.text import TXT_MEANINGS


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register the measurements; each handler imports its module when it runs."""
    own = _command(
        subparsers, "own-need", "whether alpha's top span holds the word its own model needs most (a sharpness.csv)"
    )
    own.add_argument("--model", required=True, help="a selfexplain model folder or shipped name")
    own.add_argument("--sharpness", required=True, help="sharpness.csv written by `selfexplain sharpness`")
    own.set_defaults(handler=_handler("own_need"))

    needed = _command(
        subparsers, "needed-words", "a teacher's most-needed words over a corpus beside surrogates' top spans"
    )
    needed.add_argument(
        "--teacher", required=True, help="a Hugging Face classifier folder, selfexplain folder or shipped name"
    )
    needed.add_argument("--sharpness", nargs="+", required=True, help="sharpness.csv files of the same texts")
    needed.add_argument("--names", nargs="+", help="one name per sharpness file (default: the file paths)")
    needed.add_argument("--top", type=int, default=5, help="rows of the table (default 5)")
    needed.add_argument("--max-length", type=int, default=128)
    needed.set_defaults(handler=_handler("needed_words"))

    direction = _command(
        subparsers,
        "deletion-direction",
        "which class alpha's top span pushes towards when deleted, per predicted class",
    )
    direction.add_argument("--model", required=True, help="a selfexplain model folder or shipped name")
    direction.add_argument("--sharpness", required=True, help="sharpness.csv written by `selfexplain sharpness`")
    direction.set_defaults(handler=_handler("deletion_direction"))

    tokens = _command(
        subparsers, "token-labels", "the share of a mean-pooling model's tokens whose own logits give its label"
    )
    tokens.add_argument("--model", required=True, help="a mean-pooling model: shipped name or folder")
    tokens.add_argument("--data", required=True)
    tokens.add_argument("--txt", choices=TXT_MEANINGS, default="lines", help="a .txt file: texts or SST lines")
    tokens.set_defaults(handler=_handler("token_labels"))

    paired = _command(
        subparsers,
        "paired-test",
        "two models' accuracy over seeds and McNemar's exact test of `eval --predictions` files",
    )
    paired.add_argument(
        "files", nargs="+", type=Path, metavar="A_SEED B_SEED",
        help="pairs of prediction files of the same data, model A then model B, one pair per seed",
    )  # fmt: skip
    paired.set_defaults(handler=_handler("paired_test"))


def _command(subparsers: argparse._SubParsersAction, name: str, line: str) -> argparse.ArgumentParser:
    """A subcommand whose one line is both its entry in ``selfexplain --help`` and its own ``--help``."""
    return subparsers.add_parser(name, help=line, description=line)


def _handler(module: str):
    def run(args: argparse.Namespace) -> int:
        import importlib

        importlib.import_module(f"selfexplain.lab.measures.{module}").run(args)
        return 0

    return run
