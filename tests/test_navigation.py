"""The sidebar's page links and the shape of every page script.

Streamlit's own page list is switched off (it would call the Explain page "app", after app.py); every
page draws ``pages.ui.navigation.sidebar_navigation`` first, so the links are the same on each page and
keep the addresses Streamlit gives the files (``/``, ``/Compare``, ...). The pages are read from the files
(pages/ui/page_registry.py): no list of pages is written here, so a new page file needs no edit of this one.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from streamlit.testing.v1 import AppTest

from pages.ui.page_registry import PAGES

ROOT = Path(__file__).resolve().parents[1]
# every page file, in the order of its number (what Streamlit serves), after the landing page
SCRIPTS = [ROOT / "app.py", *sorted((ROOT / "pages").glob("[0-9]*_*.py"), key=lambda p: int(p.name.split("_")[0]))]
LABELS = [page.label for page in PAGES.values()]
# the address of each page: "" is the landing page; the others are what tests/test_browser.py opens
ADDRESSES = [page.address for page in PAGES.values()]


def sidebar_links(at: AppTest) -> list[tuple[str, str]]:
    return [(link.proto.label, link.proto.page) for link in at.sidebar.get("page_link")]


def test_streamlit_page_list_is_off() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showSidebarNavigation"] is False


def test_every_page_script_is_linked_once_in_file_order() -> None:
    assert [ROOT / page.script for page in PAGES.values()] == SCRIPTS
    assert LABELS[0] == "Explain" and ADDRESSES[0] == "" and "app" not in LABELS
    assert all(LABELS) and len(set(LABELS)) == len(LABELS)
    # Streamlit's rule for a page file: the address is its name without the number, the label with spaces
    assert [script.name.split("_", 1)[1] for script in SCRIPTS[1:]] == [f"{a}.py" for a in ADDRESSES[1:]]
    assert [a.replace("_", " ") for a in ADDRESSES[1:]] == LABELS[1:]


def test_explain_page_links_every_page_by_name() -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["text"] = "a fine film"
    at.run()
    assert not at.exception
    links = sidebar_links(at)
    assert links == list(zip(LABELS, ADDRESSES))
    assert "app" not in [label for label, _ in links]
    assert len(at.get("page_link")) == len(LABELS)  # only in the sidebar, once each


def test_other_pages_show_the_same_links() -> None:
    for script in ("pages/7_Explorer.py", "pages/8_Gallery.py"):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.switch_page(script).run()
        assert not at.exception, script
        assert at.title[0].value in ("Explore a data set's explanations", "Gallery"), script
        assert sidebar_links(at) == list(zip(LABELS, ADDRESSES)), script


def test_a_page_run_on_its_own_draws_no_links() -> None:
    """``streamlit run pages/7_Explorer.py`` (or an AppTest of that file) has no app.py to link back to."""
    at = AppTest.from_file(str(ROOT / "pages" / "7_Explorer.py"), default_timeout=60)
    at.run()
    assert not at.exception
    assert at.title[0].value == "Explore a data set's explanations"
    assert sidebar_links(at) == []


def is_call(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and ast.unparse(node.value.func) == name


def test_every_page_is_a_main_function_called_at_the_bottom() -> None:
    """Module level holds imports, constants, functions and ``st.set_page_config``; the page itself is
    ``main()``, whose first call draws the links."""
    for script in SCRIPTS:
        tree = ast.parse(script.read_text(encoding="utf-8"))
        body = tree.body
        assert is_call(body[-1], "main"), script.name
        calls = [node for node in body[:-1] if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)]
        assert [ast.unparse(node.value.func) for node in calls] == ["st.set_page_config"], script.name
        assert not any(isinstance(node, (ast.If, ast.With, ast.For, ast.While, ast.Try)) for node in body), script
        main = next(node for node in body if isinstance(node, ast.FunctionDef) and node.name == "main")
        assert is_call(main.body[0], "sidebar_navigation"), script.name
