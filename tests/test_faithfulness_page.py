"""AppTest of the Faithfulness page: pick a tiny model, run a small experiment, see the results."""

from __future__ import annotations

from pathlib import Path

from helpers import make_explainer
from streamlit.testing.v1 import AppTest

from selfexplain.checkpoint import save_model

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "2_Faithfulness.py")


def test_page_runs_a_small_experiment(tiny_encoder: Path, tmp_path: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=5)
    save_model(explainer.model, explainer.tokenizer, tmp_path / "tiny-sst")
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input(str(tmp_path / "tiny-sst")).run()
    assert not at.exception
    at.slider(key="sample_size").set_value(2)
    at.multiselect(key="explainers").set_value(["alpha", "loo", "random"])
    at.button(key="run").click().run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert table["explainer"].tolist() == ["alpha", "loo", "random"] and (table["examples"] == 2).all()
    assert len(at.get("plotly_chart")) == 3
    at.selectbox(key="drill").set_value(1).run()
    assert not at.exception
