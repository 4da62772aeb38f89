"""Every encoder family end to end on tiny random models: explain (single, pair, windows), train,
save and load, CLI, batch, the faithfulness lab and the Explain page."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from families import FAMILIES, build_family_encoder
from helpers import make_explainer
from streamlit.testing.v1 import AppTest

from selfexplain.batch.reader import RowReader
from selfexplain.batch.runner import BatchOptions, run_batch
from selfexplain.checkpoint import save_model
from selfexplain.cli import main
from selfexplain.config import ModelConfig
from selfexplain.data import Example
from selfexplain.faithfulness.experiment import LabOptions, run_lab
from selfexplain.families import family_of
from selfexplain.pipeline import load_model
from selfexplain.progress_log import iter_rows
from selfexplain.training import TrainOptions, train

APP = str(Path(__file__).resolve().parents[1] / "app.py")
LONG = " ".join(["the film is good but slow and the ending is dull"] * 30)  # ~330 tokens: windows of 128


@pytest.fixture(scope="module", params=FAMILIES)
def family(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    return request.param, build_family_encoder(request.param, tmp_path_factory.mktemp(request.param))


def test_explain_single_pair_and_windows(family: tuple[str, Path]) -> None:
    name, encoder = family
    single = make_explainer(encoder).explain("the film is good but  slow", attentions=True)
    assert single.tokens and all(t.text.strip() == t.text and t.text for t in single.tokens)
    assert np.isclose(single.alpha[single.span_mask].sum(), 1.0, atol=1e-5)
    assert all(not s.text.startswith(" ") for s in single.top_spans(10))
    assert single.attentions is not None and single.attentions.shape[0] == 2
    pair = make_explainer(encoder, pair=True).explain("a man sleeps", pair="a dog runs", attentions=False)
    rows, cols = np.nonzero(pair.span_mask)
    segments = np.array([t.segment for t in pair.tokens])
    assert (segments[rows] == segments[cols]).all() and set(segments) == {0, 1}  # no span crosses the texts
    long = make_explainer(encoder).explain(LONG)
    assert long.windows is not None and len(long.windows) >= 3
    assert np.isclose(long.alpha[long.span_mask].sum(), 1.0, atol=1e-4)
    decoder = name in ("gpt2", "llama")
    assert family_of(make_explainer(encoder).model.encoder.config).causal == decoder


def test_summary_baseline_reads_the_family_position(family: tuple[str, Path]) -> None:
    name, encoder = family
    explainer = make_explainer(encoder, head="cls")
    batch = explainer.encode(["the film is good", "slow"])
    output = explainer.run(batch)
    model = explainer.model
    with torch.no_grad():
        hidden = model.encoder(input_ids=batch.input_ids, attention_mask=batch.attention_mask).last_hidden_state
        last = batch.attention_mask.sum(dim=1) - 1
        read = hidden[torch.arange(2), last] if name in ("gpt2", "llama") else hidden[:, 0]
        expected = model.output(read)
    torch.testing.assert_close(output.logits, expected, atol=1e-5, rtol=1e-4)


def test_train_save_load_cli_batch_and_lab(family: tuple[str, Path], tmp_path: Path, capsys) -> None:  # noqa: ANN001
    name, encoder = family
    words = {1: ["great", "fine", "moving"], 0: ["dull", "awful", "boring"]}
    data = [Example(f"the film was {words[i % 2][i % 3]} and long", None, i % 2) for i in range(24)]
    config = ModelConfig(encoder=str(encoder), label_names=["neg", "pos"], name=f"tiny-{name}", max_length=128)
    options = TrainOptions(epochs=1, batch_size=8, learning_rate=1e-3, head_learning_rate=1e-2, progress=False)
    metrics = train(config, data, data[:8], tmp_path / "run", options)
    assert 0.0 <= metrics["best_dev_accuracy"] <= 1.0
    loaded = load_model(tmp_path / "run" / "best")
    again = load_model(tmp_path / "run" / "best")
    text = "the film was great and long"
    np.testing.assert_allclose(loaded.explain(text).probabilities, again.explain(text).probabilities, atol=1e-6)
    assert loaded.tokenizer.pad_token is not None

    capsys.readouterr()  # training's progress lines
    assert main(["explain", text, "--model", str(tmp_path / "run" / "best"), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["label"] == loaded.explain(text).label

    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"text": e.text}) + "\n" for e in data[:4]) + json.dumps({"text": LONG}) + "\n")
    assert run_batch(loaded, RowReader(rows), tmp_path / "out.jsonl", BatchOptions(), progress=False) == 5
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert all(r["label"] in ("neg", "pos") for r in records)

    lab = LabOptions(explainers=("alpha", "gradient", "loo"), adversarial_steps=5, permutations=5)
    run_lab(loaded, data[:2], lab, tmp_path / "lab")
    assert len(list(iter_rows(tmp_path / "lab" / "results.jsonl"))) == 2


def test_explain_page_with_each_family(family: tuple[str, Path], tmp_path: Path) -> None:
    name, encoder = family
    explainer = make_explainer(encoder)
    save_model(explainer.model, explainer.tokenizer, tmp_path / f"tiny-{name}")
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.selectbox(key="model_choice").set_value("Other folder…").run()
    at.text_input(key="model_path").input(str(tmp_path / f"tiny-{name}")).run()
    at.text_area(key="text").input("the film is good but slow").run()
    assert not at.exception and not at.error
    assert at.metric[0].value == explainer.explain("the film is good but slow").label
