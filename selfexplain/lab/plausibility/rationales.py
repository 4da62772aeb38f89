"""Movie reviews with human rationales (Zaidan et al. 2007; ``../shared/data/movie_rationales``).

A review marks the words annotators gave as reasons with ``<POS> ... </POS>`` or
``<NEG> ... </NEG>``. :func:`parse_tagged` strips the tags and returns the clean text with
the rationale character spans; :func:`write_splits` turns the folder into JSONL files
(``text``, ``label``, ``rationales``) that ``selfexplain train``/``eval`` read directly and
that :mod:`selfexplain.lab.plausibility.metrics` scores explanations against.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from selfexplain.core.formats.records import Records
from selfexplain.data import DataError, label_index

LABEL_NAMES = ("negative", "positive")
_TAG = re.compile(r"<(/?(?:POS|NEG))>")


@dataclass(frozen=True)
class Review:
    text: str
    label: int  # 0 negative, 1 positive
    rationales: tuple[tuple[int, int], ...]  # character spans [start, end) into text
    name: str


def parse_tagged(raw: str, where: str = "review") -> tuple[str, tuple[tuple[int, int], ...]]:
    """Clean text (words joined by single spaces) and the ``[start, end)`` character spans of its
    tagged rationales; raises :class:`DataError` on unbalanced or nested tags."""
    words: list[str] = []
    word_spans: list[tuple[int, int]] = []  # [first word, last word + 1)
    opened: int | None = None
    for index, piece in enumerate(_TAG.split(raw)):
        if index % 2 == 0:
            words.extend(piece.split())
            continue
        if piece.startswith("/"):
            if opened is None:
                raise DataError(f"{where}: <{piece}> without an opening tag")
            if len(words) > opened:
                word_spans.append((opened, len(words)))
            opened = None
        else:
            if opened is not None:
                raise DataError(f"{where}: <{piece}> inside another rationale")
            opened = len(words)
    if opened is not None:
        raise DataError(f"{where}: a rationale is never closed")
    starts, position = [], 0
    for word in words:
        starts.append(position)
        position += len(word) + 1
    spans = tuple((starts[a], starts[b - 1] + len(words[b - 1])) for a, b in word_spans)
    return " ".join(words), spans


def read_reviews(folder: Path, with_rationales: bool = True) -> list[Review]:
    """Every review of ``folder`` (``withRats_neg``/``withRats_pos`` subfolders), sorted by file name.

    ``with_rationales`` keeps the annotated ``negR_*``/``posR_*`` files, else the plain ``neg_*``/``pos_*``.
    """
    reviews = []
    for label, polarity in enumerate(("neg", "pos")):
        pattern = f"{polarity}R_*.txt" if with_rationales else f"{polarity}_*.txt"
        for path in sorted((folder / f"withRats_{polarity}").glob(pattern)):
            text, spans = parse_tagged(path.read_text(encoding="utf-8", errors="replace"), str(path))
            reviews.append(Review(text, label, spans, path.name))
    if not reviews:
        raise DataError(f"{folder}: no movie-rationale reviews (expected withRats_neg/ and withRats_pos/)")
    return reviews


def review_number(review: Review) -> int:
    """The number in the file name, ``posR_123.txt`` -> 123."""
    return int(re.sub(r"\D", "", review.name))


def write_splits(folder: Path, out: Path, train: range, dev: range, test: range) -> dict[str, int]:
    """JSONL ``movies-{train,dev,test}.jsonl`` under ``out``: annotated reviews whose number falls in
    each range (both polarities), plus ``movies-unannotated.jsonl`` with the reviews that carry no
    rationales (an extra accuracy test). Returns the row count of each file."""
    out.mkdir(parents=True, exist_ok=True)
    reviews = read_reviews(folder)
    splits = {
        name: [r for r in reviews if review_number(r) in numbers]
        for name, numbers in (("train", train), ("dev", dev), ("test", test))
    }
    if any(any((folder / f"withRats_{p}").glob(f"{p}_*.txt")) for p in ("neg", "pos")):
        splits["unannotated"] = read_reviews(folder, with_rationales=False)
    counts = {}
    for split, rows in splits.items():
        with (out / f"movies-{split}.jsonl").open("w", encoding="utf-8") as handle:
            for r in rows:
                record = {"text": r.text, "label": r.label, "rationales": r.rationales, "name": r.name}
                handle.write(json.dumps(record) + "\n")
        counts[split] = len(rows)
    return counts


def read_rationale_jsonl(path: Path, label_names: Sequence[str] | None = None) -> list[Review]:
    """Rows of a JSONL file with ``text``, ``label`` (index or name) and ``rationales`` (``[[start, end], ...]``)."""
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    reviews = []
    for record in Records(path, txt=None, fmt="jsonl"):
        row, where = record.fields, f"{path}:{record.line}"
        if record.problem is not None:
            raise DataError(f"{where}: {record.problem}")
        try:
            text, label, spans = str(row["text"]), row["label"], row["rationales"]
            pairs = tuple((int(a), int(b)) for a, b in spans)  # type: ignore[union-attr]
        except (KeyError, TypeError, ValueError) as err:
            raise DataError(f"{where}: expected text, label and rationales ([[start, end], ...]): {err}") from None
        if any(not 0 <= a < b <= len(text) for a, b in pairs):
            raise DataError(f"{where}: a rationale span lies outside the text")
        index = label_index(label, label_names, where)
        reviews.append(Review(text, index, pairs, str(row.get("name", record.line))))
    if not reviews:
        raise DataError(f"{path}: no rows")
    return reviews
