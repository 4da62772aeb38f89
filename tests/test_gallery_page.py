"""AppTest checks of the Gallery page and of pinning from the Explain page (SQLite in a temporary home)."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest
from helpers import open_page
from streamlit.testing.v1 import AppTest

from selfexplain.gallery.store import GalleryStore
from selfexplain.gallery.transfer import pins_jsonl
from selfexplain.gallery.view import pin_spans

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
GALLERY = str(ROOT / "pages" / "8_Gallery.py")
MARKUP = "<img src=x onerror=alert(1)> **bold** $x$"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GalleryStore:
    """The store the pages open: a fresh SELFEXPLAIN_HOME per test (the page caches one store per URL)."""
    monkeypatch.delenv("SELFEXPLAIN_DB_URL", raising=False)
    monkeypatch.setenv("SELFEXPLAIN_HOME", str(tmp_path / "home"))
    return GalleryStore()


def html_of(at: AppTest) -> str:
    return "\n".join(element.proto.body for element in at.get("html"))


def gallery(pin: str | None = None) -> AppTest:
    at = AppTest.from_file(GALLERY, default_timeout=60)
    if pin is not None:
        at.query_params["pin"] = pin
    return at.run()


def test_pin_from_the_explain_page(store: GalleryStore, tiny_model_dir: Path) -> None:
    at = open_page(APP, tiny_model_dir)
    at.text_area(key="text").input("The visuals are gorgeous, but the story is thin.").run()
    at.text_input(key="pin_note").input(MARKUP).run()
    at.button(key="pin_button").click().run()
    assert not at.exception and not at.error
    [pin] = store.list()
    assert pin.note == MARKUP and pin.model == "tiny-sst" and pin.pair is None
    assert pin.text == "The visuals are gorgeous, but the story is thin."
    assert any(f"Pinned as {pin.id}" in s.value for s in at.success)
    assert any(c.value.endswith(f"Gallery?pin={pin.id}") for c in at.code)
    explanation = at.session_state["pin_pinned"]
    assert explanation["id"] == pin.id
    at.text_area(key="text").input("Another text entirely.").run()  # the notice belongs to the pinned input
    assert not any("Pinned as" in s.value for s in at.success) and store.count() == 1


def _add(store: GalleryStore, explainer, text: str, note: str, model: str = "tiny-sst"):
    return store.add(explainer.explain(text, attentions=False), model, note=note)


def test_list_filter_open_and_delete(store: GalleryStore, tiny_explainer) -> None:
    first = _add(store, tiny_explainer, "A gorgeous film with a thin story.", MARKUP)
    second = _add(store, tiny_explainer, "Dull and far too long.", "for the demo", model="other")
    at = gallery()
    assert not at.exception
    assert list(at.dataframe[0].value["id"]) == [second.id, first.id]
    at.text_input(key="gallery_search").input("GORGEOUS").run()
    assert list(at.dataframe[0].value["id"]) == [first.id]
    at.text_input(key="gallery_search").input("").run()
    at.selectbox(key="gallery_model").set_value("other").run()
    assert list(at.dataframe[0].value["id"]) == [second.id]
    at.selectbox(key="gallery_model").set_value("All").run()
    at.selectbox(key="gallery_label").set_value(first.label).run()
    assert first.id in list(at.dataframe[0].value["id"])
    at.selectbox(key="gallery_open").set_value(first.id).run()
    assert not at.exception and at.query_params["pin"] == first.id
    assert any(h.value == f"Pin {first.id}" for h in at.subheader)
    page = html_of(at)
    assert "<img" not in page and "&#60;img src=x onerror=alert&#40;1&#41;&#62;" in page  # the note, escaped
    shaded = pin_spans(first, 5)  # the default: the top 5 spans sharing no token
    assert shaded and {f'data-rank="{s.rank}"' for s in shaded} <= set(re.findall(r'data-rank="\d+"', page))
    assert len(set(re.findall(r'data-rank="\d+"', page))) == len(shaded)
    spans = at.dataframe[0].value
    stored = [s for s in first.explanation["spans"] if s["alpha"] > 0]
    assert list(spans["rank"]) == [s["rank"] for s in stored] and list(spans["span"]) == [s["text"] for s in stored]
    assert any(c.value.endswith(f"Gallery?pin={first.id}") for c in at.code)
    at.button(key="gallery_delete").click().run()
    assert not at.exception and "pin" not in at.query_params
    assert any(f"Deleted pin {first.id}" in s.value for s in at.success)
    assert [p.id for p in store.list()] == [second.id]


def test_permalink_opens_the_pin_and_unknown_ids_warn(store: GalleryStore, tiny_explainer) -> None:
    pin = _add(store, tiny_explainer, "A warm and funny story.", "")
    at = gallery(pin.id)
    assert not at.exception and any(h.value == f"Pin {pin.id}" for h in at.subheader)
    assert json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]["y"] == list(pin.explanation["probabilities"])
    at.button(key="gallery_close").click().run()
    assert "pin" not in at.query_params and not at.subheader
    at = gallery("no-such-pin")
    assert not at.exception and "No pin with id “no-such-pin”" in at.warning[0].value
    at = gallery("<script>")
    assert "&#60;script&#62;" in at.warning[0].value


def test_import_and_export(store: GalleryStore, tiny_explainer, tmp_path: Path) -> None:
    source = GalleryStore(f"sqlite:///{tmp_path / 'source.sqlite3'}")
    pins = [_add(source, tiny_explainer, f"Story number {n} is fine.", f"n{n}") for n in range(3)]
    data = pins_jsonl(source.iter_pins()).encode()
    at = gallery()
    assert any("No pins yet" in i.value for i in at.info)
    assert at.get("download_button") and at.get("download_button")[0].proto.label == "Export all pins (JSONL)"
    broken = data + b'{"id": "x1", "text": 5}\n'
    at.file_uploader(key="gallery_upload").set_value(("pins.jsonl", broken, "application/jsonl")).run()
    at.button(key="gallery_import").click().run()
    assert "Nothing imported: pins.jsonl, line 4: missing field(s)" in unescape(at.error[0].value)
    assert store.count() == 0
    at.file_uploader(key="gallery_upload").set_value(("pins.jsonl", data, "application/jsonl")).run()
    at.button(key="gallery_import").click().run()
    assert not at.exception and "Imported 3 pin(s)." in at.success[0].value
    assert sorted(p.id for p in store.list()) == sorted(p.id for p in pins)
    assert pins_jsonl(store.iter_pins()) == pins_jsonl(source.iter_pins())  # export = what was imported


def test_bad_database_url_is_shown_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELFEXPLAIN_DB_URL", "nosuchdb://host/<b>x</b>")
    at = gallery()
    assert not at.exception
    assert "cannot be opened: bad gallery database URL" in at.error[0].value and "<b>" not in at.error[0].value


def test_a_pin_with_one_weighted_span_offers_no_more(store: GalleryStore, tiny_explainer) -> None:
    """A sparse explanation's pin: the spans with alpha 0 are never offered (the slider went to 20)."""
    from dataclasses import replace

    import numpy as np

    explanation = tiny_explainer.explain("A warm and funny story.")
    top = explanation.top_spans(1)[0]
    alpha = np.zeros_like(explanation.alpha)
    alpha[top.start_token, top.end_token] = 1.0
    pin = store.add(replace(explanation, alpha=alpha), "tiny-sst")
    at = gallery(pin.id)
    assert not at.exception
    assert not [s for s in at.slider if s.label == "Spans to show"]
    assert "One span carries weight." in [c.value for c in at.caption]
    valid = pin.explanation["num_valid_spans"]  # the pin holds one span: it says so, not "the top 20 spans"
    assert (
        f"The pin keeps the one span that carries weight (the other {valid - 1:,} of {valid:,} have alpha 0); "
        "it does not keep the grid." in [c.value for c in at.caption]
    )
    several = store.add(explanation, "tiny-sst")  # softmax: every span weighted, at most 20 offered
    at = gallery(several.id)
    slider = next(s for s in at.slider if s.label == "Spans to show")
    assert slider.max == min(20, len(pin_spans(several, 20, overlapping=True))) and slider.value == 5
