"""Page sections too large for one page file (kept in a subfolder: every ``pages/*.py`` is a page)."""
