"""Attention on the alpha grid's word axis, and a head view (lines from each word to the words it attends to).

Pure functions, no Streamlit. The merge rule (stated in every caption as :data:`MERGE_RULE`): the attention
word ``a`` pays to word ``b`` is the **sum over the key pieces** of ``b`` of the **mean over the query
pieces** of ``a``. So a word row sums to what its pieces give the other words on the axis; attention to
[CLS] and [SEP] (and, in a viewport, to words outside it) is left out, so rows may sum to less than 1.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from selfexplain.explanation import Explanation
from selfexplain.views.figures import attention_figure, plot_text
from selfexplain.views.style import HEAD_LINE, HEAD_LINE_FOCUS, INK, MUTED, TICK_FONT, apply_layout

MERGE_RULE = (
    "Pieces are merged into the alpha grid's words: the attention a word pays to another is the sum over the "
    "other word's pieces of the mean over its own pieces; attention to [CLS] and [SEP] is left out, so a row "
    "sums to what the word gives the words shown."
)
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
    matrix: np.ndarray, labels: Sequence[str], title: str, view: tuple[int, int] | None = None
) -> go.Figure:
    """``[G, G]`` word attention as a heatmap on the alpha grid's axis (the same labels, order and
    viewport ``view = (lo, hi)``; ticks numbered as the grid's)."""
    lo, hi = view if view is not None else (0, len(labels))
    fig = attention_figure(matrix[lo:hi, lo:hi], list(labels[lo:hi]), title, lo)
    fig.update_xaxes(title="attended to (key word)")
    fig.update_yaxes(title="attending (query word)")
    return fig


def _top_links(matrix: np.ndarray, top: int, floor: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``top`` largest entries of each row of ``[W, W]`` that reach ``floor``: ``(rows, cols, weights)``."""
    top = min(top, matrix.shape[1])
    cols = np.argsort(-matrix, axis=1, kind="stable")[:, :top]  # [W, top]
    rows = np.repeat(np.arange(matrix.shape[0]), top)
    cols = cols.ravel()
    weights = matrix[rows, cols]
    keep = weights >= floor
    return rows[keep], cols[keep], weights[keep]


def _segments(rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Line coordinates ``x, y`` ``[3 * E]`` from (0, row) to (1, col), broken by NaN between lines."""
    x = np.tile([0.0, 1.0, np.nan], rows.size)
    y = np.column_stack([rows, cols, np.full(rows.size, np.nan)]).ravel().astype(float)
    return x, y


def _hover(labels: Sequence[str], matrix: np.ndarray, top: int) -> list[str]:
    """For each word (row of ``matrix``), its ``top`` most attended words with their weights (escaped)."""
    order = np.argsort(-matrix, axis=1, kind="stable")[:, :top]
    weights = np.take_along_axis(matrix, order, axis=1)
    names = np.asarray([plot_text(label) for label in labels], dtype=object)
    return [
        f"<b>{names[i]}</b> attends to<br>" + "<br>".join(f"{names[j]} {w:.2f}" for j, w in zip(row, ws))
        for i, (row, ws) in enumerate(zip(order.tolist(), weights.tolist()))
    ]


def head_view_figure(
    matrix: np.ndarray,
    labels: Sequence[str],
    title: str,
    focus: int | None = None,
    view: tuple[int, int] | None = None,
) -> go.Figure:
    """bertviz-style head view of ``[W, W]`` word attention: the words twice, attending (left) and attended
    to (right), a line from each word to each of its :data:`HEAD_VIEW_TOP` most attended words that gets at
    least ``LINE_BINS[0]`` (width and opacity by weight band). Hovering a word lists what it attends to;
    ``focus`` (a word index, from a click) draws that word's lines in :data:`HEAD_LINE_FOCUS` and fades
    the rest. The left words carry ``customdata`` = word index for clicks. At most :data:`MAX_HEAD_WORDS`
    words of the viewport ``view`` are drawn."""
    lo, hi = view if view is not None else (0, len(labels))
    hi = min(hi, lo + MAX_HEAD_WORDS)
    part = np.asarray(matrix, dtype=float)[lo:hi, lo:hi]
    names = list(labels[lo:hi])
    rows, cols, weights = _top_links(part, HEAD_VIEW_TOP, LINE_BINS[0])
    band = np.searchsorted(LINE_BINS, weights, side="right") - 1  # 0..3
    focused = rows == (focus - lo) if focus is not None and lo <= focus < hi else np.zeros(rows.size, dtype=bool)
    traces: list[go.Scatter] = []
    for level in range(len(LINE_BINS)):  # four bands, not one trace per line
        for is_focus in (False, True):
            chosen = (band == level) & (focused == is_focus)
            if not chosen.any():
                continue
            x, y = _segments(rows[chosen], cols[chosen])
            strength = (level + 1) / len(LINE_BINS)
            faded = focus is not None and not is_focus
            traces.append(
                go.Scatter(
                    x=x, y=y + lo, mode="lines", hoverinfo="skip", showlegend=False,
                    line={"color": HEAD_LINE_FOCUS if is_focus else HEAD_LINE, "width": 1 + 4 * strength},
                    opacity=0.08 if faded else 0.25 + 0.6 * strength,
                    name=f"attention ≥ {LINE_BINS[level]}",
                )  # fmt: skip
            )
    axis = np.arange(lo, hi)
    text = [plot_text(label) for label in names]
    colours = [INK if focus is None or i == focus else MUTED for i in axis.tolist()]
    traces.append(
        go.Scatter(
            x=np.zeros(axis.size), y=axis, mode="markers+text", text=text, textposition="middle left",
            marker={"size": 10, "color": colours}, customdata=axis, hovertext=_hover(names, part, HEAD_VIEW_TOP),
            hovertemplate="%{hovertext}<extra></extra>", showlegend=False, name="attending words",
            textfont=TICK_FONT,
        )  # fmt: skip
    )
    traces.append(
        go.Scatter(
            x=np.ones(axis.size), y=axis, mode="markers+text", text=text, textposition="middle right",
            marker={"size": 8, "color": MUTED}, hoverinfo="skip", showlegend=False, name="attended words",
            textfont=TICK_FONT,
        )  # fmt: skip
    )
    fig = go.Figure(traces)
    fig.update_xaxes(visible=False, range=[-0.9, 1.9])
    fig.update_yaxes(visible=False, autorange="reversed")
    fig = apply_layout(fig, title, max(300, min(1400, 90 + 22 * axis.size)))
    fig.update_layout(clickmode="event+select", dragmode=False, hovermode="closest")
    return fig
