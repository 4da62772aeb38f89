"""Exports of batch records: CSV, JSONL and a self-contained HTML report (opens offline)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from selfexplain.batch.explore import confusion, label_names_of, records_frame, summary
from selfexplain.batch.figures import confusion_figure
from selfexplain.batch.records import FIELDS, record_explanation, record_spans
from selfexplain.support.csv_cells import safe_frame
from selfexplain.views.highlight import escape_text, highlight_html
from selfexplain.views.style import REPORT_STYLE


def _cut(record: dict[str, Any], top_k: int | None) -> dict[str, Any]:
    spans = record.get("spans") or []
    return {**record, "spans": spans if top_k is None else spans[:top_k]}


def to_jsonl(records: Iterable[dict[str, Any]], top_k: int | None = None) -> str:
    """One JSON object a line, keeping ``top_k`` spans per row (all when None)."""
    return "".join(json.dumps(_cut(r, top_k), ensure_ascii=False) + "\n" for r in records)


def to_csv(records: Iterable[dict[str, Any]], top_k: int | None = None) -> str:
    """One row per record: the scalar fields, ``p_<label>`` per class, the top span and its alpha,
    and ``spans`` as a JSON list (``top_k`` spans, all when None). A text cell a spreadsheet would run as a
    formula (``=``, ``+``, ``-``, ``@``, tab, carriage return first) gets a leading ``'``
    (:mod:`selfexplain.support.csv_cells`)."""
    rows = []
    for record in records:
        cut = _cut(record, top_k)
        row = {k: v for k, v in cut.items() if k not in ("probabilities", "spans", "top_attention_token")}
        for name, p in (record.get("probabilities") or {}).items():
            row[f"p_{name}"] = p
        top = cut["spans"][0] if cut["spans"] else None
        row["top_span"] = top["text"] if top else None
        row["top_span_alpha"] = top["alpha"] if top else None
        token = record.get("top_attention_token")
        row["top_attention_token"] = token["text"] if token else None
        row["spans"] = json.dumps(cut["spans"], ensure_ascii=False)
        rows.append(row)
    columns = [f for f in FIELDS if f not in ("probabilities", "spans")]
    frame = pd.DataFrame(rows)
    extra = [c for c in frame.columns if c not in columns]
    frame = frame.reindex(columns=columns + extra)
    buffer = io.StringIO()
    safe_frame(frame).to_csv(buffer, index=False)
    return buffer.getvalue()


def most_confident_errors(records: Iterable[dict[str, Any]], top: int = 10) -> list[dict[str, Any]]:
    """Wrong predictions on labelled rows, most confident first (ties by index)."""
    wrong = [r for r in records if r.get("correct") is False]
    return sorted(wrong, key=lambda r: (-r["confidence"], r["index"]))[:top]


def report_html(records: list[dict[str, Any]], model_name: str, errors_shown: int = 10, spans_shown: int = 3) -> str:
    """Stakeholder report: summary numbers, confusion matrix, the most confident errors with
    their top spans highlighted, and rows that could not be explained. plotly.js is inlined."""
    stats = summary(records)
    names = label_names_of(records)
    figures: list[go.Figure] = []
    if stats["labelled"] and names:
        figures.append(confusion_figure(confusion(records_frame(records), names)))
    charts = "".join(
        f.to_html(full_html=False, include_plotlyjs="inline" if i == 0 else False, config={"displaylogo": False})
        for i, f in enumerate(figures)
    )
    accuracy = (
        f"{stats['accuracy']:.1%} on {stats['labelled']:,} labelled rows" if stats["accuracy"] is not None else "—"
    )
    numbers = (
        f"<tr><th>rows</th><td>{stats['rows']:,}</td></tr><tr><th>explained</th><td>{stats['explained']:,}</td></tr>"
        f"<tr><th>not explained (see below)</th><td>{stats['errors']:,}</td></tr>"
        f"<tr><th>truncated to fit the model</th><td>{stats['truncated']:,}</td></tr>"
        f"<tr><th>accuracy</th><td>{accuracy}</td></tr>"
        + "".join(
            f"<tr><th>predicted {escape_text(label)}</th><td>{count:,}</td></tr>"
            for label, count in stats["predicted"].items()
        )
    )
    blocks = []
    for record in most_confident_errors(records, errors_shown):
        spans = record_spans(record)[:spans_shown]
        blocks.append(
            f"<h3>Row {record['index'] + 1}: predicted {escape_text(record['label'])} ({record['confidence']:.1%}), "
            f"gold {escape_text(record['gold'])}</h3>"
            + highlight_html(record_explanation(record), spans)
            + "<p>"
            + " · ".join(f"{escape_text(s.text)} ({s.alpha:.3f})" for s in spans)
            + "</p>"
        )
    failed = [r for r in records if r.get("error")]
    problems = "".join(f"<li>{escape_text(r['error'])}</li>" for r in failed[:100])
    more = f"<p>… and {len(failed) - 100:,} more.</p>" if len(failed) > 100 else ""
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>selfexplain batch report</title>"
        f"<style>{REPORT_STYLE}mark{{color:inherit}}</style></head><body>"
        f"<h1>selfexplain batch report</h1><p>Model: <b>{escape_text(model_name)}</b></p>"
        f"<h2>Summary</h2><table>{numbers}</table>{charts}"
        f"<h2>Most confident errors</h2>{''.join(blocks) or '<p>No errors on labelled rows.</p>'}"
        + (f"<h2>Rows not explained</h2><ul>{problems}</ul>{more}" if failed else "")
        + "</body></html>"
    )
