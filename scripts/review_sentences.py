"""Sentences of the movie reviews, one a line: unlabelled in-domain text for distillation.

    python scripts/review_sentences.py ../shared/data/movie_rationales runs/review-sentences.txt \
        --min-words 4 --max-words 60

Reads every ``*.txt`` review under the folder (one review a file, lower-cased and tokenised like SST),
drops the annotators' ``<POS>`` / ``<NEG>`` tags, splits the review after each ``.``, ``?`` or ``!``
token, and writes the sentences of ``--min-words`` to ``--max-words`` words, each once, in file order.
The reviews come from another corpus than SST's (Pang and Lee's IMDb polarity reviews, not Rotten
Tomatoes snippets), so no SST test sentence is among them; their labels are not read.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

TAG = re.compile(r"</?(?:POS|NEG)>")
END = {".", "?", "!"}


def sentences(review: str) -> list[str]:
    """The sentences of one tokenised review, tags removed; a run of end marks closes one sentence."""
    out: list[str] = []
    current: list[str] = []
    for word in TAG.sub(" ", review).split():
        current.append(word)
        if word in END:
            if any(w not in END for w in current):
                out.append(" ".join(current))
            current = []
    if any(w not in END for w in current):
        out.append(" ".join(current))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--min-words", type=int, default=4)
    parser.add_argument("--max-words", type=int, default=60)
    args = parser.parse_args()
    files = sorted(args.folder.rglob("*.txt"))
    if not files:
        parser.error(f"{args.folder}: no .txt reviews")
    seen: set[str] = set()
    kept: list[str] = []
    for path in files:
        for sentence in sentences(path.read_text(encoding="utf-8")):
            words = len(sentence.split())
            if args.min_words <= words <= args.max_words and sentence not in seen:
                seen.add(sentence)
                kept.append(sentence)
    args.target.parent.mkdir(parents=True, exist_ok=True)
    args.target.write_text("\n".join(kept) + "\n", encoding="utf-8")
    print(f"{len(kept):,} sentences from {len(files):,} reviews -> {args.target}")


if __name__ == "__main__":
    main()
