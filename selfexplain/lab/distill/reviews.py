"""Sentences of the movie reviews, one a line: unlabelled in-domain text for distillation.

    selfexplain review-sentences ../shared/data/movie_rationales runs/review-sentences.txt \
        --min-words 4 --max-words 60

Reads every ``*.txt`` review under the folder (one review a file, lower-cased and tokenised like SST),
drops the annotators' ``<POS>`` / ``<NEG>`` tags, splits the review after each ``.``, ``?`` or ``!``
token, and writes the sentences of ``--min-words`` to ``--max-words`` words, each once, in file order.
``--ended`` keeps only sentences that end in an end mark (the last sentence of a review may not);
``--sample N`` writes a seeded choice of N of them (sorted, shuffled with ``--seed``, the first N):

    selfexplain review-sentences ../shared/data/movie_rationales runs/reviews25k.txt \
        --min-words 8 --max-words 45 --ended --sample 25000 --seed 40

``--drop-end-mark`` then removes each written sentence's closing end marks (after the choice, so the
same options with and without it choose the same sentences; two that differ only in that mark are
then written once, so fewer than N may remain): a model that always sees a closing ``.`` can learn to
read the whole sentence from it.

The reviews come from another corpus than SST's (Pang and Lee's IMDb polarity reviews, not Rotten
Tomatoes snippets), so no SST test sentence is among them; their labels are not read.
"""

from __future__ import annotations

import argparse
import random
import re

from selfexplain.errors import DataError, InvalidInputError

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


def without_end_mark(sentence: str) -> str:
    """The sentence without the run of end marks that closes it (a sentence of end marks only stays)."""
    words = sentence.split()
    end = len(words)
    while end > 1 and words[end - 1] in END:
        end -= 1
    return " ".join(words[:end])


def run(args: argparse.Namespace) -> int:
    """``selfexplain review-sentences``: write the chosen sentences to ``args.target`` and say how many."""
    if args.sample is not None and args.sample < 1:
        raise InvalidInputError("--sample must be 1 or more")
    files = sorted(args.folder.rglob("*.txt"))
    if not files:
        raise DataError(f"{args.folder}: no .txt reviews")
    seen: set[str] = set()
    kept: list[str] = []
    for path in files:
        for sentence in sentences(path.read_text(encoding="utf-8")):
            words = sentence.split()
            if args.ended and words[-1] not in END:
                continue
            if args.min_words <= len(words) <= args.max_words and sentence not in seen:
                seen.add(sentence)
                kept.append(sentence)
    found = len(kept)
    if args.sample is not None:
        if args.sample > found:
            raise InvalidInputError(f"--sample {args.sample:,}: only {found:,} sentences match")
        kept = sorted(kept)
        random.Random(args.seed).shuffle(kept)
        kept = kept[: args.sample]
    if args.drop_end_mark:
        kept = list(dict.fromkeys(without_end_mark(sentence) for sentence in kept))
    args.target.parent.mkdir(parents=True, exist_ok=True)
    args.target.write_text("\n".join(kept) + "\n", encoding="utf-8")
    chosen = f"{len(kept):,} of {found:,}" if args.sample is not None else f"{len(kept):,}"
    print(f"{chosen} sentences from {len(files):,} reviews -> {args.target}")
    return 0
