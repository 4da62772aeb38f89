"""How an :class:`~selfexplain.core.results.explanation.Explanation` shows itself: inline in Jupyter
(``_repr_html_``) and as a file (``show``). The views layer supplies both, so results import no view.

:mod:`selfexplain.views.notebook` registers its two functions here when it is imported (:func:`register`).
The package root (``selfexplain/__init__.py``) names that module (:func:`provided_by`), so an Explanation
made without importing any view (``load_model().explain(text)`` in a notebook) still finds it: the first
display imports it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    Html = Callable[[Any], str]
    Show = Callable[[Any, str | Path | None], Path | None]

_providers: list[str] = []  # modules that register a display when imported, in the order named
_display: dict[str, Any] = {}  # "html", "show": the registered functions


def provided_by(module: str) -> None:
    """Name a module that registers the display when imported; the first display imports it."""
    if module not in _providers:
        _providers.append(module)


def register(html: Html, show: Show) -> None:
    """The display every Explanation uses from now on: ``html(explanation)`` -> an HTML fragment,
    ``show(explanation, path)`` -> displayed inline (None) or written to a file (its path)."""
    _display.update(html=html, show=show)


def _registered() -> dict[str, Any]:
    for module in _providers:
        if _display:
            break
        importlib.import_module(module)
    if not _display:
        raise RuntimeError("no display is registered for explanations: import selfexplain.views.notebook")
    return _display


def html(explanation: Any) -> str:
    return _registered()["html"](explanation)


def show(explanation: Any, path: str | Path | None = None) -> Path | None:
    return _registered()["show"](explanation, path)
