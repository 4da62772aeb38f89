"""``selfexplain sharpness`` (the sharpness measures of a model over a data file, CSV + Markdown),
``sharpness-table`` (every model of the sharpness sweep) and ``sharpness-compare`` (two models' files)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from selfexplain.cli_support import LABELLED_DATA_HELP, add_data_columns, add_fused_option, read_model_examples

if TYPE_CHECKING:
    from selfexplain.data import Example
    from selfexplain.lab.plausibility.rationales import Review


def add_command(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sharpness",
        help="how sharp and decisive alpha is: max alpha, top-3 mass, uniform and top-1 agreement, top-span "
        "deletion against random deletions, top span out of alpha, agreement with SST phrases and rationales",
    )
    parser.add_argument("--model", default=None, help="shipped model name or model folder")
    parser.add_argument(
        "--data",
        required=True,
        help=f"data file: {LABELLED_DATA_HELP}; a JSONL file whose rows carry 'rationales' ([[start, end], ...]) "
        "adds rationale_token_f1, an SST tree file adds sst_phrase_agreement",
    )
    parser.add_argument("--out", required=True, type=Path, help="output folder (sharpness.csv, sharpness.md)")
    parser.add_argument("--limit", type=int, default=None, help="use the first N examples")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument(
        "--trees",
        type=Path,
        default=None,
        help="SST tree file of the same sentences (e.g. ../shared/data/sst_trees/test.txt) for sst_phrase_agreement; "
        "default: the --data file itself when it holds SST trees",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random deletions (deletion_beats_random)")
    parser.add_argument("--draws", type=int, default=5, help="random deletions per input (deletion_beats_random)")
    parser.add_argument("--no-progress", action="store_true")
    add_data_columns(parser)
    add_fused_option(parser)
    parser.set_defaults(handler=run_sharpness)

    line = (
        "measure every model of the sharpness sweep (runs/sweep-sst5-*/best) and write its table and trade-off figure"
    )
    table = subparsers.add_parser("sharpness-table", help=line, description=line)
    table.add_argument("--runs", type=Path, default=Path("runs"))
    table.add_argument("--data", default="../shared/data/sst5/dev.txt")
    table.add_argument("--out", type=Path, default=Path("docs/figures/sharpness"))
    table.add_argument("--limit", type=int, default=None)
    table.add_argument("models", nargs="*", type=Path)
    table.set_defaults(handler=run_sharpness_table)

    compare = subparsers.add_parser(
        "sharpness-compare",
        help="two models' sharpness.csv on the same data: every measure where their decisions agree and where "
        "they differ, and one measure by predicted class",
    )
    compare.add_argument("first", type=Path, help="sharpness.csv of the first model")
    compare.add_argument("second", type=Path, help="sharpness.csv of the second model, same data and order")
    compare.add_argument("--names", nargs=2, default=None, metavar=("FIRST", "SECOND"), help="row names")
    compare.add_argument(
        "--measure", default="deletion_beats_random", help="the measure broken down by predicted class"
    )
    compare.add_argument(
        "--draws", type=int, default=1000, help="bootstrap resamples of the inputs for the paired differences"
    )
    compare.add_argument("--seed", type=int, default=0, help="seed of the bootstrap resamples")
    compare.add_argument("--out", type=Path, default=None, help="also write compare.md into this folder")
    compare.set_defaults(handler=run_compare)


def holds_trees(path: Path) -> bool:
    """True when ``path`` is a ``.txt`` file whose first non-blank line is an SST tree ``(LABEL ...``."""
    from selfexplain.core.formats.text import detect_format, text_lines

    if not path.is_file() or detect_format(path.name) != "txt":
        return False
    for _, line in text_lines(path):
        if line.strip():
            stripped = line.lstrip()
            return stripped.startswith("(") and stripped[1:2].isascii() and stripped[1:2].isdecimal()
    return False


def carries_rationales(path: Path) -> bool:
    """True when ``path`` is a JSONL file whose first row has a ``rationales`` field."""
    from selfexplain.core.formats.records import Records
    from selfexplain.core.formats.text import detect_format

    return path.is_file() and detect_format(path.name) == "jsonl" and "rationales" in Records(path, txt=None).columns()


def aligned_rationales(examples: Sequence[Example], reviews: Sequence[Review]) -> list[list[tuple[int, int]]]:
    """Each example's rationale spans, in characters of its (stripped) text; a :class:`DataError` when
    the two readings of the file disagree."""
    from selfexplain.data import DataError

    if len(reviews) < len(examples):
        raise DataError(f"{len(reviews)} rows with rationales for {len(examples)} examples")
    spans = []
    for number, (example, review) in enumerate(zip(examples, reviews), start=1):
        shift = len(review.text) - len(review.text.lstrip())
        if review.text.strip() != example.text:
            raise DataError(f"row {number}: the rationale row's text is not the example's text")
        spans.append([(a - shift, b - shift) for a, b in review.rationales])
    return spans


def run_sharpness(args: argparse.Namespace) -> int:
    import pandas as pd

    from selfexplain.core.pipeline import load_model
    from selfexplain.data import DataError
    from selfexplain.errors import InvalidInputError
    from selfexplain.lab.sharpness.measures import markdown_summary, summarise
    from selfexplain.lab.sharpness.run import SharpnessOptions, measure_examples

    if args.limit is not None and args.limit < 1:
        raise InvalidInputError("--limit must be at least 1")
    if args.batch_size < 1:
        raise InvalidInputError("--batch-size must be at least 1")
    if args.draws < 1 or args.seed < 0:
        raise InvalidInputError("--draws must be at least 1 and --seed at least 0")
    data = Path(args.data) if not str(args.data).startswith("hf:") else None
    trees = args.trees if args.trees is not None else data if data is not None and holds_trees(data) else None
    phrases = None
    if trees is not None:  # read first: a bad tree file must not cost a long run
        from selfexplain.lab.plausibility.sst_phrases import phrase_index

        if not trees.is_file():
            raise DataError(f"{trees}: no such file")
        phrases = phrase_index(trees)
    model = load_model(args.model, fused=not args.no_fused)
    examples = read_model_examples(args, args.data, model.config.label_names)[: args.limit]
    if not examples:
        raise InvalidInputError(f"{args.data} holds no examples")
    rationales = None
    if data is not None and carries_rationales(data):
        from selfexplain.lab.plausibility.rationales import read_rationale_jsonl

        rationales = aligned_rationales(examples, read_rationale_jsonl(data, model.config.label_names))
    options = SharpnessOptions(seed=args.seed, draws=args.draws, phrases=phrases, rationales=rationales)
    rows = measure_examples(model, examples, args.batch_size, progress=not args.no_progress, options=options)
    args.out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(args.out / "sharpness.csv", index=False)
    table = markdown_summary({model.name: summarise(rows)})
    (args.out / "sharpness.md").write_text(table, encoding="utf-8")
    print(table, end="")
    return 0


def run_compare(args: argparse.Namespace) -> int:
    from selfexplain.data import DataError
    from selfexplain.lab.sharpness.compare import (
        by_class,
        decision_summaries,
        markdown_by_class,
        markdown_differences,
        paired_differences,
        read_rows,
    )
    from selfexplain.lab.sharpness.summary import markdown_summary

    names = args.names or [args.first.parent.name or "first", args.second.parent.name or "second"]
    if names[0] == names[1]:
        raise DataError("the two files need different --names")
    frames = {name: read_rows(path) for name, path in zip(names, (args.first, args.second))}
    summaries = decision_summaries(frames)
    text = markdown_summary(summaries) + f"\n{args.measure} by predicted class:\n\n"
    text += markdown_by_class(by_class(frames, args.measure))
    text += "\npaired differences on all inputs (bootstrap over the inputs):\n\n"
    text += markdown_differences(paired_differences(frames, args.draws, args.seed))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "compare.md").write_text(text, encoding="utf-8")
    print(text, end="")
    return 0


def run_sharpness_table(args: argparse.Namespace) -> int:
    from selfexplain.lab.sharpness.sweep import run

    return run(args)
