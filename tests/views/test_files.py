from __future__ import annotations

import shutil
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from selfexplain.views import files
from selfexplain.views.files import write_figures

FIGURES = {"bars": go.Figure(go.Bar(x=["a", "b"], y=[1, 2])), "grid": go.Figure(go.Heatmap(z=[[1, 2], [3, 4]]))}


def test_html_is_offline_with_one_shared_plotly_js(tmp_path: Path) -> None:
    written = write_figures(tmp_path, FIGURES, png=False)
    assert written.files == ("bars.html", "grid.html") and written.png_skipped == "PNG export switched off"
    assert (tmp_path / "plotly.min.js").stat().st_size > 1_000_000
    for name in ("bars", "grid"):
        page = (tmp_path / f"{name}.html").read_text(encoding="utf-8")
        assert 'src="plotly.min.js"' in page and "cdn.plot.ly" not in page


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("chromium") is None, reason="PNG export needs Chromium (installed by .ci/run)")
def test_png_files_are_real_images(tmp_path: Path) -> None:
    written = write_figures(tmp_path, FIGURES)
    assert written.png_skipped is None
    assert {"bars.png", "grid.png"} <= set(written.files)
    for name in ("bars", "grid"):
        assert (tmp_path / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_broken_browser_keeps_html_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_browser(*args: object, **kwargs: object) -> None:
        (tmp_path / "bars.png").write_bytes(b"partial")
        raise RuntimeError("Could not find Chrome executable")

    monkeypatch.setattr(pio, "write_images", no_browser)
    written = write_figures(tmp_path, FIGURES)
    assert written.files == ("bars.html", "grid.html")
    assert "Could not find Chrome executable" in (written.png_skipped or "") and "BROWSER_PATH" in written.png_skipped
    assert not (tmp_path / "bars.png").exists()


def test_missing_kaleido_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "_png_problem", lambda: "PNG export needs the kaleido package")
    written = write_figures(tmp_path, FIGURES)
    assert written.png_skipped == "PNG export needs the kaleido package" and len(written.files) == 2
