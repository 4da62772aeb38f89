"""A long document up close and in presentation mode (issue 58 items 5 and 6): sentences keep their document
numbers in every close-up, attention runs from 0, a paragraph's attention shows only what its window holds,
one paragraph is "1 paragraph", and presentation mode leaves out the sidebar and the controls."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import make_explainer
from streamlit.testing.v1 import AppTest

from selfexplain.core.modeling.checkpoint import save_model
from selfexplain.views.document import part_word_attention_figure, parts_overview_figure
from selfexplain.views.figures import span_grid_figure

APP = str(Path(__file__).resolve().parents[1] / "app.py")
ONE_PARAGRAPH = " ".join(f"The plot scene {s} was fine, but the cast{s} felt slow." for s in range(40))


@pytest.fixture(scope="module")
def explainer(tiny_encoder: Path):
    return make_explainer(tiny_encoder, seed=3, window_stride=64)  # windows of 126 tokens


def test_close_ups_keep_the_documents_sentence_numbers(explainer) -> None:
    document = explainer.explain_document(ONE_PARAGRAPH)
    paragraphs, sentences = document.parts("paragraph"), document.parts("sentence")
    assert len(paragraphs) == 1 and len(sentences) == 40 and len(document.window_starts) > 1
    title = parts_overview_figure(document, paragraphs).layout.title.text
    assert "1 paragraph " in title and "1 paragraphs" not in title
    part = document.part(36, "sentence")  # sentence S37 up close, at sentence level
    first = int(sentences.token_starts[36])
    before = int(sentences.part_of_token[first])
    assert list(span_grid_figure(part, level="sentence", first_sentence=before).layout.xaxis.ticktext) == ["S37"]
    index = document.window_of(36, "sentence")
    window = explainer.window_attentions(ONE_PARAGRAPH, document.window_starts[index])
    figure = part_word_attention_figure(window, index + 1, part, first, "sentence", first_sentence=before)
    assert list(figure.layout.xaxis.ticktext) == ["S37"]
    assert figure.data[0].zmin == 0.0 and figure.data[0].zmax > 0.0  # not -0.48..0.52 around one cell


def test_a_paragraph_shows_the_attention_its_window_holds(explainer) -> None:
    document = explainer.explain_document(ONE_PARAGRAPH)
    part = document.part(0, "paragraph")  # 40 sentences over several windows
    window = explainer.window_attentions(ONE_PARAGRAPH, document.window_starts[0])
    figure = part_word_attention_figure(window, 1, part, 0, "sentence")
    rows = np.asarray(figure.data[0].z, dtype=float)
    assert 0 < rows.shape[0] < 40 and (rows.sum(axis=1) > 0).all()  # no blank rows of other windows' sentences
    assert list(figure.layout.xaxis.ticktext)[0] == "S1"
    grid = span_grid_figure(part, level="sentence")
    assert len(grid.layout.xaxis.ticktext) == 40  # every sentence labelled: no smear


def test_presentation_mode_on_a_long_document_hides_the_controls(explainer, tmp_path: Path) -> None:
    save_model(explainer.model, explainer.tokenizer, tmp_path / "tiny-doc")
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input(str(tmp_path / "tiny-doc")).run()
    at.text_area(key="text").input("\n\n".join([ONE_PARAGRAPH] * 3)).run()
    assert not at.exception and at.segmented_control(key="doc_level") is not None  # the document view
    at.toggle(key="present").set_value(True).run()
    assert not at.exception and not at.error
    keys = {w.key for kind in (at.main.slider, at.main.selectbox, at.main.toggle) for w in kind}
    assert not {k for k in keys if k and k.startswith("doc_")}  # no part picker, slider or attention selectors
    assert not [w for w in at.get("segmented_control") if w.key == "doc_level"]
    assert any("stSidebar" in h.proto.body for h in at.get("html"))  # the sidebar is hidden
    assert at.metric[0].label == "The model's answer"
    assert at.button(key="leave_present") is not None
