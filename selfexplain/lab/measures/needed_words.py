"""The words a teacher needs most, counted over a corpus, next to the top spans of surrogates' alpha.

A surrogate's alpha should point where the *teacher* needs the input. ``selfexplain needed-words`` measures each text's
most-needed word for the teacher (leave-one-out occlusion, as ``selfexplain distill --erasure-weight``
does: the word whose deletion lowers the teacher's probability of its own label most,
:func:`selfexplain.lab.distill.erasure.erasure_effects`; none when no deletion lowers it) and counts them
over the corpus. Given ``selfexplain sharpness`` CSVs of surrogates (or of any model) on the same
texts, it sets their most common top spans (alpha > 0) beside the teacher's most common needed words,
and reports on how many texts each top span holds the teacher's most-needed word.

The most common needed word is the reference for the sharpness measure ``repeated_top_span``: a
surrogate whose most common top span is as common as the teacher's most common needed word is following
the teacher there, not routing its decisions through a carrier of its own (docs/surrogates.md).

    selfexplain needed-words --teacher sst5-minilm-mean \
        --sharpness runs/tfull-shipped/sharpness.csv runs/tfull-s57/sharpness.csv --names shipped s57
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd

from selfexplain.core.modeling.encoders import load_tokenizer
from selfexplain.data import Example
from selfexplain.errors import DataError, InvalidInputError
from selfexplain.lab.distill.erasure import erasure_effects
from selfexplain.lab.distill.teacher import read_teacher, teacher_probabilities
from selfexplain.methods.training.erasure_targets import word_effects


def most_needed(effects: Sequence, tokenizer, texts: Sequence[str]) -> list[str]:
    """Per text, its most-needed word, lower-cased: the word of the largest positive effect (``effects``:
    per text a ``[N]`` tensor over its tokens, every piece of a word carrying the word's effect; the
    first such word on a tie), or "" when no word's deletion lowers the probability."""
    found = []
    for text, effect in zip(texts, effects):
        spans, drop = word_effects(tokenizer, text, effect)
        best = int(drop.argmax()) if spans else -1
        found.append(text[spans[best][0] : spans[best][1]].lower() if best >= 0 and drop[best] > 0 else "")
    return found


def common(words: Sequence[str], top: int) -> list[tuple[str, int, float]]:
    """The ``top`` most common non-empty entries: ``(entry, count, share)``, the share over the non-empty
    entries (as ``repeated_top_span`` reads it: inputs without a span are left out)."""
    present = [w for w in words if w]
    counts = Counter(present).most_common(top)
    return [(w, k, k / len(present)) for w, k in counts]


def holds(spans: Sequence[str], words: Sequence[str]) -> np.ndarray:
    """``[E]`` float: 1 where the top span (its words, lower-cased; "" for none) holds the needed word as
    a whole word, 0 where it does not, NaN where either is missing. Words are matched by text, not place
    (a sharpness CSV keeps the top span's words only): a word found twice in a text counts either time."""
    out = np.full(len(spans), np.nan)
    for row, (span, word) in enumerate(zip(spans, words)):
        if span and word:
            out[row] = float(re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", span) is not None)
    return out


def table(needed: Sequence[str], tops: dict[str, Sequence[str]], top: int) -> str:
    """Markdown: rank by rank, the teacher's most common needed words and each model's top spans."""
    columns = {"teacher's most-needed word": common(needed, top)} | {
        f"{name}'s top span": common(spans, top) for name, spans in tops.items()
    }
    lines = ["| rank | " + " | ".join(columns) + " |", "|---:|" + "---|" * len(columns)]
    for rank in range(top):
        cells = [f'"{c[rank][0]}" {c[rank][2]:.1%} ({c[rank][1]})' if rank < len(c) else "" for c in columns.values()]
        lines.append(f"| {rank + 1} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def read_tops(paths: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """The texts (the first file's) and each file's top spans; files whose texts differ from the first
    file's, or without text/top_span columns, are refused."""
    texts: list[str] | None = None
    spans = []
    for path in paths:
        frame = pd.read_csv(path, keep_default_na=False)
        if "pair" in frame.columns or not {"text", "top_span"} <= set(frame.columns):
            raise DataError(f"{path}: needs the text and top_span columns of single texts")
        found = frame["text"].astype(str).tolist()
        texts = found if texts is None else texts
        if found != texts:
            raise DataError(f"{path}: its texts differ from {paths[0]}'s (give sharpness files of the same data)")
        spans.append(frame["top_span"].astype(str).str.lower().tolist())
    return texts or [], spans


def run(args: argparse.Namespace) -> dict:
    """The measurement for ``selfexplain needed-words``: prints the table, one line per model and the JSON
    result, and returns it."""
    names = args.names or args.sharpness
    if len(names) != len(args.sharpness) or len(set(names)) != len(names):
        raise InvalidInputError("--names: one distinct name per sharpness file")
    if args.top < 1:
        raise InvalidInputError("--top: at least 1")
    texts, spans = read_tops(args.sharpness)
    if not texts:
        raise DataError(f"{args.sharpness[0]}: no texts")
    teacher = read_teacher(args.teacher)
    tokenizer = load_tokenizer(teacher.encoder)
    examples = [Example(t) for t in texts]
    probabilities = teacher_probabilities(teacher, examples, args.max_length, progress=False)
    effects = erasure_effects(teacher, tokenizer, examples, probabilities, args.max_length, progress=True)
    needed = most_needed(effects, tokenizer, texts)
    tops = dict(zip(names, spans))
    print(table(needed, tops, args.top))
    result: dict = {"texts": len(texts), "teacher": common(needed, args.top)}
    for name, top_spans in tops.items():
        held = holds(top_spans, needed)
        share = float(np.nanmean(held)) if np.isfinite(held).any() else float("nan")
        print(f"{name}: the top span holds the teacher's most-needed word on {share:.1%} of "
              f"{int(np.isfinite(held).sum())} texts with both")  # fmt: skip
        result[name] = {"top_spans": common(top_spans, args.top), "holds_needed_word": share}
    print(json.dumps(result))
    return result
