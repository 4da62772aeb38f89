"""Which encoder layers reach the decision: the read-out layer resolved from the config, and the caption the
attention views carry ("Layers 1-k: the layers this model reads") on Explain, Compare and Attention anatomy;
the anatomy page's default Run with the no-op gradient test on a model that reads an inner layer (issue 58
item 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import make_explainer, open_page

from selfexplain.core.modeling.checkpoint import save_model
from selfexplain.core.modeling.read_out import layers_read, read_out_layer
from selfexplain.views.word_attention import layers_caption

ROOT = Path(__file__).resolve().parents[1]


def test_the_read_out_layer_and_its_caption() -> None:
    assert read_out_layer(-1, 6) == 6 and read_out_layer(3, 6) == 3 and read_out_layer(-7, 6) == 0
    with pytest.raises(ValueError):
        read_out_layer(7, 6)
    assert layers_caption(3) == "Layers 1-3: the layers this model reads."
    assert layers_caption(3, 3) == layers_caption(3)
    assert layers_caption(3, 6).endswith("The encoder also ran layers 4-6, which never reach its decision.")
    assert layers_caption(1, 2) == (
        "Layer 1: the layer this model reads. The encoder also ran layer 2, which never reaches its decision."
    )


@pytest.fixture(scope="module")
def inner_model(tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    explainer = make_explainer(tiny_encoder, seed=6, encoder_layer=1)  # reads hidden state 1
    assert layers_read(explainer.model) == 1
    folder = tmp_path_factory.mktemp("inner") / "tiny-inner"
    save_model(explainer.model, explainer.tokenizer, folder)
    return folder


def test_explain_says_which_layers_the_model_reads(inner_model: Path) -> None:
    at = open_page(ROOT / "app.py", inner_model)
    at.text_area(key="text").input("The visuals are gorgeous, but the story is thin.").run()
    assert not at.exception
    assert any(c.value.startswith("Layer 1: the layer this model reads.") for c in at.caption)


def test_anatomy_default_run_draws_on_a_model_that_reads_an_inner_layer(inner_model: Path) -> None:
    at = open_page(ROOT / "pages" / "3_Attention_anatomy.py", inner_model)
    assert at.checkbox(key="anat_grad").value  # the no-op gradient test is on by default
    at.slider(key="anat_limit").set_value(20).run()
    at.button(key="anat_run").click().run()
    assert not at.exception and not at.error
    titles = [e.proto.spec for e in at.get("plotly_chart")]
    assert any("No-op test" in spec for spec in titles)
    assert any(c.value.startswith("Layer 1: the layer this model reads.") for c in at.caption)
