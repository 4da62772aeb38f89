"""A pin: an Explanation plus its own fields (id, time, note), with a bounded copy of the Explanation JSON.

What is stored of the explanation (``stored_explanation``): ``Explanation.to_dict(top_k=STORED_SPANS)``,
that is the schema version, the prediction and probabilities, every token with its character offsets, the
20 highest-alpha spans and the count of valid spans, plus the pin's own ``"stored": {"top_k": 20,
"alpha_grid": false, "attentions": false}`` saying so. The ``[T, T]`` alpha grid and the attention maps are
not stored (they grow with the square of the length); a stored pin is O(T). The pin's ``model``, ``text``,
``pair`` and ``label`` repeat the explanation's (the database indexes them).

Every record, whether added, imported or read back, passes :func:`validate_record`: this module checks the
pin's own fields and :func:`selfexplain.core.results.schema.validate_explanation`, the one schema, checks the
explanation (of any schema version up to the current one: a pin written before the Explanation carried
``schema_version`` reads as before, in the current version). Nothing outside the schema is kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from selfexplain.core.results.checks import MAX_LABEL_CHARS, MAX_MODEL_CHARS, MAX_SPANS, require, text_field, whole
from selfexplain.core.results.schema import validate_explanation
from selfexplain.errors import GalleryDatabaseError, GalleryImportError, InvalidInputError, SchemaError

STORED_SPANS = 20
MAX_TEXT_CHARS = 20_000  # the app's and the pipeline's input limit
MAX_NOTE_CHARS = 5_000
MAX_CREATED_CHARS = 64
MAX_CLOCK_SKEW = timedelta(days=1)  # an imported pin may be dated this far ahead of this machine's clock
MAX_RECORD_BYTES = 4_000_000  # one JSONL line: a 20,000-character text with its tokens fits easily
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,32}")
RECORD_KEYS = ("id", "created", "model", "text", "pair", "note", "label", "explanation")
STORED_FLAGS = ("alpha_grid", "attentions")


def check_pinnable(text: str, pair: str | None) -> None:
    """Refuse, before anything is explained, a text or pair the gallery cannot keep (over
    :data:`MAX_TEXT_CHARS`): :class:`~selfexplain.errors.InvalidInputError` in one line."""
    for what, value in (("text", text), ("pair", pair)):
        if value is not None and len(value) > MAX_TEXT_CHARS:
            raise InvalidInputError(
                f"the gallery keeps a {what} of at most {MAX_TEXT_CHARS:,} characters; this one has {len(value):,} "
                "(selfexplain explain reads it, without pinning)"
            )


class DamagedPinError(GalleryDatabaseError):
    """A stored pin that does not pass the pin schema (written by an older selfexplain, or by hand):
    it is never shown, only named (``pin_id``) so that it can be deleted."""

    def __init__(self, pin_id: str, message: str) -> None:
        super().__init__(message)
        self.pin_id = pin_id


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


def _created(value: object) -> datetime:
    """An ISO 8601 time as aware UTC; one that cannot be read or held (past year 9999 in UTC) is refused."""
    require(isinstance(value, str) and 0 < len(value) <= MAX_CREATED_CHARS, "created must be an ISO 8601 time")
    try:
        return utc(datetime.fromisoformat(value))  # type: ignore[arg-type]
    except ValueError:
        raise GalleryImportError("created must be an ISO 8601 time") from None
    except OverflowError:
        raise GalleryImportError(f"created is outside the years 1 to 9999 in UTC ({value})") from None


def _stored(value: object) -> dict[str, Any]:
    """The pin's own ``stored`` object: ``{top_k: 0..MAX_SPANS, alpha_grid: bool, attentions: bool}``."""
    require(isinstance(value, dict), "explanation.stored must be an object")
    assert isinstance(value, dict)
    checked: dict[str, Any] = {}
    if "top_k" in value:
        checked["top_k"] = whole(value["top_k"], 0, MAX_SPANS, "explanation.stored.top_k")
    for flag in STORED_FLAGS:
        if flag in value:
            require(isinstance(value[flag], bool), f"explanation.stored.{flag} must be true or false")
            checked[flag] = value[flag]
    return checked


def pin_explanation(data: object, text: str, pair: str | None, label: str) -> dict[str, Any]:
    """The checked copy of a pin's stored explanation of ``text``/``pair`` predicting ``label``: the one
    schema's Explanation (:func:`~selfexplain.core.results.schema.validate_explanation`, at most
    :data:`~selfexplain.core.results.checks.MAX_SPANS` spans) plus the pin's ``stored``; attention maps are
    refused (a pin never keeps them). GalleryImportError names the first field that breaks it."""
    try:
        require(isinstance(data, dict), "explanation must be an object")
        assert isinstance(data, dict)
        require("attentions" not in data, "explanation may not hold attention maps (they are not stored)")
        require(data.get("label") == label, "explanation.label differs from the pin's label")
        checked = validate_explanation(data, text, pair, where="explanation")
        if "stored" in data:
            checked["stored"] = _stored(data["stored"])
    except SchemaError as err:
        raise GalleryImportError(str(err)) from None
    return checked


def validate_record(record: object) -> Pin:
    """A :class:`Pin` from a JSON object (an export line): the pin's own fields checked here, its
    explanation by the one schema (:func:`pin_explanation`); GalleryImportError says what is wrong. Fields
    outside the schema are not kept."""
    try:
        return _validate_record(record)
    except SchemaError as err:
        raise GalleryImportError(str(err)) from None


def _validate_record(record: object) -> Pin:
    require(isinstance(record, dict), "a pin must be a JSON object")
    assert isinstance(record, dict)
    missing = [key for key in RECORD_KEYS if key not in record]
    require(not missing, f"missing field(s): {', '.join(missing)}")
    require(isinstance(record["id"], str) and ID_PATTERN.fullmatch(record["id"]) is not None, "bad id")
    text = text_field(record["text"], "text", MAX_TEXT_CHARS, least=1)
    pair = None if record["pair"] is None else text_field(record["pair"], "pair", MAX_TEXT_CHARS)
    note = text_field(record["note"], "note", MAX_NOTE_CHARS)
    model = text_field(record["model"], "model", MAX_MODEL_CHARS, least=1)
    label = text_field(record["label"], "label", MAX_LABEL_CHARS, least=1)
    created = _created(record["created"])
    explanation = pin_explanation(record["explanation"], text, pair, label)
    return Pin(record["id"], created, model, text, pair, note, label, explanation=explanation)


def parse_line(line: str | bytes, where: str) -> Pin:
    """One JSONL line as a validated Pin; errors are one line prefixed with ``where`` (file and line):
    a line over :data:`MAX_RECORD_BYTES`, not UTF-8, not JSON, a number too long to read, nesting too
    deep, a record that breaks the schema, or one dated more than :data:`MAX_CLOCK_SKEW` in the future."""
    if len(line) > MAX_RECORD_BYTES:
        raise GalleryImportError(f"{where}: the record is longer than {MAX_RECORD_BYTES:,} bytes")
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as err:
            raise GalleryImportError(f"{where}: not UTF-8 text (byte {err.start + 1} of the line)") from None
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise GalleryImportError(f"{where}: not JSON ({err.msg} at column {err.colno})") from None
    except ValueError as err:  # Python refuses integers of more than 4,300 digits
        raise GalleryImportError(f"{where}: a number too long to read ({str(err).split(';')[0]})") from None
    except RecursionError:
        raise GalleryImportError(f"{where}: JSON nested too deeply to read") from None
    try:
        pin = validate_record(record)
    except GalleryImportError as err:
        raise GalleryImportError(f"{where}: {err}") from None
    if pin.created > datetime.now(UTC) + MAX_CLOCK_SKEW:  # it would stay first in the list for good
        raise GalleryImportError(f"{where}: created {pin.created.isoformat()} is in the future")
    return pin
