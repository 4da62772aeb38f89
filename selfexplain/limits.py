"""Input size limits: the longest text accepted and the most spans one text may have.

The character limit is a setting: ``SELFEXPLAIN_MAX_CHARS`` in the environment (default
100,000) or ``--max-chars N`` on the commands that take text (the flag sets the variable for
its own process, so worker processes see it too). Every reader goes through
:func:`max_input_chars`. The span limit scales with it (:func:`max_spans`), so raising the
character limit never leaves a text refused for its span count alone.

Imports nothing but :mod:`selfexplain.errors`, so the command line can check the flag
before torch is loaded.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from selfexplain.errors import InvalidInputError

MAX_CHARS_VARIABLE = "SELFEXPLAIN_MAX_CHARS"
DEFAULT_MAX_INPUT_CHARS = 100_000
# Spans allowed per character of the limit. A window of n tokens holds about n spans ending at each
# token it owns (n(n+1)/2 for the first), and a token is at least one character, so 200 spans a
# character holds any text of English words at the default stride; the span arrays then stay a few
# hundred MB (int64 ends and float32 scores) at the default limit.
SPANS_PER_CHAR = 200
DENSE_MAX_TOKENS = 8_192  # a dense [T, T] Explanation above this would hold over 300 MB of alpha and mask


def parse_max_chars(value: str | int, source: str) -> int:
    """A character limit from ``value`` (digits, ``_`` or ``,`` separators allowed); ``source`` names
    where it came from in the error. Raises :class:`InvalidInputError` unless it is a whole number >= 1."""
    text = str(value).strip().replace("_", "").replace(",", "")
    if not text.isdigit() or int(text) < 1:
        raise InvalidInputError(f"{source} must be a whole number of characters, at least 1 (got {str(value)!r})")
    return int(text)


def max_input_chars() -> int:
    """The longest text (in characters) any command, the app or the library accepts: the value of
    ``SELFEXPLAIN_MAX_CHARS``, or 100,000 when it is unset or empty."""
    value = os.environ.get(MAX_CHARS_VARIABLE, "").strip()
    return parse_max_chars(value, MAX_CHARS_VARIABLE) if value else DEFAULT_MAX_INPUT_CHARS


def max_spans() -> int:
    """The most spans one windowed text may have: :data:`SPANS_PER_CHAR` per character of the limit
    (4,000,000 at 20,000 characters, 20,000,000 at the default 100,000)."""
    return SPANS_PER_CHAR * max_input_chars()


def limit_hint() -> str:
    """How to raise the limit, for error messages and captions."""
    return f"set {MAX_CHARS_VARIABLE} or --max-chars"


@contextmanager
def max_chars_setting(value: str | int | None) -> Iterator[None]:
    """Within the block, the limit is ``value`` (checked first; None leaves the setting as it is).
    The environment variable is restored afterwards, so a command run in-process leaves no trace."""
    if value is None:
        yield
        return
    limit = parse_max_chars(value, "--max-chars")
    saved = os.environ.get(MAX_CHARS_VARIABLE)
    os.environ[MAX_CHARS_VARIABLE] = str(limit)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(MAX_CHARS_VARIABLE, None)
        else:
            os.environ[MAX_CHARS_VARIABLE] = saved
