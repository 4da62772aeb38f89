"""The class probabilities as HTML bars: one per label, lengths as probabilities, the prediction marked,
labels escaped."""

from __future__ import annotations

import re

import numpy as np

from selfexplain.views.probability_bars import probability_bars_html
from selfexplain.views.style import HIGHLIGHT, MUTED


class _Shown:  # the three fields the bars read, as an Explanation holds them
    def __init__(self, names: list[str], probabilities: list[float]) -> None:
        self.label_names = names
        self.probabilities = np.array(probabilities)
        self.predicted_index = int(np.argmax(probabilities))
        self.label = names[self.predicted_index]
        self.confidence = float(max(probabilities))


def test_one_bar_per_label_as_long_as_its_probability_the_prediction_highlighted() -> None:
    html = probability_bars_html(_Shown(["negative", "neutral", "positive"], [0.2, 0.05, 0.75]))  # type: ignore[arg-type]
    widths = [float(w) for w in re.findall(r"data-label='[^']*' style='[^']*width:([0-9.]+)%", html)]
    assert widths == [20.0, 5.0, 75.0]
    colours = re.findall(r"width:[0-9.]+%;background:(#[0-9a-f]{6})", html)
    assert colours == [MUTED, MUTED, HIGHLIGHT]
    assert ">75.0%<" in html and "predicted positive&#58; 75.0%" in html  # the colon escaped for Markdown


def test_label_names_are_escaped() -> None:
    hostile = "<img src=x onerror=alert(1)>'"
    html = probability_bars_html(_Shown([hostile, "ok"], [0.9, 0.1]))  # type: ignore[arg-type]
    assert "<img" not in html and "onerror=alert(1)>'" not in html
    assert html.count("data-label=") == 2
