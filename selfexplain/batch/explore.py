"""Data-set statistics over batch records: pure functions, records -> dict / pandas DataFrame."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

LENGTH_BINS = (0, 5, 10, 20, 40, 80, 10_000)
_EDGE_PUNCTUATION = re.compile(r"^[\W_]+|[\W_]+$")


def summary(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Counts over streamed records: rows, explained, errors, truncated, labelled, accuracy, predicted labels."""
    rows = errors = truncated = labelled = correct = 0
    predicted: Counter[str] = Counter()
    for record in records:
        rows += 1
        if record.get("error"):
            errors += 1
            continue
        predicted[record["label"]] += 1
        truncated += bool(record.get("truncated"))
        if record.get("correct") is not None:
            labelled += 1
            correct += bool(record["correct"])
    return {
        "rows": rows,
        "explained": rows - errors,
        "errors": errors,
        "truncated": truncated,
        "labelled": labelled,
        "accuracy": round(correct / labelled, 6) if labelled else None,
        "predicted": dict(sorted(predicted.items())),
    }


def normalise_span(text: str) -> str:
    """Lower case, single spaces, punctuation trimmed from both ends."""
    return _EDGE_PUNCTUATION.sub("", " ".join(text.lower().split()))


def records_frame(records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """One row per record with the columns the explorer and the results table use."""
    rows = []
    for r in records:
        spans = r.get("spans") or []
        top = spans[0] if spans else None
        attention = r.get("top_attention_token") or None
        distance = None
        if top is not None and attention is not None:
            index = attention["index"]
            distance = max(top["start_token"] - index, index - top["end_token"], 0)
        tokens = r.get("num_tokens") or 0
        rows.append(
            {
                "index": r["index"],
                "line": r["line"],
                "text": r["text"],
                "pair": r.get("pair"),
                "gold": r.get("gold"),
                "label": r.get("label"),
                "confidence": r.get("confidence"),
                "correct": r.get("correct"),
                "truncated": r.get("truncated"),
                "num_tokens": tokens or None,
                "top_span": top["text"] if top else None,
                "top_span_alpha": top["alpha"] if top else None,
                "top_span_length": top["end_token"] - top["start_token"] + 1 if top else None,
                "alpha_entropy": r.get("alpha_entropy"),
                "alpha_entropy_norm": _norm(r.get("alpha_entropy"), r.get("num_valid_spans")),
                "attention_entropy": r.get("attention_entropy"),
                "attention_entropy_norm": _norm(r.get("attention_entropy"), tokens),
                "top_attention_token": attention["text"] if attention else None,
                "attention_in_top_span": r.get("attention_in_top_span"),
                "disagreement": distance / tokens if distance is not None and tokens else None,
                "error": r.get("error"),
                "spans": spans,
            }
        )
    return pd.DataFrame(rows)


def _norm(value: float | None, count: int | None) -> float | None:
    """Entropy divided by its maximum ``log(count)``: 0 = all weight on one item, 1 = uniform."""
    if value is None or not count or count < 2:
        return None
    return value / math.log(count)


def explained(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows that have a prediction."""
    return frame[frame["error"].isna()] if len(frame) else frame


def top_spans_by_class(frame: pd.DataFrame, per_row: int = 1, top: int = 10) -> pd.DataFrame:
    """Most frequent normalised top spans per predicted class: label, span, count, mean_alpha (spans with
    alpha 0 are not counted). See :func:`top_words_by_class` for counts that add up across phrasings."""
    rows = [
        {"label": label, "span": normalise_span(span["text"]), "alpha": span["alpha"]}
        for label, spans in zip(explained(frame)["label"], explained(frame)["spans"])
        for span in spans[:per_row]
        if span.get("alpha", 0) > 0
    ]
    table = pd.DataFrame(rows, columns=["label", "span", "alpha"])
    table = table[table["span"] != ""]
    grouped = table.groupby(["label", "span"], as_index=False).agg(
        count=("alpha", "size"), mean_alpha=("alpha", "mean")
    )
    grouped = grouped.sort_values(["label", "count", "mean_alpha", "span"], ascending=[True, False, False, True])
    return grouped.groupby("label", as_index=False, group_keys=False).head(top).reset_index(drop=True)


# Words too common to say anything about a class (negations and contrasts such as "not" and "but" are kept).
STOP_WORDS = frozenset(
    "a an the and or of to in on at by for with from as is are was were be been being it its it's this that "
    "these those there here his her hers him he she they them their theirs we us our you your i me my "
    "has have had do does did so than then which who whom what when where while into onto about over "
    "s 's n't".split()
)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def span_words(text: str) -> list[str]:
    """The distinct words of a span, lower case, in order, without punctuation or :data:`STOP_WORDS`."""
    words = (w.replace("’", "'") for w in _WORD.findall(text.lower()))
    return list(dict.fromkeys(w for w in words if w not in STOP_WORDS))


def top_words_by_class(frame: pd.DataFrame, per_row: int = 1, top: int = 10) -> pd.DataFrame:
    """The words that most often lie in an input's top ``per_row`` spans, per predicted class: label,
    word, count (inputs of that class whose top spans hold the word, each input counted once), share
    (count over the inputs of that class) and mean_alpha (of those top spans). A top span is usually a
    phrase of its own, so whole spans rarely repeat; their words do."""
    rows = explained(frame)
    records = []
    for label, spans in zip(rows["label"], rows["spans"]):
        chosen = [span for span in spans[:per_row] if span.get("alpha", 0) > 0]
        alpha = float(np.mean([span["alpha"] for span in chosen])) if chosen else 0.0
        words = dict.fromkeys(w for span in chosen for w in span_words(span["text"]))
        records.extend({"label": label, "word": word, "alpha": alpha} for word in words)
    table = pd.DataFrame(records, columns=["label", "word", "alpha"])
    inputs = rows.groupby("label").size()
    grouped = table.groupby(["label", "word"], as_index=False).agg(
        count=("alpha", "size"), mean_alpha=("alpha", "mean")
    )
    grouped["share"] = grouped["count"] / grouped["label"].map(inputs).astype(float)
    grouped = grouped.sort_values(["label", "count", "mean_alpha", "word"], ascending=[True, False, False, True])
    top_rows = grouped.groupby("label", as_index=False, group_keys=False).head(top).reset_index(drop=True)
    return top_rows[["label", "word", "count", "share", "mean_alpha"]]


def span_length_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """How often the top span has each length in tokens, per predicted class."""
    rows = explained(frame).dropna(subset=["top_span_length"])
    counts = rows.groupby(["top_span_length", "label"]).size().reset_index(name="count")
    return counts.astype({"top_span_length": int})


def _bins(values: pd.Series, edges: tuple[int, ...]) -> pd.Series:
    labels = [f"{lo + 1}-{hi}" if hi < edges[-1] else f">{lo}" for lo, hi in zip(edges[:-1], edges[1:])]
    return pd.cut(values, bins=list(edges), labels=labels)


def accuracy_by(frame: pd.DataFrame, column: str, edges: tuple[int, ...] | None = None) -> pd.DataFrame:
    """Accuracy and count per value of ``column`` (binned by ``edges`` when given), labelled rows only."""
    rows = explained(frame)
    rows = rows[rows["correct"].notna()].dropna(subset=[column])
    key = _bins(rows[column], edges) if edges else rows[column].astype(int)
    table = rows.assign(group=key, hit=rows["correct"].astype(float)).groupby("group", observed=True)
    result = table.agg(examples=("hit", "size"), accuracy=("hit", "mean")).reset_index()
    return result.rename(columns={"group": column})


def disagreements(frame: pd.DataFrame, top: int = 20) -> pd.DataFrame:
    """Rows whose top attention token lies farthest from the top alpha span (relative to length),
    ties broken by the least attention inside the span."""
    rows = explained(frame).dropna(subset=["disagreement"])
    ordered = rows.sort_values(["disagreement", "attention_in_top_span", "index"], ascending=[False, True, True])
    columns = ["index", "text", "label", "top_span", "top_attention_token", "disagreement", "attention_in_top_span"]
    return ordered[columns].head(top).reset_index(drop=True)


def confusion(frame: pd.DataFrame, label_names: list[str]) -> pd.DataFrame:
    """Gold (rows) x predicted (columns) counts over the labelled rows, in ``label_names`` order."""
    rows = explained(frame)
    rows = rows[rows["gold"].notna()]
    counts = np.zeros((len(label_names), len(label_names)), dtype=int)
    position = {name: i for i, name in enumerate(label_names)}
    for gold, label in zip(rows["gold"], rows["label"]):
        counts[position[gold], position[label]] += 1
    return pd.DataFrame(counts, index=pd.Index(label_names, name="gold"), columns=label_names)


def label_names_of(records: Iterable[dict[str, Any]]) -> list[str]:
    """The model's label names, from the first record with probabilities."""
    for record in records:
        if record.get("probabilities"):
            return list(record["probabilities"])
    return []
