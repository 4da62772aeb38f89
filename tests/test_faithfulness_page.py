"""AppTest of the Faithfulness page: pick a tiny model, run a small experiment, see the results."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from helpers import open_page

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "2_Faithfulness.py")


NAMES = ["Self-explaining alpha", "Leave-one-out", "Random"]


def shown_names(values: list[str]) -> list[str]:
    """Axis or legend text as a reader sees it (line breaks and entities resolved)."""
    return [html.unescape(v.replace("<br>", " ")) for v in values]


def test_page_runs_a_small_experiment(tiny_model_dir: Path) -> None:
    at = open_page(PAGE, tiny_model_dir)
    assert not at.exception
    intro = " ".join(m.value for m in at.markdown)
    assert "faithful" in intro and "removes words" in intro  # a plain-language introduction on landing
    assert not at.get("plotly_chart") and not at.dataframe  # nothing computed before Run
    from selfexplain.lab.faithfulness.experiment import FAST_EXPLAINERS

    assert at.multiselect(key="explainers").value == list(FAST_EXPLAINERS)  # LIME, KernelSHAP opt-in
    at.slider(key="sample_size").set_value(2)
    at.multiselect(key="explainers").set_value(["alpha", "loo", "random"])
    at.button(key="run").click().run()
    assert not at.exception and not at.error
    table = next(d.value for d in at.dataframe if "Method" in d.value.columns and "Inputs" in d.value.columns)
    assert table["Method"].tolist() == NAMES and (table["Inputs"] == 2).all()
    assert {"Comprehensiveness ↑", "Sufficiency ↓", "Share removed to flip ↓"} <= set(table.columns)
    for frame in at.dataframe:  # no code identifiers as column names or method names anywhere
        assert not any("_" in str(c) for c in frame.value.columns), frame.value.columns
        if "Method" in frame.value.columns:
            assert set(frame.value["Method"]) <= set(NAMES)
    captions = " ".join(c.value for c in at.caption)
    assert "Comprehensiveness (higher is better)" in captions and "Sufficiency (lower is better)" in captions
    legend = " ".join(m.value for m in at.expander[0].markdown)
    assert "**Agreement with leave-one-out ↑** (higher is better)" in legend
    sharp = next(d.value for d in at.dataframe if "measure" in d.value.columns)
    assert "mean largest alpha" in sharp["measure"].tolist() and sharp["value"].between(0, 1e9).all()
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(charts) == 3
    curves, flips, tau = (c["data"] for c in charts)
    assert shown_names([t["name"] for t in curves]) == NAMES
    assert shown_names([t["name"] for t in flips]) == NAMES
    assert shown_names(tau[0]["y"]) == ["Self-explaining alpha (1)", "Leave-one-out (2)", "Random (3)"]
    assert tau[0]["x"] == ["1", "2", "3"] and "Leave-one-out vs Random" in tau[0]["customdata"][1][2]
    alpha = next(d.value for d in at.dataframe if "Test" in d.value.columns)
    assert set(alpha["Better"]) <= {"higher", "lower", ""} and "lower" in set(alpha["Better"])
    at.selectbox(key="drill").set_value(1).run()
    assert not at.exception
    drill = next(d.value for d in at.dataframe if "Top tokens" in d.value.columns)
    assert drill["Method"].tolist() == NAMES


@pytest.mark.slow
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
    shown = [d.value for d in at.dataframe if "Top span is a polar phrase ↑" in d.value.columns]
    assert len(shown) == 1 and shown[0]["Top span is a polar phrase ↑"].tolist() == [1.0]
    assert shown[0]["Method"].tolist() == ["Self-explaining alpha"]
    summary = next(d.value for d in at.dataframe if "Inputs" in d.value.columns and "Sufficiency ↓" in d.value.columns)
    assert summary["Method"].tolist() == ["Self-explaining alpha", "Random"]
    markdown = (out / "summary.md").read_text(encoding="utf-8")
    assert "| Method | Comprehensiveness ↑ |" in markdown and "(lower is better)" in markdown
    assert "flip_fraction" not in markdown and "Self-explaining alpha" in markdown
