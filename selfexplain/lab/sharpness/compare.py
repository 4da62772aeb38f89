"""Two models' sharpness rows on the same inputs, compared with the decision held fixed.

Some measures read the decision as well as alpha. ``deletion_beats_random`` asks whether deleting the
top span lowers the probability of the *predicted* class more than deleting random words: on an
ordered label scale a strong word in a sentence called "positive" often pushes towards "very
positive", so deleting it *raises* the probability of "positive", and the same top span passes for a
model that calls the sentence "very positive" and fails for one that calls it "positive". Two models
that decide differently on an input are then measured on different questions. This module splits the
inputs of two ``sharpness.csv`` files (same inputs, same order) into those where both models predict
the same class and those where they do not, summarises each measure on each part, breaks one measure
down by predicted class, and gives each measure's paired difference with a bootstrap interval
(docs/sharpness.md, "Comparing two models").

Per-input columns computed over the whole file (``repeated_top_span`` compares each top span with
the most common one of *all* the inputs) keep that reading on each part.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from selfexplain.errors import DataError
from selfexplain.lab.sharpness.registry import BY_KEY, MEASURES
from selfexplain.lab.sharpness.summary import summarise

KEYS = ("text", "pair")  # the columns that name an input


def read_rows(path: Path) -> pd.DataFrame:
    """A ``sharpness.csv`` as a frame; a :class:`DataError` naming ``path`` when it is missing, is not a
    CSV file, or lacks the ``text`` and ``predicted`` columns."""
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    try:
        frame = pd.read_csv(path)
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise DataError(f"{path}: not a sharpness.csv ({type(err).__name__})") from None
    if not {"text", "predicted"} <= set(frame.columns):
        raise DataError(f"{path}: needs the text and predicted columns of a sharpness.csv")
    return frame


def same_decision(first: pd.DataFrame, second: pd.DataFrame) -> np.ndarray:
    """``[N]`` bool: both models predict the same class on input ``n``. A :class:`DataError` when the
    two frames are not the same inputs in the same order, or lack the ``predicted`` column."""
    for frame in (first, second):
        if "text" not in frame.columns or "predicted" not in frame.columns:
            raise DataError("a sharpness.csv needs its text and predicted columns")
    if len(first) != len(second):
        raise DataError(f"the two files hold {len(first)} and {len(second)} inputs: measure the same data")
    for key in KEYS:
        if (key in first.columns) != (key in second.columns):
            raise DataError(f"only one file has the {key!r} column: measure the same data")
        if key in first.columns:
            a, b = first[key].fillna("").astype(str).to_numpy(), second[key].fillna("").astype(str).to_numpy()
            differ = np.flatnonzero(a != b)
            if differ.size:
                raise DataError(f"input {int(differ[0]) + 1} differs between the two files: measure the same data")
    return first["predicted"].astype(str).to_numpy() == second["predicted"].astype(str).to_numpy()


def decision_summaries(frames: dict[str, pd.DataFrame]) -> dict[str, dict[str, float]]:
    """For exactly two named frames: each model's summary (:func:`summarise`) on all inputs, on the
    inputs where the two decide alike, and on those where they do not, keyed ``"NAME: all inputs"``,
    ``"NAME: same decision"``, ``"NAME: different decision"`` (a part with no inputs is left out)."""
    if len(frames) != 2:
        raise DataError("compare exactly two sharpness files")
    first, second = frames.values()
    same = same_decision(first, second)
    parts = {"all inputs": np.ones_like(same), "same decision": same, "different decision": ~same}
    out: dict[str, dict[str, float]] = {}
    for part, keep in parts.items():
        if not keep.any():
            continue
        for name, frame in frames.items():
            out[f"{name}: {part}"] = summarise(frame[keep].to_dict("records"))
    return out


def by_class(frames: dict[str, pd.DataFrame], measure: str = "deletion_beats_random") -> pd.DataFrame:
    """One row per predicted class (either model's), per model its input count ``NAME n`` and the
    measure's mean over them (NaNs skipped; NaN when none has a value), then a last row, ``"(class
    mix of the other)"``: each model's per-class means weighted by the other model's class counts, i.e.
    what it would score had it decided the classes as often as the other (classes it never predicts
    are left out of the weights)."""
    if measure not in BY_KEY:
        raise DataError(f"unknown measure {measure!r}; known: {', '.join(BY_KEY)}")
    if len(frames) != 2:
        raise DataError("compare exactly two sharpness files")
    for name, frame in frames.items():
        if measure not in frame.columns:
            raise DataError(f"{name} has no {measure} column")
    classes = sorted(set().union(*(set(f["predicted"].astype(str)) for f in frames.values())))
    table = pd.DataFrame(index=pd.Index(classes, name="predicted"))
    for name, frame in frames.items():
        groups = frame.groupby(frame["predicted"].astype(str))[measure]
        table[f"{name} n"] = groups.size().reindex(classes).fillna(0).astype(int)
        table[f"{name} {measure}"] = groups.mean().reindex(classes)
    names = list(frames)
    mixed = {}
    for own, other in (names, names[::-1]):
        rates, counts = table[f"{own} {measure}"], table[f"{other} n"]
        usable = rates.notna() & (counts > 0)
        weights = counts[usable]
        mixed[f"{own} {measure}"] = float((rates[usable] * weights).sum() / weights.sum()) if weights.sum() else np.nan
        mixed[f"{own} n"] = int(weights.sum())
    table.loc["(class mix of the other)"] = pd.Series(mixed)
    return table


def markdown_by_class(table: pd.DataFrame) -> str:
    """:func:`by_class`'s table as Markdown, means to three decimals."""
    lines = ["| predicted | " + " | ".join(table.columns) + " |", "|---|" + "---:|" * len(table.columns)]
    for label, row in table.iterrows():
        cells = [
            str(int(value)) if column.endswith(" n") else "" if pd.isna(value) else f"{value:.3f}"
            for column, value in row.items()
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def paired_differences(
    frames: dict[str, pd.DataFrame], draws: int = 1000, seed: int = 0, level: float = 0.95
) -> pd.DataFrame:
    """One row per measure (mean-aggregated, with a value in both frames): each model's mean over the
    ``inputs`` where *both* have a value (so it can differ from :func:`summarise`'s, which skips each
    frame's own NaNs), ``difference`` (second - first), the ``level`` percentile interval of that
    difference over ``draws`` resamples of those inputs with replacement (paired: one index draw
    ``[draws, inputs]`` per measure, from a generator seeded ``seed``), and ``better``: the model the
    measure's direction favours when the interval excludes 0, else ``neither`` (``""`` for a
    measure without a direction)."""
    if len(frames) != 2:
        raise DataError("compare exactly two sharpness files")
    if draws < 1 or not 0 < level < 1:
        raise DataError("the bootstrap needs at least 1 draw and a level between 0 and 1")
    (first_name, first), (second_name, second) = frames.items()
    same_decision(first, second)  # the same inputs, in the same order
    rng = np.random.default_rng(seed)
    rows = []
    for measure in MEASURES.values():
        if measure.aggregate != "mean" or measure.key not in first.columns or measure.key not in second.columns:
            continue
        a = pd.to_numeric(first[measure.key], errors="coerce").to_numpy(np.float64)  # [N]
        b = pd.to_numeric(second[measure.key], errors="coerce").to_numpy(np.float64)
        keep = np.isfinite(a) & np.isfinite(b)
        if not keep.any():
            continue
        delta = b[keep] - a[keep]  # [K]
        means = delta[rng.integers(0, delta.size, size=(draws, delta.size))].mean(axis=1)  # [draws]
        low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
        better = ""
        if measure.higher_is_better is not None:
            ahead = second_name if (low > 0) == measure.higher_is_better else first_name
            better = ahead if low > 0 or high < 0 else "neither"
        rows.append(
            {
                "measure": measure.label,
                first_name: a[keep].mean(),
                second_name: b[keep].mean(),
                "difference": delta.mean(),
                "low": low,
                "high": high,
                "inputs": int(keep.sum()),
                "better": better,
            }
        )
    return pd.DataFrame(rows)


def markdown_differences(table: pd.DataFrame, level: float = 0.95) -> str:
    """:func:`paired_differences`' table as Markdown: values to three decimals, the interval in brackets."""
    first, second = table.columns[1], table.columns[2]
    lines = [
        f"| measure | {first} | {second} | {second} - {first} [{level:.0%} interval] | inputs | better |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for row in table.itertuples(index=False):
        lines.append(
            f"| {row[0]} | {row[1]:.3f} | {row[2]:.3f} | {row[3]:+.3f} [{row[4]:+.3f}, {row[5]:+.3f}] "
            f"| {row[6]} | {row[7]} |"
        )
    return "\n".join(lines) + "\n"
