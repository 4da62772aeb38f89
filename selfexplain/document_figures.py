"""Pure figure and table builders for a long :class:`~selfexplain.document.Document`.

What they return grows linearly with the document (a bar per part, the text once), never with
its square: grids are drawn for one part at a time with :func:`selfexplain.figures.span_grid_figure`
on :meth:`Document.part`, and attention for a part's tokens inside the window that holds it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from selfexplain.attention import Aggregate, aggregate_attention
from selfexplain.document import Document, WindowAttention
from selfexplain.document_parts import DocumentParts
from selfexplain.explanation import Span
from selfexplain.figures import MAX_GRID_UNITS, attention_figure, plot_text
from selfexplain.highlight import _segment_html
from selfexplain.style import ALPHA_SCALE, HIGHLIGHT, apply_layout

SNIPPET = 80  # characters of a part shown in its hover label


def snippet(text: str, size: int = SNIPPET) -> str:
    """The start of ``text`` on one line, cut at ``size`` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= size else line[: size - 1] + "…"


def parts_overview_figure(document: Document, parts: DocumentParts, selected: int | None = None) -> go.Figure:
    """One bar per sentence or paragraph: the alpha mass of the spans inside it (``P`` bars, coloured by
    mass; the open part outlined). The title gives the mass of spans crossing part boundaries.
    Each bar carries its part index as ``customdata`` for clicks."""
    assert parts.mass is not None, "use Document.parts(level), which adds the masses"
    count = len(parts)
    hover = [plot_text(snippet(parts.text(document.text, i))) for i in range(count)]
    outline = np.where(np.arange(count) == (selected if selected is not None else -1), 2.5, 0.0)
    fig = go.Figure(
        go.Bar(
            x=np.arange(1, count + 1),
            y=parts.mass,
            customdata=np.arange(count),
            text=hover,
            marker={
                "color": parts.mass,
                "colorscale": ALPHA_SCALE,
                "cmin": 0.0,
                "line": {"color": HIGHLIGHT, "width": outline},
            },
            hovertemplate=f"{parts.level} %{{x}}<br>alpha mass %{{y:.4f}}<br>%{{text}}<extra></extra>",
        )
    )
    fig.update_xaxes(title=f"{parts.level} (in reading order)")
    fig.update_yaxes(title="alpha mass of the spans inside")
    title = (
        f"Where the alpha mass lies: {count:,} {parts.level}s "
        f"(spans across {parts.level}s hold {parts.across:.1%} more)"
    )
    fig = apply_layout(fig, title, 340)
    fig.update_layout(clickmode="event+select", dragmode=False, bargap=0.1 if count < 200 else 0.0)
    return fig


def top_spans_table(document: Document, parts: DocumentParts, k: int = 10) -> pd.DataFrame:
    """The ``k`` highest-alpha spans: rank, text (cut to a snippet), alpha, the part holding its first
    token (numbered from 1) and its token range."""
    spans = document.top_spans(k)
    rows = [
        {
            "rank": s.rank,
            "span": snippet(s.text, 120),
            "alpha": s.alpha,
            parts.level: int(parts.part_of_token[s.start_token]) + 1,
            "tokens": f"{s.start_token}-{s.end_token}",
        }
        for s in spans
    ]
    return pd.DataFrame(rows, columns=["rank", "span", "alpha", parts.level, "tokens"])


def document_highlight_html(document: Document, spans: list[Span]) -> str:
    """The whole text with ``spans`` shaded by alpha (escaped HTML, as :func:`highlight_html` draws it)."""
    top = max((s.alpha for s in spans), default=0.0)
    body = _segment_html(document.text, spans, None, top)
    return f"<div class='selfexplain-text' style='font-size:1.05em;line-height:1.8'>{body}</div>"


def part_attention_figure(
    window: WindowAttention,
    first: int,
    end: int,
    aggregate: Aggregate = "mean over heads",
    layer: int = -1,
    head: int = 0,
) -> go.Figure:
    """The raw self-attention of the window holding document tokens ``first .. end - 1``, computed over
    the whole window (rollout included) and then cut to [CLS] and those tokens (at most
    :data:`MAX_GRID_UNITS` positions a side): rows keep their values, so a row sums to what it gives the
    tokens shown, the rest going to the window's other tokens."""
    matrix = aggregate_attention(window.attentions, aggregate, layer, head)
    keep = window.positions(first, end, MAX_GRID_UNITS)
    tokens = [window.tokens[i] for i in keep.tolist()]
    layers = window.attentions.shape[0]
    what = {
        "head": f"layer {layer % layers + 1}, head {head + 1}",
        "mean over heads": f"layer {layer % layers + 1}, mean over heads",
        "mean over layers": "mean over every layer and head",
        "rollout": "rollout through all layers",
    }[aggregate]
    title = f"Raw self-attention in window from token {window.start:,} ({what})"
    return attention_figure(matrix[np.ix_(keep, keep)], tokens, title)
