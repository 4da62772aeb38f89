"""AppTest checks of the Compare page: two models, a baseline, pair models, refusals, the share link."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "1_Compare.py")
TEXT = "The visuals are gorgeous, but the story is thin."


MODELS = {
    "tiny-a": {"seed": 1},
    "tiny-b": {"seed": 2},
    "tiny-base": {"seed": 3, "head": "mean"},
    "tiny-nli": {"seed": 4, "pair": True},
    "tiny-nli-2": {"seed": 5, "pair": True},
}


def charts(at: AppTest) -> dict[str, dict]:
    found = {}
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        found[(spec.get("layout", {}).get("title") or {}).get("text", "")] = spec
    return found


def param(at: AppTest, name: str) -> str | None:
    """A URL parameter as the page left it (AppTest keeps a string, or a list of one)."""
    value = at.query_params.get(name)
    return value[0] if isinstance(value, list) else value


def open_compare(monkeypatch: pytest.MonkeyPatch, models_dir: Path, **params: str) -> AppTest:
    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(models_dir))
    at = AppTest.from_file(PAGE, default_timeout=120)
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


@pytest.mark.slow
def test_two_models_side_by_side(monkeypatch: pytest.MonkeyPatch, models_dir: Path) -> None:
    at = open_compare(monkeypatch, models_dir, model_a="tiny-a", model_b="tiny-b", text=TEXT)
    assert not at.exception and not at.error
    assert [m.label for m in at.metric] == ["Prediction", "Prediction"]
    found = charts(at)
    grids = [found["A: alpha over word spans"], found["B: alpha over word spans"]]
    assert grids[0]["data"][0]["zmax"] == grids[1]["data"][0]["zmax"] > 0
    assert "A: raw self-attention, layer 2" in found
    assert "B: raw self-attention, layer 2" in found
    for title in ("A: alpha over word spans", "B: raw self-attention, layer 2"):  # half a page: bars across the top
        assert found[title]["data"][0]["colorbar"]["orientation"] == "h"
    assert any(c.value.startswith("Layer 2, the mean over its heads.") for c in at.caption)
    pins = [b for b in at.button if b.label == "Pin"]
    assert len(pins) == 2  # under their note boxes, whole (beside them, a half-page column cut the label to "P")
    assert any(title.startswith("Rank agreement over") for title in found)
    assert any("Rank-biased overlap of the two rankings" in caption.value for caption in at.caption)
    assert param(at, "model_a") == "tiny-a" and param(at, "model_b") == "tiny-b" and param(at, "text") == TEXT
    at.text_area(key="compare_text").input("A dull, lifeless film.").run()
    assert not at.exception
    assert param(at, "text") == "A dull, lifeless film."


def test_a_model_against_itself_agrees(monkeypatch: pytest.MonkeyPatch, models_dir: Path) -> None:
    at = open_compare(monkeypatch, models_dir, model_a="tiny-a", model_b="tiny-a", text=TEXT)
    assert not at.exception
    agreement = next(c.value for c in at.caption if "Rank-biased overlap" in c.value)
    assert "(Jaccard): 1.00" in agreement and "most): 1.00" in agreement


def test_baseline_column_shows_gradient_and_attention(monkeypatch: pytest.MonkeyPatch, models_dir: Path) -> None:
    at = open_compare(monkeypatch, models_dir, model_a="tiny-a", model_b="tiny-base", text=TEXT)
    assert not at.exception and not at.error
    found = charts(at)
    assert "B: gradient x input per word" in found and "B: alpha over word spans" not in found
    assert "B: raw self-attention, layer 2" in found and "A: alpha over word spans" in found
    assert any("plain baseline (mean head)" in info.value for info in at.info)
    assert any("common words, A ranks" in c.value and "gradient x input in favour" in c.value for c in at.caption)


def test_pair_models_get_two_boxes(monkeypatch: pytest.MonkeyPatch, models_dir: Path) -> None:
    at = open_compare(
        monkeypatch, models_dir, model_a="tiny-nli", model_b="tiny-nli-2", text="A dog runs.", pair="An animal moves."
    )
    assert not at.exception and not at.error
    assert [box.label for box in at.text_area] == ["Premise", "Hypothesis"]
    assert at.text_area(key="compare_pair").value == "An animal moves."
    assert "A: alpha over word spans" in charts(at)


def test_pair_and_single_text_models_are_refused(monkeypatch: pytest.MonkeyPatch, models_dir: Path) -> None:
    at = open_compare(monkeypatch, models_dir, model_a="tiny-a", model_b="tiny-nli", text=TEXT)
    assert not at.exception
    assert len(at.error) == 1 and "cannot be compared" in at.error[0].value
    assert "two pair models or two single-text models" in at.error[0].value
    assert not charts(at)


def test_default_partner_and_typed_folder(monkeypatch: pytest.MonkeyPatch, models_dir: Path) -> None:
    at = open_compare(monkeypatch, models_dir, model_a="tiny-nli", text="A dog runs.", pair="An animal moves.")
    partner = at.selectbox(key="model_b_choice").value  # the first other pair model (shipped or in the folder)
    assert partner in ("snli-minilm", "tiny-nli-2") and not at.error
    at.selectbox(key="model_b_choice").set_value("Other folder…").run()
    assert any("Type the path" in info.value for info in at.info)
    at.text_input(key="model_b_path").input(str(models_dir / "tiny-nli")).run()
    assert not at.exception and not at.error
    assert "model_b" not in at.query_params  # a typed folder is not put in the link


def test_markup_in_the_text_is_escaped(monkeypatch: pytest.MonkeyPatch, models_dir: Path) -> None:
    markup = "<img src=x onerror=alert(1)> **bold** a dull film"
    at = open_compare(monkeypatch, models_dir, model_a="tiny-a", model_b="tiny-base", text=markup)
    assert not at.exception
    shown = " ".join(element.proto.body for element in at.get("html"))
    assert "<img" not in shown and "&#60;img src=x onerror=alert&#40;1&#41;&#62;" in shown
    ticks = " ".join(charts(at)["A: alpha over word spans"]["layout"]["xaxis"]["ticktext"])
    assert "<" not in ticks and "&lt;" in ticks and "img" in ticks


def test_pin_each_side_from_compare(monkeypatch: pytest.MonkeyPatch, models_dir: Path, tmp_path: Path) -> None:
    from selfexplain.gallery.store import GalleryStore

    monkeypatch.setenv("SELFEXPLAIN_HOME", str(tmp_path / "home"))
    at = open_compare(monkeypatch, models_dir, model_a="tiny-a", model_b="tiny-b", text=TEXT)
    at.text_input(key="pin_B_note").input("model B's view").run()
    at.button(key="pin_B_button").click().run()
    assert not at.exception and not at.error
    pins = GalleryStore(f"sqlite:///{tmp_path / 'home' / 'gallery.sqlite3'}").list()
    assert [(p.model, p.note, p.text) for p in pins] == [("tiny-b", "model B's view", TEXT)]
    assert at.session_state["pin_B_pinned"]["id"] == pins[0].id and "pin_A_pinned" not in at.session_state


def test_the_text_box_takes_the_character_limit_setting(monkeypatch: pytest.MonkeyPatch, models_dir: Path) -> None:
    monkeypatch.setenv("SELFEXPLAIN_MAX_CHARS", "150000")
    at = open_compare(monkeypatch, models_dir)
    assert not at.exception
    assert at.text_area(key="compare_text").proto.max_chars == 150_000
    assert any("Limit 150,000 characters" in c.value for c in at.caption)


def test_compare_opens_on_two_self_explaining_models_of_one_task(
    monkeypatch: pytest.MonkeyPatch, models_dir: Path
) -> None:
    """Issue 58 item 11: with a second self-explaining model of the default model's task, Compare opens on the
    two of them (alpha against alpha), not on the default model's baseline; attention is drawn on the grids'
    words and says which layers each model reads."""
    import selfexplain.core.modeling.model_folders as folders

    shipped = models_dir.parent / "shipped-minilm"  # the shipped MiniLM pair only: the partner is tiny-a
    shipped.mkdir(exist_ok=True)
    for name in ("sst5-minilm", "sst5-minilm-mean"):
        if not (shipped / name).exists():
            (shipped / name).symlink_to(folders.SHIPPED_MODELS_DIR / name)
    monkeypatch.setattr(folders, "SHIPPED_MODELS_DIR", shipped)
    at = open_compare(monkeypatch, models_dir)
    assert not at.exception and not at.error
    assert at.selectbox(key="model_a_choice").value == "sst5-minilm"
    assert at.selectbox(key="model_b_choice").value == "tiny-a"  # the first self-explaining SST-5 model
    found = charts(at)
    assert "A: alpha over word spans" in found and "B: alpha over word spans" in found
    grid, attention = found["B: alpha over word spans"], found["B: raw self-attention, layer 2"]
    assert attention["layout"]["xaxis"]["ticktext"] == grid["layout"]["xaxis"]["ticktext"]  # words, no [CLS]
    assert sum("the layers this model reads" in c.value for c in at.caption) == 2


def test_compare_falls_back_to_the_baseline_with_one_self_explaining_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import selfexplain.core.modeling.model_folders as folders

    shipped = tmp_path / "shipped"  # one self-explaining SST-5 model, its baseline, and a model of another task
    shipped.mkdir()
    for name in ("sst5-minilm", "sst5-minilm-mean", "sst2-mpnet"):
        (shipped / name).symlink_to(folders.SHIPPED_MODELS_DIR / name)
    monkeypatch.setattr(folders, "SHIPPED_MODELS_DIR", shipped)
    monkeypatch.setenv("SELFEXPLAIN_MODELS_DIR", str(tmp_path / "none"))
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception
    # its own baseline, not the first model that reads one text ("sst2-mpnet" sorts first)
    assert at.selectbox(key="model_b_choice").value == "sst5-minilm-mean"


def test_the_shipped_default_pairs_minilm_with_mpnet() -> None:
    """Out of the box Compare sets two self-explaining models of one task side by side (SST-5 and SNLI)."""
    from selfexplain.core.modeling.model_folders import SHIPPED_MODELS_DIR
    from selfexplain.methods.analysis.compare import default_partner

    shipped = {p.parent.name: p.parent for p in SHIPPED_MODELS_DIR.glob("*/selfexplain.json")}
    assert default_partner("sst5-minilm", shipped) == "sst5-mpnet"
    assert default_partner("sst5-minilm-mean", shipped) == "sst5-minilm"  # a baseline: its own task first
    assert default_partner("snli-minilm", shipped) == "snli-mpnet"  # two self-explaining SNLI models too
