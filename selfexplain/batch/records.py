"""The result record of one input row: the JSONL output schema of the batch runner.

Every input row gives exactly one record, in input order. A row that cannot be
explained (empty text, unknown gold label) gives a record with ``error`` set and no
prediction. Floats are rounded to 6 decimals so outputs compare exactly across runs.

Fields: ``index`` (0-based record number), ``line`` (1-based line in the input), ``text``,
``pair``, ``gold`` (label name or null), ``label``, ``confidence``, ``probabilities``
(label -> p), ``correct`` (null without gold), ``truncated``, ``num_tokens``,
``num_valid_spans``, ``alpha_entropy`` (nats, over valid spans), ``spans`` (top-k by alpha among the
spans that carry weight, never one with alpha 0: start_token, end_token, start_char, end_char, segment,
text, alpha, rank), and, when
attention was asked for, ``attention_entropy`` (nats, last layer's head-mean [CLS] row over
the real tokens, renormalised), ``top_attention_token`` ({index, text}) and
``attention_in_top_span`` (share of that row inside the top alpha span); ``error``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from selfexplain.batch.reader import Row
from selfexplain.results.attention import cls_attention_scores
from selfexplain.results.explanation import Explanation, Span
from selfexplain.support.jsonl import RecordError, parse_record

SCHEMA_VERSION = 1
FIELDS = (
    "index",
    "line",
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
    record.update(index=row.index, line=row.line, text=row.text, pair=row.pair, error=error, spans=[])
    return record


def explanation_record(
    row: Row, explanation: Explanation, gold: str | None, truncated: bool, top_k: int | None
) -> dict[str, Any]:
    """The record of an explained row (``top_k=None`` keeps every span that carries weight: every valid
    span for softmax alpha; a span with alpha 0 is never kept)."""
    spans = explanation.evidence_spans(top_k)
    record: dict[str, Any] = dict.fromkeys(FIELDS)
    record.update(
        index=row.index,
        line=row.line,
        text=row.text,
        pair=row.pair,
        gold=gold,
        label=explanation.label,
        confidence=_round(explanation.confidence),
        probabilities={n: _round(p) for n, p in zip(explanation.label_names, explanation.probabilities)},
        correct=None if gold is None else gold == explanation.label,
        truncated=truncated,
        num_tokens=explanation.num_tokens,
        num_valid_spans=int(explanation.span_mask.sum()),
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


def parse_results(data: bytes, name: str = "results") -> list[dict[str, Any]]:
    """Records from the bytes of a batch JSONL output; ValueError naming the line when one is not a record."""
    records = []
    for number, line in enumerate(data.decode("utf-8", errors="strict").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = parse_record(line)
        except RecordError as err:
            raise ValueError(f"{name}: line {number}: {err}") from None
        if not {"index", "text", "spans"} <= set(record):
            raise ValueError(f"{name}: line {number}: not a batch result record (needs index, text, spans)")
        records.append(record)
    return records
