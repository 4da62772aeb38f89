"""AppTest of the Faithfulness page: pick a tiny model, run a small experiment, see the results."""

from __future__ import annotations

from pathlib import Path

from helpers import open_page

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "2_Faithfulness.py")


def test_page_runs_a_small_experiment(tiny_model_dir: Path) -> None:
    at = open_page(PAGE, tiny_model_dir)
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
