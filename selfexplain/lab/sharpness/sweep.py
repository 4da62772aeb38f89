"""Measure every run of the sharpness sweep and write the table and the trade-off figure.

For each ``RUNS/sweep-sst5-*/best`` (and any extra model folders named on the command line):
accuracy and the sharpness measures on DATA (default SST-5 dev), written to
``OUT/sweep.csv``, ``OUT/sweep.md`` and the figure ``OUT/tradeoff.html`` (+ .png when kaleido
can draw it). Usage:

    selfexplain sharpness-table [--runs runs] [--data ../shared/data/sst5/dev.txt] [--out docs/figures/sharpness]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from selfexplain.core.formats.examples import read_examples
from selfexplain.core.pipeline import load_model
from selfexplain.lab.sharpness.measures import markdown_summary, summarise
from selfexplain.lab.sharpness.run import measure_examples
from selfexplain.views import style
from selfexplain.views.files import write_figures


def recipe(directory: Path) -> str:
    """The training recipe of a model folder, in words (a sweep run's metrics.json adds its extra terms)."""
    config = json.loads((directory / "selfexplain.json").read_text())
    if config["head"] != "span":
        return f"{config['head']} pooling baseline"
    unit = config.get("span_unit", "piece")  # folders from before span units are piece-level
    text = f"{config.get('normaliser', 'softmax')}, lambda {config['lambda_']:g}, {unit} spans"
    metrics = directory.parent / "metrics.json"  # the training options of a sweep run
    options = json.loads(metrics.read_text())["options"] if metrics.is_file() else {}
    for key, name in (("complement_weight", "complement"), ("sufficiency_weight", "sufficiency")):
        if options.get(key):
            text += f", {name} {options[key]:g}"
    return text


def run(args: argparse.Namespace) -> int:
    """``selfexplain sharpness-table``: measure the sweep's models (a cache keeps what is measured) and
    write ``sweep.csv``, ``sweep.md`` and the trade-off figure into ``args.out``."""
    folders = sorted(args.runs.glob("sweep-sst5-*/best")) + list(args.models)
    summaries, rows = {}, []
    cache = args.out / "cache"  # one JSON per measured model: a rerun measures only what is new
    cache.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        name = folder.parent.name.removeprefix("sweep-sst5-") if folder.name == "best" else folder.name
        stored = cache / f"{name}.json"
        if stored.is_file():
            summary = json.loads(stored.read_text())
            summaries[name] = summary
            rows.append({"run": name, "recipe": recipe(folder), **summary})
            continue
        model = load_model(folder)
        names = model.config.label_names
        examples = read_examples(args.data, txt="labelled", label_names=names, split="validation")[: args.limit]
        if model.config.head != "span":
            from selfexplain.methods.training.evaluation import predict_examples

            result = predict_examples(model, examples, progress=False)
            summary = {"examples": float(len(examples)), "accuracy": float(result.accuracy or 0.0)}
        else:
            summary = summarise(measure_examples(model, examples, progress=False))
        summaries[name] = summary
        stored.write_text(json.dumps(summary))
        rows.append({"run": name, "recipe": recipe(folder), **summary})
        print(name, json.dumps(summary), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    table = pd.DataFrame(rows)
    table.to_csv(args.out / "sweep.csv", index=False)
    (args.out / "sweep.md").write_text(markdown_summary(summaries), encoding="utf-8")
    spans = table.dropna(subset=["max_alpha"]) if "max_alpha" in table else table.iloc[:0]
    sweep = spans[spans["run"].isin([f.parent.name.removeprefix("sweep-sst5-") for f in folders if f.name == "best"])]
    others = spans.drop(sweep.index)
    sweep = sweep.sort_values("accuracy")
    figure = go.Figure(
        [
            go.Scatter(
                x=sweep["top3_mass"], y=sweep["accuracy"], mode="markers", text=sweep["run"],
                marker={"size": 11, "color": style.HIGHLIGHT}, name="sweep: same budget",
            ),
            go.Scatter(
                x=others["top3_mass"], y=others["accuracy"], text=others["run"], mode="markers+text",
                textposition="middle right", marker={"size": 11, "color": style.NOTE_TEXT, "symbol": "diamond"},
                name="other models (their own budgets)",
            ),
        ]
    )  # fmt: skip
    # labels in a column at the right, in the order of the points' accuracy, on leader lines
    placed = sweep.sort_values("accuracy")
    span = max(float(placed["accuracy"].max() - placed["accuracy"].min()), 1e-6)
    step = span / max(1, len(placed) - 1)
    for i, (_, point) in enumerate(placed.iterrows()):
        figure.add_annotation(
            x=point["top3_mass"], y=point["accuracy"], text=point["run"], showarrow=True, arrowhead=0,
            axref="x", ayref="y", ax=1.12, ay=float(placed["accuracy"].min()) + i * step, xanchor="left",
            font=style.TICK_FONT, arrowcolor=style.MUTED,
        )  # fmt: skip
    for _, base in table[table["recipe"].str.contains("baseline")].iterrows():
        figure.add_hline(
            y=base["accuracy"], line_dash="dot", annotation_text="mean-pooling baseline, same budget",
            annotation_position="bottom left",
        )  # fmt: skip
    style.apply_layout(
        figure, "Accuracy vs sharpness (SST-5 dev): alpha mass of the top 3 spans", 560, legend=style.LEGEND_BELOW
    )
    figure.update_layout(
        xaxis={"title": "alpha mass of the top 3 spans (higher = sharper)", "range": [-0.1, 1.45]},
        yaxis_title="dev accuracy", width=900,
    )  # fmt: skip
    written = write_figures(args.out, {"tradeoff": figure})
    print(markdown_summary(summaries), written)

    return 0
