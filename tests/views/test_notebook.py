"""Notebook display: the inline HTML of an Explanation (escaped, static, bounded grid), show(), and the
example notebook executed in a real Jupyter kernel."""

from __future__ import annotations

import os
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from helpers import make_explainer

from selfexplain.core.results.words import word_of_token
from selfexplain.views.highlight import escape_text
from selfexplain.views.notebook import MAX_CELLS, explanation_html, notebook_grid, show

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "explain.ipynb"
SENTENCES = ("The visuals are gorgeous, but the story is thin.", "Not a bad film at all: funny, warm and well acted.")
PREMISE, HYPOTHESIS = "Two dogs run on a beach.", "Animals are outside."


class _Tags(HTMLParser):
    """Every start tag and attribute name of a document."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [name for name, _ in attrs]


def _parse(html: str) -> _Tags:
    parser = _Tags()
    parser.feed(html)
    return parser


def test_inline_html_escapes_every_text_and_loads_nothing(tiny_explainer) -> None:
    text = "A <script>alert(1)</script> film & a <img src=x onerror=alert(2)> plot"
    explanation = tiny_explainer.explain(text)
    html = explanation._repr_html_()
    parsed = _parse(html)
    assert "script" not in parsed.tags and "img" not in parsed.tags and "iframe" not in parsed.tags
    assert not [name for name in parsed.attributes if name.startswith("on") or name in ("src", "href")]
    assert "&#60;script&#62;" in html and "&#38;" in html and "<script" not in html
    assert parsed.tags.count("svg") == 1 and "rect" in parsed.tags
    assert f"Prediction: <b>{escape_text(explanation.label)}</b>" in html
    for name, p in zip(explanation.label_names, explanation.probabilities):
        assert f">{escape_text(name)}</span>" in html and f"{p:.1%}" in html


def test_word_model_grid_is_the_models_own_word_grid(tiny_explainer) -> None:
    explanation = tiny_explainer.explain("The plot, sadly, isn't moving at all.")
    grid = notebook_grid(explanation)
    words = int(word_of_token(explanation).max()) + 1
    assert grid.unit == "word" and len(grid.labels) == grid.units == words and not grid.pooled
    assert grid.labels[:3] == ("The", "plot", ",")
    assert grid.mask.sum() == explanation.span_mask.sum()  # one cell per word span
    np.testing.assert_allclose(np.sort(grid.alpha[grid.mask]), np.sort(explanation.alpha[explanation.span_mask]))
    svg_cells = explanation_html(explanation).count("<rect ")
    assert svg_cells == grid.mask.sum()


def test_piece_model_grid_is_token_level(tiny_encoder) -> None:
    explainer = make_explainer(tiny_encoder, seed=4, span_unit="piece")
    explanation = explainer.explain("unwatchable nonsense")
    grid = notebook_grid(explanation)
    assert grid.unit == "token" and len(grid.labels) == explanation.num_tokens
    np.testing.assert_allclose(grid.alpha, np.where(explanation.span_mask, explanation.alpha, 0.0))


def test_long_input_is_pooled_and_keeps_all_alpha(tiny_explainer) -> None:
    text = " ".join(f"word{i % 7} is fine" for i in range(30))  # 90 words
    explanation = tiny_explainer.explain(text)
    grid = notebook_grid(explanation, max_cells=16)
    assert grid.pooled and len(grid.labels) == 16 and grid.units == 90
    assert grid.alpha.sum() == pytest.approx(explanation.alpha[explanation.span_mask].sum())
    assert "pooled into 16 groups" in explanation_html(explanation, max_cells=16)
    assert len(notebook_grid(explanation).labels) == min(MAX_CELLS, 90)


def test_pooled_pair_cells_never_mix_the_two_texts(tiny_pair_explainer) -> None:
    premise = "A man in a red coat walks his small dog through the quiet park at night"
    explanation = tiny_pair_explainer.explain(premise, pair="Someone is outside")
    grid = notebook_grid(explanation, max_cells=6)
    assert len(grid.labels) <= 6 and set(grid.segments.tolist()) == {0, 1}
    assert np.all(np.diff(grid.segments) >= 0)
    assert " ".join(grid.labels[: int((grid.segments == 0).sum())]).split() == premise.split()
    rows, cols = np.nonzero(grid.mask)
    assert np.all(grid.segments[rows] == grid.segments[cols])  # no span crosses the separator


def test_show_writes_a_file_outside_jupyter_and_displays_inside(tiny_explainer, tmp_path, monkeypatch, capsys) -> None:
    explanation = tiny_explainer.explain("a fine & gentle film")
    target = show(explanation, tmp_path / "out.html")
    document = target.read_text(encoding="utf-8")
    assert document.startswith("<!DOCTYPE html>") and explanation._repr_html_() in document
    assert str(target) in capsys.readouterr().out
    written = explanation.show()  # no kernel here: a temporary file
    assert written is not None and written.read_text(encoding="utf-8") == document
    written.unlink()

    import IPython
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: type("Shell", (), {"kernel": object()})())
    monkeypatch.setattr(IPython.display, "display", shown.append)
    assert explanation.show() is None
    assert len(shown) == 1 and shown[0].data == explanation._repr_html_()


def _kernel_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """``python3``; its spec is installed into a temporary folder when this machine has none."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        from ipykernel.kernelspec import install

        install(kernel_name="python3", prefix=str(tmp_path / "jupyter"))
        monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter" / "share" / "jupyter"))
    return "python3"


@pytest.mark.slow
@pytest.mark.shipped
def test_example_notebook_runs_and_shows_the_predictions(tmp_path, monkeypatch) -> None:
    import nbformat
    from nbclient import NotebookClient

    from selfexplain.core.pipeline import load_model

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    source = "\n".join(cell.source for cell in notebook.cells)
    assert all(text in source for text in (*SENTENCES, PREMISE, HYPOTHESIS))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    client = NotebookClient(
        notebook, timeout=600, kernel_name=_kernel_name(tmp_path, monkeypatch), resources={"metadata": {"path": ROOT}}
    )
    client.execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o.data["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    printed = "".join(o.text for o in outputs if o.output_type == "stream")

    explainer, nli = load_model(), load_model("snli-minilm")
    expected = [explainer.explain(text) for text in SENTENCES] + [nli.explain(PREMISE, pair=HYPOTHESIS)]
    assert len(html) == 3
    for shown, explanation in zip(html, expected):
        assert f"Prediction: <b>{escape_text(explanation.label)}</b>" in shown
        assert "<svg" in shown and "<script" not in shown
    for explanation in expected[:2]:
        assert f"{explanation.label} ({explanation.confidence:.1%})" in printed
        top = explanation.top_spans(1)[0]
        assert f"1. {top.text!r}  alpha {top.alpha:.3f}" in printed
