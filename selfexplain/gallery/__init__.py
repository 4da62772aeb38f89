"""The gallery: pinned explanations kept in a database (SQLite by default, any SQLAlchemy URL).

- ``records``: the pin record, what of an :class:`~selfexplain.explanation.Explanation` is stored, and
  the validation every record passes (added, imported or read back);
- ``schema``: the tables and the ordered migrations (``schema_version`` holds the version);
- ``store``: :class:`~selfexplain.gallery.store.GalleryStore` (add, list, show, remove, export, import)
  and where the database lives (``SELFEXPLAIN_DB_URL``, ``SELFEXPLAIN_HOME``);
- ``view``: plain data for showing a stored pin (its top spans, a tokenless Explanation for the figures);
- ``cli``: ``selfexplain gallery ...``.

This package imports nothing heavy at import time, so ``selfexplain --help`` stays fast.
"""
