"""The Explain page's document view across several long texts in one session (issue 24, attack row 5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import make_explainer
from streamlit.testing.v1 import AppTest

from selfexplain.core.modeling.checkpoint import save_model

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@pytest.fixture(scope="module")
def doc_model(tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    explainer = make_explainer(tiny_encoder, seed=3, window_stride=64)
    directory = tmp_path_factory.mktemp("doc-panel") / "tiny-doc"
    save_model(explainer.model, explainer.tokenizer, directory)
    return directory


def document_text(topic: str, paragraphs: int) -> str:
    """Over 1,000 tokens of distinct sentences about ``topic`` (blank lines between paragraphs)."""
    return "\n\n".join(
        " ".join(f"The {topic}{p} part {s} was fine, but the {topic} cast{s} felt slow." for s in range(5))
        for p in range(paragraphs)
    )


@pytest.mark.slow
def test_three_long_texts_in_one_session_open_without_an_error(doc_model: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input(str(doc_model)).run()
    first_labels: list[str] = []
    for topic, paragraphs in (("plot", 16), ("music", 18), ("set", 15)):
        if topic == "set":
            # The browser kept the part box's option label from the first text (the box's id did not change)
            # and sends it back; read with the second text's options it is no option, so Streamlit hands the
            # label string itself to the page as st.session_state.doc_part.
            box = at.selectbox(key="doc_part")
            box.options = first_labels
            box.set_value(first_labels[2])
        at.text_area(key="text").input(document_text(topic, paragraphs)).run()
        first_labels = first_labels or list(at.selectbox(key="doc_part").options)
        assert not at.exception, at.exception
        assert not at.error
        chosen = at.session_state["doc_part"]
        assert isinstance(chosen, int) and 0 <= chosen < paragraphs
        assert any(": tokens" in caption.value and caption.value.startswith("P") for caption in at.caption)


@pytest.mark.slow
def test_the_server_keeps_two_window_attentions_and_documents_within_the_byte_budget(
    doc_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 24 item 7: a window's attention maps weigh L x heads x n^2 floats (75 MB for MiniLM), and
    st.cache_data kept 32 of them and 8 documents per server (+1.5 GB over 30 long texts). Now the last
    two windows are kept, and documents live in the byte-bounded results cache: going back to the first
    of three texts runs the model again."""
    from pages.parts import document_panel
    from pages.ui.loading import results_cache
    from selfexplain.core.pipeline import SelfExplainer

    calls: list[str] = []
    original_document, original_window = SelfExplainer.explain_document, SelfExplainer.window_attentions

    def explain_document(self, *args, **kwargs):
        calls.append("document")
        return original_document(self, *args, **kwargs)

    def window_attentions(self, *args, **kwargs):
        calls.append("window")
        return original_window(self, *args, **kwargs)

    monkeypatch.setattr(SelfExplainer, "explain_document", explain_document)
    monkeypatch.setattr(SelfExplainer, "window_attentions", window_attentions)
    monkeypatch.setenv("SELFEXPLAIN_CACHE_MB", "1")
    results_cache.clear()
    document_panel.cached_window_attention.clear()
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input(str(doc_model)).run()
    texts = [document_text(topic, 16) for topic in ("plot", "music", "set")]
    for text in texts:
        at.text_area(key="text").input(text).run()
        assert not at.exception, at.exception
    assert calls.count("document") == 3 and calls.count("window") == 3
    assert results_cache().bytes <= 2**20
    calls.clear()
    at.text_area(key="text").input(texts[0]).run()  # its window left the two kept; its document, the budget
    assert not at.exception, at.exception
    assert calls == ["document", "window"]
    results_cache.clear()
    document_panel.cached_window_attention.clear()
