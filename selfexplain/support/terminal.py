"""The one sanitiser of text printed to a terminal: stored or user-given text goes through :func:`printable`
before the command line prints it.

A pin's note, a model's label or a file name can hold escape sequences (``ESC ] 0 ; title BEL`` retitles the
window, ``ESC [ 2 J`` clears the screen, OSC 8 makes a link), other C0 and C1 control characters, or the
Unicode controls that reorder text on screen (``U+202E`` makes ``gnp.exe`` read ``exe.png``). Each such
character is shown escaped instead (``\\x1b``, ``\\u202e``), so what the terminal shows is what is
stored. Lone surrogates (bytes of a path or an environment variable that are not UTF-8, as Python keeps
them) are shown as the bytes they stand for (``\\xff``) instead of stopping the print with a
``UnicodeEncodeError``.

Imports nothing from the package, so the command line's error handling can use it before torch loads.
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

# Unicode's bidirectional formatting characters (marks, embeddings, overrides, isolates) and the other
# invisible format characters that change how neighbouring text is shown.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# C0 controls but tab and newline, DEL, C1 controls, the bidi controls, and lone surrogates.
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI_CONTROLS}\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, lines: bool = True) -> str:
    """``text`` (any object, through ``str``) with every control, bidi and surrogate character shown
    escaped; newlines and tabs stay unless ``lines`` is False (then they are escaped too, for one-line
    fields)."""
    value = UNSAFE.sub(_escaped, str(text))
    if not lines:
        value = value.replace("\t", "\\t").replace("\n", "\\n")
    return value


def json_printable(text: str) -> str:
    """JSON text with every control, bidi and surrogate character written as a ``\\uXXXX`` escape: the
    same JSON value, nothing a terminal acts on (``json.dumps`` leaves C1 and bidi controls raw)."""
    return UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def warning_line(
    message: Warning | str, category: type[Warning], filename: str, lineno: int, line: str | None = None
) -> str:
    """A warning as the command line shows it (:data:`warnings.formatwarning`): one line, sanitised, with
    neither the source file and line that raised it nor that line's code."""
    return f"selfexplain: warning: {printable(message, lines=False)}\n"


def say(text: object = "", file: TextIO | None = None, end: str = "\n") -> None:
    """Print ``text`` through :func:`printable` (to standard output, or ``file``)."""
    print(printable(text), file=file or sys.stdout, end=end)
