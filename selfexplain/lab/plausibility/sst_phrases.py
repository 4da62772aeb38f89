"""Plausibility on SST: is an explainer's top span a polar treebank phrase?

For each faithfulness-lab row (:mod:`selfexplain.lab.faithfulness.experiment`) whose sentence is
in the SST tree file, the explainer's top span is compared with the labelled phrases of the
sentence's tree. alpha's top span is its highest-alpha span; a token explainer's is the
best-scoring contiguous window of the same length in tokens (so all explainers are judged
on spans of one size); the random baseline is a window of that length at a seeded random
place. Spans are widened to whole words, then a *hit* is a tree phrase with exactly those
words whose label points the way of the prediction: ``strong`` counts labels 0 / 4 only,
``polar`` also 1 / 3. Rows predicted neutral (label 2) have no direction and are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from selfexplain.core.formats.sst_trees import tree_nodes
from selfexplain.core.formats.text import text_lines

NEGATIVE, POSITIVE = {0, 1}, {3, 4}
STRONG = {0: {0}, 1: {4}}  # direction (0 negative, 1 positive) -> strong labels
POLAR = {0: NEGATIVE, 1: POSITIVE}

PhraseIndex = dict[str, dict[tuple[int, int], int]]  # sentence key -> (first word, last word) -> label


def best_window(scores: np.ndarray, length: int) -> tuple[int, int]:
    """The contiguous ``length``-token window with the highest score sum -> ``(start, end)`` inclusive."""
    sums = np.convolve(scores, np.ones(length), mode="valid")
    start = int(np.argmax(sums))
    return start, start + length - 1


def sentence_key(words: Sequence[str]) -> str:
    return " ".join(words).lower()


def phrase_index(path: Path) -> PhraseIndex:
    """Every labelled node of every tree in ``path``, keyed by the sentence's lower-cased words."""
    index: PhraseIndex = {}
    for number, line in text_lines(path):
        if not line.strip():
            continue
        nodes = tree_nodes(line, f"{path}:{number}")
        index[sentence_key(nodes[0].words)] = {(n.first, n.first + len(n.words) - 1): n.label for n in nodes}
    return index


def _word_of_chars(text: str, offsets: np.ndarray) -> np.ndarray:
    """``[T]`` word index (space-separated words of ``text``) of each token's first character."""
    word_starts = np.array([0] + [i + 1 for i, c in enumerate(text) if c == " "])
    return np.searchsorted(word_starts, offsets[:, 0], side="right") - 1


def phrase_label(index: PhraseIndex, text: str, offsets: np.ndarray, first: int, last: int) -> int | None:
    """The label of the treebank phrase of ``text`` made of exactly the (space-separated) words that
    tokens ``first .. last`` touch (``offsets`` ``[T, 2]`` the tokens' characters); None when the
    sentence is not in ``index`` or those words are no phrase of its tree."""
    phrases = index.get(sentence_key(text.split()))
    if phrases is None:
        return None
    words = _word_of_chars(text, offsets)
    return phrases.get((int(words[first]), int(words[last])))


def phrase_hits(rows: Sequence[dict], index: PhraseIndex, seed: int = 0) -> pd.DataFrame:
    """One row per explainer (plus ``random``): ``strong`` and ``polar`` hit rates and ``examples``."""
    rng = np.random.default_rng(seed)
    hits: dict[str, list[tuple[bool, bool]]] = {}
    for row in rows:
        if row.get("pair") or "alpha" not in row or "offsets" not in row:
            continue
        text = str(row["text"])
        phrases = index.get(sentence_key(text.split()))
        direction = 0 if row["predicted"] in NEGATIVE else 1 if row["predicted"] in POSITIVE else None
        if phrases is None or direction is None:
            continue
        words = _word_of_chars(text, np.asarray(row["offsets"]))
        top_start, top_end = row["alpha"]["top_span"]
        length = top_end - top_start + 1
        spans = {"alpha": (top_start, top_end)}
        for name, scores in row["scores"].items():
            if name != "alpha":
                spans[name] = best_window(np.asarray(scores, dtype=float), length)
        start = int(rng.integers(0, max(1, words.size - length + 1)))
        spans["random"] = (start, min(start + length, words.size) - 1)
        for name, (first, last) in spans.items():
            label = phrases.get((int(words[first]), int(words[last])))
            hits.setdefault(name, []).append(
                (label in STRONG[direction], label in POLAR[direction]) if label is not None else (False, False)
            )
    records = [
        {
            "explainer": name,
            "strong_phrase": float(np.mean([h[0] for h in values])),
            "polar_phrase": float(np.mean([h[1] for h in values])),
            "examples": len(values),
        }
        for name, values in hits.items()
    ]
    return pd.DataFrame(records, columns=["explainer", "strong_phrase", "polar_phrase", "examples"])
