"""Explorer statistics, figures and exports over hand-built batch records."""

from __future__ import annotations

import csv
import io
import json

import pytest

from selfexplain.batch import explore
from selfexplain.batch.export import most_confident_errors, report_html, to_csv, to_jsonl
from selfexplain.batch.figures import (
    accuracy_figure,
    confusion_figure,
    entropy_figure,
    span_length_figure,
    top_spans_figure,
)
from selfexplain.batch.records import parse_results

NAMES = ["neg", "pos"]


def record(
    index: int, text: str, label: str, gold: str | None, confidence: float, span: tuple[int, int, float]
) -> dict:
    start, end, alpha = span
    words = text.split()
    offsets = [sum(len(w) + 1 for w in words[:i]) for i in range(len(words))]
    first, last = offsets[start], offsets[end] + len(words[end])
    p = {"neg": confidence if label == "neg" else 1 - confidence}
    p["pos"] = 1 - p["neg"]
    return {
        "index": index,
        "line": index + 2,
        "text": text,
        "pair": None,
        "gold": gold,
        "label": label,
        "confidence": confidence,
        "probabilities": p,
        "correct": None if gold is None else gold == label,
        "truncated": False,
        "num_tokens": len(words),
        "num_valid_spans": len(words) * (len(words) + 1) // 2,
        "alpha_entropy": 0.5,
        "spans": [
            {
                "start_token": start,
                "end_token": end,
                "start_char": first,
                "end_char": last,
                "segment": 0,
                "text": text[first:last],
                "alpha": alpha,
                "rank": 1,
            }
        ],
        "attention_entropy": 1.0,
        "top_attention_token": {"index": 0, "text": words[0]},
        "attention_in_top_span": 0.2,
        "error": None,
    }


RECORDS = [
    record(0, "a dull , slow film", "neg", "neg", 0.9, (1, 1, 0.8)),
    record(1, "so Dull !", "neg", "pos", 0.95, (1, 2, 0.6)),
    record(2, "a lovely film", "pos", "pos", 0.7, (1, 1, 0.5)),
    record(3, "lovely <b>cast</b> here", "pos", "neg", 0.6, (0, 0, 0.9)),
    {"index": 4, "line": 6, "text": "", "pair": None, "spans": [], "error": "row 5 (line 6): empty text"},
]


def test_summary_counts() -> None:
    assert explore.summary(RECORDS) == {
        "rows": 5,
        "explained": 4,
        "errors": 1,
        "truncated": 0,
        "labelled": 4,
        "accuracy": 0.5,
        "predicted": {"neg": 2, "pos": 2},
    }


def test_top_spans_are_normalised_and_counted_per_class() -> None:
    table = explore.top_spans_by_class(explore.records_frame(RECORDS))
    rows = table.to_dict("records")
    assert rows[0] == {"label": "neg", "span": "dull", "count": 2, "mean_alpha": pytest.approx(0.7)}
    assert rows[1] == {"label": "pos", "span": "lovely", "count": 2, "mean_alpha": pytest.approx(0.7)}
    assert explore.normalise_span("  Dull  !! ") == "dull"


def test_lengths_accuracy_disagreement_and_confusion() -> None:
    frame = explore.records_frame(RECORDS)
    lengths = explore.span_length_counts(frame)
    assert lengths.to_dict("records") == [
        {"top_span_length": 1, "label": "neg", "count": 1},
        {"top_span_length": 1, "label": "pos", "count": 2},
        {"top_span_length": 2, "label": "neg", "count": 1},
    ]
    by_span = explore.accuracy_by(frame, "top_span_length")
    assert by_span.to_dict("records") == [
        {"top_span_length": 1, "examples": 3, "accuracy": pytest.approx(2 / 3)},
        {"top_span_length": 2, "examples": 1, "accuracy": 0.0},
    ]
    by_length = explore.accuracy_by(frame, "num_tokens", (0, 3, 10))
    assert by_length["num_tokens"].astype(str).tolist() == ["1-3", ">3"]
    assert by_length["examples"].tolist() == [3, 1]
    # attention's top token is always word 0: row 0's span is word 1 (distance 1 of 5 tokens)
    worst = explore.disagreements(frame)
    assert worst["index"].tolist() == [1, 2, 0, 3]
    assert worst["disagreement"].tolist() == pytest.approx([1 / 3, 1 / 3, 1 / 5, 0.0])
    assert explore.confusion(frame, NAMES).to_numpy().tolist() == [[1, 1], [1, 1]]


def test_figures_build_from_the_tables() -> None:
    frame = explore.records_frame(RECORDS)
    assert confusion_figure(explore.confusion(frame, NAMES)).data[0].z.tolist() == [[1, 1], [1, 1]]
    assert len(top_spans_figure(explore.top_spans_by_class(frame)).data) >= 1
    assert sum(sum(t.y) for t in span_length_figure(explore.span_length_counts(frame)).data) == 4
    entropy = entropy_figure(frame)
    assert entropy.layout.title.text.startswith("How spread out: alpha over spans vs")
    no_attention = frame.assign(attention_entropy_norm=None)
    assert entropy_figure(no_attention).data[0].type == "histogram"
    bars = accuracy_figure(explore.accuracy_by(frame, "top_span_length"), "top_span_length", "t")
    assert list(bars.data[0].y) == pytest.approx([2 / 3, 0.0])


def test_jsonl_and_csv_exports_keep_every_row() -> None:
    text = to_jsonl(RECORDS, top_k=None)
    assert parse_results(text.encode()) == RECORDS
    rows = list(csv.DictReader(io.StringIO(to_csv(RECORDS, top_k=1))))
    assert [r["index"] for r in rows] == ["0", "1", "2", "3", "4"]
    assert rows[1]["top_span"] == "Dull !" and rows[1]["p_neg"] == "0.95" and rows[1]["correct"] == "False"
    assert json.loads(rows[3]["spans"])[0]["text"] == "lovely"
    assert rows[4]["error"] == "row 5 (line 6): empty text" and rows[4]["label"] == ""
    assert json.loads(to_jsonl(RECORDS[:1], top_k=0).strip())["spans"] == []


def test_parse_results_names_the_bad_line() -> None:
    with pytest.raises(ValueError, match="r.jsonl: line 2: not a batch result record"):
        parse_results(b'{"index": 0, "text": "x", "spans": []}\n{"a": 1}\n', "r.jsonl")


def test_report_lists_confident_errors_escaped_and_opens_offline() -> None:
    assert [r["index"] for r in most_confident_errors(RECORDS)] == [1, 3]
    html = report_html(RECORDS, "tiny <model>")
    assert "<b>cast</b>" not in html and "&#60;b&#62;cast" in html
    assert "tiny &#60;model&#62;" in html
    assert "Row 2: predicted neg (95.0%), gold pos" in html
    assert "row 5 (line 6): empty text" in html.replace("&#40;", "(").replace("&#41;", ")").replace("&#58;", ":")
    assert '<script src="http' not in html and "Plotly.newPlot" in html and "Confusion matrix" in html
