"""Every reader of example files: one route from a file (or an upload's bytes) to records and examples.

- :mod:`selfexplain.core.formats.text`: the format from a file name, bytes to numbered UTF-8 lines (a BOM is
  dropped), and :class:`~selfexplain.core.formats.text.FormatError`, which names the file and the line.
- :mod:`selfexplain.core.formats.records`: CSV, TSV, JSONL, SST lines and plain lines as a stream of records
  (field dicts, or a row-level problem), and the columns guessed from their usual names.
- :mod:`selfexplain.core.formats.examples`: labelled :class:`~selfexplain.data.Example` lists from a file, an
  SST tree file or a Hugging Face dataset (:func:`~selfexplain.core.formats.examples.read_examples`), or from an
  upload's bytes, in memory (:func:`~selfexplain.core.formats.examples.read_example_bytes`).
- :mod:`selfexplain.core.formats.sst_trees`: the Stanford Sentiment Treebank's PTB trees (every phrase labelled).

A ``.txt`` file has one meaning per command, always passed explicitly as ``txt``: ``"labelled"`` (one
``LABEL TEXT`` a line, or SST trees: train, eval, faithfulness, sharpness, anatomy) or ``"lines"`` (one text
a line: batch). Nothing is re-exported here, so importing one reader does not import the others.

Defined here (importing nothing): the file suffixes the readers accept, :data:`SUFFIX_FORMATS` (suffix ->
format, which :func:`~selfexplain.core.formats.text.detect_format` reads) and :data:`SUFFIXES`, what every
upload box of the app passes as ``type``; a box that takes only some formats passes :func:`suffixes` of them.
"""

from __future__ import annotations

# Every accepted suffix (lower case, no dot) and the format a file with it is read as; a file with any
# other suffix is read as txt.
SUFFIX_FORMATS: dict[str, str] = {
    "txt": "txt",
    "csv": "csv",
    "tsv": "tsv",
    "jsonl": "jsonl",
    "json": "jsonl",
    "ndjson": "jsonl",
}
SUFFIXES: tuple[str, ...] = tuple(SUFFIX_FORMATS)


def suffixes(*formats: str) -> tuple[str, ...]:
    """The suffixes read as one of ``formats`` (every suffix when none is given), in :data:`SUFFIXES`
    order: ``suffixes("jsonl")`` -> ``("jsonl", "json", "ndjson")``. An unknown format is a ``ValueError``."""
    unknown = sorted(set(formats) - set(SUFFIX_FORMATS.values()))
    if unknown:
        known = ", ".join(dict.fromkeys(SUFFIX_FORMATS.values()))
        raise ValueError(f"unknown format {unknown[0]!r}; choose from {known}")
    return tuple(s for s, fmt in SUFFIX_FORMATS.items() if not formats or fmt in formats)
