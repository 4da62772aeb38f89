"""The app's pages, read from the files: app.py (the Explain page, at ``/``) and every ``pages/N_Name.py``, in
the order of their numbers. A new page is one file there: the sidebar (:mod:`pages.ui.navigation`), the
screenshots script and the tests read :data:`PAGES`, never a list of pages written by hand.

A page's label and address follow Streamlit's own rule for a page file: the address is the file name
without its number (``3_Attention_anatomy.py`` -> ``/Attention_anatomy``), the label the same with spaces
("Attention anatomy"). No Streamlit import: the scripts and tests read it without starting an app.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from selfexplain.support.registry import Registry

APP_DIR = Path(__file__).resolve().parents[2]
LANDING = ("app.py", "Explain")  # the landing page: its file and its label (Streamlit would call it "app")
PAGE_FILE = re.compile(r"^(\d+)_(\w+)\.py$")


@dataclass(frozen=True)
class Page:
    """``script``: the page's file, relative to the app's folder; ``label``: its name in the sidebar;
    ``address``: its path after the server's address ("" for the landing page)."""

    script: str
    label: str
    address: str


PAGES: Registry[Page] = Registry("page")  # address -> Page, in sidebar order


def register_page(page: Page) -> Page:
    """Add ``page`` under its address (an address taken by another page is a ``ValueError``)."""
    return PAGES.register(page.address, page)


def page_of(path: Path) -> Page:
    """The :class:`Page` of a ``pages/N_Name.py`` file."""
    match = PAGE_FILE.match(path.name)
    if match is None:
        raise ValueError(f"{path.name} is not a page file (N_Name.py)")
    address = match.group(2)
    return Page(path.relative_to(APP_DIR).as_posix(), address.replace("_", " "), address)


def page_files(folder: Path = APP_DIR / "pages") -> list[Path]:
    """The page files of ``folder``, in the order of their numbers."""
    found = [path for path in folder.glob("*.py") if PAGE_FILE.match(path.name)]
    return sorted(found, key=lambda path: (int(PAGE_FILE.match(path.name).group(1)), path.name))  # type: ignore[union-attr]


register_page(Page(LANDING[0], LANDING[1], ""))
for _path in page_files():
    register_page(page_of(_path))
