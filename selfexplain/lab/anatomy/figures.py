"""Pure figure and table builders for the anatomy results (no Streamlit)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from selfexplain.lab.anatomy.corpus import AnatomyResult
from selfexplain.lab.anatomy.perturb import PERTURBATION_TITLES
from selfexplain.views.style import ATTENTION_SCALE, LAYER_SCALE, LEGEND_BELOW, PALETTE, apply_layout

STAT_TITLES = {
    "cls": "Attention to [CLS]",
    "sep": "Attention to [SEP]",
    "punct": "Attention to punctuation",
    "self": "Attention to the token itself",
    "next": "Attention to the next token",
    "prev": "Attention to the previous token",
    "entropy": "Attention entropy (nats)",
    "cls_entropy": "Entropy of the [CLS] row (nats)",
    "within": "Attention within the same text",
    "across": "Attention across the two texts",
}
LINE_STATS = ("cls", "sep", "punct", "self", "next", "prev")
PROBE_TASKS = {
    "label": "Sentence label",
    "position": "Token position",
    "top_span": "Token inside the top alpha span",
}


def stats_table(result: AnatomyResult) -> pd.DataFrame:
    """One row per (layer, head) with every statistic as a column (layers and heads from 1)."""
    layers, heads = result.shape
    frame = pd.DataFrame(
        {"layer": np.repeat(np.arange(1, layers + 1), heads), "head": np.tile(np.arange(1, heads + 1), layers)}
    )
    for name, values in result.stats.items():
        frame[name] = values.ravel()
    if result.sep_gradient is not None:
        frame["sep_gradient"] = result.sep_gradient.ravel()
    return frame


def layer_head_heatmap(values: np.ndarray, title: str, colourscale: str = ATTENTION_SCALE) -> go.Figure:
    """``[L, H]`` heatmap, layer 1 at the top, each cell labelled with its value."""
    layers, heads = values.shape
    fig = go.Figure(
        go.Heatmap(
            z=values,
            x=[f"h{h}" for h in range(1, heads + 1)],
            y=[f"L{n}" for n in range(1, layers + 1)],
            colorscale=colourscale,
            text=np.round(values, 2),
            texttemplate="%{text}",
            hovertemplate="layer %{y}, head %{x}: %{z:.4f}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")
    return apply_layout(fig, title, 120 + 34 * layers)


def per_layer_lines(result: AnatomyResult, names: tuple[str, ...] = LINE_STATS) -> go.Figure:
    """Mean over heads of each statistic, by layer (Clark et al.'s figure 2 style)."""
    fig = go.Figure()
    layers = np.arange(1, result.shape[0] + 1)
    for name in names:
        fig.add_trace(
            go.Scatter(x=layers, y=result.stats[name].mean(axis=1), mode="lines+markers", name=STAT_TITLES[name])
        )
    fig.update_xaxes(title="layer", dtick=1)
    fig.update_yaxes(title="mean attention (over heads)", rangemode="tozero")
    return apply_layout(fig, "Where attention goes, by layer")


def entropy_lines(result: AnatomyResult) -> go.Figure:
    """Mean (smoothed) entropy per layer of all rows and of the [CLS] row, with the entropy of
    uniform attention over the same sentences as a dashed reference."""
    fig = go.Figure()
    layers = np.arange(1, result.shape[0] + 1)
    for name in ("entropy", "cls_entropy"):
        fig.add_trace(
            go.Scatter(x=layers, y=result.stats[name].mean(axis=1), mode="lines+markers", name=STAT_TITLES[name])
        )
    if "uniform_entropy" in result.stats:
        reference = result.stats["uniform_entropy"].mean(axis=1)
        fig.add_trace(go.Scatter(x=layers, y=reference, mode="lines", name="uniform attention", line={"dash": "dash"}))
    fig.update_xaxes(title="layer", dtick=1)
    fig.update_yaxes(title="nats", rangemode="tozero")
    return apply_layout(fig, "Attention entropy by layer")


def noop_figure(result: AnatomyResult) -> go.Figure:
    """Attention to [SEP] and the gradient of the loss w.r.t. it, per layer (two y axes)."""
    layers = np.arange(1, result.shape[0] + 1)
    fig = go.Figure(
        go.Scatter(x=layers, y=result.stats["sep"].mean(axis=1), name="attention to [SEP]", mode="lines+markers")
    )
    if result.sep_gradient is not None:
        fig.add_trace(
            go.Scatter(
                x=layers,
                y=result.sep_gradient.mean(axis=1),
                name="|dLoss/dA| on [SEP]",
                mode="lines+markers",
                yaxis="y2",
            )
        )
    fig.update_layout(
        yaxis={"title": "attention", "rangemode": "tozero"},
        yaxis2={"title": "gradient", "overlaying": "y", "side": "right", "rangemode": "tozero"},
        xaxis={"title": "layer", "dtick": 1},
    )
    return apply_layout(fig, "No-op test: attention to [SEP] and its gradient")


def mds_figure(result: AnatomyResult) -> go.Figure:
    """Heads embedded in 2-D by their JS distance, coloured by layer."""
    if result.mds is None:
        raise ValueError("this result has no head distances")
    layers, heads = result.shape
    layer_of = np.repeat(np.arange(1, layers + 1), heads)
    head_of = np.tile(np.arange(1, heads + 1), layers)
    fig = go.Figure(
        go.Scatter(
            x=result.mds[:, 0],
            y=result.mds[:, 1],
            mode="markers+text",
            text=[f"{a}-{b}" for a, b in zip(layer_of, head_of)],
            textposition="top center",
            marker={"size": 11, "color": layer_of, "colorscale": LAYER_SCALE, "colorbar": {"title": "layer"}},
            hovertemplate="layer-head %{text}<extra></extra>",
        )
    )
    return apply_layout(fig, "Heads by behaviour (MDS of Jensen-Shannon distances)", 520)


def probe_figure(table: pd.DataFrame) -> go.Figure:
    """Probe accuracy by layer per task (solid; the number of test items in the legend and hover) with
    each task's majority baseline on the test labels as a dotted line labelled at its right end."""
    fig = go.Figure()
    for index, (task, rows) in enumerate(table.groupby("task", sort=False)):
        colour = PALETTE[index % len(PALETTE)]
        title, count, majority = PROBE_TASKS.get(str(task), str(task)), int(rows["test"].iloc[0]), rows["majority"]
        fig.add_trace(
            go.Scatter(
                x=rows["layer"],
                y=rows["accuracy"],
                mode="lines+markers",
                name=f"{title} (test n={count:,})",
                line={"color": colour},
                customdata=rows["test"],
                hovertemplate="layer %{x}: %{y:.1%} of %{customdata:,} test items<extra></extra>",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=rows["layer"],
                y=majority,
                mode="lines+text",
                name=f"{title}: always the most frequent test class",
                line={"dash": "dot", "color": colour},
                text=[""] * (len(rows) - 1) + [f"majority {majority.iloc[-1]:.0%}"],
                textposition="bottom left",
                textfont={"color": colour},
                hovertemplate="always the most frequent test class: %{y:.1%}<extra></extra>",
            )
        )
    fig.update_xaxes(title="layer (0 = embeddings)", dtick=1)
    fig.update_yaxes(title="test accuracy", range=[0, 1.02], tickformat=".0%")
    title = "Linear probe accuracy by layer (dotted: majority-class baseline)"
    return apply_layout(fig, title, 520, legend=LEGEND_BELOW)


def confusion_figure(table: pd.DataFrame) -> go.Figure:
    """Confusion score by layer, one line per (kind, distractor condition)."""
    fig = go.Figure()
    for (kind, distractor), rows in table.groupby(["kind", "distractor"]):
        fig.add_trace(
            go.Scatter(
                x=rows["layer"],
                y=rows["confusion"],
                error_y={"type": "data", "array": rows["sem"]},
                mode="lines+markers",
                name=f"{kind}, {'distractor between' if distractor else 'no distractor between'}",
                line={"dash": "solid" if distractor else "dash"},
            )
        )
    fig.add_hline(y=1.0, line_dash="dot", annotation_text="even split")
    fig.update_xaxes(title="layer", dtick=1)
    fig.update_yaxes(title="confusion = -log2(share on antecedent)", rangemode="tozero")
    return apply_layout(fig, "Confusion score by layer")


PERTURBATION_MEASURES = {
    "accuracy_before": "accuracy before",
    "accuracy_after": "accuracy after",
    "flip_rate": "prediction changed",
    "js_alpha": "shift of alpha",
    "js_attention": "shift of attention",
}


def perturbation_figure(summary: pd.DataFrame) -> go.Figure:
    """Grouped bars per perturbation (human names, the number of examples under each): accuracy
    before/after, share of predictions changed, JS shift of alpha and of [CLS] attention."""
    fig = go.Figure()
    names = [
        f"{PERTURBATION_TITLES.get(p, p)}<br>n={n:,}" for p, n in zip(summary["perturbation"], summary["examples"])
    ]
    for column, name in PERTURBATION_MEASURES.items():
        if column in summary and summary[column].notna().any():
            fig.add_trace(go.Bar(x=names, y=summary[column], name=name, hovertemplate="%{y:.3f}"))
    fig.update_layout(barmode="group")
    # a short axis title: the long one ran up into the chart's title; the page's caption says what each bar is
    fig.update_yaxes(range=[0, 1.02], title="share or shift (0-1)")
    return apply_layout(fig, "Perturbations: accuracy, changed predictions and explanation shift")
