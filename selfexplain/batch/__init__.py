"""Batch: explain whole data sets, explore the results, export them, scale out with ``accelerate``.

- :mod:`selfexplain.batch.reader`: stream rows from CSV/TSV/JSONL/TXT with row-level validation.
- :mod:`selfexplain.batch.records`: the result record of one row (the JSONL output schema).
- :mod:`selfexplain.batch.runner`: batched explanation; the resumable, shardable file runner.
- :mod:`selfexplain.batch.export`: CSV, JSONL and a self-contained HTML report.
- :mod:`selfexplain.batch.explore`: data-set statistics (tables) and :mod:`selfexplain.batch.figures` (plotly).
"""
