"""A self-contained HTML report of one explanation: opens offline, all text escaped."""

from __future__ import annotations

import plotly.graph_objects as go

from selfexplain.core.results.explanation import Explanation, Span
from selfexplain.views.evidence import weight_sentence
from selfexplain.views.highlight import escape_text, highlight_html
from selfexplain.views.style import REPORT_STYLE


def report_html(explanation: Explanation, spans: list[Span], figures: list[go.Figure]) -> str:
    """HTML document: prediction, highlighted text, the table of the top 20 spans that carry weight (a span
    with alpha 0 is never listed) and ``figures`` (plotly.js inlined once)."""
    listed = explanation.evidence_spans(20)
    rows = "".join(
        f"<tr><td>{s.rank}</td><td>{escape_text(s.text)}</td><td>{s.alpha:.4f}</td>"
        f"<td>{s.start_token}-{s.end_token}</td><td>{s.start_char}-{s.end_char}</td></tr>"
        for s in listed
    )
    valid = int(explanation.span_mask.sum())
    sentence = weight_sentence(listed, explanation.num_evidence, valid)
    zeros = valid - explanation.num_evidence
    note = f"<p>{sentence}</p>" if sentence else ""
    if zeros > 0 and not sentence:
        note = f"<p>The other {zeros:,} spans have alpha 0 and are not listed.</p>"
    heading = "The span that carries weight" if len(listed) == 1 else f"Top {len(listed)} spans by alpha"
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
        f"<h2>{heading}</h2>{note}"
        "<table><tr><th>rank</th><th>span</th><th>alpha</th><th>tokens</th><th>chars</th></tr>"
        f"{rows}</table>{charts}</body></html>"
    )
