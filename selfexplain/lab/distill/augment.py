"""Word-dropout variants of texts, for distillation on more unlabelled text than one has.

    selfexplain augment-texts IN.txt OUT.txt --variants 2 --drop 0.15 --seed 42

Writes every line of IN (one text a line; an SST line ``LABEL TEXT`` with ``--labelled``, its label
dropped) and then, for each, ``--variants`` copies with each word dropped with probability ``--drop``
(at least one word kept, at least one dropped when the text has two words or more). The teacher labels
the variants like any text; they show the student how the teacher's probabilities move when words go
(the masking augmentation of Tang et al. 2019, "Distilling task-specific knowledge from BERT into
simple neural networks").
"""

from __future__ import annotations

import argparse
import random


def variants(text: str, count: int, drop: float, rng: random.Random) -> list[str]:
    """``count`` copies of ``text`` with words dropped at random (duplicates of the text skipped)."""
    words = text.split()
    out: list[str] = []
    if len(words) < 2:
        return out
    for _ in range(count):
        kept = [w for w in words if rng.random() >= drop]
        if len(kept) == len(words):
            kept.pop(rng.randrange(len(kept)))
        if kept:
            out.append(" ".join(kept))
    return out


def run(args: argparse.Namespace) -> int:
    """``selfexplain augment-texts``: write the texts and their variants to ``args.target``."""
    rng = random.Random(args.seed)
    lines = [line.strip() for line in args.source.read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = [line.split(" ", 1)[1] if args.labelled else line for line in lines]
    extra = [v for text in texts for v in variants(text, args.variants, args.drop, rng)]
    args.target.write_text("\n".join([*texts, *extra]) + "\n", encoding="utf-8")
    print(f"{len(texts):,} texts and {len(extra):,} variants written to {args.target}")
    return 0
