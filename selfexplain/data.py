"""A labelled example and its label: what training, evaluation and the analyses read.

Files become examples in :mod:`selfexplain.core.formats` (:func:`selfexplain.core.formats.examples.read_examples`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from selfexplain.errors import DataError

__all__ = ["DataError", "Example", "label_index"]


@dataclass(frozen=True)
class Example:
    text: str
    pair: str | None = None
    label: int | None = None


def label_index(value: object, label_names: Sequence[str] | None, where: str) -> int:
    """The class index of a label cell: a name from ``label_names`` or a number below their count;
    a :class:`DataError` naming ``where`` otherwise."""
    text = str(value).strip()
    if label_names is not None and text in label_names:
        return list(label_names).index(text)
    try:
        index = int(text)
    except ValueError:
        known = f" (known labels: {', '.join(label_names)})" if label_names else ""
        raise DataError(f"{where}: label {text!r} is not a number or a known label name{known}") from None
    if index < 0 or (label_names is not None and index >= len(label_names)):
        raise DataError(f"{where}: label {index} is out of range")
    return index
