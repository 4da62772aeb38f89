"""CSV and TSV cells a spreadsheet will not run as formulas (CSV injection, as OWASP describes it).

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read by Excel, LibreOffice
and Google Sheets as a formula (``=cmd|' /C calc'!A0`` starts a program); OWASP's advice is to prefix such a
cell with a single quote, which the spreadsheet shows as text. Only text cells are changed: numbers (a
negative probability difference, say) stay numbers. Every CSV/TSV export of text a user gave goes through
:func:`safe_frame`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from pandas.api.types import is_bool_dtype, is_numeric_dtype

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: Any) -> Any:
    """``value`` with a single quote in front when it is a string a spreadsheet would read as a formula;
    anything else unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def safe_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (and column names) are :func:`neutralise` d."""
    safe = frame.copy()
    for column in safe.columns:
        if not (is_numeric_dtype(safe[column]) or is_bool_dtype(safe[column])):
            safe[column] = safe[column].map(neutralise)
    safe.columns = [neutralise(str(column)) for column in safe.columns]
    return safe
