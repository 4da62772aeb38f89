"""The one place for the look of every view: colours, colour scales, fonts and the figure layout.

Figures take their colour scales, colours and fonts from here and their title, height, margins, template
and legend from :func:`apply_layout`, the only function that lays a figure out. HTML views (the
highlighted text, the report, the notebook view, the pages' notes) take their colours and font family
from here too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

import plotly.graph_objects as go
import plotly.io as pio

# Fonts
FONT_FAMILY = "system-ui,sans-serif"  # HTML views
FONT = {"size": 14}
TITLE_SIZE = 16
TICK_FONT = {"size": 11}  # token and word labels along a grid's axes
PRESENT_FONT = {"size": 20}  # presentation mode (a projector)
PRESENT_TITLE_SIZE = TITLE_SIZE + 6
PRESENT_TICK_FONT = {"size": 15}

# Colour scales
ALPHA_SCALE = "YlOrRd"  # single-hue sequential scales that still read in greyscale
ATTENTION_SCALE = "Blues"
DIFFERENCE_SCALE = "RdBu"  # diverging, white at zero: red lost, blue gained
LAYER_SCALE = "Viridis"  # an ordered number of many values (the layer of a head)

# Colours
HIGHLIGHT = "#c2410c"  # the predicted class, the chosen item
MUTED = "#9ca3af"
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f")
INK = "#111827"  # body text, outlines of the chosen span or cell, the line between a pair's two texts
NOTE_TEXT = "#6b7280"  # small print: segment names, alphas in lists, skipped paragraphs
CAPTION_TEXT = "#4b5563"  # how-to-read captions
RULE = "#e5e7eb"  # table borders
ZERO_FILL = "#eef0f3"  # a grid cell holding a valid span whose alpha is 0
ACCENT = "#ea580c"  # the colour spans are shaded in; a pinned note's margin
HEAD_LINE = "#2563eb"  # a head view's lines (the attention colour)
HEAD_LINE_FOCUS = "#c2410c"  # the lines of the word a head view focuses on (the hovered word)
HEAD_FADE = 0.12  # the opacity of a head view's other words and lines while one word is hovered
OPINION = "#2563eb"  # a second attribution method's bars beside alpha's
SHADE_RGB = "234,88,12"  # ACCENT as r,g,b for ``rgba(SHADE_RGB, strength)``: the stronger the alpha, the darker

# Layout
DEFAULT_HEIGHT = 420
MODEBAR_ROOM = 32  # pixels the plotly toolbar (top right, on hover) takes; titles start below it
MARGIN = {"l": 10, "r": 10, "t": 60, "b": 10}  # the top holds the toolbar and, below it, the title
LEGEND_ROOM = 24  # more top margin for a legend above the plot, under the title
COLORBAR_ROOM = 64  # more top margin for a colour bar laid across the top of the plot (title, numbers and bar)
PANEL_TITLE_ROOM = 24  # more top margin for the titles of a faceted chart's top panels, under the title
TEMPLATE = "plotly_white"  # its layout part only: see layout_template()
LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0}  # one entry after another under the plot
LEGEND_ABOVE = {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 1.0, "xanchor": "right"}
HEAD_VIEW_ROW = 22  # pixels from one word of a head view to the next
HEAD_VIEW_SPAN = 220  # pixels between a head view's two columns of words, where its lines run
HEAD_VIEW_GAP = 6  # pixels between a word and its lines
HEAD_VIEW_LABEL = (40, 160)  # least and most pixels of a head view's word column (longer words end in an ellipsis)

REPORT_STYLE = (  # the CSS of the standalone HTML reports
    f"body{{font-family:{FONT_FAMILY};max-width:1100px;margin:2em auto;color:{INK}}}"
    f"table{{border-collapse:collapse}}td,th{{border:1px solid {RULE};padding:4px 8px;text-align:left}}"
)


def label_colours(labels: list[str] | tuple[str, ...]) -> dict[str, str]:
    """The same colour for the same label in every chart of a page (labels in their model's order)."""
    return {label: PALETTE[i % len(PALETTE)] for i, label in enumerate(labels)}


@cache
def layout_template() -> go.layout.Template:
    """:data:`TEMPLATE`'s layout (white background, light grid lines, fonts), without its per-trace
    defaults: every figure sets its own trace colours, and copying the whole template into each
    figure (plotly validates it on assignment) was the largest cost of drawing the Explain page."""
    return go.layout.Template(layout=pio.templates[TEMPLATE].layout)


def apply_layout(
    fig: go.Figure,
    title: str | None = None,
    height: int | None = None,
    *,
    legend: Mapping[str, object] | None = None,
    present: bool = False,
    labelled: bool = False,
    left: int | None = None,
    bottom: int | None = None,
    colorbar_above: bool = False,
) -> go.Figure:
    """Lay ``fig`` out: title at the top left, the shared font, white template, tight margins, ``height``
    pixels tall (else the height ``fig`` has, else :data:`DEFAULT_HEIGHT`), ``legend`` placed as given
    (:data:`LEGEND_BELOW`, :data:`LEGEND_ABOVE`; else plotly's).

    ``present=True`` returns a copy for a projector (``fig`` is unchanged): larger fonts and a third
    taller. With no ``title`` the figure keeps its own, so a finished figure can be presented as it is.
    ``labelled=True``: a grid with a label on every row and column gets margins sized for its labels
    (see :func:`label_room`); a presented copy keeps them, resized for the larger font. ``left``: the left
    margin in pixels (for labels that :func:`label_room` measured), else the shared margin.
    ``colorbar_above=True``: every heatmap's colour bar lies across the top of the plot (:data:`COLORBAR_ABOVE`)
    instead of upright at its right, where in half a page (two figures side by side on a 1,024 px screen)
    the bar and its numbers took a third of the width from the heatmap; the figure is taller by the bar's room.
    """
    if present:
        fig = go.Figure(fig)
    text = title if title is not None else fig.layout.title.text
    base = height or fig.layout.height or DEFAULT_HEIGHT
    fig.update_layout(
        title={  # below the toolbar: a long title ran under it (issue 23 defect 11)
            "text": text,
            "x": 0.0,
            "y": 1.0,
            "yref": "container",
            "yanchor": "top",
            "pad": {"t": MODEBAR_ROOM},
            "font": {"size": TITLE_SIZE},
        },
        height=base,
        margin={**MARGIN, **({} if left is None else {"l": left}), **({} if bottom is None else {"b": bottom})},
        font=FONT,
        template=layout_template(),
    )
    if legend is not None:
        fig.update_layout(legend=dict(legend))
    if (fig.layout.legend.y or 0) > 1:  # a legend above the plot: room for it under the title
        fig.update_layout(margin={"t": MARGIN["t"] + LEGEND_ROOM})
    if colorbar_above:
        fig.update_traces(colorbar=COLORBAR_ABOVE, selector={"type": "heatmap"})
        # the figure grows by the bar's room, so the plot keeps the height its rows were given
        fig.update_layout(margin={"t": fig.layout.margin.t + COLORBAR_ROOM}, height=fig.layout.height + COLORBAR_ROOM)
    if any(_above_the_plot(note) for note in fig.layout.annotations or ()):  # panel titles ran into the title
        fig.update_layout(margin={"t": fig.layout.margin.t + PANEL_TITLE_ROOM})
    if present:
        fig.update_layout(font=PRESENT_FONT, height=int(base * 4 / 3), title_font={"size": PRESENT_TITLE_SIZE})
        fig.update_xaxes(tickfont=PRESENT_TICK_FONT)
        fig.update_yaxes(tickfont=PRESENT_TICK_FONT)
    if labelled or fig.layout.xaxis.automargin is False:
        # Fixed margins sized for the labels, upright column labels: plotly's automatic margins measure
        # every label and lay the figure out again until it fits, which was most of the time the browser
        # took to draw a 50-token grid (about 330 ms of 450; ~140 ms with these).
        labels = [*(fig.layout.xaxis.ticktext or ()), *(fig.layout.yaxis.ticktext or ())]
        room = label_room(labels, (PRESENT_TICK_FONT if present else TICK_FONT)["size"])
        # "allow": plotly otherwise measures every label to hide those past the figure (~300 ms a rerun)
        fig.update_xaxes(automargin=False, tickangle=-90, ticklabeloverflow="allow")
        fig.update_yaxes(automargin=False, ticklabeloverflow="allow")
        fig.update_layout(margin={"l": room if left is None else left, "b": room if bottom is None else bottom})
    return fig


# a colour bar across the top of the plot, under the title, numbers above the bar (apply_layout's colorbar_above)
COLORBAR_ABOVE = {
    "orientation": "h",
    "x": 0.0,
    "xanchor": "left",
    "y": 1.0,
    "yanchor": "bottom",
    "yref": "paper",
    "len": 1.0,
    "thickness": 10,
    "ypad": 6,
    "ticklabelposition": "outside top",
    "tickangle": 0,  # plotly turned crowded numbers upright, into the plot
    "nticks": 3,
    "title": {"side": "top"},  # beside the bar, the title took half of a narrow figure's bar
}


def _above_the_plot(note: go.layout.Annotation) -> bool:
    """Whether an annotation sits on top of the plot area, as a faceted chart's top panel titles do."""
    return note.yref == "paper" and (note.y or 0) >= 0.99 and note.yanchor == "bottom"


GLYPH_WIDTH = 0.62  # a label character's width as a share of the font size (system sans-serif)
AXIS_TITLE_ROOM = 40  # the axis title and its distance from the labels, in pixels


def label_room(labels: Sequence[object], tick_size: int) -> int:
    """Pixels of margin that hold the longest of ``labels`` at ``tick_size`` and the axis title."""
    longest = max((len(str(label)) for label in labels), default=1)
    return int(longest * tick_size * GLYPH_WIDTH) + AXIS_TITLE_ROOM
