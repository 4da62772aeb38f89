"""The gallery: pinned explanations kept in a database (SQLite by default, any SQLAlchemy URL).

- ``records``: the pin record (an :class:`~selfexplain.core.results.explanation.Explanation` plus its own fields),
  what of the Explanation is stored, and the validation every record passes (added, imported or read back):
  its own fields there, the explanation by the one schema (:mod:`selfexplain.core.results.schema`);
- ``schema``: the tables and the ordered migrations (``schema_version`` holds the version);
- ``location``: where the database lives (``SELFEXPLAIN_DB_URL``, ``SELFEXPLAIN_HOME``: a private
  folder, the file 0600) and the SQLite settings;
- ``store``: :class:`~selfexplain.gallery.store.GalleryStore` (add, keyset pages, show, remove, streamed
  export and import);
- ``transfer``: JSONL lines read bounded and validated one at a time, files written atomically;
- ``view``: plain data for showing a stored pin (its top spans, a tokenless Explanation for the figures);
- ``cli``: ``selfexplain gallery ...``.

This package imports nothing heavy at import time, so ``selfexplain --help`` stays fast.
"""
