"""Issue 23 defect 11: on the Faithfulness page the chart titles sat under plotly's toolbar and the table
columns were cut off."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from helpers import open_page

from selfexplain.lab.faithfulness import figures
from selfexplain.lab.faithfulness.labels import column_specs, readable
from selfexplain.lab.faithfulness.metrics import METRICS
from selfexplain.views.style import MODEBAR_ROOM, TITLE_SIZE

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "2_Faithfulness.py")


def assert_title_below_the_toolbar(layout: dict) -> None:
    title = layout["title"]
    assert title.get("yref") == "container" and title["yanchor"] == "top" and title["y"] == 1.0
    assert title["pad"]["t"] >= MODEBAR_ROOM  # the toolbar is about 30 px tall at the top right
    assert layout["margin"]["t"] >= title["pad"]["t"] + TITLE_SIZE + 8  # the title fits above the plot


def test_chart_titles_sit_below_the_toolbar() -> None:
    curves = pd.DataFrame(
        {"explainer": ["alpha"] * 3, "fraction_removed": [0.0, 0.5, 1.0], "probability": [0.9, 0.6, 0.4]}
    )
    flips = pd.DataFrame({"explainer": ["alpha", "loo"], "flip_fraction": [0.2, 0.4]})
    tau = pd.DataFrame(np.eye(2), index=["alpha", "loo"], columns=["alpha", "loo"])
    for fig in (figures.curve_figure(curves), figures.flip_figure(flips), figures.tau_figure(tau)):
        assert_title_below_the_toolbar(fig.to_plotly_json()["layout"])


def test_metric_columns_get_short_headers_with_the_full_name_on_hover() -> None:
    table = pd.DataFrame({"explainer": ["alpha"], **{key: [0.5] for key in METRICS}, "examples": [3]})
    shown = readable(table)
    specs = column_specs(list(shown.columns))
    assert set(specs) == set(shown.columns)
    for metric in METRICS.values():
        spec = specs[metric.heading]
        assert len(str(spec["label"])) <= 20 and spec["numeric"]
        # the whole header shows (issue 58 item 7: "Comprehensive", "Like leave-one-" were cut at "small")
        assert isinstance(spec["width"], int) and spec["width"] >= 8 * len(str(spec["label"])) + 24
        assert metric.heading in str(spec["help"]) and metric.meaning in str(spec["help"])
    assert specs["Method"]["width"] == "medium" and not specs["Method"]["numeric"]


def test_the_page_draws_its_tables_and_charts_that_way(tiny_model_dir: Path) -> None:
    at = open_page(PAGE, tiny_model_dir)
    at.slider(key="sample_size").set_value(2)
    at.multiselect(key="explainers").set_value(["alpha", "loo", "random"])
    at.button(key="run").click().run()
    assert not at.exception and not at.error
    for chart in at.get("plotly_chart"):
        assert_title_below_the_toolbar(json.loads(chart.proto.spec)["layout"])
    summary = next(d for d in at.dataframe if "Method" in d.value.columns and "Inputs" in d.value.columns)
    config = json.loads(summary.proto.columns)
    assert config["Share removed to flip ↓"]["label"] == "Removed to flip ↓"
    assert "before the predicted label changes" in config["Share removed to flip ↓"]["help"]
    assert config["Method"]["pinned"] is True


def test_a_legend_above_the_plot_gets_room_under_the_title() -> None:
    import plotly.graph_objects as go

    from selfexplain.views.style import LEGEND_ABOVE, MARGIN, apply_layout

    fig = apply_layout(go.Figure(go.Bar(x=[1], y=[2])), "t", 300, legend=LEGEND_ABOVE)
    assert fig.layout.margin.t > MARGIN["t"]
    assert apply_layout(fig, present=True).layout.margin.t == fig.layout.margin.t  # kept when presented
