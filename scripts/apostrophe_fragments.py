"""Share of inputs whose top span is a piece of a word the tokenizer cut at an apostrophe ("t" or "n" of
"n't", "s" of "'s", a lone "'"), read from the sharpness.csv files of ``selfexplain sharpness --out DIR``.

    python scripts/apostrophe_fragments.py runs/X/sharp-test300/sharpness.csv [...]
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

# what is left of "n't", "'s", "'re", "'ve", "'ll", "'d", "'m" once the pre-tokenizer cuts at the apostrophe
FRAGMENTS = frozenset({"'", "\u2019", "n", "t", "s", "re", "ve", "ll", "d", "m"})


def fragment_share(path: Path) -> tuple[int, int]:
    """``(fragments, inputs)``: inputs whose top span is a fragment, and inputs with a top span."""
    with path.open(encoding="utf-8", newline="") as handle:
        tops = [row["top_span"].strip().lower() for row in csv.DictReader(handle) if row["top_span"].strip()]
    return sum(top in FRAGMENTS for top in tops), len(tops)


def main(paths: list[str]) -> None:
    for name in paths:
        hits, total = fragment_share(Path(name))
        print(f"{name}: {hits} of {total} top spans are an apostrophe fragment ({hits / max(total, 1):.1%})")


if __name__ == "__main__":
    main(sys.argv[1:])
