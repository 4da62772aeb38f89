"""The recipe table of docs/accuracy.md and the selection rule's score, from finished runs.

For each run NAME (``RUNS/sst5s-NAME-s42``, measured by ``selfexplain sharpness`` into
``RUNS/sharp-dev300-NAME-s42``): dev accuracy from training, the alpha measures on the first 300 dev
sentences, and the number of dev targets met (the rule in docs/accuracy.md). Usage:

    python scripts/recipe_table.py [--runs runs] [--baseline mean] [--baseline-of ROW=BASELINE] NAME [NAME ...]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

COLUMNS = {
    "dev_accuracy": "dev acc. ↑",
    "top_span_words": "median top-span words ↓",
    "nonzero_spans": "nonzero spans",
    "deletion_beats_random": "deletion beats random ↑",
    "uniform_agreement": "kept, uniform alpha ↓",
    "top_out_flip": "flips, top span out ↑",
    "top1_agreement": "kept, top span alone ↑",
    "sst_phrase_agreement": "SST phrase polarity agrees ↑",
    "score": "targets met",
}


def run_row(runs: Path, name: str, seed: int) -> dict[str, object]:
    folder = runs / f"sst5s-{name}-s{seed}"
    if (folder / "metrics.json").is_file():
        accuracy = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))["best_dev_accuracy"]
    else:  # a model folder kept from an earlier release: its recorded dev accuracy
        config = json.loads((runs / f"{name}" / "selfexplain.json").read_text(encoding="utf-8"))
        accuracy = config["metrics"]["dev_accuracy"]
    row: dict[str, object] = {"run": name, "dev_accuracy": float(accuracy)}
    sharp = runs / f"sharp-dev300-{name}-s{seed}" / "sharpness.csv"
    if not sharp.is_file():
        sharp = runs / f"sharp-dev300-{name}" / "sharpness.csv"
    if sharp.is_file():
        table = pd.read_csv(sharp)
        row["top_span_words"] = float(np.nanmedian(table["top_span_words"]))
        for key in ("nonzero_spans", "deletion_beats_random", "uniform_agreement", "top_out_flip",
                    "top1_agreement", "sst_phrase_agreement"):  # fmt: skip
            row[key] = float(table[key].mean(skipna=True)) if key in table else float("nan")
    return row


def score(row: dict[str, object], baseline_accuracy: float) -> int:
    """Dev targets met: accuracy >= baseline, median top span <= 3 words, >= 2 nonzero spans on
    average, deletion beats random on >= 80%, uniform alpha keeps <= 50%. A run is eligible only if
    its top span's SST phrase has the predicted polarity on >= 50% of inputs (a gate added on dev, see
    docs/accuracy.md); an ineligible run scores -1."""
    if "top_span_words" not in row or not float(row["sst_phrase_agreement"]) >= 0.5:  # type: ignore[arg-type]
        return -1
    return sum(
        [
            float(row["dev_accuracy"]) >= baseline_accuracy,  # type: ignore[arg-type]
            float(row["top_span_words"]) <= 3,  # type: ignore[arg-type]
            float(row["nonzero_spans"]) >= 2,  # type: ignore[arg-type]
            float(row["deletion_beats_random"]) >= 0.8,  # type: ignore[arg-type]
            float(row["uniform_agreement"]) <= 0.5,  # type: ignore[arg-type]
        ]
    )


def markdown(rows: list[dict[str, object]]) -> str:
    """One row per run, the columns of :data:`COLUMNS` (3 decimals; blank where not measured)."""
    lines = ["| run | " + " | ".join(COLUMNS.values()) + " |", "|---|" + "---:|" * len(COLUMNS)]
    for row in rows:
        cells = []
        for key in COLUMNS:
            value = row.get(key)
            cells.append("" if value is None else str(value) if isinstance(value, int) else f"{float(value):.3f}")
        lines.append(f"| {row['run']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=Path("runs"))
    parser.add_argument("--baseline", default="mean")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--reference", nargs="*", default=[], help="rows shown but not chosen (another budget)")
    parser.add_argument(
        "--baseline-of", action="append", default=[], metavar="ROW=BASELINE",
        help="a row trained on another budget (e.g. 2 epochs) against the baseline of that budget",
    )  # fmt: skip
    parser.add_argument("names", nargs="+")
    args = parser.parse_args()
    baseline = run_row(args.runs, args.baseline, args.seed)["dev_accuracy"]
    own = dict(pair.split("=", 1) for pair in args.baseline_of)
    rows = [run_row(args.runs, name, args.seed) for name in args.names]
    for row in rows:
        name = str(row["run"])
        base = run_row(args.runs, own[name], args.seed)["dev_accuracy"] if name in own else baseline
        row["score"] = score(row, float(base))  # type: ignore[arg-type]
    references = [run_row(args.runs, name, args.seed) for name in args.reference]
    print(f"baseline ({args.baseline}, seed {args.seed}) dev accuracy {float(baseline):.4f}\n")
    print(markdown(rows + references))
    ranked = sorted(rows, key=lambda r: (r["score"], r["dev_accuracy"]), reverse=True)
    print(f"\nchosen by the rule: {ranked[0]['run']}")


if __name__ == "__main__":
    main()
