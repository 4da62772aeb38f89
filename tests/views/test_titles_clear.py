"""Titles that overlapped (issue 58 item 7): the panel titles of the Explorer's faceted chart sit under the
chart's title, and the Adversarial chart's y-axis title fits beside its plot."""

from __future__ import annotations

import pandas as pd

from selfexplain.batch.figures import top_spans_figure
from selfexplain.lab.anatomy.figures import perturbation_figure
from selfexplain.views.style import GLYPH_WIDTH, MARGIN, MODEBAR_ROOM, PANEL_TITLE_ROOM, TITLE_SIZE


def test_panel_titles_sit_below_the_chart_title() -> None:
    table = pd.DataFrame(
        {"label": ["negative", "neutral", "positive"], "span": ["dull", "fine", "warm"], "count": [3, 2, 1],
         "mean_alpha": [0.2, 0.1, 0.3]}
    )  # fmt: skip
    fig = top_spans_figure(table, ["negative", "neutral", "positive"])
    top_panel_titles = [a for a in fig.layout.annotations if a.y >= 0.99]
    assert top_panel_titles and fig.layout.margin.t >= MARGIN["t"] + PANEL_TITLE_ROOM
    assert fig.layout.margin.t - PANEL_TITLE_ROOM >= MODEBAR_ROOM + TITLE_SIZE  # the chart title ends above them


def test_the_perturbation_chart_axis_title_fits_its_plot() -> None:
    summary = pd.DataFrame(
        {"perturbation": ["shuffle", "distractor"], "examples": [40, 40], "accuracy_before": [0.6, 0.6],
         "accuracy_after": [0.5, 0.55], "changed": [0.3, 0.1]}
    )  # fmt: skip
    fig = perturbation_figure(summary)
    plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    title = fig.layout.yaxis.title.text
    assert len(title) * 14 * GLYPH_WIDTH <= plot  # at the figure font (14 px): it no longer runs into the title
