"""The one reader of a JSON Lines record: every JSONL input (data, batch, batch results, logs) goes through
:func:`parse_record`, so each reports the same problems the same way, with the line."""

from __future__ import annotations

import json
import re
from typing import Any

MAX_LINE_CHARS = 10_000_000  # one record; a longer line is refused before parsing
# A \uD800-\uDFFF escape: half of a surrogate pair. JSON allows it; Python keeps it as a lone surrogate when
# its other half is missing, and no tokenizer, file or database takes such a string.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class RecordError(ValueError):
    """A line is not a JSON object; the message says why (the caller adds the file and line)."""


def parse_record(line: str) -> dict[str, Any]:
    """The JSON object on ``line``. Raises :class:`RecordError` for invalid JSON, JSON nested too deeply to
    parse (Python's decoder would raise RecursionError), a line over :data:`MAX_LINE_CHARS`, a value
    that is not an object, or a string holding a lone surrogate (``"\\ud800"`` without its other half)."""
    if len(line) > MAX_LINE_CHARS:
        raise RecordError(f"a line of {len(line):,} characters (the limit is {MAX_LINE_CHARS:,})")
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise RecordError(f"invalid JSON ({err.msg})") from None
    except RecursionError:
        raise RecordError("JSON nested too deeply to read") from None
    if not isinstance(record, dict):
        raise RecordError(f"expected a JSON object, got {type(record).__name__}")
    if SURROGATE_ESCAPE.search(line):  # a whole pair decodes to one character; only a lone half is left
        try:
            json.dumps(record, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as err:
            code = ord(err.object[err.start])
            raise RecordError(f"a string holds \\u{code:04x}, half of a surrogate pair and not a character") from None
    return record
