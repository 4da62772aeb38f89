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
    table = next(d.value for d in at.dataframe if "explainer" in d.value.columns)
    assert table["explainer"].tolist() == ["alpha", "loo", "random"] and (table["examples"] == 2).all()
    sharp = next(d.value for d in at.dataframe if "measure" in d.value.columns)
    assert "mean largest alpha" in sharp["measure"].tolist() and sharp["value"].between(0, 1e9).all()
    assert len(at.get("plotly_chart")) == 3
    at.selectbox(key="drill").set_value(1).run()
    assert not at.exception


def test_page_opens_a_results_folder_with_plausibility(tiny_model_dir: Path, tmp_path: Path) -> None:
    from selfexplain.cli import main

    data = tmp_path / "data.txt"
    data.write_text("4 sweet and funny\n0 a dull film\n", encoding="utf-8")
    trees = tmp_path / "trees.txt"
    trees.write_text("(4 (3 sweet) (4 (2 and) (3 funny)))\n(0 (2 a) (0 (1 dull) (2 film)))\n", encoding="utf-8")
    out = tmp_path / "run"
    args = ["faithfulness", "--model", str(tiny_model_dir), "--data", str(data), "--out", str(out)]
    assert main([*args, "--explainers", "alpha,random", "--no-progress", "--trees", str(trees)]) == 0
    (out / "plausibility.csv").write_text("explainer,strong_phrase,polar_phrase,examples\nalpha,0.5,1.0,2\n")
    at = open_page(PAGE, tiny_model_dir)
    at.radio(key="mode").set_value("Open a results folder").run()
    at.text_input(key="results_dir").input(str(out)).run()
    assert not at.exception and not at.error
    assert any("polar SST phrase" in h.value for h in at.subheader)
    shown = [d.value for d in at.dataframe if "polar_phrase" in d.value.columns]
    assert len(shown) == 1 and shown[0]["polar_phrase"].tolist() == [1.0]
