"""Cutting a long text into sentences or paragraphs, with each part's characters and tokens.

Paragraphs are separated by a blank line (a line holding only whitespace). Sentences end
after ``.``, ``!``, ``?`` or an ellipsis (with any closing quotes or brackets) followed by
whitespace, and at every paragraph break; an abbreviation such as "Dr. Smith" therefore ends a
sentence too. A part runs from its first token to its last, so the whitespace between parts
belongs to none; parts without a token are dropped. Everything is vectorised over tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

PartLevel = Literal["sentence", "paragraph"]
PART_LEVELS: tuple[PartLevel, ...] = ("sentence", "paragraph")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")
_SENTENCE_END = re.compile(r"(?:[.!?]+|\u2026)[\"'\u201d\u2019)\]]*\s+|\n[^\S\n]*\n\s*")


@dataclass(frozen=True)
class DocumentParts:
    """``P`` parts of one level: ``char_starts``/``char_ends`` ``[P]`` (end exclusive),
    ``token_starts``/``token_ends`` ``[P]`` (end exclusive), ``part_of_token`` ``[T]``; once
    computed by :meth:`Document.parts`: ``mass`` ``[P]`` (alpha of the spans inside each part),
    ``across`` (alpha of the spans crossing a part boundary; ``mass.sum() + across == 1``) and
    ``touching`` ``[P]`` (alpha of the spans inside or crossing into each part: a crossing span
    counts in every part it touches)."""

    level: PartLevel
    char_starts: np.ndarray
    char_ends: np.ndarray
    token_starts: np.ndarray
    token_ends: np.ndarray
    part_of_token: np.ndarray
    mass: np.ndarray | None = None
    across: float = 0.0
    touching: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.char_starts.size)

    def with_mass(self, mass: np.ndarray, across: float, touching: np.ndarray) -> DocumentParts:
        return replace(self, mass=mass, across=across, touching=touching)

    def text(self, document_text: str, index: int) -> str:
        """The characters of part ``index`` in ``document_text``."""
        return document_text[int(self.char_starts[index]) : int(self.char_ends[index])]

    def label(self, index: int) -> str:
        """A short name: ``S12`` for sentence 12, ``P3`` for paragraph 3 (numbered from 1)."""
        return f"{'S' if self.level == 'sentence' else 'P'}{index + 1}"


def cut_points(text: str, level: PartLevel) -> np.ndarray:
    """Character positions where a new part begins (0 first), sorted."""
    if level not in PART_LEVELS:
        raise ValueError(f"unknown part level {level!r}; use one of {', '.join(PART_LEVELS)}")
    pattern = _SENTENCE_END if level == "sentence" else _PARAGRAPH_BREAK
    ends = np.fromiter((m.end() for m in pattern.finditer(text)), dtype=np.int64)
    return np.unique(np.concatenate([[0], ends]))


def split_parts(text: str, token_chars: np.ndarray, level: PartLevel) -> DocumentParts:
    """The parts of ``text`` for tokens at ``token_chars`` ``[T, 2]`` (character start, end)."""
    cuts = cut_points(text, level)
    raw = np.searchsorted(cuts, token_chars[:, 0], side="right") - 1  # [T] the cut before each token
    used, part_of = np.unique(raw, return_inverse=True)  # drop cuts that start no token
    count = used.size
    token_starts = np.searchsorted(part_of, np.arange(count), side="left")
    token_ends = np.searchsorted(part_of, np.arange(count), side="right")
    return DocumentParts(
        level=level,
        char_starts=token_chars[token_starts, 0] if count else np.zeros(0, dtype=np.int64),
        char_ends=token_chars[token_ends - 1, 1] if count else np.zeros(0, dtype=np.int64),
        token_starts=token_starts,
        token_ends=token_ends,
        part_of_token=part_of.reshape(-1),
    )
