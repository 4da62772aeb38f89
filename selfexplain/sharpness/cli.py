"""``selfexplain sharpness``: the sharpness measures of a model over a data file (CSV + Markdown)."""

from __future__ import annotations

import argparse
from pathlib import Path

from selfexplain.cli_support import LABELLED_DATA_HELP, add_data_columns, add_fused_option, read_model_examples


def add_command(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sharpness", help="how sharp and decisive alpha is: max alpha, top-3 mass, uniform and top-1 agreement"
    )
    parser.add_argument("--model", default=None, help="shipped model name or model folder")
    parser.add_argument("--data", required=True, help=f"data file: {LABELLED_DATA_HELP}")
    parser.add_argument("--out", required=True, type=Path, help="output folder (sharpness.csv, sharpness.md)")
    parser.add_argument("--limit", type=int, default=None, help="use the first N examples")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--no-progress", action="store_true")
    add_data_columns(parser)
    add_fused_option(parser)
    parser.set_defaults(handler=run_sharpness)


def run_sharpness(args: argparse.Namespace) -> int:
    import pandas as pd

    from selfexplain.errors import InvalidInputError
    from selfexplain.pipeline import load_model
    from selfexplain.sharpness.measures import markdown_summary, summarise
    from selfexplain.sharpness.run import measure_examples

    if args.limit is not None and args.limit < 1:
        raise InvalidInputError("--limit must be at least 1")
    if args.batch_size < 1:
        raise InvalidInputError("--batch-size must be at least 1")
    model = load_model(args.model, fused=not args.no_fused)
    examples = read_model_examples(args, args.data, model.config.label_names)[: args.limit]
    if not examples:
        raise InvalidInputError(f"{args.data} holds no examples")
    rows = measure_examples(model, examples, args.batch_size, progress=not args.no_progress)
    args.out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(args.out / "sharpness.csv", index=False)
    table = markdown_summary({model.name: summarise(rows)})
    (args.out / "sharpness.md").write_text(table, encoding="utf-8")
    print(table, end="")
    return 0
