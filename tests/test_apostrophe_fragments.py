"""scripts/apostrophe_fragments.py: top spans that are a piece of a word cut at an apostrophe."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "apostrophe_fragments.py"


def test_counts_fragments_among_inputs_with_a_top_span(tmp_path: Path) -> None:
    rows = pd.DataFrame(
        {"text": ["a", "b", "c", "d", "e", "f"], "top_span": ["t", "n't", "S", "not", "", "'"]}
    )  # "n't" is a whole word (a joined model's); "" is an input without a top span
    path = tmp_path / "sharpness.csv"
    rows.to_csv(path, index=False)
    out = subprocess.run([sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"{path}: 3 of 5 top spans are an apostrophe fragment (60.0%)"
