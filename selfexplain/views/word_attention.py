"""Attention on the alpha grid's word axis, and a head view (lines from each word to the words it attends to).

Pure functions, no Streamlit. The merge rule (stated in every caption as :data:`MERGE_RULE`): the attention
word ``a`` pays to word ``b`` is the **sum over the key pieces** of ``b`` of the **mean over the query
pieces** of ``a``. So a word row sums to what its pieces give the other words on the axis; attention to
[CLS] and [SEP] (and, in a viewport, to words outside it) is left out, so rows may sum to less than 1.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from selfexplain.core.results.explanation import Explanation
from selfexplain.views.figures import attention_figure
from selfexplain.views.style import (
    FONT_FAMILY,
    GLYPH_WIDTH,
    HEAD_FADE,
    HEAD_LINE,
    HEAD_LINE_FOCUS,
    HEAD_VIEW_GAP,
    HEAD_VIEW_LABEL,
    HEAD_VIEW_ROW,
    HEAD_VIEW_SPAN,
    INK,
    TICK_FONT,
    TITLE_SIZE,
)

MERGE_RULE = (
    "Pieces are merged into the alpha grid's words: the attention a word pays to another is the sum over the "
    "other word's pieces of the mean over its own pieces; attention to [CLS] and [SEP] is left out, so a row "
    "sums to what the word gives the words shown."
)


def layers_caption(reads: int, shown: int | None = None) -> str:
    """Which attention layers reach the decision of a model that reads hidden state ``reads`` (it runs
    encoder layers ``1 .. reads``), when ``shown`` layers are on offer (default: those ``reads``)."""
    if reads == 0:
        return "This model reads the embeddings: no attention layer reaches its decision."
    line = f"Layers 1-{reads}: the layers this model reads." if reads != 1 else "Layer 1: the layer this model reads."
    if shown is not None and shown > reads:
        later = f"layer {reads + 1}" if shown == reads + 1 else f"layers {reads + 1}-{shown}"
        line += f" The encoder also ran {later}, which never reach{'es' if shown == reads + 1 else ''} its decision."
    return line


LINE_BINS = (0.05, 0.1, 0.2, 0.4)  # a head view draws weights from 0.05 up, in four bands of width and opacity
HEAD_VIEW_TOP = 3  # each word's lines go to at most its 3 most attended words
MAX_HEAD_WORDS = 60  # a head view shows at most 60 words (the grid's viewport, cut)


def group_attention(matrix: np.ndarray, positions: np.ndarray, group_of_token: np.ndarray) -> np.ndarray:
    """``[N, N]`` attention (queries in rows) -> ``[G, G]`` over groups of real tokens.

    ``positions`` ``[T]``: each real token's place among the ``N`` encoder positions; ``group_of_token``
    ``[T]``: its group (word or sentence, ``0 .. G-1``, non-decreasing). Entry ``(a, b)`` is the sum over
    the tokens of ``b`` (keys) of the mean over the tokens of ``a`` (queries). One matrix product each way."""
    positions = np.asarray(positions, dtype=int)
    groups = np.asarray(group_of_token, dtype=int)
    count = int(groups.max()) + 1 if groups.size else 0
    onehot = np.zeros((groups.size, count))
    onehot[np.arange(groups.size), groups] = 1.0
    tokens = np.asarray(matrix, dtype=float)[np.ix_(positions, positions)]  # [T, T] real tokens only
    summed = onehot.T @ tokens @ onehot  # [G, G]: summed over query and key pieces
    return summed / np.maximum(onehot.sum(axis=0), 1.0)[:, None]  # mean over the query pieces


def explanation_group_attention(
    explanation: Explanation, matrix: np.ndarray, group_of_token: np.ndarray | None
) -> np.ndarray:
    """``[G, G]`` word (or sentence) attention of ``explanation`` from an ``[N, N]`` map over its encoder
    sequence; ``group_of_token`` None keeps the real tokens (``G = T``)."""
    if explanation.token_positions is None:
        raise ValueError("this explanation has no attention maps (a text read in windows)")
    groups = np.arange(explanation.num_tokens) if group_of_token is None else group_of_token
    return group_attention(matrix, explanation.token_positions, groups)


def word_attention_figure(
    matrix: np.ndarray,
    labels: Sequence[str],
    title: str,
    view: tuple[int, int] | None = None,
    narrow: bool = False,
) -> go.Figure:
    """``[G, G]`` word attention as a heatmap on the alpha grid's axis (the same labels, order and
    viewport ``view = (lo, hi)``; ticks numbered as the grid's). ``narrow``: the colour bar lies across
    the top and the axis titles are short (key word, query word), for a figure in half a page."""
    lo, hi = view if view is not None else (0, len(labels))
    # in half a page the longer axis titles ran past the figure's edge
    titles = ("key word", "query word") if narrow else ("attended to (key word)", "attending (query word)")
    return attention_figure(matrix[lo:hi, lo:hi], list(labels[lo:hi]), title, lo, titles, colorbar_above=narrow)


def _top_links(matrix: np.ndarray, top: int, floor: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``top`` largest entries of each row of ``[W, W]`` that reach ``floor``: ``(rows, cols, weights)``."""
    top = min(top, matrix.shape[1])
    cols = np.argsort(-matrix, axis=1, kind="stable")[:, :top]  # [W, top]
    rows = np.repeat(np.arange(matrix.shape[0]), top)
    cols = cols.ravel()
    weights = matrix[rows, cols]
    keep = weights >= floor
    return rows[keep], cols[keep], weights[keep]


def _tooltips(labels: Sequence[str], matrix: np.ndarray, top: int) -> list[str]:
    """For each word (row of ``[W, W]`` ``matrix``), plain text (not escaped): the word, then its ``top`` most
    attended words with their weights, one a line."""
    order = np.argsort(-matrix, axis=1, kind="stable")[:, :top]  # [W, top]
    weights = np.take_along_axis(matrix, order, axis=1)
    return [
        f"{labels[i]} attends to\n" + "\n".join(f"{labels[j]} {w:.2f}" for j, w in zip(row, ws))
        for i, (row, ws) in enumerate(zip(order.tolist(), weights.tolist()))
    ]


HEAD_VIEW_CLASS = "se-hv"  # the prefix of the head view's CSS classes (st.html's CSS applies to the whole page)
HEAD_VIEW_CSS = (
    f".{HEAD_VIEW_CLASS}{{position:relative;font-family:{FONT_FAMILY};font-size:{TICK_FONT['size']}px;color:{INK}}}"
    f".{HEAD_VIEW_CLASS}-title{{font-family:{FONT_FAMILY};font-size:{TITLE_SIZE}px;color:{INK};margin:0 0 8px}}"
    f".{HEAD_VIEW_CLASS}-q,.{HEAD_VIEW_CLASS}-k{{position:absolute;height:{HEAD_VIEW_ROW}px;"
    f"line-height:{HEAD_VIEW_ROW}px;white-space:nowrap}}"
    f".{HEAD_VIEW_CLASS}-q{{left:0;text-align:right;cursor:default}}"
    f".{HEAD_VIEW_CLASS}-w,.{HEAD_VIEW_CLASS}-k{{overflow:hidden;text-overflow:ellipsis}}"
    f".{HEAD_VIEW_CLASS}-w{{display:block}}"
    f".{HEAD_VIEW_CLASS}-l{{position:absolute;background:{HEAD_LINE};transform-origin:0 50%;pointer-events:none}}"
    # hovering a word (left) fades every word with its lines but that one, whose lines take the focus colour
    f".{HEAD_VIEW_CLASS}-qs:hover .{HEAD_VIEW_CLASS}-q{{opacity:{HEAD_FADE}}}"
    f".{HEAD_VIEW_CLASS}-qs .{HEAD_VIEW_CLASS}-q:hover{{opacity:1;z-index:1}}"
    f".{HEAD_VIEW_CLASS}-q:hover .{HEAD_VIEW_CLASS}-l{{background:{HEAD_LINE_FOCUS}}}"
    f".{HEAD_VIEW_CLASS}-q:hover .{HEAD_VIEW_CLASS}-w{{color:{HEAD_LINE_FOCUS};font-weight:bold}}"
)


def head_view_html(matrix: np.ndarray, labels: Sequence[str], title: str, view: tuple[int, int] | None = None) -> str:
    """bertviz-style head view of ``[W, W]`` word attention (queries in rows, ``W = len(labels)``) as
    self-contained HTML and CSS for ``st.html``: no script, no SVG (st.html's sanitiser keeps HTML only), no
    request. The words twice, attending (left) and attended to (right); a line from each word to each of its
    :data:`HEAD_VIEW_TOP` most attended words that gets at least ``LINE_BINS[0]`` (width and opacity by
    weight band). Each left word is one element holding its label and its lines, with a tooltip listing
    what it attends to; hovering it fades the other words and their lines (CSS ``:hover``) and draws its
    own in :data:`HEAD_LINE_FOCUS`. At most :data:`MAX_HEAD_WORDS` words of the viewport ``view = (lo, hi)``
    are drawn; ``data-word`` carries each word's index on the whole axis. Every text is HTML-escaped."""
    lo, hi = view if view is not None else (0, len(labels))
    hi = min(hi, lo + MAX_HEAD_WORDS)
    part = np.asarray(matrix, dtype=float)[lo:hi, lo:hi]  # [W', W']
    names = [str(label) for label in labels[lo:hi]]
    rows, cols, weights = _top_links(part, HEAD_VIEW_TOP, LINE_BINS[0])  # [E] each, rows non-decreasing
    strength = np.searchsorted(LINE_BINS, weights, side="right") / len(LINE_BINS)  # 0.25 .. 1 by band
    thickness = 1 + 4 * strength
    opacity = 0.25 + 0.6 * strength
    # a line is a thin box turned about its left end: from (start, row's middle) to (start + span, col's middle)
    drop = (cols - rows) * float(HEAD_VIEW_ROW)
    length = np.hypot(HEAD_VIEW_SPAN, drop)
    angle = np.degrees(np.arctan2(drop, HEAD_VIEW_SPAN))
    top = HEAD_VIEW_ROW / 2 - thickness / 2
    longest = max((len(name) for name in names), default=1)
    low, high = HEAD_VIEW_LABEL
    label = int(min(high, max(low, longest * TICK_FONT["size"] * GLYPH_WIDTH + 4)))
    start = label + HEAD_VIEW_GAP
    lines = [
        f'<span class="{HEAD_VIEW_CLASS}-l" data-to="{lo + c}" data-weight="{w:.4f}" style="left:{start}px;'
        f"top:{t:.1f}px;width:{d:.1f}px;height:{h:.1f}px;opacity:{o:.2f};transform:rotate({a:.2f}deg)\"></span>"
        for c, w, t, d, h, o, a in zip(
            cols.tolist(), weights.tolist(), top.tolist(), length.tolist(), thickness.tolist(), opacity.tolist(),
            angle.tolist(),
        )
    ]  # fmt: skip
    bounds = np.searchsorted(rows, np.arange(len(names) + 1)).tolist()  # word i's lines: bounds[i]:bounds[i+1]
    escaped = [html.escape(name) for name in names]
    tips = [html.escape(tip) for tip in _tooltips(names, part, HEAD_VIEW_TOP)]
    words = [
        f'<div class="{HEAD_VIEW_CLASS}-q" data-word="{lo + i}" title="{tips[i]}" style="top:{i * HEAD_VIEW_ROW}px;'
        f'width:{label}px"><span class="{HEAD_VIEW_CLASS}-w">{escaped[i]}</span>'
        + "".join(lines[bounds[i] : bounds[i + 1]])
        + "</div>"
        for i in range(len(names))
    ]
    right = start + HEAD_VIEW_SPAN + HEAD_VIEW_GAP
    keys = [
        f'<div class="{HEAD_VIEW_CLASS}-k" data-word="{lo + i}" title="{escaped[i]}" '
        f'style="top:{i * HEAD_VIEW_ROW}px;left:{right}px;max-width:{label}px">{escaped[i]}</div>'
        for i in range(len(names))
    ]
    return (
        f"<style>{HEAD_VIEW_CSS}</style>"
        f'<div class="{HEAD_VIEW_CLASS}-title">{html.escape(title)}</div>'
        f'<div style="overflow-x:auto"><div class="{HEAD_VIEW_CLASS}" '
        f'style="width:{right + label}px;height:{len(names) * HEAD_VIEW_ROW}px">'
        f'<div class="{HEAD_VIEW_CLASS}-qs">{"".join(words)}</div>{"".join(keys)}</div></div>'
    )
