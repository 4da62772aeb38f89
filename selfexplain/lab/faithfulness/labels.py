"""What a reader sees instead of code identifiers: method names (each explainer's ``label``),
metric names with the better direction (:data:`selfexplain.lab.faithfulness.metrics.METRICS`), and
result tables renamed for display. Result files keep the registry names and metric keys."""

from __future__ import annotations

import pandas as pd

from selfexplain.lab.faithfulness.metrics import METRICS
from selfexplain.methods.explainers import method_label
from selfexplain.views.highlight import escape_text

COUNT_HEADING = "Inputs"


def axis_label(name: str, width: int = 22) -> str:
    """``method_label(name)`` escaped for a plotly axis, broken into lines of about ``width`` characters."""
    lines: list[str] = []
    for word in method_label(name).split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(escape_text(line) for line in lines)


def metric_heading(key: str) -> str:
    """``Comprehensiveness ↑`` for a known metric key; other columns keep their name."""
    return METRICS[key].heading if key in METRICS else key


def readable(table: pd.DataFrame) -> pd.DataFrame:
    """A copy of a summary or drill-down table for display: the ``explainer`` column becomes
    ``Method`` (human names), each metric column its heading, ``examples`` the ``Inputs`` count."""
    shown = table.copy()
    if "explainer" in shown:
        shown["explainer"] = [method_label(str(n)) for n in shown["explainer"]]
    names = {"explainer": "Method", "examples": COUNT_HEADING, "top tokens": "Top tokens"}
    return shown.rename(columns={c: names.get(c, metric_heading(c)) for c in shown.columns})


def metric_legend(keys: list[str] | None = None) -> str:
    """Markdown bullets, one per metric: heading, the better direction and what it measures."""
    chosen = [METRICS[k] for k in (keys if keys is not None else list(METRICS)) if k in METRICS]
    return "\n".join(f"- **{m.heading}** ({m.direction}): {m.meaning}" for m in chosen)


SHORT_HEADINGS = {  # table headers that fit a narrow column; the full heading and meaning go in its tooltip
    "flip_fraction": "Removed to flip ↓",
    "js_difference": "Erasure effect ↑",
    "js_positive": "Beats random ↑",
    "tau_loo": "Like leave-one-out ↑",
    "strong_phrase": "Strongly polar ↑",
    "polar_phrase": "Polar phrase ↑",
}
TEXT_COLUMNS = {"Method": "medium", "Top tokens": "large", "Test": "large", "measure": "large", "note": "large"}
HEADER_CHAR_PX = 8  # a header character's width in pixels (the app's table font, bold)
HEADER_PAD_PX = 40  # a header's padding, its sort arrow and its help icon
NUMBER_WIDTH_PX = 80  # the least width of a number column


def header_width(label: str) -> int:
    """Pixels a column needs to show its whole header ``label`` (Streamlit's "small", 75 px, cut
    "Comprehensiveness ↑" to "Comprehensive")."""
    return max(NUMBER_WIDTH_PX, HEADER_CHAR_PX * len(label) + HEADER_PAD_PX)


def column_specs(columns: list[str]) -> dict[str, dict[str, object]]:
    """How each column of a table shown by the page is drawn, so no column is cut off (issue 23 defect 11):
    ``{column: {"label", "help", "width", "numeric"}}`` for the displayed columns of :func:`readable`
    tables: metric columns get a short label (at most 20 characters) with the full heading and the
    metric's meaning as help, and a width in pixels that holds the whole label (:func:`header_width`); text
    columns are "medium" or "large" (or as wide as their header)."""
    by_heading = {m.heading: m for m in METRICS.values()}
    specs: dict[str, dict[str, object]] = {}
    for column in columns:
        metric = by_heading.get(column)
        if metric is not None:
            label = SHORT_HEADINGS.get(metric.key, metric.heading)
            meaning = f"{metric.heading}: {metric.meaning}"
            specs[column] = {"label": label, "help": meaning, "width": header_width(label), "numeric": True}
        else:
            width = TEXT_COLUMNS.get(column, header_width(column))
            specs[column] = {"label": column, "help": None, "width": width, "numeric": False}
    return specs
