"""Result rows -> tables: one row per explainer, the Kendall tau matrix, the alpha tests,
mean perturbation curves and the per-example drill-down."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from selfexplain.lab.faithfulness.metrics import CURVE_POINTS

Rows = Sequence[dict]
TOKEN_METRICS = ("comprehensiveness", "sufficiency", "flip_fraction", "never_flip", "js_difference", "js_positive")


def explainer_names(rows: Rows) -> list[str]:
    """Every method in the rows, in order of first appearance (a text read in windows has fewer)."""
    return list(dict.fromkeys(name for r in rows for name in r["explainers"]))


def _with(rows: Rows, name: str) -> list[dict]:
    """The rows that scored method ``name``."""
    return [r for r in rows if name in r["explainers"]]


def summary_table(rows: Rows) -> pd.DataFrame:
    """One row per explainer: mean comprehensiveness (higher = more faithful), sufficiency
    (lower = better), flip fraction (lower = better; never-flips count as 1), share never
    flipped, mean JS(top) - JS(random) and the share of inputs where it is positive,
    mean Kendall tau with leave-one-out."""
    records = []
    for name in explainer_names(rows):
        per = [r["explainers"][name] for r in _with(rows, name)]
        taus = [_tau(r, name, "loo") for r in _with(rows, name)]
        records.append(
            {
                "explainer": name,
                "comprehensiveness": np.mean([p["comprehensiveness"] for p in per]),
                "sufficiency": np.mean([p["sufficiency"] for p in per]),
                "flip_fraction": np.mean([p["flip_fraction"] for p in per]),
                "never_flip": np.mean([not p["flipped"] for p in per]),
                "js_difference": np.mean([p["js_difference"] for p in per]),
                "js_positive": np.mean([p["js_difference"] > 0 for p in per]),
                "tau_loo": np.nanmean(taus) if np.isfinite(taus).any() else np.nan,
                "examples": len(per),
            }
        )
    return pd.DataFrame.from_records(records)


def _tau(row: dict, a: str, b: str) -> float:
    if a == b:
        return 1.0
    value = row["tau"].get(f"{a}|{b}", row["tau"].get(f"{b}|{a}"))
    return np.nan if value is None else float(value)


def tau_matrix(rows: Rows) -> pd.DataFrame:
    """Mean (over inputs, NaNs skipped) Kendall tau between every pair of explainers."""
    names = explainer_names(rows)
    values = np.array([[[_tau(r, a, b) for b in names] for a in names] for r in rows])
    with np.errstate(all="ignore"):
        mean = np.nanmean(values, axis=0) if len(rows) else np.zeros((0, 0))
    return pd.DataFrame(mean, index=names, columns=names)


def curve_table(rows: Rows) -> pd.DataFrame:
    """Long table: explainer, fraction of tokens removed (top first), mean target probability."""
    records = []
    for name in explainer_names(rows):
        mean = np.mean([r["explainers"][name]["curve"] for r in _with(rows, name)], axis=0)
        records += [{"explainer": name, "fraction_removed": f, "probability": p} for f, p in zip(CURVE_POINTS, mean)]
    return pd.DataFrame.from_records(records)


def flip_table(rows: Rows) -> pd.DataFrame:
    """Long table: explainer, example index, flip fraction, flipped."""
    return pd.DataFrame.from_records(
        {"explainer": n, "index": r["index"], "flip_fraction": e["flip_fraction"], "flipped": e["flipped"]}
        for r in rows
        for n, e in r["explainers"].items()
    )


ORDER_NAMES = {
    "alpha": "highest alpha first",
    "gradient": "highest gradient first",
    "alpha_x_gradient": "highest alpha x gradient first",
    "random": "random order",
}


def alpha_table(rows: Rows) -> pd.DataFrame:
    """The span-layer tests, one row per measure in plain words: ``test``, ``value`` and ``better``
    (``higher``/``lower`` = which way means alpha is the more faithful explanation, empty for context)
    (empty table when no row has them)."""
    tests = [r for r in rows if "alpha" in r]
    if not tests:
        return pd.DataFrame(columns=["test", "value", "better"])
    a = [r["alpha"] for r in tests]
    # a text read in windows has no attention maps: the attention comparisons cover the other inputs
    looked = [(x, r) for x, r in zip(a, tests) if "top_attention_span_predicted" in x]
    orders = [(k, ORDER_NAMES.get(k, k)) for k in a[0]["four_way"]]
    records = [
        (f"spans removed until the label flips ({o})", np.mean([x["four_way"][k]["span_fraction"] for x in a]), "lower")
        for k, o in orders
    ]
    records += [
        (
            f"alpha weight removed until the label flips ({o})",
            np.mean([x["four_way"][k]["mass_fraction"] for x in a]),
            "lower",
        )
        for k, o in orders
    ]
    records += [
        (f"share of inputs never flipped ({o})", np.mean([not x["four_way"][k]["flipped"] for x in a]), "lower")
        for k, o in orders
    ]
    records += [
        (
            "output change when alpha is shuffled over the spans (median total variation)",
            np.mean([x["median_tvd"] for x in a]),
            "higher",
        ),
        ("largest alpha (mean over inputs)", np.mean([x["max_alpha"] for x in a]), ""),
        (
            "how far a different alpha can move with the output kept (Jensen-Shannon)",
            np.mean([x["adversarial_js"] for x in a]),
            "lower",
        ),
        (
            "prediction kept with uniform alpha",
            np.mean([x["uniform_predicted"] == r["predicted"] for x, r in zip(a, tests)]),
            "lower",
        ),
        (
            "prediction kept reading only the top alpha span",
            np.mean([x["top_span_predicted"] == r["predicted"] for x, r in zip(a, tests)]),
            "higher",
        ),
    ]
    attention = [x for x, _ in looked]
    if looked:
        kept = np.mean([x["top_attention_span_predicted"] == r["predicted"] for x, r in looked])
        records.append(("prediction kept reading only the top attention span", kept, ""))
    records.append(
        ("probability drop deleting the top alpha span", np.mean([x["span_drop_alpha"] for x in a]), "higher")
    )
    if looked:
        drop = np.mean([x["span_drop_attention"] for x in attention])
        records.append(("probability drop deleting the top attention span", drop, ""))
    for k in (2, 3):
        for kind, field, better, group in (
            ("alpha", "span_drop_alpha_k", "higher", a),
            ("attention", "span_drop_attention_k", "", attention),
        ):
            if group and all(field in x for x in group):  # rows written before this test existed lack it
                value = np.mean([x[field][k - 1] for x in group])
                records.append((f"probability drop deleting the top {k} {kind} spans", value, better))
    labelled = [(x, r) for x, r in zip(a, tests) if r.get("label") is not None]
    if labelled:
        records += [
            ("accuracy: full model", np.mean([r["predicted"] == r["label"] for _, r in labelled]), ""),
            ("accuracy: uniform alpha", np.mean([x["uniform_predicted"] == r["label"] for x, r in labelled]), ""),
            (
                "accuracy: top alpha span only",
                np.mean([x["top_span_predicted"] == r["label"] for x, r in labelled]),
                "higher",
            ),
        ]
        labelled_looked = [(x, r) for x, r in labelled if "top_attention_span_predicted" in x]
        if labelled_looked:
            records.append(
                (
                    "accuracy: top attention span only",
                    np.mean([x["top_attention_span_predicted"] == r["label"] for x, r in labelled_looked]),
                    "",
                )
            )
    return pd.DataFrame(records, columns=["test", "value", "better"])


def listed_top(row: dict, name: str) -> list[int]:
    """Method ``name``'s top tokens of one row, only those it scores above 0 (a row written before the lab
    dropped them may list a token with score 0, e.g. alpha 0)."""
    scores = row.get("scores", {}).get(name)
    top = row["explainers"][name]["top"]
    return top if scores is None else [i for i in top if scores[i] > 0]


def drilldown_table(row: dict) -> pd.DataFrame:
    """One input: each explainer's top tokens (in rank order, only tokens it scores above 0; "none above 0"
    when it scores none) side by side with its metrics."""
    tokens = row["tokens"]
    return pd.DataFrame.from_records(
        {
            "explainer": name,
            "top tokens": " · ".join(tokens[i] for i in listed_top(row, name)) or "none above 0",
            "comprehensiveness": e["comprehensiveness"],
            "sufficiency": e["sufficiency"],
            "flip_fraction": e["flip_fraction"],
        }
        for name, e in row["explainers"].items()
    )
