"""``selfexplain rationales`` and ``selfexplain plausibility``: human-rationale data and scores."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from selfexplain.cli_support import add_fused_option


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``rationales`` (split the movie-review folder) and ``plausibility`` (score a model)."""
    split = subparsers.add_parser(
        "rationales", help="write movie-review JSONL splits (text, label, rationales) from the Zaidan et al. folder"
    )
    split.add_argument("folder", type=Path, help="e.g. ../shared/data/movie_rationales")
    split.add_argument("--out", required=True, type=Path, help="folder for movies-{train,dev,test}.jsonl")
    split.add_argument("--train", default="0:200", help="review numbers START:END of the training split")
    split.add_argument("--dev", default="800:850", help="review numbers of the dev split")
    split.add_argument("--test", default="850:900", help="review numbers of the test split")
    split.set_defaults(handler=run_split)

    score = subparsers.add_parser(
        "plausibility", help="accuracy and alpha's agreement with human rationales (AUPRC, token F1, IOU F1)"
    )
    score.add_argument("--model", default=None, help="shipped model name or model folder")
    score.add_argument(
        "--data", required=True, type=Path,
        help="JSONL with text, label and rationales fields (read as JSONL whatever the suffix, .txt too)",
    )  # fmt: skip
    score.add_argument("--out", type=Path, default=None, help="also write the summary JSON here")
    score.add_argument("--seed", type=int, default=0, help="seed of the random baseline")
    score.add_argument(
        "--explainers", default="",
        help="token explainers scored next to alpha, e.g. integrated_gradients,loo (documents are then cut "
        "to the model's window for every method, so all are scored on the same tokens)",
    )  # fmt: skip
    score.add_argument("--limit", type=int, default=None, help="use the first N documents")
    score.add_argument("--no-progress", action="store_true")
    add_fused_option(score)
    score.set_defaults(handler=run_plausibility)


def _numbers(text: str, option: str) -> range:
    from selfexplain.data import DataError

    try:
        start, end = (int(part) for part in text.split(":"))
    except ValueError:
        raise DataError(f"{option} {text!r}: expected START:END, e.g. 0:200") from None
    return range(start, end)


def run_split(args: argparse.Namespace) -> int:
    from selfexplain.lab.plausibility.rationales import write_splits

    ranges = {name: _numbers(getattr(args, name), f"--{name}") for name in ("train", "dev", "test")}
    counts = write_splits(args.folder, args.out, **ranges)
    print(json.dumps({"out": str(args.out), **counts}))
    return 0


def run_plausibility(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from selfexplain.core.pipeline import load_model
    from selfexplain.errors import InvalidInputError
    from selfexplain.lab.plausibility.metrics import plausibility
    from selfexplain.lab.plausibility.rationales import read_rationale_jsonl
    from selfexplain.methods.explainers import get_method

    if args.limit is not None and args.limit < 1:
        raise InvalidInputError("--limit must be at least 1")
    names = [n.strip() for n in args.explainers.split(",") if n.strip() and n.strip() != "alpha"]
    methods = {name: get_method(name) for name in names}
    explainer = load_model(args.model, fused=not args.no_fused)
    rows = read_rationale_jsonl(args.data, explainer.config.label_names)[: args.limit]
    explanations, scores = [], {name: [] for name in methods}
    for row in tqdm(rows, disable=args.no_progress, desc="documents"):
        text = explainer.truncate_to_fit(row.text)[0] if methods else row.text
        explanations.append(explainer.explain(text, attentions=False))
        if methods:
            instance = explainer.instance(text)
            for name, method in methods.items():
                scores[name].append(method.attribute(explainer, instance))
    correct = [e.predicted_index == r.label for e, r in zip(explanations, rows)]
    summary = {
        "model": explainer.name,
        "data": str(args.data),
        "documents": len(rows),
        "truncated_to_window": bool(methods),
        "accuracy": sum(correct) / len(rows),
        **plausibility(explanations, [r.rationales for r in rows], seed=args.seed, token_scores=scores),
    }
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    print(json.dumps(summary))
    return 0
