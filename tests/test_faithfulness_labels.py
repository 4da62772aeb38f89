"""Human names for methods and metrics: every summary metric has a name and a direction, result
tables and figures show them, result files keep the keys, the lab's default is the fast set."""

from __future__ import annotations

import html

import pandas as pd

from selfexplain.lab.faithfulness import figures
from selfexplain.lab.faithfulness.experiment import FAST_EXPLAINERS, LabOptions
from selfexplain.lab.faithfulness.labels import axis_label, method_label, metric_legend, readable
from selfexplain.lab.faithfulness.metrics import METRICS
from selfexplain.lab.faithfulness.summary import TOKEN_METRICS
from selfexplain.methods.explainers import METHODS

SUMMARY = pd.DataFrame(
    {
        "explainer": ["alpha", "grad_x_input", "old_method"],
        "comprehensiveness": [0.3, 0.2, 0.1],
        "sufficiency": [0.1, 0.2, 0.3],
        "flip_fraction": [0.4, 0.5, 0.6],
        "tau_loo": [0.5, 0.6, 0.7],
        "examples": [10, 10, 10],
    }
)


def test_every_summary_metric_has_a_name_and_a_direction() -> None:
    for key in (*TOKEN_METRICS, "tau_loo"):
        metric = METRICS[key]
        assert metric.name and "_" not in metric.name and metric.meaning.endswith(".")
    assert METRICS["comprehensiveness"].direction == "higher is better"
    assert METRICS["comprehensiveness"].heading == "Comprehensiveness ↑"
    assert METRICS["sufficiency"].direction == "lower is better"
    assert METRICS["flip_fraction"].heading.endswith("↓") and METRICS["js_difference"].heading.endswith("↑")


def test_tables_show_method_and_metric_names() -> None:
    shown = readable(SUMMARY)
    assert shown.columns.tolist() == [
        "Method",
        "Comprehensiveness ↑",
        "Sufficiency ↓",
        "Share removed to flip ↓",
        "Agreement with leave-one-out ↑",
        "Inputs",
    ]
    assert shown["Method"].tolist() == ["Self-explaining alpha", "Gradient x input", "old_method"]
    assert SUMMARY["explainer"].tolist()[0] == "alpha"  # the input table is untouched
    legend = metric_legend(SUMMARY.columns.tolist())
    assert legend.count("\n") == 3 and "**Sufficiency ↓** (lower is better)" in legend


def test_every_registered_method_has_a_label_and_axis_labels_wrap() -> None:
    for name in METHODS:
        assert method_label(name) != name and "_" not in method_label(name)
    wrapped = axis_label("attention_rows", width=22)
    assert wrapped.replace("<br>", " ") == "Attention received from the tokens the span layer reads"
    assert all(len(line) <= 22 for line in wrapped.split("<br>"))
    assert axis_label("<b>x</b>") == "&#60;b&#62;x&#60;/b&#62;"  # unknown names are escaped


def test_bar_figure_names_the_metric_and_its_direction() -> None:
    fig = figures.summary_bar_figure(SUMMARY, "sufficiency")
    assert fig.layout.title.text == "Sufficiency by method (lower is better)"
    shown = [html.unescape(x.replace("<br>", " ")) for x in fig.data[0].x]
    assert shown == ["Self-explaining alpha", "Gradient x input", "old_method"]


def test_lab_default_is_the_fast_set() -> None:
    assert LabOptions().explainers == FAST_EXPLAINERS
    assert {"lime", "kernel_shap", "integrated_gradients"}.isdisjoint(FAST_EXPLAINERS)
    assert set(FAST_EXPLAINERS) <= set(METHODS) and "alpha" in FAST_EXPLAINERS
