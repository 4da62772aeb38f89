"""Input size limits: the longest text accepted and the most spans one text may have.

The character limit is a setting: ``SELFEXPLAIN_MAX_CHARS`` in the environment (default
100,000) or ``--max-chars N`` on the commands that take text (the flag sets the variable for
its own process, so worker processes see it too). Every reader goes through
:func:`max_input_chars` (which reads the variable through :func:`selfexplain.settings.max_chars`). The
span limit scales with it (:func:`max_spans`), so raising the character limit never leaves a text
refused for its span count alone.

Text read from a file or a stream (``explain --file``, ``explain -``) goes through
:func:`read_limited_text`: it reads chunk by chunk and stops one chunk past the limit, so memory stays
small whatever the input (``/dev/zero``, gigabytes on standard input) and such an input is refused
in a fraction of a second.

Imports nothing but :mod:`selfexplain.errors` and :mod:`selfexplain.settings`, so the command line can
check the flag before torch is loaded.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

from selfexplain import settings
from selfexplain.errors import InvalidInputError
from selfexplain.settings import DEFAULT_MAX_INPUT_CHARS as DEFAULT_MAX_INPUT_CHARS  # re-exported
from selfexplain.settings import MAX_CHARS_VARIABLE, parse_max_chars

# Spans allowed per character of the limit. A window of n tokens holds about n spans ending at each
# token it owns (n(n+1)/2 for the first), and a token is at least one character, so 200 spans a
# character holds any text of English words at the default stride; the span arrays then stay a few
# hundred MB (int64 ends and float32 scores) at the default limit.
SPANS_PER_CHAR = 200
READ_CHUNK_BYTES = 1 << 16  # bounded reads hold at most the limit plus one chunk
DENSE_MAX_TOKENS = 8_192  # a dense [T, T] Explanation above this would hold over 300 MB of alpha and mask


def max_input_chars() -> int:
    """The longest text (in characters) any command, the app or the library accepts: the value of
    ``SELFEXPLAIN_MAX_CHARS``, or 100,000 when it is unset or empty."""
    return settings.max_chars()


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
    with settings.max_chars_override(parse_max_chars(value, "--max-chars")):
        yield


def read_limited_text(handle: BinaryIO, where: str, limit: int | None = None) -> str:
    """The UTF-8 text of ``handle`` (a byte-order mark is dropped), read :data:`READ_CHUNK_BYTES` at a
    time. Raises :class:`InvalidInputError` naming ``where`` once more than ``limit`` characters (default
    :func:`max_input_chars`) have been read, without reading further, or for bytes that are not UTF-8
    (with their offset in the stream)."""
    limit = max_input_chars() if limit is None else limit
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    parts: list[str] = []
    count = offset = 0
    while True:
        chunk = handle.read(READ_CHUNK_BYTES)
        pending, first = decoder.getstate()
        try:
            text = decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as err:
            bom = 3 if first and (pending + chunk).startswith(codecs.BOM_UTF8) else 0
            position = offset - len(pending) + bom + err.start
            raise InvalidInputError(f"{where} is not UTF-8 text (byte {position})") from None
        offset += len(chunk)
        count += len(text)
        if count > limit:
            raise InvalidInputError(
                f"{where} holds more than {limit:,} characters, the limit ({limit_hint()} to raise it); "
                "it was not read further"
            )
        parts.append(text)
        if not chunk:
            return "".join(parts)
