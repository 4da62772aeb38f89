"""The old address of ``selfexplain paired-test`` (McNemar's exact test of ``eval --predictions`` files per
seed), kept while scripts/mpnet_measure.sh and docs/accuracy.md call it by this path:

    python scripts/paired_test.py A_SEED1.jsonl B_SEED1.jsonl [A_SEED2.jsonl B_SEED2.jsonl ...]
"""

from __future__ import annotations

import sys

from selfexplain.cli import main

if __name__ == "__main__":
    sys.exit(main(["paired-test", *sys.argv[1:]]))
