"""The SST train texts a teacher labels for a student: every train sentence, then the treebank phrases of at
least ``--min-words`` words (unique, labels dropped), or a seeded sample of ``--phrases`` of them. One text a
line. Used by ``scripts/distill_sst5_minilm.sh`` (all phrases of 10+ words: 41,279 texts) and
``TEXTS=phrases scripts/distill_mpnet.sh`` (``PHRASES=7456``: 16,000 texts). Usage:

    python scripts/sst_texts.py ../shared/data/sst_trees/train.txt runs/sst5-phrases16k/texts.txt --phrases 7456
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from selfexplain.core.formats.sst_trees import read_sst_trees


def sst_texts(trees: Path, min_words: int, phrases: int | None, seed: int) -> list[str]:
    """The sentences of ``trees`` in file order, then its phrases (all, or a ``seed``-ed sample)."""
    sentences = read_sst_trees(trees)  # the labels are read as indices and dropped
    extra = read_sst_trees(trees, phrases=True, min_phrase_words=min_words)[len(sentences) :]  # phrases follow
    if phrases is not None:
        if not 0 <= phrases <= len(extra):
            raise SystemExit(f"--phrases must be between 0 and {len(extra):,} (the phrases of {min_words}+ words)")
        extra = random.Random(seed).sample(extra, phrases)
    return [example.text for example in sentences + extra]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", type=Path, help="an SST tree file, e.g. ../shared/data/sst_trees/train.txt")
    parser.add_argument("target", type=Path, help="the text file to write")
    parser.add_argument("--min-words", type=int, default=10)
    parser.add_argument("--phrases", type=int, default=None, metavar="N", help="a seeded sample of N phrases")
    parser.add_argument("--seed", type=int, default=42, help="seed of --phrases' sample")
    args = parser.parse_args()
    texts = sst_texts(args.trees, args.min_words, args.phrases, args.seed)
    args.target.write_text("".join(text + "\n" for text in texts), encoding="utf-8")
    print(f"{args.target}: {len(texts):,} texts")


if __name__ == "__main__":
    main()
