"""The result record of one input row: the JSONL output schema of the batch runner.

Every input row gives exactly one record, in input order. A record is a token-less Explanation (the one
schema, :mod:`selfexplain.core.results.schema`, without ``tokens``) plus the row's own fields; a row that cannot
be explained (empty text, unknown gold label) gives a record with ``error`` set and no Explanation (its
prediction fields null). Floats are rounded to 6 decimals so outputs compare exactly across runs.

The Explanation's fields: ``schema_version``, ``model``, ``text``, ``pair`` (the row's, uncut), ``label``,
``probabilities`` (label -> p), ``spans`` (top-k by alpha among the spans that carry weight, never one with
alpha 0: start_token, end_token, start_char, end_char, segment, text, alpha, rank), ``num_valid_spans``,
``num_evidence_spans``, ``span_unit``. The row's own: ``index`` (0-based record number), ``line`` (1-based
line in the input), ``gold`` (label name or null), ``confidence``, ``correct`` (null without gold),
``truncated``, ``num_tokens``, ``alpha_entropy`` (nats, over valid spans), and, when attention was asked
for, ``attention_entropy`` (nats, last layer's head-mean [CLS] row over the real tokens, renormalised),
``top_attention_token`` ({index, text}) and ``attention_in_top_span`` (share of that row inside the top
alpha span); ``error``.

Records read back (:func:`parse_results`, an uploaded results file) pass :func:`check_record`: the own
fields here, the Explanation by :func:`~selfexplain.core.results.schema.validate_explanation`. A record written
before the schema carried a version (version 1: no ``schema_version``, ``model``, ``num_evidence_spans``
or ``span_unit``) reads as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from selfexplain.batch.reader import Row
from selfexplain.core.results.attention import cls_attention_scores
from selfexplain.core.results.checks import MAX_LABEL_CHARS, MAX_TOKENS, fraction, number, require, text_field, whole
from selfexplain.core.results.explanation import Explanation, Span
from selfexplain.core.results.schema import SCHEMA_VERSION, explanation_dict, read_version, validate_explanation
from selfexplain.errors import SchemaError
from selfexplain.support.jsonl import RecordError, parse_record

FIELDS = (
    "schema_version",
    "index",
    "line",
    "model",
    "text",
    "pair",
    "gold",
    "label",
    "confidence",
    "probabilities",
    "correct",
    "truncated",
    "num_tokens",
    "num_valid_spans",
    "num_evidence_spans",
    "span_unit",
    "alpha_entropy",
    "spans",
    "attention_entropy",
    "top_attention_token",
    "attention_in_top_span",
    "error",
)


def _round(value: float) -> float:
    return round(float(value), 6)


def entropy(weights: np.ndarray) -> float:
    """Shannon entropy in nats of non-negative ``weights`` (normalised first); 0 for an empty array."""
    total = float(weights.sum())
    if weights.size == 0 or total <= 0:
        return 0.0
    p = weights[weights > 0] / total
    return float(-(p * np.log(p)).sum())


def gold_label(value: str | None, label_names: Sequence[str]) -> str | None:
    """The label name for a gold value given as a name or an index; ValueError when it is neither."""
    if value is None:
        return None
    if value in label_names:
        return value
    try:
        index = int(value)
    except ValueError:
        index = -1
    if 0 <= index < len(label_names):
        return label_names[index]
    raise ValueError(f"gold label {value!r} is not a label of this model ({', '.join(label_names)}) or its index")


def empty_record(row: Row, error: str) -> dict[str, Any]:
    """The record of a row that gave no prediction."""
    record: dict[str, Any] = dict.fromkeys(FIELDS)
    record.update(
        schema_version=SCHEMA_VERSION, index=row.index, line=row.line, text=row.text, pair=row.pair, error=error
    )
    record["spans"] = []
    return record


def explanation_record(
    row: Row, explanation: Explanation, gold: str | None, truncated: bool, top_k: int | None
) -> dict[str, Any]:
    """The record of an explained row (``top_k=None`` keeps every span that carries weight: every valid
    span for softmax alpha; a span with alpha 0 is never kept)."""
    spans = explanation.evidence_spans(top_k)
    valid = int(explanation.span_mask.sum())
    record: dict[str, Any] = dict.fromkeys(FIELDS)
    record.update(  # the token-less Explanation, then the row's own fields
        explanation_dict(
            explanation,
            pair=explanation.pair,
            top_k=top_k,
            num_valid_spans=valid,
            windows=None,
            spans=spans,
            tokens=False,
        )
    )
    record.update(
        index=row.index,
        line=row.line,
        text=row.text,
        pair=row.pair,
        gold=gold,
        confidence=_round(explanation.confidence),
        probabilities={n: _round(p) for n, p in zip(explanation.label_names, explanation.probabilities)},
        correct=None if gold is None else gold == explanation.label,
        truncated=truncated,
        num_tokens=explanation.num_tokens,
        alpha_entropy=_round(entropy(explanation.alpha[explanation.span_mask])),
        spans=[{**s.to_dict(), "alpha": _round(s.alpha)} for s in spans],
    )
    if explanation.attentions is not None and explanation.token_positions is not None and explanation.num_tokens:
        record.update(attention_fields(explanation))
    return record


def attention_fields(explanation: Explanation) -> dict[str, Any]:
    """Entropy and argmax of the last layer's head-mean [CLS] attention over the real tokens."""
    assert explanation.attentions is not None and explanation.token_positions is not None
    row = cls_attention_scores(explanation.attentions, explanation.token_positions).astype(np.float64)
    share = row / row.sum() if row.sum() > 0 else row
    top = int(np.argmax(share))
    best = explanation.evidence_spans(1)
    inside = float(share[best[0].start_token : best[0].end_token + 1].sum()) if best else 0.0
    return {
        "attention_entropy": _round(entropy(share)),
        "top_attention_token": {"index": top, "text": explanation.tokens[top].text},
        "attention_in_top_span": _round(inside),
    }


def record_spans(record: dict[str, Any]) -> list[Span]:
    """The record's spans as :class:`Span` objects (for highlighting)."""
    return [Span(**span) for span in record.get("spans") or []]


def record_explanation(record: dict[str, Any], model_name: str = "") -> Explanation:
    """A token-less :class:`Explanation` holding a record's text and prediction, enough for
    :func:`selfexplain.views.highlight.highlight_html` with :func:`record_spans`
    (:meth:`Explanation.from_dict`, the one schema)."""
    return Explanation.from_dict(record, tokens=False, model_name=model_name)


def _optional(record: dict[str, Any], key: str, check: Any) -> None:
    if record.get(key) is not None:
        check(record[key], key)


def check_record(record: dict[str, Any]) -> None:
    """Refuse (SchemaError naming the field) a record of any schema version that breaks the batch record: its
    own fields (types, finite numbers, ranges) and, unless it is an error record, its token-less Explanation
    (:func:`~selfexplain.core.results.schema.validate_explanation`). Keys outside the schema are left alone."""
    require({"index", "text", "spans"} <= set(record), "not a batch result record (needs index, text, spans)")
    read_version(record)
    whole(record["index"], 0, 2**53, "index")
    _optional(record, "line", lambda v, at: whole(v, 1, 2**53, at))
    text = text_field(record["text"], "text", 2**31)
    pair = record.get("pair")
    _optional(record, "pair", lambda v, at: text_field(v, at, 2**31))
    for key in ("gold", "error"):
        _optional(record, key, lambda v, at: text_field(v, at, 2**31 if at == "error" else MAX_LABEL_CHARS))
    for key in ("correct", "truncated"):
        _optional(record, key, lambda v, at: require(isinstance(v, bool), f"{at} must be true or false"))
    for key in ("confidence", "attention_in_top_span"):
        _optional(record, key, fraction)
    for key in ("alpha_entropy", "attention_entropy"):
        _optional(record, key, lambda v, at: number(v, at, 0.0, 1e6))
    _optional(record, "top_attention_token", _top_token)
    require(isinstance(record["spans"], list), "spans must be a list")
    if record.get("error") is None and record.get("label") is not None:
        tokens = whole(record.get("num_tokens"), 0, MAX_TOKENS, "num_tokens")
        most = tokens * (tokens + 1) // 2
        validate_explanation(record, text, pair, where="", tokens=False, num_tokens=tokens, max_spans=most)


def _top_token(value: object, where: str) -> None:
    require(isinstance(value, dict), f"{where} must be an object")
    assert isinstance(value, dict)
    whole(value.get("index"), 0, MAX_TOKENS, f"{where}.index")
    text_field(value.get("text"), f"{where}.text", 2**31)


def parse_results(data: bytes, name: str = "results") -> list[dict[str, Any]]:
    """Records from the bytes of a batch JSONL output, each as written and checked (:func:`check_record`);
    ValueError naming the line when one is not a record or breaks the schema."""
    records = []
    for at, line in enumerate(data.decode("utf-8", errors="strict").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = parse_record(line)
        except RecordError as err:
            raise ValueError(f"{name}: line {at}: {err}") from None
        try:
            check_record(record)
        except SchemaError as err:
            raise ValueError(f"{name}: line {at}: {err}") from None
        records.append(record)
    return records
