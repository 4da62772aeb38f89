"""Whether alpha's top span holds the word its own model needs most, and what that does to deletion.

The sharpness measure ``deletion_beats_random`` deletes the top span's words from the model's input and
compares the drop in the probability of the predicted class with random deletions of as many words.
Where the top span holds the word whose deletion lowers that probability most (the model's own
*most-needed* word: leave-one-out occlusion, :func:`selfexplain.methods.training.erasure_targets.own_effects`), the top
span's drop is the largest single-word drop of the text; elsewhere it need not beat the random words.
``selfexplain own-need`` reads a ``selfexplain sharpness`` CSV, explains its texts again, finds each text's
most-needed word and reports the share of texts whose top span (alpha > 0) holds it, with
``deletion_beats_random`` on those texts and on the others (docs/surrogates.md).

    selfexplain own-need --model runs/X/best --sharpness runs/sharp-dev300/sharpness.csv
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import numpy as np
import pandas as pd

from selfexplain.core.pipeline import load_model
from selfexplain.core.results.explanation import Explanation
from selfexplain.errors import DataError
from selfexplain.lab.sharpness.measures import positive_top_span
from selfexplain.methods.training.erasure_targets import own_effects, word_effects


def needed_words(explainer, texts: Sequence[str]) -> list[tuple[int, int]]:
    """Per text, the characters ``(start, end)`` of the word whose deletion lowers the model's probability
    of its predicted class most (the first such word on a tie)."""
    effects = own_effects(explainer.model, explainer.tokenizer, texts)
    out = []
    for text, effect in zip(texts, effects):
        spans, drop = word_effects(explainer.tokenizer, text, effect, explainer.config.apostrophes)
        out.append(spans[int(drop.argmax())])
    return out


def holds(explanations: Sequence[Explanation], words: Sequence[tuple[int, int]]) -> np.ndarray:
    """``[E]`` bool: the top span (alpha > 0) covers the word's characters (False without a top span)."""
    found = []
    for explanation, (start, end) in zip(explanations, words):
        top = positive_top_span(explanation)
        found.append(top is not None and top.segment == 0 and top.start_char <= start and end <= top.end_char)
    return np.array(found, dtype=bool)


def summary(held: np.ndarray, beats: np.ndarray) -> dict[str, float | int]:
    """Share of texts whose top span holds the most-needed word, and ``deletion_beats_random`` (NaN rows
    left out) on those texts and on the others."""
    measured = ~np.isnan(beats)
    inside, outside = held & measured, ~held & measured
    return {
        "texts": int(held.size),
        "top_span_holds_needed_word": float(held.mean()) if held.size else float("nan"),
        "deletion_beats_random_where_held": float(beats[inside].mean()) if inside.any() else float("nan"),
        "held_measured": int(inside.sum()),
        "deletion_beats_random_elsewhere": float(beats[outside].mean()) if outside.any() else float("nan"),
        "elsewhere_measured": int(outside.sum()),
    }


def run(args: argparse.Namespace) -> dict[str, float | int]:
    """The measurement for ``selfexplain own-need``: prints a sentence and the JSON summary, returns it."""
    frame = pd.read_csv(args.sharpness)
    if "pair" in frame.columns or not {"text", "deletion_beats_random"} <= set(frame.columns):
        raise DataError(f"{args.sharpness}: needs the text and deletion_beats_random columns of single texts")
    explainer = load_model(args.model)
    texts = frame["text"].astype(str).tolist()
    explanations = [explainer.explain(text, attentions=False) for text in texts]
    result = summary(holds(explanations, needed_words(explainer, texts)), frame["deletion_beats_random"].to_numpy())
    print(
        f"top span holds the model's own most-needed word on {result['top_span_holds_needed_word']:.1%} of "
        f"{result['texts']} texts; deleting the top span beats a random span on "
        f"{result['deletion_beats_random_where_held']:.1%} of those ({result['held_measured']}) and "
        f"{result['deletion_beats_random_elsewhere']:.1%} of the others ({result['elsewhere_measured']})"
    )
    print(json.dumps(result))
    return result
