"""``selfexplain batch INPUT --model NAME_OR_DIR --out FILE``: explain a whole file into JSONL.

Resumable (rerun the same command after a kill) and data-parallel under
``accelerate launch --num_processes N -m selfexplain.cli batch ...``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from selfexplain.cli_support import add_fused_option, add_max_chars_option
from selfexplain.core.formats.text import FORMATS, TXT_HELP


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register the ``batch`` subcommand."""
    batch = subparsers.add_parser(
        "batch",
        help="explain every row of a CSV/TSV/JSONL/TXT file into JSONL (resumable; shards under accelerate launch)",
    )
    batch.add_argument("input", type=Path, help=f"CSV, TSV, JSONL or TXT file; {TXT_HELP['lines']}")
    batch.add_argument("--model", default=None, help="shipped model name or model folder")
    batch.add_argument("--out", required=True, type=Path, help="results file (JSONL); rerun to resume")
    batch.add_argument("--text-column", default="text", help="text column of CSV/TSV/JSONL files")
    batch.add_argument("--pair-column", default=None, help="second-text column for pair models")
    batch.add_argument("--label-column", default=None, help="optional gold-label column (name or index)")
    batch.add_argument(
        "--top-k", type=int, default=10, help="spans kept per row, never one with alpha 0; 0 keeps all with weight"
    )
    batch.add_argument("--batch-size", type=int, default=32)
    batch.add_argument("--attention", action="store_true", help="store [CLS]-attention entropy and top token")
    batch.add_argument("--format", choices=FORMATS, default=None, help="default: by extension (any other is txt)")
    batch.add_argument("--no-progress", action="store_true")
    add_fused_option(batch)
    add_max_chars_option(batch)
    batch.add_argument(
        "--precision",
        choices=["float32", "bfloat16"],
        default="float32",
        help="encoder arithmetic: bfloat16 is about 2x faster on CPUs with bf16 instructions, not bit-identical",
    )
    batch.set_defaults(handler=run)


def count_rows(path: Path, fmt: str) -> int:
    """Non-blank lines (minus a CSV/TSV header): the progress bar's total."""
    count = 0
    with path.open("rb") as handle:
        for line in handle:
            count += bool(line.strip())
    return max(0, count - (fmt in ("csv", "tsv")))


def run(args: argparse.Namespace) -> int:
    """Explain the file; print a one-line JSON summary (main process only)."""
    import torch
    from accelerate import PartialState

    from selfexplain.batch.explore import summary
    from selfexplain.batch.reader import BatchInputError, RowReader
    from selfexplain.batch.runner import BatchOptions, run_batch
    from selfexplain.core.pipeline import load_model
    from selfexplain.support.progress_log import iter_rows

    if args.batch_size < 1 or args.top_k < 0:
        raise BatchInputError("--batch-size must be at least 1 and --top-k at least 0")
    state = PartialState(cpu=not torch.cuda.is_available())
    reader = RowReader(
        args.input,
        fmt=args.format,
        text_column=args.text_column,
        pair_column=args.pair_column,
        label_column=args.label_column,
    )
    if not args.input.is_file():
        raise BatchInputError(f"{args.input}: no such file")
    explainer = load_model(args.model, fused=not args.no_fused, precision=args.precision)
    explainer.model.to(state.device)
    options = BatchOptions(top_k=args.top_k or None, batch_size=args.batch_size, attention=args.attention)
    progress = state.is_main_process and not args.no_progress
    total = count_rows(args.input, reader.format) if progress else None
    run_batch(
        explainer,
        reader,
        args.out,
        options,
        rank=state.process_index,
        world=state.num_processes,
        barrier=state.wait_for_everyone,
        progress=progress,
        total=total,
    )
    if state.is_main_process:
        result = summary(iter_rows(args.out))
        result.pop("predicted")
        print(json.dumps({"out": str(args.out), "model": explainer.name, **result}))
    return 0
