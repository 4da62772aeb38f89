"""The one schema of a pin's stored explanation: every field type- and range-checked.

:func:`validate_explanation` returns a new dict holding only the fields below, each checked; a field
outside the schema is not kept, so nothing reads more of a pin than this module vouches for. It runs on
every pin added, imported or read back from the database (:mod:`selfexplain.gallery.records`).

=====================  ==========================================================================
field                  check
=====================  ==========================================================================
``model``              string, at most 500 characters
``text``, ``pair``     the pin's own text and pair
``label``              the pin's label: a key of ``probabilities`` with the highest probability
``probabilities``      1 to :data:`MAX_LABELS` labels (strings, 1-200 characters) to finite numbers
                       in [0, 1] summing to 1 (within 1e-3)
``tokens``             at most :data:`MAX_TOKENS` objects ``{text, start, end, segment, piece}``:
                       ``0 <= start <= end <=`` the length of their segment's text, segment 0 or 1
                       (1 only with a pair), strings bounded
``spans``              at most :data:`MAX_SPANS` objects: ``0 <= start_token <= end_token <`` the token
                       count, character offsets inside their segment's text, ``alpha`` in [0, 1],
                       ``0 <= rank <= num_valid_spans``, ``text`` a bounded string
``num_valid_spans``    whole number from the span count to ``T (T + 1) / 2`` for ``T`` tokens
``num_evidence_spans`` optional, whole number from 0 to ``num_valid_spans``
``span_unit``          optional, ``"word"`` or ``"piece"``
``windows``            optional, at most ``T`` increasing token indices below ``T``
``stored``             optional, ``{top_k: 0..MAX_SPANS, alpha_grid: bool, attentions: bool}``
=====================  ==========================================================================

Attention maps are refused (a pin never keeps them). Strings must be valid Unicode (a lone surrogate
from a ``\\ud800`` escape cannot be stored). Booleans are not numbers.
"""

from __future__ import annotations

import math
from typing import Any

from selfexplain.errors import GalleryImportError

MAX_LABELS = 1_000
MAX_LABEL_CHARS = 200
MAX_MODEL_CHARS = 500
MAX_TOKENS = 50_000
MAX_PIECE_CHARS = 1_000
MAX_SPANS = 1_000
SPAN_INTS = ("start_token", "end_token", "start_char", "end_char", "segment", "rank")
STORED_FLAGS = ("alpha_grid", "attentions")


def require(condition: bool, message: str) -> None:
    if not condition:
        raise GalleryImportError(message)


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def whole(value: object, low: int, high: int, where: str) -> int:
    """``value`` when it is an integer in ``low..high``; else GalleryImportError naming ``where``."""
    require(is_int(value) and low <= value <= high, f"{where} must be a whole number from {low:,} to {high:,}")  # type: ignore[operator]
    return int(value)  # type: ignore[arg-type]


def fraction(value: object, where: str) -> float:
    """``value`` when it is a finite number in [0, 1]."""
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and 0 <= value <= 1
    require(ok, f"{where} must be a number from 0 to 1")
    return float(value)  # type: ignore[arg-type]


def text_field(value: object, where: str, most: int, least: int = 0) -> str:
    """``value`` when it is a string of ``least`` to ``most`` characters that is valid Unicode."""
    require(isinstance(value, str), f"{where} must be a string")
    assert isinstance(value, str)
    require(least <= len(value) <= most, f"{where} must have {least:,} to {most:,} characters")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise GalleryImportError(f"{where} holds a lone surrogate (not valid Unicode)") from None
    return value


def _probabilities(value: object, label: str) -> dict[str, float]:
    where = "explanation.probabilities"
    require(isinstance(value, dict) and 0 < len(value) <= MAX_LABELS, f"{where} must map 1 to {MAX_LABELS:,} labels")
    assert isinstance(value, dict)
    checked = {
        text_field(name, f"{where} label", MAX_LABEL_CHARS, least=1): fraction(p, f"{where}[{name!r}]")
        for name, p in value.items()
    }
    require(abs(sum(checked.values()) - 1) <= 1e-3, f"{where} must sum to 1")
    require(label in checked, "the pin's label is not among explanation.probabilities")
    require(checked[label] >= max(checked.values()), "the pin's label is not the most probable one")
    return checked


def _tokens(value: object, lengths: tuple[int, int]) -> list[dict[str, Any]]:
    require(
        isinstance(value, list) and len(value) <= MAX_TOKENS,
        f"explanation.tokens must be a list of at most {MAX_TOKENS:,}",
    )
    tokens = []
    for n, token in enumerate(value, start=1):  # type: ignore[arg-type]
        where = f"explanation.tokens[{n}]"
        require(isinstance(token, dict), f"{where} must be an object")
        segment = whole(token.get("segment", 0), 0, 1 if lengths[1] >= 0 else 0, f"{where}.segment")
        start = whole(token.get("start"), 0, lengths[segment], f"{where}.start")
        end = whole(token.get("end"), start, lengths[segment], f"{where}.end")
        text = text_field(token.get("text"), f"{where}.text", max(lengths))
        piece = text_field(token.get("piece", ""), f"{where}.piece", MAX_PIECE_CHARS)
        tokens.append({"text": text, "start": start, "end": end, "segment": segment, "piece": piece})
    return tokens


def _spans(value: object, tokens: list[dict[str, Any]], lengths: tuple[int, int], valid: int) -> list[dict[str, Any]]:
    require(
        isinstance(value, list) and len(value) <= MAX_SPANS,
        f"explanation.spans must be a list of at most {MAX_SPANS:,}",
    )
    require(len(value) <= valid, "explanation.spans lists more spans than num_valid_spans")  # type: ignore[arg-type]
    last = len(tokens) - 1
    spans = []
    for n, span in enumerate(value, start=1):  # type: ignore[arg-type]
        where = f"explanation.spans[{n}]"
        require(isinstance(span, dict), f"{where} must be an object")
        require(all(is_int(span.get(key)) for key in SPAN_INTS), f"{where} needs whole numbers {', '.join(SPAN_INTS)}")
        require(last >= 0, f"{where}: a span needs tokens, and explanation.tokens is empty")
        start_token = whole(span["start_token"], 0, last, f"{where}.start_token")
        end_token = whole(span["end_token"], start_token, last, f"{where}.end_token")
        segment = whole(span["segment"], 0, 1 if lengths[1] >= 0 else 0, f"{where}.segment")
        require(
            tokens[start_token]["segment"] == tokens[end_token]["segment"] == segment, f"{where} crosses its segment"
        )
        start_char = whole(span["start_char"], 0, lengths[segment], f"{where}.start_char")
        require(span["end_char"] <= lengths[segment], f"{where} is outside its text")
        end_char = whole(span["end_char"], start_char, lengths[segment], f"{where}.end_char")
        spans.append(
            {
                "start_token": start_token,
                "end_token": end_token,
                "start_char": start_char,
                "end_char": end_char,
                "segment": segment,
                "text": text_field(span.get("text"), f"{where}.text", lengths[segment]),
                "alpha": fraction(span.get("alpha"), f"{where}.alpha"),
                "rank": whole(span["rank"], 0, valid, f"{where}.rank"),
            }
        )
    return spans


def _stored(value: object) -> dict[str, Any]:
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


def validate_explanation(data: object, text: str, pair: str | None, label: str) -> dict[str, Any]:
    """The checked copy of ``data``, the stored explanation of ``text``/``pair`` predicting ``label``;
    GalleryImportError names the first field that breaks the schema."""
    require(isinstance(data, dict), "explanation must be an object")
    assert isinstance(data, dict)
    require("attentions" not in data, "explanation may not hold attention maps (they are not stored)")
    require(data.get("text") == text and data.get("pair") == pair, "explanation is of a different text or pair")
    require(data.get("label") == label, "explanation.label differs from the pin's label")
    lengths = (len(text), len(pair) if pair is not None else -1)
    checked: dict[str, Any] = {
        "model": text_field(data.get("model", ""), "explanation.model", MAX_MODEL_CHARS),
        "text": text,
        "pair": pair,
        "label": label,
        "probabilities": _probabilities(data.get("probabilities"), label),
        "tokens": _tokens(data.get("tokens"), lengths),
    }
    count = len(checked["tokens"])
    valid = whole(data.get("num_valid_spans"), 0, count * (count + 1) // 2, "explanation.num_valid_spans")
    checked["spans"] = _spans(data.get("spans"), checked["tokens"], lengths, valid)
    checked["num_valid_spans"] = valid
    if "num_evidence_spans" in data:
        checked["num_evidence_spans"] = whole(data["num_evidence_spans"], 0, valid, "explanation.num_evidence_spans")
    if "span_unit" in data:
        require(data["span_unit"] in ("word", "piece"), 'explanation.span_unit must be "word" or "piece"')
        checked["span_unit"] = data["span_unit"]
    if "windows" in data:
        windows = data["windows"]
        require(isinstance(windows, list) and len(windows) <= max(count, 1), "explanation.windows must be a short list")
        starts = [whole(w, 0, max(count - 1, 0), "explanation.windows[]") for w in windows]
        require(starts == sorted(set(starts)), "explanation.windows must increase")
        checked["windows"] = starts
    if "stored" in data:
        checked["stored"] = _stored(data["stored"])
    return checked
