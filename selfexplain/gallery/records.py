"""A pin: one explained input with its model, a note and a bounded copy of the Explanation JSON.

What is stored of the explanation (``stored_explanation``): ``Explanation.to_dict(top_k=STORED_SPANS)``,
that is the prediction and probabilities, every token with its character offsets, the 20 highest-alpha
spans and the count of valid spans, plus ``"stored": {"top_k": 20, "alpha_grid": false, "attentions":
false}`` saying so. The ``[T, T]`` alpha grid and the attention maps are not stored (they grow with the
square of the length); a stored pin is O(T). Every record, whether added, imported or read back, passes
:func:`validate_record`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from selfexplain.errors import GalleryImportError

STORED_SPANS = 20
MAX_TEXT_CHARS = 20_000  # the app's and the pipeline's input limit
MAX_NOTE_CHARS = 5_000
MAX_RECORD_CHARS = 4_000_000  # one JSONL line: a 20,000-character text with its tokens fits easily
MAX_SPANS = 1_000
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,32}")
RECORD_KEYS = ("id", "created", "model", "text", "pair", "note", "label", "explanation")
SPAN_INTS = ("start_token", "end_token", "start_char", "end_char", "segment", "rank")


@dataclass(frozen=True)
class PinSummary:
    """A pin without its explanation (what the list shows). ``created`` is timezone-aware UTC."""

    id: str
    created: datetime
    model: str
    text: str
    pair: str | None
    note: str
    label: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created": self.created.isoformat(),
            "model": self.model,
            "text": self.text,
            "pair": self.pair,
            "note": self.note,
            "label": self.label,
        }


@dataclass(frozen=True)
class Pin(PinSummary):
    """A pin with its stored explanation (the dict described in the module docstring)."""

    explanation: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "explanation": self.explanation}


def stored_explanation(explanation: Any) -> dict[str, Any]:
    """The bounded JSON kept for a pin: the Explanation's dict with its top spans, no grid, no attention."""
    data = explanation.to_dict(top_k=STORED_SPANS, attentions=False)
    data["stored"] = {"top_k": STORED_SPANS, "alpha_grid": False, "attentions": False}
    return data


def utc(moment: datetime) -> datetime:
    """``moment`` as an aware UTC datetime (databases without time zones hand back naive UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise GalleryImportError(message)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_spans(spans: object, text: str, pair: str | None) -> None:
    _require(
        isinstance(spans, list) and len(spans) <= MAX_SPANS, f"explanation.spans must be a list of at most {MAX_SPANS}"
    )
    lengths = (len(text), len(pair) if pair is not None else -1)
    for n, span in enumerate(spans, start=1):  # type: ignore[arg-type]
        where = f"explanation.spans[{n}]"
        _require(isinstance(span, dict), f"{where} must be an object")
        _require(all(_is_int(span.get(key)) and span[key] >= 0 for key in SPAN_INTS), f"{where} needs {SPAN_INTS}")
        _require(span["segment"] in (0, 1) and lengths[span["segment"]] >= 0, f"{where}.segment is not a text")
        _require(span["start_token"] <= span["end_token"], f"{where} ends before it starts")
        _require(span["start_char"] <= span["end_char"] <= lengths[span["segment"]], f"{where} is outside its text")
        _require(isinstance(span.get("text"), str), f"{where}.text must be a string")
        _require(_is_number(span.get("alpha")) and 0 <= span["alpha"] <= 1, f"{where}.alpha must be in [0, 1]")


def validate_explanation(data: object, text: str, pair: str | None, label: str) -> dict[str, Any]:
    """``data`` if it is a stored explanation of ``text``/``pair`` predicting ``label``; else GalleryImportError."""
    _require(isinstance(data, dict), "explanation must be an object")
    assert isinstance(data, dict)
    _require("attentions" not in data, "explanation may not hold attention maps (they are not stored)")
    _require(data.get("text") == text and data.get("pair") == pair, "explanation is of a different text or pair")
    _require(data.get("label") == label, "explanation.label differs from the pin's label")
    probabilities = data.get("probabilities")
    _require(
        isinstance(probabilities, dict) and probabilities and all(_is_number(p) for p in probabilities.values()),
        "explanation.probabilities must map each label to a number",
    )
    _require(label in probabilities, "the pin's label is not among explanation.probabilities")  # type: ignore[operator]
    tokens = data.get("tokens")
    _require(isinstance(tokens, list), "explanation.tokens must be a list")
    _require(
        all(isinstance(t, dict) and isinstance(t.get("text"), str) for t in tokens),  # type: ignore[union-attr]
        "explanation.tokens must be objects with a text",
    )
    _check_spans(data.get("spans"), text, pair)
    return data


def validate_record(record: object) -> Pin:
    """A :class:`Pin` from a JSON object (an export line); GalleryImportError says what is wrong."""
    _require(isinstance(record, dict), "a pin must be a JSON object")
    assert isinstance(record, dict)
    missing = [key for key in RECORD_KEYS if key not in record]
    _require(not missing, f"missing field(s): {', '.join(missing)}")
    _require(isinstance(record["id"], str) and ID_PATTERN.fullmatch(record["id"]) is not None, "bad id")
    for key in ("model", "text", "note", "label"):
        _require(isinstance(record[key], str), f"{key} must be a string")
    _require(record["pair"] is None or isinstance(record["pair"], str), "pair must be a string or null")
    _require(0 < len(record["text"]) <= MAX_TEXT_CHARS, f"text must have 1 to {MAX_TEXT_CHARS:,} characters")
    _require(len(record["pair"] or "") <= MAX_TEXT_CHARS, f"pair has more than {MAX_TEXT_CHARS:,} characters")
    _require(len(record["note"]) <= MAX_NOTE_CHARS, f"note has more than {MAX_NOTE_CHARS:,} characters")
    _require(0 < len(record["model"]) <= 500 and 0 < len(record["label"]) <= 200, "model or label is empty or long")
    try:
        created = utc(datetime.fromisoformat(record["created"]))
    except (TypeError, ValueError):
        raise GalleryImportError("created must be an ISO 8601 time") from None
    explanation = validate_explanation(record["explanation"], record["text"], record["pair"], record["label"])
    fields = {key: record[key] for key in ("id", "model", "text", "pair", "note", "label")}
    return Pin(created=created, explanation=explanation, **fields)


def parse_line(line: str, where: str) -> Pin:
    """One JSONL line as a validated Pin; errors are prefixed with ``where`` (file and line)."""
    if len(line) > MAX_RECORD_CHARS:
        raise GalleryImportError(f"{where}: the record is longer than {MAX_RECORD_CHARS:,} characters")
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise GalleryImportError(f"{where}: not JSON ({err.msg} at column {err.colno})") from None
    try:
        return validate_record(record)
    except GalleryImportError as err:
        raise GalleryImportError(f"{where}: {err}") from None
