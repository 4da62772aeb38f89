"""The field checks of the one schema (:mod:`selfexplain.core.results.schema`): types, lengths, finite numbers
and ranges, each failing with :class:`~selfexplain.errors.SchemaError` naming the field.

Every check returns a new value holding only what it vouches for. Strings must be valid Unicode (a lone
surrogate from a ``\\ud800`` escape cannot be stored); booleans are not numbers. ``lengths`` is the
length of the text and of the pair (``-1`` without a pair): a segment is 0 (text) or 1 (pair).
"""

from __future__ import annotations

import math
from typing import Any

from selfexplain.errors import SchemaError

MAX_LABELS = 1_000
MAX_LABEL_CHARS = 200
MAX_MODEL_CHARS = 500
MAX_TOKENS = 50_000
MAX_PIECE_CHARS = 1_000
MAX_SPANS = 1_000  # a gallery pin keeps at most this many spans
SPAN_INTS = ("start_token", "end_token", "start_char", "end_char", "segment", "rank")


def require(condition: bool, message: str) -> None:
    if not condition:
        raise SchemaError(message)


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def whole(value: object, low: int, high: int, where: str) -> int:
    """``value`` when it is an integer in ``low..high``; else SchemaError naming ``where``."""
    require(is_int(value) and low <= value <= high, f"{where} must be a whole number from {low:,} to {high:,}")  # type: ignore[operator]
    return int(value)  # type: ignore[arg-type]


def number(value: object, where: str, low: float = 0.0, high: float = 1.0) -> float:
    """``value`` when it is a finite number in ``[low, high]``."""
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    require(ok and low <= value <= high, f"{where} must be a number from {low:g} to {high:g}")  # type: ignore[operator]
    return float(value)  # type: ignore[arg-type]


def fraction(value: object, where: str) -> float:
    """``value`` when it is a finite number in [0, 1]."""
    return number(value, where)


def text_field(value: object, where: str, most: int, least: int = 0) -> str:
    """``value`` when it is a string of ``least`` to ``most`` characters that is valid Unicode."""
    require(isinstance(value, str), f"{where} must be a string")
    assert isinstance(value, str)
    require(least <= len(value) <= most, f"{where} must have {least:,} to {most:,} characters")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise SchemaError(f"{where} holds a lone surrogate (not valid Unicode)") from None
    return value


def probabilities(value: object, label: object, where: str) -> dict[str, float]:
    """1 to :data:`MAX_LABELS` labels (bounded strings) to finite numbers in [0, 1] summing to 1 (within
    1e-3), ``label`` the most probable of them."""
    require(isinstance(value, dict) and 0 < len(value) <= MAX_LABELS, f"{where} must map 1 to {MAX_LABELS:,} labels")
    assert isinstance(value, dict)
    checked = {
        text_field(name, f"{where} label", MAX_LABEL_CHARS, least=1): fraction(p, f"{where}[{name!r}]")
        for name, p in value.items()
    }
    require(abs(sum(checked.values()) - 1) <= 1e-3, f"{where} must sum to 1")
    require(label in checked, f"the label is not among {where}")
    require(checked[label] >= max(checked.values()), "the label is not the most probable one")  # type: ignore[index]
    return checked


def tokens(value: object, lengths: tuple[int, int], where: str) -> list[dict[str, Any]]:
    """At most :data:`MAX_TOKENS` objects ``{text, start, end, segment, piece}`` inside their segment's text."""
    require(isinstance(value, list) and len(value) <= MAX_TOKENS, f"{where} must be a list of at most {MAX_TOKENS:,}")
    checked = []
    for n, token in enumerate(value, start=1):  # type: ignore[arg-type]
        at = f"{where}[{n}]"
        require(isinstance(token, dict), f"{at} must be an object")
        segment = whole(token.get("segment", 0), 0, 1 if lengths[1] >= 0 else 0, f"{at}.segment")
        start = whole(token.get("start"), 0, lengths[segment], f"{at}.start")
        end = whole(token.get("end"), start, lengths[segment], f"{at}.end")
        text = text_field(token.get("text"), f"{at}.text", max(lengths))
        piece = text_field(token.get("piece", ""), f"{at}.piece", MAX_PIECE_CHARS)
        checked.append({"text": text, "start": start, "end": end, "segment": segment, "piece": piece})
    return checked


def spans(
    value: object, segments: list[int] | None, count: int, lengths: tuple[int, int], valid: int, where: str, most: int
) -> list[dict[str, Any]]:
    """At most ``most`` span objects over ``count`` tokens (``segments``: each token's segment, None when the
    tokens are not listed), characters inside their segment's text, ``rank`` at most ``valid``."""
    require(isinstance(value, list) and len(value) <= most, f"{where} must be a list of at most {most:,}")
    require(len(value) <= valid, f"{where} lists more spans than num_valid_spans")  # type: ignore[arg-type]
    last = count - 1
    checked = []
    for n, span in enumerate(value, start=1):  # type: ignore[arg-type]
        at = f"{where}[{n}]"
        require(isinstance(span, dict), f"{at} must be an object")
        require(all(is_int(span.get(key)) for key in SPAN_INTS), f"{at} needs whole numbers {', '.join(SPAN_INTS)}")
        require(last >= 0, f"{at}: a span needs tokens, and there are none")
        start_token = whole(span["start_token"], 0, last, f"{at}.start_token")
        end_token = whole(span["end_token"], start_token, last, f"{at}.end_token")
        segment = whole(span["segment"], 0, 1 if lengths[1] >= 0 else 0, f"{at}.segment")
        if segments is not None:
            require(segments[start_token] == segments[end_token] == segment, f"{at} crosses its segment")
        start_char = whole(span["start_char"], 0, lengths[segment], f"{at}.start_char")
        require(span["end_char"] <= lengths[segment], f"{at} is outside its text")
        end_char = whole(span["end_char"], start_char, lengths[segment], f"{at}.end_char")
        checked.append(
            {
                "start_token": start_token,
                "end_token": end_token,
                "start_char": start_char,
                "end_char": end_char,
                "segment": segment,
                "text": text_field(span.get("text"), f"{at}.text", lengths[segment]),
                "alpha": fraction(span.get("alpha"), f"{at}.alpha"),
                "rank": whole(span["rank"], 0, valid, f"{at}.rank"),
            }
        )
    return checked


def windows(value: object, count: int, where: str) -> list[int]:
    """At most ``count`` increasing token indices below ``count``."""
    require(isinstance(value, list) and len(value) <= max(count, 1), f"{where} must be a short list")
    starts = [whole(w, 0, max(count - 1, 0), f"{where}[]") for w in value]  # type: ignore[union-attr]
    require(starts == sorted(set(starts)), f"{where} must increase")
    return starts
