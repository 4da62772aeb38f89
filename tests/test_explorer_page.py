"""The Explorer page: one colour per label across neighbouring charts, long span texts cut with an
ellipsis on the axis and whole in the hover."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest
from test_batch_explore import record

from selfexplain.batch import explore
from selfexplain.batch.export import to_jsonl
from selfexplain.batch.figures import (
    ASSUMED_WIDTH,
    SPAN_LABEL_CHARS,
    facet_room,
    shorten,
    span_length_figure,
    top_spans_figure,
)
from selfexplain.views.style import PALETTE

EXPLORER = str(Path(__file__).resolve().parents[1] / "pages" / "7_Explorer.py")
LABELS = ["neg", "neutral", "pos"]
LONG = "an astonishingly long winded and meandering opening sequence that never ends"


def three_label(index: int, text: str, label: str, span: tuple[int, int, float], entropy: bool = True) -> dict:
    """A record of a three-label model; without ``entropy`` it has no alpha entropy (absent from that chart)."""
    row = record(index, text, label, None, 0.8, span)
    row["probabilities"] = {name: (0.8 if name == label else 0.1) for name in LABELS}
    if not entropy:
        row["alpha_entropy"] = None
    return row


RECORDS = [
    three_label(0, "a dull film", "neg", (1, 1, 0.8)),
    three_label(1, "it is a film", "neutral", (3, 3, 0.4), entropy=False),  # in the length chart only
    three_label(2, "a lovely film", "pos", (1, 1, 0.5)),
    three_label(3, LONG, "pos", (0, 10, 0.7)),
]


def marker_colours(spec: str) -> dict[str, str]:
    """Legend name -> marker colour of a chart's traces (first trace of each name)."""
    colours: dict[str, str] = {}
    for trace in json.loads(spec)["data"]:
        if trace.get("name") and isinstance(trace.get("marker", {}).get("color"), str):
            colours.setdefault(trace["name"], trace["marker"]["color"])
    return colours


def test_neighbouring_charts_give_a_label_one_colour() -> None:
    at = AppTest.from_file(EXPLORER, default_timeout=60)
    at.run()
    at.file_uploader(key="explorer_file").set_value(("r.jsonl", to_jsonl(RECORDS).encode(), "application/json")).run()
    assert not at.exception and not at.error
    charts = {json.loads(c.proto.spec)["layout"]["title"]["text"]: c.proto.spec for c in at.get("plotly_chart")}
    lengths = marker_colours(charts["Length of the top alpha span"])
    spread = marker_colours(next(s for t, s in charts.items() if t.startswith("How spread out")))
    assert set(lengths) == set(LABELS) and set(spread) == {"neg", "pos"}  # different label sets ...
    assert lengths == {name: PALETTE[i] for i, name in enumerate(LABELS)}  # ... the model's order ...
    assert spread == {"neg": PALETTE[0], "pos": PALETTE[2]}  # ... and the same colour for the same label
    words = json.loads(charts["Words most often in the top spans, per predicted class"])
    titles = {a["text"]: a["font"]["color"] for a in words["layout"]["annotations"]}
    assert titles == {"neg": PALETTE[0], "neutral": PALETTE[1], "pos": PALETTE[2]}
    axis = [y for trace in words["data"] for y in trace["y"]]
    assert {"dull", "film", "lovely", "astonishingly", "meandering"} <= set(axis) and "that" not in axis
    assert max(len(y) for y in axis) <= SPAN_LABEL_CHARS


def test_words_of_the_top_spans_are_counted_and_labels_clear_the_next_panel() -> None:
    """Defect 7: every count was 1 (each top span is a phrase of its own) and the labels of one panel ran
    into the panel on their left."""
    records = [
        three_label(0, "a dull and slow film", "neg", (1, 3, 0.8)),
        three_label(1, "so dull , really", "neg", (0, 1, 0.6)),
        three_label(2, "it is a film", "neutral", (3, 3, 0.4)),
        three_label(3, "a lovely warm film", "pos", (1, 2, 0.5)),
        three_label(4, "lovely acting throughout", "pos", (0, 1, 0.7)),
    ]
    frame = explore.records_frame(records)
    assert set(explore.top_spans_by_class(frame)["count"]) == {1}  # whole spans never repeat here
    words = explore.top_words_by_class(frame)
    rows = {(r["label"], r["word"]): r for r in words.to_dict("records")}
    assert rows[("neg", "dull")]["count"] == 2 and rows[("neg", "dull")]["share"] == 1.0
    assert rows[("pos", "lovely")]["count"] == 2 and ("neg", "and") not in rows  # "and" is too common
    for table, item in ((words, "word"), (explore.top_spans_by_class(explore.records_frame(RECORDS)), "span")):
        fig = top_spans_figure(table, LABELS, item=item)
        labels = [str(y).rstrip("\u200b") for trace in fig.data for y in trace.y]
        need = facet_room(labels) / ASSUMED_WIDTH  # the longest label, as a share of the page's width
        layout = fig.layout.to_plotly_json()
        domains = sorted({tuple(value["domain"]) for name, value in layout.items() if name.startswith("xaxis")})
        gaps = [b[0] - a[1] for a, b in zip(domains, domains[1:])]
        assert all(gap >= need - 1e-9 for gap in gaps), (item, gaps, need)
        assert fig.layout.margin.l >= facet_room(labels)  # the first panel's labels fit the left margin


def test_cut_span_texts_stay_apart_and_escaped() -> None:
    import pandas as pd

    assert shorten("short") == "short" and shorten("x" * 40, 10) == "x" * 9 + "…"
    table = pd.DataFrame(
        {
            "label": ["pos", "pos", "<i>odd</i>"],
            "span": [LONG, LONG + " again", "<b>bold</b>"],
            "count": [3, 2, 1],
            "mean_alpha": [0.2, 0.1, 0.3],
        }
    )
    fig = top_spans_figure(table, ["neg", "pos"])
    axis = [y for trace in fig.data for y in trace.y]
    assert len(set(axis)) == 3 and axis[0].rstrip("\u200b") == axis[1].rstrip("\u200b")  # two bars, not one
    assert "&lt;b&gt;bold&lt;/b&gt;" in axis and "<b>" not in "".join(axis)
    assert {a.text for a in fig.layout.annotations} == {"pos", "&lt;i&gt;odd&lt;/i&gt;"}  # labels escaped too
    counts = pd.DataFrame({"top_span_length": [1, 2], "label": ["pos", "other"], "count": [2, 1]})
    colours = {t.name: t.marker.color for t in span_length_figure(counts, ["neg", "pos"]).data}
    assert colours == {"pos": PALETTE[1], "other": PALETTE[2]}  # an unknown label follows the model's labels
