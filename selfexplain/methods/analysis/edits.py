"""Word edits to an input and what they change in the explanation.

An edit deletes, replaces or inserts whitespace-delimited words of one text of the input.
:func:`alpha_change` lines the words of the explanation before the edit up with the words after it
(:mod:`difflib` on the word texts) and reports, at word level, how alpha moved: a difference grid over
the new words and the spans that gained or lost most.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.words import WordView, word_view
from selfexplain.errors import InvalidInputError

EditKind = Literal["delete", "replace", "insert"]
_WORD = re.compile(r"\S+")


def word_extents(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` characters of each whitespace-delimited word of ``text``."""
    return [match.span() for match in _WORD.finditer(text)]


@dataclass(frozen=True)
class Edit:
    """Words ``first .. last`` (inclusive, 0-based) of one text: deleted, replaced by ``words``, or (insert)
    ``words`` put before word ``first`` (``first`` = number of words appends). ``segment`` 0 is the text,
    1 the pair."""

    kind: EditKind
    first: int
    last: int
    words: str = ""
    segment: int = 0

    def describe(self, text: str) -> str:
        """One line for the edit history, e.g. ``replace “slow” → “brisk”``."""
        extents = word_extents(text)
        if self.kind == "insert":
            return f"insert “{self.words.strip()}” before word {self.first + 1}"
        old = text[extents[self.first][0] : extents[self.last][1]]
        if self.kind == "delete":
            return f"delete “{old}”"
        return f"replace “{old}” → “{self.words.strip()}”"


def apply_edit(text: str, edit: Edit) -> str:
    """``text`` with ``edit`` applied; the whitespace around untouched words is kept.

    Raises :class:`InvalidInputError` when the word range is outside the text, a replacement or
    insertion is empty, or a deletion would leave no words."""
    extents = word_extents(text)
    count = len(extents)
    words = " ".join(edit.words.split())
    if edit.kind == "insert":
        if not 0 <= edit.first <= count:
            raise InvalidInputError(f"cannot insert before word {edit.first + 1}: the text has {count} words")
        if not words:
            raise InvalidInputError("type the words to insert")
        if edit.first == count:
            return text.rstrip() + (" " if text.strip() else "") + words
        at = extents[edit.first][0]
        return text[:at] + words + " " + text[at:]
    if not 0 <= edit.first <= edit.last < count:
        raise InvalidInputError(f"words {edit.first + 1}-{edit.last + 1} are not in a text of {count} words")
    start, end = extents[edit.first][0], extents[edit.last][1]
    if edit.kind == "replace":
        if not words:
            raise InvalidInputError("type the replacement words (or delete the words instead)")
        return text[:start] + words + text[end:]
    if edit.last - edit.first + 1 == count:
        raise InvalidInputError("deleting every word would leave nothing to explain")
    if end < len(text) and text[end] in " \t":  # take one space with the words so none doubles up
        end += 1
    elif start > 0 and text[start - 1] in " \t":
        start -= 1
    return text[:start] + text[end:]


@dataclass(frozen=True)
class AlphaChange:
    """How an edit moved the explanation.

    ``labels`` ``[W]``: the words after the edit (model words, :func:`selfexplain.core.results.words.word_view`);
    ``delta`` ``[W, W]``: alpha after minus alpha before for every valid word span after the edit (a span
    that did not exist before counts from 0), NaN elsewhere; ``rows``: the spans that moved most, as
    ``(text, alpha_before, alpha_after)`` (a span whose words were removed has ``alpha_after`` 0);
    ``probability_change`` ``[C]``: probabilities after minus before.
    """

    labels: tuple[str, ...]
    delta: np.ndarray
    rows: tuple[tuple[str, float, float], ...]
    probability_change: np.ndarray
    label_before: str
    label_after: str


def _word_map(before: tuple[tuple[int, str], ...], after: tuple[tuple[int, str], ...]) -> np.ndarray:
    """``[W_after]``: the index of the same word before the edit, or -1 for a new word."""
    mapping = np.full(len(after), -1)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for block in matcher.get_matching_blocks():
        mapping[block.b : block.b + block.size] = np.arange(block.a, block.a + block.size)
    return mapping


def _runs(mapping: np.ndarray) -> np.ndarray:
    """``[W]`` run id: consecutive words share an id while each maps to the word after the previous
    one's match, so a span lies inside one run exactly when the same words stood together before."""
    breaks = np.ones(len(mapping), dtype=bool)
    breaks[1:] = (mapping[1:] < 0) | (mapping[:-1] < 0) | (mapping[1:] != mapping[:-1] + 1)
    return np.cumsum(breaks)


def alpha_change(before: Explanation, after: Explanation, rows: int = 10) -> AlphaChange:
    """Word-level change of alpha and probabilities from ``before`` to ``after`` (same model and labels)."""
    if before.label_names != after.label_names:
        raise InvalidInputError("the two explanations come from models with different labels")
    old, new = word_view(before), word_view(after)
    key_old = tuple(zip((e[0] for e in old.extents), old.labels))
    key_new = tuple(zip((e[0] for e in new.extents), new.labels))
    mapping = _word_map(key_old, key_new)
    runs = _runs(mapping)
    same = (mapping[:, None] >= 0) & (runs[:, None] == runs[None, :])  # [W_new, W_new] span existed before
    src = np.clip(mapping, 0, None)
    earlier = np.where(same, old.alpha[src[:, None], src[None, :]], 0.0)
    delta = np.where(new.span_mask, new.alpha - earlier, np.nan)

    # spans of the old text with no counterpart after the edit: alpha lost entirely
    matched_old = np.zeros_like(old.span_mask)
    a, b = np.nonzero(new.span_mask & same)
    matched_old[src[a], src[b]] = True
    lost_a, lost_b = np.nonzero(old.span_mask & ~matched_old & (old.alpha > 0))

    new_a, new_b = np.nonzero(new.span_mask)  # span texts are built only for the rows shown
    moved = np.concatenate([delta[new_a, new_b], -old.alpha[lost_a, lost_b]])
    order = np.argsort(-np.abs(moved), kind="stable")[:rows]
    table: list[tuple[str, float, float]] = []
    for index in order.tolist():
        if abs(moved[index]) <= 0:
            continue
        if index < len(new_a):
            i, j = int(new_a[index]), int(new_b[index])
            table.append((_span_text(after, new, i, j), float(earlier[i, j]), float(new.alpha[i, j])))
        else:
            i, j = int(lost_a[index - len(new_a)]), int(lost_b[index - len(new_a)])
            table.append((_span_text(before, old, i, j), float(old.alpha[i, j]), 0.0))
    return AlphaChange(
        labels=new.labels,
        delta=delta,
        rows=tuple(table),
        probability_change=after.probabilities - before.probabilities,
        label_before=before.label,
        label_after=after.label,
    )


def _span_text(explanation: Explanation, view: WordView, first: int, last: int) -> str:
    segment, start, _ = view.extents[first]
    return explanation.segment_text(segment)[start : view.extents[last][2]]
