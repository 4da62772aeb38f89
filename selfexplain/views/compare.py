"""Pure figure builders for the Compare page: a model's alpha on the common word axis (one shared
colour scale), a baseline's gradient view, and the rank agreement of two models.

No Streamlit here. Grids put the start word on the y axis (top to bottom) and the end word on the
x axis, as in :mod:`selfexplain.views.figures`; every label goes through :func:`figures.plot_text`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from selfexplain.methods.analysis.compare import RankAgreement, WordAxis
from selfexplain.views.evidence import quoted
from selfexplain.views.figures import MAX_GRID_UNITS, plot_text
from selfexplain.views.highlight import escape_text
from selfexplain.views.style import ALPHA_SCALE, HIGHLIGHT, MUTED, PALETTE, TICK_FONT, apply_layout

MAX_AGREEMENT_POINTS = 2_000  # the scatter draws the items ranked highest by either model


def axis_grid_figure(
    axis: WordAxis,
    alpha: np.ndarray,
    valid: np.ndarray,
    zmax: float,
    title: str,
    view: tuple[int, int] | None = None,
    narrow: bool = False,
) -> go.Figure:
    """Heatmap of ``alpha`` ``[C, C]`` over the common words ``view = [lo, hi)`` (default: the first
    :data:`MAX_GRID_UNITS`); cells where ``valid`` is False are blank; the colour runs from 0 to
    ``zmax`` (pass the same ``zmax`` to both models' grids to compare colours). ``narrow``: the colour
    bar lies across the top, for a figure in half a page."""
    lo, hi = view if view is not None else (0, min(len(axis), MAX_GRID_UNITS))
    shown = valid[lo:hi, lo:hi]
    z = np.where(shown, alpha[lo:hi, lo:hi], np.nan)
    size = hi - lo
    texts = [
        [plot_text(axis.span_text(lo + i, lo + j)) if shown[i, j] else "" for j in range(size)] for i in range(size)
    ]
    positions = list(range(lo, hi))
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=positions,
            y=positions,
            text=texts,
            zmin=0.0,
            zmax=zmax if zmax > 0 else 1.0,
            colorscale=ALPHA_SCALE,
            colorbar={"title": "alpha"},
            hovertemplate="<b>%{text}</b><br>alpha %{z:.4f}<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    ticks = {"tickmode": "array", "tickvals": positions, "ticktext": [plot_text(w) for w in axis.labels[lo:hi]]}
    fig.update_xaxes(title="end word", tickfont=TICK_FONT, **ticks)
    fig.update_yaxes(title="start word", autorange="reversed", tickfont=TICK_FONT, **ticks)
    return apply_layout(fig, title, max(380, min(760, 120 + 16 * size)), colorbar_above=narrow)


def gradient_figure(axis: WordAxis, scores: np.ndarray, title: str) -> go.Figure:
    """Bars of a word score ``[C]`` (gradient x input summed per common word): positive (supports the
    prediction) in the highlight colour, negative in blue. At most :data:`MAX_GRID_UNITS` words."""
    count = min(len(axis), MAX_GRID_UNITS)
    values = scores[:count]
    positions = list(range(count))
    fig = go.Figure(
        go.Bar(
            x=positions,
            y=values,
            marker_color=[HIGHLIGHT if v >= 0 else PALETTE[0] for v in values.tolist()],
            text=[plot_text(w) for w in axis.labels[:count]],
            hovertemplate="<b>%{text}</b><br>%{y:.4g}<extra></extra>",
            textposition="none",
        )
    )
    fig.update_xaxes(
        tickmode="array", tickvals=positions, ticktext=[plot_text(w) for w in axis.labels[:count]], tickangle=-60
    )
    fig.update_yaxes(title="gradient x input", zeroline=True, zerolinecolor=MUTED)
    return apply_layout(fig, title, 380)


def _best_rank(agreement: RankAgreement) -> np.ndarray:
    """``[U]``: each item's best rank under either model (an unranked side does not count)."""
    big = np.iinfo(np.int64).max
    return np.minimum(
        np.where(agreement.ranks_a > 0, agreement.ranks_a, big), np.where(agreement.ranks_b > 0, agreement.ranks_b, big)
    )


def agreement_figure(agreement: RankAgreement, axis: WordAxis, name_a: str, name_b: str) -> go.Figure:
    """Scatter of each item that carries weight under either model: its rank under model A (x) against
    model B (y), rank 1 at the origin; the diagonal is perfect agreement. An item one model does not
    rank (alpha 0) sits on that model's "not ranked" line, one step past its last rank. Draws at most
    :data:`MAX_AGREEMENT_POINTS` items (those ranked highest by either model)."""
    keep = np.argsort(_best_rank(agreement), kind="stable")[:MAX_AGREEMENT_POINTS]
    starts, ends = agreement.starts[keep], agreement.ends[keep]
    texts = [plot_text(axis.span_text(int(s), int(e))) for s, e in zip(starts.tolist(), ends.tolist())]
    line_a, line_b = agreement.nonzero_a + 1, agreement.nonzero_b + 1  # where "not ranked" is drawn
    ranks_a, ranks_b = agreement.ranks_a[keep], agreement.ranks_b[keep]
    x = np.where(ranks_a > 0, ranks_a, line_a)
    y = np.where(ranks_b > 0, ranks_b, line_b)
    shown_a = [f"rank {r}" if r > 0 else "not ranked (alpha 0)" for r in ranks_a.tolist()]
    shown_b = [f"rank {r}" if r > 0 else "not ranked (alpha 0)" for r in ranks_b.tolist()]
    diagonal = min(agreement.nonzero_a, agreement.nonzero_b)
    traces = [
        go.Scatter(
            x=x, y=y, mode="markers", marker={"color": HIGHLIGHT, "size": 9, "opacity": 0.7},
            text=texts, customdata=np.stack([shown_a, shown_b], axis=1) if len(keep) else None,
            hovertemplate="<b>%{text}</b><br>A: %{customdata[0]}<br>B: %{customdata[1]}<extra></extra>",
            showlegend=False,
        ),
    ]  # fmt: skip
    if diagonal >= 1:
        traces.insert(
            0,
            go.Scatter(
                x=[1, diagonal], y=[1, diagonal], mode="lines", line={"color": MUTED, "dash": "dot"},
                hoverinfo="skip", showlegend=False,
            ),
        )  # fmt: skip
    fig = go.Figure(traces)
    unit = "word span" if agreement.unit == "span" else "word"

    def ticks(count: int) -> dict:
        """Rank ticks (at most about 8) and the "not ranked" line past the last rank."""
        step = max(1, -(-count // 8))
        values = list(range(1, count + 1, step)) + [count + 1]
        return {"tickmode": "array", "tickvals": values, "ticktext": [str(v) for v in values[:-1]] + ["not ranked"]}

    # Each axis runs to its own "not ranked" line: a model with one span carrying all the weight (a one-hot alpha)
    # gets two columns across the chart's width, not a sliver at the edge of the other model's hundred ranks.
    fig.update_xaxes(title=f"{unit} rank under A: {plot_text(name_a)}", range=[0.5, line_a + 0.5], **ticks(line_a - 1))
    fig.update_yaxes(title=f"{unit} rank under B: {plot_text(name_b)}", range=[0.5, line_b + 0.5], **ticks(line_b - 1))
    rbo = "n/a" if agreement.rbo is None else f"{agreement.rbo:.2f}"
    title = f"Rank agreement over {agreement.union:,} {unit}s with weight in either model (RBO {rbo})"
    return apply_layout(fig, title, 460)


def _ranked(count: int, unit: str) -> str:
    return f"{count:,} {unit}" + ("" if count == 1 else "s")


def agreement_caption(agreement: RankAgreement, axis: WordAxis, name_a: str, name_b: str) -> str:
    """The agreement in words (escaped): how many items each model gives weight to, the overlap of those
    sets (Jaccard), their rank-biased overlap, and a note when a model puts all its weight on one item."""
    unit = "word span" if agreement.unit == "span" else "word"
    if agreement.unit == "span":
        what = (
            f"Of the {agreement.count:,} word spans valid for both models, A gives weight (alpha above 0) to "
            f"{_ranked(agreement.nonzero_a, unit)} and B to {_ranked(agreement.nonzero_b, unit)}; "
            f"{agreement.both:,} carry weight in both."
        )
    else:
        what = (
            f"Of the {agreement.count:,} common words, A ranks {agreement.nonzero_a:,} and B "
            f"{agreement.nonzero_b:,} (words with a score above 0: alpha mass of the spans covering the word, or "
            f"gradient x input in favour of the prediction for a baseline); {agreement.both:,} are ranked by both."
        )
    if agreement.jaccard is None or agreement.rbo is None:
        return what + " Neither model ranks anything here, so there is nothing to compare."
    measures = (
        f" Overlap of the two sets (Jaccard): {agreement.jaccard:.2f}. Rank-biased overlap of the two rankings "
        f"(1 = the same order, 0 = nothing in common; persistence {agreement.persistence:g}, so the top ranks "
        f"weigh most): {agreement.rbo:.2f}. Items with weight 0 are not ranked: they sit on the “not ranked” "
        "lines of the chart, and ties at 0 count for nothing."
    )
    notes = []
    for letter, name, count, ranks in (
        ("A", name_a, agreement.nonzero_a, agreement.ranks_a),
        ("B", name_b, agreement.nonzero_b, agreement.ranks_b),
    ):
        if count == 1:
            index = int(np.flatnonzero(ranks == 1)[0])
            text = axis.span_text(int(agreement.starts[index]), int(agreement.ends[index]))
            notes.append(
                f" Model {letter} ({escape_text(name)}) puts all its weight on a single {unit}: {quoted(text)}."
            )
    return what + measures + "".join(notes)
