"""One schema for an explained input (:mod:`selfexplain.core.results.schema`): ``to_dict``/``from_dict`` round trips of
Explanation and Document, and batch records and gallery pins written before the schema was shared still load
into the same token-less Explanation (the literals below were written by the code of that time)."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest
from helpers import make_explainer

from selfexplain.batch.records import parse_results, record_explanation, record_spans
from selfexplain.core.results.document import Document
from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.schema import SCHEMA_VERSION
from selfexplain.errors import InvalidInputError
from selfexplain.gallery.records import parse_line, validate_record
from selfexplain.gallery.view import pin_spans, summary_explanation
from selfexplain.views.figures import probability_figure
from selfexplain.views.highlight import highlight_html

# A batch record of the tiny pair model (explanation_record, top_k=3) and a gallery pin of the tiny
# single-text model (pinned as "tiny-sst-pinned"; the explanation's own model is "tiny-sst"), with the
# highlight HTML they were shown with, all written before Explanation.from_dict existed.
RECORD = {
    "index": 0,
    "line": 1,
    "text": "A dog runs.",
    "pair": "An animal moves.",
    "gold": "neutral",
    "label": "contradiction",
    "confidence": 0.363521,
    "probabilities": {"entailment": 0.281272, "neutral": 0.355207, "contradiction": 0.363521},
    "correct": False,
    "truncated": False,
    "num_tokens": 8,
    "num_valid_spans": 20,
    "alpha_entropy": 2.927688,
    "spans": [
        {
            "start_token": 4,
            "end_token": 7,
            "start_char": 0,
            "end_char": 16,
            "segment": 1,
            "text": "An animal moves.",
            "alpha": 0.094019,
            "rank": 1,
        },
        {
            "start_token": 2,
            "end_token": 3,
            "start_char": 6,
            "end_char": 11,
            "segment": 0,
            "text": "runs.",
            "alpha": 0.073934,
            "rank": 2,
        },
        {
            "start_token": 5,
            "end_token": 7,
            "start_char": 3,
            "end_char": 16,
            "segment": 1,
            "text": "animal moves.",
            "alpha": 0.073929,
            "rank": 3,
        },
    ],
    "attention_entropy": None,
    "top_attention_token": None,
    "attention_in_top_span": None,
    "error": None,
}
RECORD_HTML = (
    "<div class='selfexplain-highlight'><div style='font-size:0.8em;color:#6b7280'>Premise</div"
    "><div class='selfexplain-text' style='font-size:1.15em;line-height:1.9'>A dog <mark title="
    '"rank 2 · alpha 0.0739 · runs." data-rank="2" style="background:rgba(234,88,12,0.74);paddi'
    "ng:1px 0;border-radius:3px;\">runs.</mark></div><div style='font-size:0.8em;color:#6b7280'>"
    "Hypothesis</div><div class='selfexplain-text' style='font-size:1.15em;line-height:1.9'><ma"
    'rk title="rank 1 · alpha 0.0940 · An animal moves." data-rank="1" style="background:rgba(2'
    '34,88,12,0.90);padding:1px 0;border-radius:3px;">An animal moves.</mark></div></div>'
)
PIN = {
    "id": "abc123",
    "created": "2024-05-01T12:00:00+00:00",
    "model": "tiny-sst-pinned",
    "text": "A warm film",
    "pair": None,
    "note": "n",
    "label": "neutral",
    "explanation": {
        "model": "tiny-sst",
        "text": "A warm film",
        "pair": None,
        "label": "neutral",
        "probabilities": {
            "very negative": 0.18611109256744385,
            "negative": 0.17506346106529236,
            "neutral": 0.2621375024318695,
            "positive": 0.21409712731838226,
            "very positive": 0.16259081661701202,
        },
        "tokens": [
            {"text": "A", "start": 0, "end": 1, "segment": 0, "piece": "a"},
            {"text": "warm", "start": 2, "end": 6, "segment": 0, "piece": "warm"},
            {"text": "film", "start": 7, "end": 11, "segment": 0, "piece": "film"},
        ],
        "spans": [
            {
                "start_token": 1,
                "end_token": 2,
                "start_char": 2,
                "end_char": 11,
                "segment": 0,
                "text": "warm film",
                "alpha": 0.2969439625740051,
                "rank": 1,
            },
            {
                "start_token": 2,
                "end_token": 2,
                "start_char": 7,
                "end_char": 11,
                "segment": 0,
                "text": "film",
                "alpha": 0.21130187809467316,
                "rank": 2,
            },
            {
                "start_token": 1,
                "end_token": 1,
                "start_char": 2,
                "end_char": 6,
                "segment": 0,
                "text": "warm",
                "alpha": 0.19511502981185913,
                "rank": 3,
            },
            {
                "start_token": 0,
                "end_token": 2,
                "start_char": 0,
                "end_char": 11,
                "segment": 0,
                "text": "A warm film",
                "alpha": 0.11145436018705368,
                "rank": 4,
            },
            {
                "start_token": 0,
                "end_token": 1,
                "start_char": 0,
                "end_char": 6,
                "segment": 0,
                "text": "A warm",
                "alpha": 0.10096585750579834,
                "rank": 5,
            },
            {
                "start_token": 0,
                "end_token": 0,
                "start_char": 0,
                "end_char": 1,
                "segment": 0,
                "text": "A",
                "alpha": 0.08421892672777176,
                "rank": 6,
            },
        ],
        "num_valid_spans": 6,
        "num_evidence_spans": 6,
        "span_unit": "word",
        "stored": {"top_k": 20, "alpha_grid": False, "attentions": False},
    },
}
PIN_HTML = (
    "<div class='selfexplain-highlight'><div class='selfexplain-text' style='font-size:1.15em;l"
    'ine-height:1.9\'><mark title="rank 6 · alpha 0.0842 · A" data-rank="6" style="background:rg'
    'ba(234,88,12,0.36);padding:1px 0;border-radius:3px;">A</mark> <mark title="rank 1 · alpha '
    '0.2969 · warm film" data-rank="1" style="background:rgba(234,88,12,0.90);padding:1px 0;bor'
    'der-radius:3px;">warm film</mark></div></div>'
)


def same(a: Explanation, b: Explanation) -> None:
    """Every field equal, arrays in dtype and shape too."""
    for field in fields(Explanation):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert isinstance(x, np.ndarray) and isinstance(y, np.ndarray), field.name
            assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), field.name
        else:
            assert x == y, field.name


def legacy_record_explanation(record: dict, model_name: str = "") -> Explanation:
    """What batch.records.record_explanation built before from_dict."""
    names = tuple(record["probabilities"])
    return Explanation(
        text=record["text"],
        pair=record.get("pair"),
        tokens=(),
        label_names=names,
        probabilities=np.asarray([record["probabilities"][n] for n in names], dtype=np.float64),
        alpha=np.zeros((0, 0)),
        span_mask=np.zeros((0, 0), dtype=bool),
        model_name=model_name,
    )


def legacy_summary_explanation(pin) -> Explanation:
    """What gallery.view.summary_explanation built before from_dict."""
    probabilities = pin.explanation["probabilities"]
    return Explanation(
        text=pin.text,
        pair=pin.pair,
        tokens=(),
        label_names=tuple(probabilities),
        probabilities=np.array([float(p) for p in probabilities.values()]),
        alpha=np.zeros((0, 0)),
        span_mask=np.zeros((0, 0), dtype=bool),
        model_name=pin.model,
        span_unit=str(pin.explanation.get("span_unit", "piece")),
    )


def evidence(explanation: Explanation) -> list[tuple]:
    return [(s.start_token, s.end_token, s.alpha, s.text, s.rank) for s in explanation.evidence_spans(None)]


@pytest.mark.parametrize("kind", ["single", "pair"])
def test_explanation_round_trip(kind: str, tiny_explainer, tiny_pair_explainer) -> None:
    if kind == "single":
        original = tiny_explainer.explain("A warm and funny story, truly.", attentions=False)
    else:
        original = tiny_pair_explainer.explain("A dog runs in the park.", "An animal moves.", attentions=False)
    assert original.num_evidence == int(original.span_mask.sum())  # softmax: every valid span is listed
    data = original.to_dict(top_k=original.num_evidence)
    back = Explanation.from_dict(json.loads(json.dumps(data)))
    assert (back.text, back.pair, back.label, back.label_names) == (
        original.text,
        original.pair,
        original.label,
        original.label_names,
    )
    np.testing.assert_array_equal(back.probabilities, original.probabilities)
    assert back.tokens == original.tokens and back.span_unit == original.span_unit
    assert back.model_name == original.model_name and back.windows is None
    assert evidence(back) == evidence(original)
    assert back.to_dict(top_k=back.num_evidence) == data
    assert back.to_dict(top_k=3) == original.to_dict(top_k=3)
    np.testing.assert_array_equal(back.span_mask, original.span_mask)
    np.testing.assert_array_equal(back.alpha, original.alpha)
    np.testing.assert_allclose(back.token_scores(), original.token_scores(), rtol=1e-6)
    # tokens=False: the token-less Explanation a batch record or a pin is shown with
    bare = Explanation.from_dict(data, tokens=False, model_name="other")
    assert bare.num_tokens == 0 and bare.alpha.shape == bare.span_mask.shape == (0, 0) and bare.windows is None
    assert (bare.text, bare.pair, bare.label, bare.model_name) == (
        original.text,
        original.pair,
        original.label,
        "other",
    )


def test_sparse_alpha_round_trips_when_every_valid_span_is_listed(tiny_encoder: Path) -> None:
    original = make_explainer(tiny_encoder, normaliser="sparsemax").explain("A warm and funny story, truly.")
    assert 0 < original.num_evidence < int(original.span_mask.sum())  # some spans have alpha 0
    data = original.to_dict(top_k=None)
    back = Explanation.from_dict(data)
    assert back.to_dict(top_k=None) == data and back.to_dict(top_k=5) == original.to_dict(top_k=5)
    assert evidence(back) == evidence(original)
    # only the spans that carry weight listed: those come back, the alpha-0 spans are not known
    some = Explanation.from_dict(original.to_dict(top_k=original.num_evidence))
    assert evidence(some) == evidence(original)
    assert int(some.span_mask.sum()) == original.num_evidence


def test_windowed_explanation_and_document_round_trip(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=3, window_stride=64)
    text = " ".join(f"The plot{p} scene {p % 7} was fine, but the cast{p} felt slow." for p in range(25))
    dense = explainer.explain_long(text)
    assert dense.windows is not None and len(dense.windows) >= 3
    data = dense.to_dict(top_k=None)
    back = Explanation.from_dict(data)
    assert back.windows == dense.windows and back.to_dict(top_k=None) == data

    document = explainer.explain_document(text)
    data = document.to_dict(top_k=None)
    again = Document.from_dict(json.loads(json.dumps(data)))
    assert again.to_dict(top_k=None) == data and again.to_dict() == document.to_dict()
    assert again.window_starts == document.window_starts and again.window_size == document.window_size
    for name in ("starts", "ends", "alpha"):
        x, y = getattr(again, name), getattr(document, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    np.testing.assert_array_equal(again.probabilities, document.probabilities)  # float64 from JSON's floats
    assert again.parts("sentence").mass.tolist() == document.parts("sentence").mass.tolist()
    assert Document.from_dict(data, window_size=500).window_size == 500


def test_a_grid_over_the_dense_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("selfexplain.core.results.explanation.DENSE_MAX_TOKENS", 2)
    with pytest.raises(InvalidInputError, match="dense explanation"):
        Explanation.from_dict(PIN["explanation"])
    assert Explanation.from_dict(PIN["explanation"], tokens=False).num_tokens == 0


def test_a_batch_record_written_before_loads_as_before() -> None:
    [record] = parse_results((json.dumps(RECORD) + "\n").encode())
    assert record == RECORD
    shown = record_explanation(record)
    same(shown, legacy_record_explanation(record))
    same(record_explanation(record, "tiny-nli"), legacy_record_explanation(record, "tiny-nli"))
    assert shown.model_name == "" and shown.span_unit == "piece" and shown.pair == "An animal moves."
    assert shown.probabilities.tolist() == [0.281272, 0.355207, 0.363521] and shown.label == "contradiction"
    assert highlight_html(shown, record_spans(record)) == RECORD_HTML


def test_a_gallery_pin_written_before_loads_as_before() -> None:
    pin = parse_line(json.dumps(PIN), "pins.jsonl:1")
    upgraded = {**PIN, "explanation": {"schema_version": SCHEMA_VERSION, **PIN["explanation"]}}
    assert pin.to_dict() == validate_record(PIN).to_dict() == upgraded  # read in the current schema version
    shown = summary_explanation(pin)
    same(shown, legacy_summary_explanation(pin))
    assert shown.model_name == "tiny-sst-pinned" and shown.span_unit == "word" and shown.num_tokens == 0
    assert highlight_html(shown, pin_spans(pin, 5)) == PIN_HTML
    assert probability_figure(shown).to_json() == probability_figure(legacy_summary_explanation(pin)).to_json()
    full = Explanation.from_dict(pin.explanation)  # the stored top 20 cover this pin's 6 valid spans
    assert full.to_dict(top_k=20) == {k: v for k, v in upgraded["explanation"].items() if k != "stored"}
