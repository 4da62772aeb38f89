"""Pure figure and table builders for a long :class:`~selfexplain.core.results.document.Document`.

What they return grows linearly with the document (a bar per part, the text once), never with
its square: grids are drawn for one part at a time with :func:`selfexplain.views.figures.span_grid_figure`
on :meth:`Document.part`, and attention for a part's tokens inside the window that holds it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from selfexplain.core.results.attention import Aggregate, aggregate_attention
from selfexplain.core.results.document import Document, WindowAttention
from selfexplain.core.results.document_parts import DocumentParts
from selfexplain.core.results.explanation import Explanation, Span
from selfexplain.core.results.words import Level, level_view
from selfexplain.views.figures import MAX_GRID_UNITS, attention_figure, plot_text
from selfexplain.views.highlight import _segment_html
from selfexplain.views.style import HIGHLIGHT, INK, LEGEND_ABOVE, MUTED, NOTE_TEXT, apply_layout

SNIPPET = 80  # characters of a part shown in its hover label


def snippet(text: str, size: int = SNIPPET) -> str:
    """The start of ``text`` on one line, cut at ``size`` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= size else line[: size - 1] + "…"


def parts_overview_figure(document: Document, parts: DocumentParts, selected: int | None = None) -> go.Figure:
    """One stacked bar per sentence or paragraph (``P`` bars): the alpha of the spans inside it, and on top
    the alpha of the spans crossing into it from a neighbour (those count in every part they touch).
    The open part is outlined; each bar carries its part index as ``customdata`` for clicks."""
    assert parts.mass is not None and parts.touching is not None, "use Document.parts(level), which adds masses"
    count = len(parts)
    hover = [plot_text(snippet(parts.text(document.text, i))) for i in range(count)]
    outline = np.where(np.arange(count) == (selected if selected is not None else -1), 2.5, 0.0)
    crossing = np.clip(parts.touching - parts.mass, 0.0, None)
    common = {"x": np.arange(1, count + 1), "customdata": np.arange(count), "text": hover, "textposition": "none"}
    template = "%{x}: %{y:.4f}<br>%{text}<extra>%{fullData.name}</extra>"
    fig = go.Figure(
        [
            go.Bar(
                y=parts.mass,
                name="spans inside",
                marker={"color": HIGHLIGHT, "line": {"color": INK, "width": outline}},
                hovertemplate=template,
                **common,
            ),
            go.Bar(
                y=crossing,
                name="spans crossing into it",
                marker={"color": MUTED, "line": {"color": INK, "width": outline}},
                hovertemplate=template,
                **common,
            ),
        ]
    )
    fig.update_xaxes(title=f"{parts.level} (in reading order)")
    fig.update_yaxes(title="alpha", rangemode="tozero")
    title = (
        f"Where the alpha mass lies: {count:,} {parts.level}{'' if count == 1 else 's'} "
        f"(spans inside {parts.level}s hold {1 - parts.across:.1%} of alpha)"
    )
    fig = apply_layout(fig, title, 360, legend=LEGEND_ABOVE)
    fig.update_layout(barmode="stack", clickmode="event+select", dragmode=False, bargap=0.1 if count < 200 else 0.0)
    return fig


def top_spans_table(document: Document, parts: DocumentParts, k: int = 10) -> pd.DataFrame:
    """The ``k`` highest-alpha spans that carry weight (never a span with alpha 0): rank, text (cut to a
    snippet), alpha, the part holding its first token (numbered from 1) and its token range."""
    spans = document.evidence_spans(k)
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


def document_highlight_html(document: Document, spans: list[Span], paragraphs: DocumentParts) -> str:
    """The paragraphs that ``spans`` touch, in reading order, with the spans shaded by alpha as
    :func:`~selfexplain.views.highlight.highlight_html` shades them (escaped HTML); skipped paragraphs
    show as "[…]". The HTML grows with those paragraphs, not with the document."""
    top = max((s.alpha for s in spans), default=0.0)
    starts, ends = paragraphs.char_starts, paragraphs.char_ends
    touched = np.zeros(len(paragraphs), dtype=bool)
    for span in spans:  # k spans: each marks the paragraphs it overlaps
        touched[(starts < span.end_char) & (ends > span.start_char)] = True
    blocks, previous = [], -1
    for index in np.flatnonzero(touched).tolist():
        lo, hi = int(starts[index]), int(ends[index])
        inside = [
            replace(s, start_char=max(s.start_char, lo) - lo, end_char=min(s.end_char, hi) - lo)
            for s in spans
            if s.start_char < hi and s.end_char > lo
        ]
        if index > previous + 1:
            blocks.append(f"<p style='color:{NOTE_TEXT}'>[…]</p>")
        blocks.append(f"<p>{_segment_html(document.text[lo:hi], inside, None, top)}</p>")
        previous = index
    if previous < len(paragraphs) - 1 and blocks:
        blocks.append(f"<p style='color:{NOTE_TEXT}'>[…]</p>")
    return f"<div class='selfexplain-text' style='font-size:1.05em;line-height:1.8'>{''.join(blocks)}</div>"


def part_attention_figure(
    window: WindowAttention,
    number: int,
    first: int,
    end: int,
    aggregate: Aggregate = "mean over heads",
    layer: int = -1,
    head: int = 0,
) -> go.Figure:
    """The raw self-attention of window ``number`` (from 1), holding document tokens ``first .. end - 1``, computed over
    the whole window (rollout included) and then cut to [CLS] and those tokens (at most
    :data:`MAX_GRID_UNITS` positions a side): rows keep their values, so a row sums to what it gives the
    tokens shown, the rest going to the window's other tokens."""
    matrix = aggregate_attention(window.attentions, aggregate, layer, head)
    keep = window.positions(first, end, MAX_GRID_UNITS)
    tokens = [window.tokens[i] for i in keep.tolist()]
    what = attention_label(aggregate, layer, head, window.attentions.shape[0])
    title = f"Raw self-attention, window {number} ({what})"
    return attention_figure(matrix[np.ix_(keep, keep)], tokens, title)


def attention_label(aggregate: Aggregate, layer: int, head: int, layers: int) -> str:
    """The attention map a title names: ``layer 3, head 2``, ``layer 6, heads averaged``, ... (``layer``
    may count from the end, as ``-1``)."""
    return {
        "head": f"layer {layer % layers + 1}, head {head + 1}",
        "mean over heads": f"layer {layer % layers + 1}, heads averaged",
        "mean over layers": "all layers averaged",
        "rollout": "rollout",
    }[aggregate]


def part_grid_level(part: Explanation) -> Level:
    """The level a part's grid opens at: its words (tokens for a piece-level model) while they fit one grid
    (:data:`MAX_GRID_UNITS`), else its sentences, so that every span of the part, however wide, lands on a
    cell in view (a long paragraph's weight often sits on spans wider than a word grid's viewport)."""
    fine: Level = "word" if part.span_unit == "word" else "token"
    groups = level_view(part, fine)
    count = len(groups.labels) if groups is not None else part.num_tokens
    return fine if count <= MAX_GRID_UNITS else "sentence"


def mass_in_view(alpha: np.ndarray) -> float:
    """The alpha a drawn grid holds: the sum of its finite cells (``[G, G]``, NaN off the valid spans)."""
    return float(np.nansum(alpha))


def window_positions(window: WindowAttention, tokens: np.ndarray) -> np.ndarray:
    """``[K]`` window position of each document token in ``tokens`` ``[K]`` (-1 where the window does not
    hold it), by one sorted search over the window's real tokens."""
    real = np.flatnonzero(window.token_index >= 0)
    held = window.token_index[real]  # increasing: a window is a contiguous run of document tokens
    if held.size == 0:
        return np.full(tokens.shape, -1)
    at = np.clip(np.searchsorted(held, tokens), 0, held.size - 1)
    return np.where(held[at] == tokens, real[at], -1)


def part_word_attention_figure(
    window: WindowAttention,
    number: int,
    part: Explanation,
    first: int,
    level: Level,
    view: tuple[int, int] | None = None,
    aggregate: Aggregate = "mean over heads",
    layer: int = -1,
    head: int = 0,
    *,
    first_sentence: int = 0,
) -> go.Figure:
    """The raw self-attention of window ``number`` (from 1), computed over the whole window, on the part's
    grid axis: its words (or sentences, numbered after ``first_sentence`` as the grid numbers them, or tokens)
    at ``level``, in the viewport ``view``, merged as :data:`~selfexplain.views.word_attention.MERGE_RULE`
    states. ``part`` is :meth:`Document.part`, whose token ``t`` is document token ``first + t``; the map is cut
    to the units the window holds (a part longer than a window lies partly in others: no blank rows)."""
    from selfexplain.views.word_attention import group_attention, word_attention_figure

    matrix = aggregate_attention(window.attentions, aggregate, layer, head)
    groups = level_view(part, level)
    group_of = groups.word_of_token if groups is not None else np.arange(part.num_tokens)
    labels = list(groups.labels) if groups is not None else [t.piece or t.text for t in part.tokens]
    if level == "sentence":
        labels = [f"S{first_sentence + i + 1}" for i in range(len(labels))]
    positions = window_positions(window, first + np.arange(part.num_tokens))
    held = positions >= 0
    words = np.zeros((len(labels), len(labels)))
    lo, hi = view if view is not None else (0, len(labels))
    if held.any():
        merged = group_attention(matrix, positions[held], group_of[held])
        words[: merged.shape[0], : merged.shape[1]] = merged
        units = group_of[held]
        inside = units[(units >= lo) & (units < hi)]
        if inside.size:  # the units of the viewport that this window holds
            lo, hi = int(inside.min()), int(inside.max()) + 1
    what = attention_label(aggregate, layer, head, window.attentions.shape[0])
    return word_attention_figure(words, labels, f"Raw attention, window {number} ({what})", (lo, hi))
