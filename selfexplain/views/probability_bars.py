"""The class probabilities as plain HTML bars, one per label, the predicted one highlighted.

The Explain page's first view uses these instead of a plotly chart: the browser draws them at once,
while a plotly chart holds back the paint of everything sent with it until plotly has loaded and
drawn (measured in docs/performance.md). The report and the other pages keep
:func:`selfexplain.views.figures.probability_figure`. No Streamlit here; every label is escaped.
"""

from __future__ import annotations

from selfexplain.core.results.explanation import Explanation
from selfexplain.views.highlight import escape_attribute, escape_text
from selfexplain.views.style import FONT_FAMILY, HIGHLIGHT, INK, MUTED, NOTE_TEXT, RULE, TITLE_SIZE

TITLE = "Class probabilities"


def probability_bars_html(explanation: Explanation) -> str:
    """One row per label: its name, a bar as long as its probability (the predicted label's in the
    highlight colour) and the probability in percent; labels in the model's order."""
    rows = []
    for index, (name, probability) in enumerate(zip(explanation.label_names, explanation.probabilities)):
        share = min(max(float(probability), 0.0), 1.0)
        colour = HIGHLIGHT if index == explanation.predicted_index else MUTED
        weight = "600" if index == explanation.predicted_index else "400"
        rows.append(
            "<div style='display:flex;align-items:center;gap:8px;margin:3px 0'>"
            f"<span style='flex:0 0 8.5em;text-align:right;color:{INK};font-weight:{weight};overflow:hidden;"
            f"text-overflow:ellipsis;white-space:nowrap' title='{escape_attribute(name)}'>{escape_text(name)}</span>"
            f"<span style='flex:1 1 auto;background:{RULE};height:1.15em;border-radius:2px'>"
            f"<span data-label='{escape_attribute(name)}' style='display:block;height:100%;width:{share * 100:.1f}%;"
            f"background:{colour};border-radius:2px'></span></span>"
            f"<span style='flex:0 0 3.6em;color:{INK};font-variant-numeric:tabular-nums'>{share:.1%}</span>"
            "</div>"
        )
    title = f"<div style='font-size:{TITLE_SIZE}px;color:{INK};margin-bottom:6px'>{TITLE}</div>"
    label = escape_attribute(f"{explanation.label}: {explanation.confidence:.1%}")
    return (
        f"<div class='selfexplain-probabilities' role='figure' aria-label='{TITLE}, predicted {label}' "
        f"style='font-family:{FONT_FAMILY};font-size:14px;color:{NOTE_TEXT}'>{title}{''.join(rows)}</div>"
    )
