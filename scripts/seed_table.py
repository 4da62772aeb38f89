"""One row per seed of a recipe and a mean ± sd row: dev and test accuracy (``selfexplain eval`` summaries)
and the alpha measures of ``selfexplain sharpness`` on the first 300 test inputs and on the held-out
reviews. Reads, for each TAG, ``FOLDER/TAG-dev.json``, ``FOLDER/TAG-test.json``,
``FOLDER/TAG-sharp-test300/sharpness.csv`` and ``FOLDER/TAG-sharp-heldout/sharpness.csv``
(what ``scripts/student_seeds.sh`` writes), and where a seed has them ``FOLDER/TAG-movies-300-eval.json`` and
``FOLDER/TAG-plausibility-movies.json`` (``scripts/long_reviews.sh``: a binary model's accuracy on the long
movie reviews, and its word ranking's average precision minus a random ranking's, in points). Usage:

    python scripts/seed_table.py --folder runs/sst5-student/seeds s42 s43 s44

With ``--dev N`` it reads only ``FOLDER/TAG-dev.json`` and ``FOLDER/TAG-sharp-devN/sharpness.csv`` (what
``DEV_ONLY=1 scripts/student_seeds.sh`` writes, N the dev inputs its alpha figures read): the figures the
selection rule scores a recipe on, with the eligibility check's closing punctuation, and no test figure.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from selfexplain.lab.sharpness.compare import read_rows
from selfexplain.lab.sharpness.summary import summarise

ALPHA = {
    "top_span_words": "median top-span words ↓",
    "uniform_agreement": "kept, uniform alpha ↓",
    "deletion_beats_random": "deletion beats random ↑",
    "top_out_flip": "flips, top span out ↑",
    "sst_phrase_agreement": "SST phrase polarity ↑",
}
DEV_ALPHA = {  # the selection rule's dev figures (docs/accuracy.md): its targets and eligibility checks
    "top_span_words": "median top-span words ↓",
    "nonzero_spans": "spans with alpha > 0 ↑",
    "deletion_beats_random": "deletion beats random ↑",
    "uniform_agreement": "kept, uniform alpha ↓",
    "sst_phrase_agreement": "SST phrase polarity ↑",
    "closing_punctuation": "ends on closing punctuation ↓",
    "top_out_flip": "flips, top span out ↑",
}
# the labels of figures in words or spans, shown as they are (the others are fractions, shown as percent)
COUNT_LABELS = tuple(
    {table[key] for table in (ALPHA, DEV_ALPHA) for key in ("top_span_words", "nonzero_spans") if key in table}
)


def is_count(column: str) -> bool:
    """Whether a table column holds a count (words, spans), by the measure its label names."""
    return column.endswith(COUNT_LABELS)


def seed_row(folder: Path, tag: str) -> dict[str, float]:
    """The figures of one seed, keyed by column name (fractions, NaN where not measured)."""
    row = {
        "dev acc. ↑": json.loads((folder / f"{tag}-dev.json").read_text())["accuracy"],
        "test acc. ↑": json.loads((folder / f"{tag}-test.json").read_text())["accuracy"],
    }
    summaries = {
        part: summarise(read_rows(folder / f"{tag}-sharp-{part}" / "sharpness.csv").to_dict("records"))
        for part in ("test300", "heldout")
    }
    row["held-out acc. ↑"] = summaries["heldout"]["accuracy"]
    row.update(long_reviews(folder, tag))
    for part, summary in summaries.items():
        for key, label in ALPHA.items():
            row[f"{part}: {label}"] = summary.get(key, float("nan"))
    return row


def dev_row(folder: Path, tag: str, inputs: str) -> dict[str, float]:
    """The dev figures of one seed: accuracy on all of dev, the alpha measures on its first ``inputs``."""
    summary = summarise(read_rows(folder / f"{tag}-sharp-dev{inputs}" / "sharpness.csv").to_dict("records"))
    row = {"dev acc. ↑": json.loads((folder / f"{tag}-dev.json").read_text())["accuracy"]}
    row.update({f"dev: {label}": summary.get(key, float("nan")) for key, label in DEV_ALPHA.items()})
    return row


def long_reviews(folder: Path, tag: str) -> dict[str, float]:
    """Long-review accuracy and average precision over random (fractions), NaN where not measured."""
    accuracy = folder / f"{tag}-movies-300-eval.json"
    ranking = folder / f"{tag}-plausibility-movies.json"
    row = {"long reviews acc. ↑": float("nan"), "long reviews: AP over random, points ↑": float("nan")}
    if accuracy.is_file():
        row["long reviews acc. ↑"] = json.loads(accuracy.read_text())["accuracy"]
    if ranking.is_file():
        figures = json.loads(ranking.read_text())
        row["long reviews: AP over random, points ↑"] = figures["alpha"]["auprc"] - figures["random"]["auprc"]
    return row


def seed_table(folder: Path, tags: list[str], dev: str | None = None) -> str:
    """The Markdown table: a row per tag, then mean ± sample sd over the tags (percentages except words and
    span counts); ``dev``: the dev figures only, alpha on that many dev inputs (:func:`dev_row`)."""
    rows = {tag: dev_row(folder, tag, dev) if dev else seed_row(folder, tag) for tag in tags}
    columns = [c for c in next(iter(rows.values())) if any(np.isfinite(r[c]) for r in rows.values())]

    def cell(column: str, values: np.ndarray) -> str:
        scaled = values * (1 if is_count(column) else 100)
        if scaled.size == 1:
            return f"{scaled[0]:.1f}"
        return f"{scaled.mean():.1f} ± {scaled.std(ddof=1):.1f}"

    lines = ["| seed | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    for tag, row in rows.items():
        lines.append(f"| {tag} | " + " | ".join(cell(c, np.array([row[c]])) for c in columns) + " |")
    if len(rows) > 1:
        means = [cell(c, np.array([r[c] for r in rows.values()])) for c in columns]
        lines.append(f"| mean ± sd ({len(rows)} seeds) | " + " | ".join(means) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--dev", metavar="N", help="the dev figures only (the selection rule's), alpha on N inputs")
    parser.add_argument("tags", nargs="+")
    args = parser.parse_args()
    print(seed_table(args.folder, args.tags, dev=args.dev))


if __name__ == "__main__":
    main()
