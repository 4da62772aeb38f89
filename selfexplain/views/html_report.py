"""A self-contained HTML report of one explanation: opens offline, all text escaped."""

from __future__ import annotations

import plotly.graph_objects as go

from selfexplain.explanation import Explanation, Span
from selfexplain.views.highlight import escape_text, highlight_html
from selfexplain.views.style import REPORT_STYLE


def report_html(explanation: Explanation, spans: list[Span], figures: list[go.Figure]) -> str:
    """HTML document: prediction, highlighted text, span table and ``figures`` (plotly.js inlined once)."""
    rows = "".join(
        f"<tr><td>{s.rank}</td><td>{escape_text(s.text)}</td><td>{s.alpha:.4f}</td>"
        f"<td>{s.start_token}-{s.end_token}</td><td>{s.start_char}-{s.end_char}</td></tr>"
        for s in explanation.top_spans(20)
    )
    probabilities = ", ".join(
        f"{escape_text(name)} {p:.1%}" for name, p in zip(explanation.label_names, explanation.probabilities)
    )
    charts = "".join(
        fig.to_html(full_html=False, include_plotlyjs="inline" if i == 0 else False, config={"displaylogo": False})
        for i, fig in enumerate(figures)
    )
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>selfexplain report</title>"
        f"<style>{REPORT_STYLE}</style></head><body>"
        f"<h1>selfexplain report</h1><p>Model: <b>{escape_text(explanation.model_name)}</b></p>"
        f"<h2>Prediction: {escape_text(explanation.label)} ({explanation.confidence:.1%})</h2>"
        f"<p>{probabilities}</p><h2>Top spans in the text</h2>{highlight_html(explanation, spans)}"
        "<h2>Top 20 spans</h2><table><tr><th>rank</th><th>span</th><th>alpha</th><th>tokens</th><th>chars</th></tr>"
        f"{rows}</table>{charts}</body></html>"
    )
