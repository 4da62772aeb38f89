"""Model cards: round trip, untrusted front matter refused, the shipped cards' numbers, train and eval
--record writing them, and the metadata config.json beside the weights."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from helpers import make_explainer

from selfexplain.core.modeling.checkpoint import HUB_CONFIG, load_model_directory, save_model
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.model_card import (
    CARD_FILE,
    Measure,
    ModelCard,
    base_model_of,
    card_from_config,
    md,
    parse_model_card,
    read_model_card,
    write_model_card,
)
from selfexplain.core.pipeline import SHIPPED_MODELS_DIR
from selfexplain.errors import ModelDirectoryError

HOSTILE = "<script>alert('x')</script> & [link](javascript:x) | *bold*"


def _card() -> ModelCard:
    return ModelCard(
        name="demo",
        encoder="all-MiniLM-L6-v2",
        labels=("neg", "pos"),
        base_model="sentence-transformers/all-MiniLM-L6-v2",
        datasets=("stanfordnlp/sst",),
        data=(("train", HOSTILE), ("dev", "dev.txt (10 examples)")),
        recipe=(("epochs", 2), ("learning_rate", 3e-5), ("compact", True), ("max_span_width", None)),
        dev_accuracy=0.75,
        test_accuracy=0.5,
        test_examples=4,
        test_data="test.txt",
        baseline="mean pooling",
        baseline_accuracy=0.625,
        sharpness=(Measure("mean largest alpha", "0.9", HOSTILE),),
        faithfulness=(Measure("comprehensiveness", "0.1", "higher is better"),),
        limitations=(HOSTILE, "second"),
        sources=("selfexplain eval --model demo --data test.txt --record",),
    )


def test_card_round_trips_and_escapes_the_body(tmp_path: Path) -> None:
    card = _card()
    path = write_model_card(tmp_path, card)
    assert path == tmp_path / CARD_FILE and read_model_card(tmp_path) == card
    text = path.read_text(encoding="utf-8")
    front, body = text.split("\n---\n", 1)
    for field in ("library_name: selfexplain", "pipeline_tag: text-classification", "base_model:", "datasets:"):
        assert field in front
    assert "- accuracy" in front and "value: 0.5" in front  # metrics and the model-index result
    assert "<script>" not in body and "\\<script\\>" in body and "\\[link\\]" in body and "\\&" in body
    assert "12.5 points below the baseline" in body  # 50% against 62.5%
    assert md("a | b") == "a \\| b" and md("two\nlines") == "two lines"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("# no front matter\n", "no front matter"),
        ("---\nselfexplain: [\n---\n", "not valid YAML"),
        ("---\n- a list\n---\n", "mapping"),
        ("---\nselfexplain: {name: x}\n---\n", "required"),
        ("---\nselfexplain: {name: x, labels: [a], pair: 'yes'}\n---\n", "pair has the wrong type"),
        ("---\nselfexplain: {name: x, labels: [a, [b]]}\n---\n", "labels has the wrong type"),
        ("---\nselfexplain: {name: x, labels: [a], accuracy: {test: 1.5}}\n---\n", "between 0 and 1"),
        ("---\nselfexplain: {name: x, labels: [a], accuracy: {test: true}}\n---\n", "wrong type"),
        ("---\nselfexplain: {name: x, labels: [a], recipe: {epochs: [1]}}\n---\n", "recipe has the wrong type"),
        ("---\nselfexplain: {name: x, labels: [a], sharpness: [3]}\n---\n", "must be a mapping"),
        ("---\nselfexplain: !!python/object:os.system {}\n---\n", "not valid YAML"),
    ],
)
def test_malformed_front_matter_is_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(ModelDirectoryError, match=reason):
        parse_model_card(text)


def test_unreadable_card_files_are_refused(tmp_path: Path) -> None:
    (tmp_path / CARD_FILE).mkdir()
    with pytest.raises(ModelDirectoryError, match="not a regular file"):
        read_model_card(tmp_path)
    (tmp_path / CARD_FILE).rmdir()
    (tmp_path / CARD_FILE).write_bytes(b"---\n" + b"x" * 1_000_001)
    with pytest.raises(ModelDirectoryError, match="larger than"):
        read_model_card(tmp_path)
    (tmp_path / CARD_FILE).write_bytes(b"---\n\xff\xfe\n---\n")
    with pytest.raises(ModelDirectoryError, match="UTF-8"):
        read_model_card(tmp_path)


@pytest.mark.parametrize("name", ["sst5-minilm", "snli-minilm"])
def test_shipped_cards_agree_with_the_shipped_configs(name: str) -> None:
    folder = SHIPPED_MODELS_DIR / name
    card, config = read_model_card(folder), ModelConfig.load(folder)
    assert card.name == name and list(card.labels) == config.label_names and card.pair == config.pair
    assert card.test_accuracy == config.metrics["test_accuracy"]
    assert card.dev_accuracy == config.metrics["dev_accuracy"]
    assert card.test_examples == int(config.metrics["test_examples"])
    assert card.base_model == "sentence-transformers/all-MiniLM-L6-v2" and card.datasets
    baseline = ModelConfig.load(SHIPPED_MODELS_DIR / f"{name}-mean")  # the card quotes its shipped baseline
    assert card.baseline_accuracy == baseline.metrics["test_accuracy"] and card.baseline.startswith(f"{name}-mean:")
    assert dict(card.recipe)["normaliser"] == config.normaliser in ("sparsemax", "entmax15")  # true zeros
    assert len(card.sharpness) >= 7 and card.limitations and card.sources
    assert all(m.measured_on for m in card.sharpness)
    assert all(s.startswith(("selfexplain ", "bash scripts/")) for s in card.sources)
    hub = json.loads((folder / HUB_CONFIG).read_text(encoding="utf-8"))
    assert hub["id2label"] == {str(i): n for i, n in enumerate(config.label_names)}


def test_config_card_for_a_baseline_and_hub_ids() -> None:
    config = ModelConfig(encoder="/tmp/local-encoder", label_names=["a", "b"], head="mean", name="base")
    card = card_from_config(config, {"train": "hf:stanfordnlp/sst:default", "dev": "dev.txt", "command": "c"})
    assert card.head == "mean" and card.base_model == "" and card.datasets == ("stanfordnlp/sst",)
    assert card.sources == ("c",) and dict(card.data) == {"train": "hf:stanfordnlp/sst:default", "dev": "dev.txt"}
    assert any("no span explanation" in item for item in card.limitations)
    assert base_model_of("org/model") == "org/model" and base_model_of("all-MiniLM-L6-v2").startswith("sentence-")


def test_train_writes_a_card_and_eval_record_updates_it(tiny_encoder: Path, tmp_path: Path) -> None:
    from selfexplain.cli import main

    data = tmp_path / "train.txt"
    data.write_text("".join(f"{i % 2} the film was {'great' if i % 2 else 'dull'}\n" for i in range(16)))
    out = tmp_path / "run"
    args = ["train", "--encoder", str(tiny_encoder), "--train", str(data), "--dev", str(data), "--out", str(out)]
    assert main([*args, "--labels", "neg,pos", "--epochs", "1", "--batch-size", "8", "--no-progress"]) == 0
    card = read_model_card(out / "best")
    metrics = json.loads((out / "metrics.json").read_text())
    assert card.dev_accuracy == metrics["best_dev_accuracy"] and card.test_accuracy is None
    recipe = dict(card.recipe)
    assert recipe["epochs"] == 1 and recipe["batch_size"] == 8 and recipe["span_unit"] == "word"
    assert "progress" not in recipe and recipe["learning_rate"] == 3e-5
    assert dict(card.data)["train"] == f"{data} (16 examples)"
    assert card.sources[0].startswith("selfexplain train --encoder") and "--epochs 1" in card.sources[0]
    enriched = replace(card, sharpness=(Measure("mean largest alpha", "0.5", "kept"),))
    write_model_card(out / "best", enriched)
    assert main(["eval", "--model", str(out / "best"), "--data", str(data), "--record", "--no-progress"]) == 0
    updated = read_model_card(out / "best")
    config = ModelConfig.load(out / "best")
    assert updated.test_accuracy == config.metrics["test_accuracy"] and updated.test_examples == 16
    assert updated.test_data == str(data) and updated.sharpness == enriched.sharpness
    assert updated.sources[-1].endswith("--record") and len(updated.sources) == 2


def test_hub_config_is_written_and_folders_without_it_still_load(tiny_encoder: Path, tmp_path: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=1)
    save_model(explainer.model, explainer.tokenizer, tmp_path / "m")
    hub = json.loads((tmp_path / "m" / HUB_CONFIG).read_text(encoding="utf-8"))
    assert hub["library_name"] == "selfexplain" and "model_type" not in hub
    assert hub["label2id"] == {n: i for i, n in enumerate(explainer.config.label_names)}
    (tmp_path / "m" / HUB_CONFIG).unlink()  # the layout written before config.json existed
    model, _ = load_model_directory(tmp_path / "m")
    for a, b in zip(model.state_dict().values(), explainer.model.state_dict().values()):
        torch.testing.assert_close(a, b)


def test_a_gap_under_a_tenth_of_a_point_is_said_in_inputs(tmp_path: Path) -> None:
    """snli-mpnet is 2 pairs of 9,824 below its baseline: "0.0 points below" would say nothing."""
    from dataclasses import replace

    card = replace(_card(), test_accuracy=8421 / 9824, baseline_accuracy=8423 / 9824, test_examples=9824)
    body = write_model_card(tmp_path, card).read_text(encoding="utf-8")
    assert "below the baseline by 2 of 9,824 inputs" in body and "0.0 points" not in body
