"""Write plotly figures to a folder as offline HTML and, where possible, PNG.

HTML always works: the figures share one copy of plotly.js written beside them
(``include_plotlyjs="directory"``), so they open with no network. PNG needs the
``kaleido`` package (in requirements.txt) and a Chrome or Chromium browser on the
machine (``BROWSER_PATH`` points kaleido at one); all figures of a call are rendered
in one browser session. When PNG export is impossible the reason is returned, never
raised: the numbers and HTML are the result, PNG is a convenience.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio

PNG_SCALE = 2


@dataclass(frozen=True)
class WrittenFigures:
    """File names written (relative to the folder) and why PNGs were skipped, if they were."""

    files: tuple[str, ...]
    png_skipped: str | None = None


def _png_problem() -> str | None:
    try:
        import kaleido  # noqa: F401
    except ImportError:
        return "PNG export needs the kaleido package (pip install kaleido)"
    return None


def write_figures(folder: Path, figures: Mapping[str, go.Figure], png: bool = True) -> WrittenFigures:
    """``NAME.html`` for every figure (plus ``plotly.min.js`` once) and ``NAME.png`` when possible."""
    folder.mkdir(parents=True, exist_ok=True)
    files: list[str] = []
    for name, fig in figures.items():
        fig.write_html(folder / f"{name}.html", include_plotlyjs="directory")
        files.append(f"{name}.html")
    if not png or not figures:
        return WrittenFigures(tuple(files), None if png else "PNG export switched off")
    problem = _png_problem()
    if problem is None:
        paths = [folder / f"{name}.png" for name in figures]
        try:
            pio.write_images(list(figures.values()), paths, format="png", scale=PNG_SCALE)
            files.extend(path.name for path in paths)
        except Exception as error:  # noqa: BLE001 - a missing or broken browser must not lose the run
            first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            problem = f"PNG export failed ({first_line}); is Chrome or Chromium installed? set BROWSER_PATH"
            for path in paths:
                path.unlink(missing_ok=True)
    return WrittenFigures(tuple(files), problem)
