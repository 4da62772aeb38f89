"""``selfexplain faithfulness``: run the lab over a data file, resumably, and write the report."""

from __future__ import annotations

import argparse
from pathlib import Path

from selfexplain.cli_support import (
    LABELLED_DATA_HELP,
    add_data_columns,
    add_fused_option,
    add_max_chars_option,
    note_figures,
    read_model_examples,
)


def add_command(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "faithfulness", help="faithfulness metrics of alpha and other explainers (resumes if OUT holds a run)"
    )
    parser.add_argument("--model", default=None, help="shipped model name or model folder")
    parser.add_argument("--data", required=True, help=f"data file: {LABELLED_DATA_HELP}")
    parser.add_argument("--out", required=True, type=Path, help="output folder (results.jsonl, summary.csv, plots)")
    parser.add_argument("--limit", type=int, default=None, help="use the first N examples")
    parser.add_argument(
        "--explainers",
        default=None,
        help=(
            "comma-separated registry names "
            "(default: the twelve core methods, selfexplain.methods.explainers.CORE_METHODS)"
        ),
    )
    parser.add_argument("--removal", choices=["delete", "mask"], default="delete", help="how tokens are removed")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-alpha-tests", action="store_true", help="skip the span-layer experiments")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (with --workers 1)")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="single-threaded worker processes (e.g. one per core: faster than threads for this work)",
    )
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument(
        "--trees",
        type=Path,
        default=None,
        help="SST tree file of the same sentences (e.g. ../shared/data/sst_trees/test.txt): adds plausibility.csv",
    )
    parser.add_argument(
        "--precision",
        choices=["float32", "bfloat16"],
        default="float32",
        help="encoder arithmetic: bfloat16 is about 2x faster on CPUs with bf16 instructions, not bit-identical",
    )
    add_data_columns(parser)
    add_fused_option(parser)
    add_max_chars_option(parser)
    parser.set_defaults(handler=run_faithfulness)


def split_names(text: str) -> tuple[str, ...]:
    """``"alpha, loo,"`` -> ``("alpha", "loo")``."""
    return tuple(n.strip() for n in text.split(",") if n.strip())


def default_explainers() -> tuple[str, ...]:
    """What ``--explainers`` means when not given: the methods flagged ``core``, in registry order (read
    when the command runs, so building the parser does not import the explainers)."""
    from selfexplain.methods.explainers import CORE_METHODS

    return CORE_METHODS


def run_faithfulness(args: argparse.Namespace) -> int:
    import torch
    from tqdm import tqdm

    from selfexplain.core.pipeline import load_model
    from selfexplain.errors import InvalidInputError
    from selfexplain.lab.faithfulness.experiment import LabOptions, run_lab
    from selfexplain.lab.faithfulness.report import markdown_table, write_report

    if args.limit is not None and args.limit < 1:
        raise InvalidInputError("--limit must be at least 1")
    if args.workers < 1:
        raise InvalidInputError("--workers must be at least 1")
    phrases = None
    if args.trees is not None:  # read first: a bad tree file must not cost a long run
        from selfexplain.data import DataError
        from selfexplain.lab.plausibility.sst_phrases import phrase_index

        if not args.trees.is_file():
            raise DataError(f"{args.trees}: no such file")
        phrases = phrase_index(args.trees)
    if args.threads:
        torch.set_num_threads(args.threads)
    explainer = load_model(args.model, fused=not args.no_fused, precision=args.precision)
    examples = read_model_examples(args, args.data, explainer.config.label_names)[: args.limit]
    names = default_explainers() if args.explainers is None else split_names(args.explainers)
    options = LabOptions(explainers=names, removal=args.removal, seed=args.seed, alpha_tests=not args.no_alpha_tests)
    bar = tqdm(total=len(examples), desc="faithfulness", unit="ex", disable=args.no_progress)

    def progress(done: int, total: int) -> None:
        bar.update(done - bar.n)

    try:
        rows = run_lab(explainer, examples, options, args.out, progress, workers=args.workers)
    finally:
        bar.close()
    tables, written = write_report(rows, args.out)
    note_figures(written)
    print(markdown_table(tables["summary"]), end="")
    if phrases is not None:
        from selfexplain.lab.plausibility.sst_phrases import phrase_hits

        hits = phrase_hits(rows, phrases, seed=args.seed)
        hits.to_csv(args.out / "plausibility.csv", index=False)
        with (args.out / "summary.md").open("a", encoding="utf-8") as handle:
            handle.write("\n## Plausibility: top span is a polar SST phrase (not faithfulness)\n\n")
            handle.write(markdown_table(hits))
        print("plausibility (top span is a polar treebank phrase):")
        print(markdown_table(hits), end="")
    print(f"{len(rows)} examples; results, tables and plots in {args.out}")
    return 0
