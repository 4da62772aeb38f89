"""The lab on a tiny model: span identity, a full run, resume after a kill, tables, figures, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from selfexplain.data import Example
from selfexplain.errors import InvalidInputError
from selfexplain.lab.faithfulness import alpha_tests, figures, summary
from selfexplain.lab.faithfulness.experiment import RESULTS_FILE, LabOptions, run_lab
from selfexplain.support.progress_log import iter_rows

TEXTS = ["good plot bad acting", "a dull, lifeless film", "sweet and funny", "the story is thin"]
OPTIONS = LabOptions(explainers=("alpha", "gradient", "loo", "random"), adversarial_steps=10, permutations=20)


def test_span_view_reproduces_the_logits(tiny_explainer) -> None:
    instance = tiny_explainer.instance("The visuals are gorgeous, but the story is thin.")
    view = alpha_tests.span_view(tiny_explainer, instance)
    assert view.alpha.shape[0] == instance.num_tokens * (instance.num_tokens + 1) // 2
    np.testing.assert_allclose(view.logits(view.alpha), instance.output.logits[0].numpy(), atol=1e-4)


def test_resume_refuses_another_file_of_the_same_length(tiny_explainer, tmp_path: Path) -> None:
    from selfexplain.errors import InvalidInputError

    examples = [Example(t, label=i % 5) for i, t in enumerate(TEXTS[:2])]
    run_lab(tiny_explainer, examples, OPTIONS, tmp_path / "run")
    other = [Example(t + " again", label=e.label) for t, e in zip(TEXTS[:2], examples)]
    with pytest.raises(InvalidInputError, match="other settings"):
        run_lab(tiny_explainer, other, OPTIONS, tmp_path / "run")


def test_resume_after_a_kill_matches_an_uninterrupted_run(tiny_explainer, tmp_path: Path) -> None:
    examples = [Example(t, label=i % 5) for i, t in enumerate(TEXTS)]
    whole = run_lab(tiny_explainer, examples, OPTIONS, tmp_path / "whole")

    def killer(done: int, total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_lab(tiny_explainer, examples, OPTIONS, tmp_path / "killed", killer)
    results = tmp_path / "killed" / RESULTS_FILE
    with results.open("a", encoding="utf-8") as handle:
        handle.write('{"index": 2, "text": "a dul')  # a torn write
    resumed = run_lab(tiny_explainer, examples, OPTIONS, tmp_path / "killed")
    assert [r["index"] for r in list(iter_rows(results))] == [0, 1, 2, 3]
    pd.testing.assert_frame_equal(summary.summary_table(whole), summary.summary_table(resumed))
    pd.testing.assert_frame_equal(summary.summary_table(whole), summary.summary_table(list(iter_rows(results))))
    with pytest.raises(InvalidInputError, match="other settings"):
        run_lab(tiny_explainer, examples, LabOptions(explainers=("loo",)), tmp_path / "killed")

    table = summary.summary_table(whole)
    assert table["explainer"].tolist() == ["alpha", "gradient", "loo", "random"]
    assert {"comprehensiveness", "sufficiency", "flip_fraction"} <= set(table.columns)
    assert table.set_index("explainer").loc["loo", "tau_loo"] == 1.0
    tau = summary.tau_matrix(whole)
    np.testing.assert_allclose(np.diag(tau.values), 1.0)
    alpha = summary.alpha_table(whole).set_index("test")
    assert 0.0 <= alpha.loc["accuracy: uniform alpha", "value"] <= 1.0
    assert alpha.loc["spans removed until the label flips (highest alpha first)", "better"] == "lower"
    assert alpha.loc["prediction kept reading only the top alpha span", "better"] == "higher"
    assert not any("_" in test for test in alpha.index)  # no code identifiers such as alpha_x_gradient
    names = ["Self-explaining alpha", "Gradient saliency", "Leave-one-out", "Random"]
    curves = figures.curve_figure(summary.curve_table(whole))
    assert [t.name for t in curves.data] == names
    flips = figures.flip_figure(summary.flip_table(whole))
    assert [t.name.replace("<br>", " ") for t in flips.data] == names
    heat = figures.tau_figure(tau).data[0]
    assert heat.z.shape == (4, 4) and list(heat.x) == ["1", "2", "3", "4"]
    assert [y.replace("<br>", " ") for y in heat.y] == [f"{n} ({i})" for i, n in enumerate(names, start=1)]
    drill = summary.drilldown_table(whole[0])
    assert len(drill) == 4 and all(isinstance(t, str) for t in drill["top tokens"])


@pytest.mark.slow
def test_cli_writes_the_report(tiny_encoder, tmp_path: Path) -> None:
    from helpers import make_explainer

    from selfexplain.cli import main
    from selfexplain.core.modeling.checkpoint import save_model

    explainer = make_explainer(tiny_encoder, seed=3)
    save_model(explainer.model, explainer.tokenizer, tmp_path / "model")
    data = tmp_path / "data.txt"
    data.write_text("3 sweet and funny\n0 a dull film\n1 thin story\n", encoding="utf-8")
    args = ["faithfulness", "--model", str(tmp_path / "model"), "--data", str(data), "--out", str(tmp_path / "out")]
    assert main([*args, "--limit", "2", "--explainers", "alpha,random", "--no-progress"]) == 0
    frame = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert frame["explainer"].tolist() == ["alpha", "random"] and (frame["examples"] == 2).all()
    assert (tmp_path / "out" / "curves.html").is_file() and (tmp_path / "out" / "summary.md").is_file()
    assert len((tmp_path / "out" / RESULTS_FILE).read_text().splitlines()) == 2
    assert json.loads((tmp_path / "out" / "run.json").read_text())["explainers"] == ["alpha", "random"]
    fast = ["--limit", "2", "--explainers", "alpha,random", "--no-progress", "--precision", "bfloat16"]
    assert main([*args, *fast]) == 2  # the folder holds a float32 run: other settings
    bf16 = tmp_path / "bf16"
    assert main([*args[:-1], str(bf16), *fast, "--workers", "2"]) == 0
    assert json.loads((bf16 / "run.json").read_text())["precision"] == "bfloat16"
    assert pd.read_csv(bf16 / "summary.csv")["explainer"].tolist() == ["alpha", "random"]
    assert main([*args, "--explainers", "nope", "--no-progress"]) == 2
    trees = tmp_path / "trees.txt"
    trees.write_text("(4 (3 sweet) (4 (2 and) (3 funny)))\n(0 (2 a) (0 (1 dull) (2 film)))\n", encoding="utf-8")
    tree_args = [*args, "--limit", "2", "--explainers", "alpha,random", "--no-progress", "--trees", str(trees)]
    assert main(tree_args) == 0
    plausible = pd.read_csv(tmp_path / "out" / "plausibility.csv")
    assert set(plausible["explainer"]) <= {"alpha", "random"} and (plausible["examples"] <= 2).all()
    assert "Plausibility" in (tmp_path / "out" / "summary.md").read_text()
    assert main([*args, "--trees", str(tmp_path / "missing.txt")]) == 2


@pytest.mark.slow
def test_two_worker_processes_give_the_single_process_rows(tiny_model_dir: Path, tmp_path: Path) -> None:
    from selfexplain.core.pipeline import load_model

    model = load_model(tiny_model_dir)
    examples = [Example(t, label=i % 5) for i, t in enumerate(TEXTS)]
    options = LabOptions(explainers=("alpha", "loo", "random"), permutations=5, adversarial_steps=3)
    single = run_lab(model, examples, options, tmp_path / "one")
    seen: list[int] = []
    parallel = run_lab(model, examples, options, tmp_path / "two", lambda d, t: seen.append(d), workers=2)
    assert seen == [1, 2, 3, 4]
    assert [r["index"] for r in parallel] == [0, 1, 2, 3]
    for a, b in zip(single, parallel):
        assert a["predicted"] == b["predicted"] and a["tokens"] == b["tokens"]
        np.testing.assert_allclose(a["probabilities"], b["probabilities"], atol=1e-5)
        for name in options.explainers:
            assert a["explainers"][name]["top"] == b["explainers"][name]["top"]
            assert a["explainers"][name]["comprehensiveness"] == pytest.approx(
                b["explainers"][name]["comprehensiveness"], abs=1e-5
            )
    with pytest.raises(ValueError, match="model from its folder"):
        in_memory = load_model(tiny_model_dir)
        in_memory.directory = None
        run_lab(in_memory, examples, options, None, workers=2)
