"""Every reader of example files: one route from a file (or an upload's bytes) to records and examples.

- :mod:`selfexplain.formats.text`: the format from a file name, bytes to numbered UTF-8 lines (a BOM is
  dropped), and :class:`~selfexplain.formats.text.FormatError`, which names the file and the line.
- :mod:`selfexplain.formats.records`: CSV, TSV, JSONL, SST lines and plain lines as a stream of records
  (field dicts, or a row-level problem), and the columns guessed from their usual names.
- :mod:`selfexplain.formats.examples`: labelled :class:`~selfexplain.data.Example` lists from a file, an
  SST tree file or a Hugging Face dataset (:func:`~selfexplain.formats.examples.read_examples`), or from an
  upload's bytes, in memory (:func:`~selfexplain.formats.examples.read_example_bytes`).

A ``.txt`` file has one meaning per command, always passed explicitly as ``txt``: ``"labelled"`` (one
``LABEL TEXT`` a line, or SST trees: train, eval, faithfulness, sharpness, anatomy) or ``"lines"`` (one text
a line: batch). Nothing is re-exported here, so importing one reader does not import the others.
"""
