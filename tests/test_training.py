from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import selfexplain.methods.training.loop as loop
from selfexplain.core.modeling.checkpoint import load_model_directory
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.data import Example
from selfexplain.errors import USER_ERRORS, TrainingDivergedError
from selfexplain.methods.training.loop import TrainOptions, epoch_batches, train

WORDS = {1: ["great", "superb", "moving", "fine"], 0: ["dull", "awful", "boring", "weak"]}


def toy_examples(count: int) -> list[Example]:
    rows = []
    for i in range(count):
        label = i % 2
        rows.append(Example(f"the film was {WORDS[label][i % 4]} and long", None, label))
    return rows


def test_train_learns_toy_task_writes_best_and_resumes(tiny_encoder: Path, tmp_path: Path) -> None:
    # lambda 0: on a 16-step run the sparsity reward would dominate the tiny model's cross-entropy
    config = ModelConfig(
        encoder=str(tiny_encoder), label_names=["neg", "pos"], name="toy", max_length=128, lambda_=0.0, dropout=0.0
    )
    options = TrainOptions(epochs=2, batch_size=8, learning_rate=1e-3, head_learning_rate=1e-2, progress=False)
    data = toy_examples(64)
    metrics = train(config, data, data[:16], tmp_path / "run", options)
    assert [h["epoch"] for h in metrics["history"]] == [1, 2]
    assert metrics["best_dev_accuracy"] >= 0.9
    written = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert written["best_dev_accuracy"] == metrics["best_dev_accuracy"]
    model, _ = load_model_directory(tmp_path / "run" / "best")
    assert model.config.metrics["dev_accuracy"] == metrics["best_dev_accuracy"]
    # a third epoch resumes from last/ rather than starting over
    more = train(config, data, data[:16], tmp_path / "run", TrainOptions(**{**options.__dict__, "epochs": 3}))
    assert [h["epoch"] for h in more["history"]] == [1, 2, 3]


@pytest.mark.parametrize(("keep", "epoch"), [("best", 1.0), ("last", 2.0)])
def test_keep_chooses_the_epoch_best_holds(
    tiny_encoder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep: str, epoch: float
) -> None:
    """Dev accuracy falls after epoch 1: ``keep="best"`` keeps epoch 1, ``keep="last"`` the final epoch."""
    from types import SimpleNamespace

    scores = iter([0.9, 0.5])
    monkeypatch.setattr(loop, "predict_examples", lambda *a, **k: SimpleNamespace(accuracy=next(scores)))
    config = ModelConfig(encoder=str(tiny_encoder), label_names=["neg", "pos"], name="toy", lambda_=0.0)
    options = TrainOptions(epochs=2, batch_size=8, learning_rate=1e-3, progress=False, keep=keep)  # type: ignore[arg-type]
    metrics = train(config, toy_examples(32), toy_examples(8), tmp_path / "run", options)
    model, _ = load_model_directory(tmp_path / "run" / "best")
    assert model.config.metrics == {"dev_accuracy": 0.9 if keep == "best" else 0.5, "epoch": epoch}
    assert metrics["best_dev_accuracy"] == model.config.metrics["dev_accuracy"]
    last, _ = load_model_directory(tmp_path / "run" / "last")
    same = all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), last.state_dict().values()))
    assert same is (keep == "last")


def test_epoch_batches_cover_every_example_once_and_are_seeded() -> None:
    data = toy_examples(101)
    batches = epoch_batches(data, 8, seed=1)
    assert sorted(i for b in batches for i in b) == list(range(101))
    assert batches == epoch_batches(data, 8, seed=1)
    assert batches != epoch_batches(data, 8, seed=2)


def test_windowed_training_reads_long_texts_whole(tiny_encoder: Path, tmp_path: Path) -> None:
    from helpers import make_explainer

    from selfexplain.methods.training.loop import batch_loss

    explainer = make_explainer(tiny_encoder, seed=2)
    long_text = " ".join(["the film was great"] * 30)  # ~120 tokens, over a 32-token window
    chunk = [Example(long_text, None, 1), Example("dull", None, 0)]
    options = TrainOptions(max_length=32, long_inputs="windows")
    loss = batch_loss(explainer.model, explainer.tokenizer, chunk, options, torch.device("cpu"))
    loss.backward()
    grads = [p.grad for p in explainer.model.span_layer.parameters()]
    assert torch.isfinite(loss) and all(g is not None and torch.isfinite(g).all() for g in grads)
    # truncation gives a different loss: the long text's tail is dropped
    truncated = batch_loss(
        explainer.model, explainer.tokenizer, chunk, TrainOptions(max_length=32), torch.device("cpu")
    )
    assert not torch.isclose(loss, truncated)


def test_temperature_anneals_geometrically_to_one() -> None:
    from selfexplain.methods.training.loop import annealed_temperature

    assert annealed_temperature(0, 100, 10.0) == 10.0
    assert abs(annealed_temperature(25, 100, 10.0) - 10**0.5) < 1e-9
    assert annealed_temperature(50, 100, 10.0) == 1.0 and annealed_temperature(99, 100, 10.0) == 1.0
    assert annealed_temperature(10, 100, 1.0) == 1.0


def test_sparse_word_level_training_runs_and_saves_at_temperature_one(tiny_encoder, tmp_path) -> None:
    """One epoch of the shipped recipe on a tiny model: the saved model has sparse alpha, word spans and
    inference temperature 1."""
    from selfexplain.cli import main
    from selfexplain.core.pipeline import load_model

    data = tmp_path / "train.txt"
    data.write_text(
        "".join(f"{i % 2} {'a dull film' if i % 2 == 0 else 'a bright warm film'} {i}\n" for i in range(24))
    )
    args = ["train", "--encoder", str(tiny_encoder), "--train", str(data), "--dev", str(data), "--labels", "neg,pos"]
    args += ["--out", str(tmp_path / "run"), "--epochs", "1", "--batch-size", "8", "--no-progress"]
    assert main([*args, "--normaliser", "sparsemax", "--anneal-temperature", "10"]) == 0
    model = load_model(tmp_path / "run" / "best", fused=False)
    assert model.config.span_unit == "word" and model.config.normaliser == "sparsemax"
    assert model.model.span_layer.temperature == 1.0
    explanation = model.explain("a bright and warm film")
    assert abs(float(explanation.alpha.sum()) - 1) < 1e-5 and (explanation.alpha[explanation.span_mask] == 0).any()
    assert main([*args, "--anneal-temperature", "0"]) == 2


def test_a_bad_model_option_is_refused_in_one_line(tiny_encoder, tmp_path, capsys) -> None:
    """Every field is checked by ModelConfig itself, before training starts: one line, no traceback."""
    from selfexplain.cli import main

    data = tmp_path / "train.txt"
    data.write_text("0 a dull film\n1 a bright film\n")
    args = ["train", "--encoder", str(tiny_encoder), "--train", str(data), "--dev", str(data), "--labels", "neg,pos"]
    args += ["--out", str(tmp_path / "run"), "--epochs", "1", "--no-progress"]
    for option, value, message in [
        ("--max-span-width", "0", "the model: max_span_width must be at least 1"),
        ("--span-length-prior", "-1", "the model: span_length_prior must be at least 0"),
        ("--lambda", "-0.5", "the model: lambda_ must be at least 0"),
    ]:
        assert main([*args, option, value]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0] and "Traceback" not in err[0]
    assert not (tmp_path / "run").exists()  # refused before anything was written


def _nan_on(steps: set[int], monkeypatch) -> None:
    """Make ``batch_loss`` return NaN on the given (1-based) calls."""
    real = loop.batch_loss
    calls = {"n": 0}

    def poisoned(*args, **kwargs):
        calls["n"] += 1
        loss = real(*args, **kwargs)
        return loss * float("nan") if calls["n"] in steps else loss

    monkeypatch.setattr(loop, "batch_loss", poisoned)


def test_a_non_finite_step_is_skipped_and_reported(tiny_encoder: Path, tmp_path: Path, monkeypatch) -> None:
    torch.manual_seed(0)
    _nan_on({2}, monkeypatch)
    config = ModelConfig(encoder=str(tiny_encoder), label_names=["neg", "pos"], name="toy", lambda_=0.0, dropout=0.0)
    options = TrainOptions(epochs=1, batch_size=8, learning_rate=1e-3, head_learning_rate=1e-2, progress=False)
    metrics = train(config, toy_examples(32), toy_examples(8), tmp_path / "run", options)
    assert metrics["history"][0]["skipped_steps"] == 1
    model, _ = load_model_directory(tmp_path / "run" / "best")
    assert all(torch.isfinite(p).all() for p in model.parameters())


def test_training_that_keeps_diverging_stops_with_one_line(tiny_encoder: Path, tmp_path: Path, monkeypatch) -> None:
    _nan_on(set(range(1, 100)), monkeypatch)
    monkeypatch.setattr(loop, "MAX_SKIPPED_STEPS", 2)
    config = ModelConfig(encoder=str(tiny_encoder), label_names=["neg", "pos"], name="toy", lambda_=0.0)
    options = TrainOptions(epochs=1, batch_size=8, progress=False)
    with pytest.raises(TrainingDivergedError, match="3 steps of epoch 1 had a non-finite") as raised:
        train(config, toy_examples(32), toy_examples(8), tmp_path / "run", options)
    assert isinstance(raised.value, USER_ERRORS) and "--lr" in str(raised.value)


def test_encoder_dropout_zero_makes_training_mode_deterministic(tiny_encoder: Path) -> None:
    """With the encoder's dropout at 0 (and the head's), two training-mode forwards agree; at the
    encoder's own rate they differ. The encoder config keeps its own rate (the setting is not saved)."""
    from selfexplain.core.modeling.model import SelfExplainingModel

    torch.manual_seed(0)
    config = ModelConfig(encoder=str(tiny_encoder), label_names=["neg", "pos"], name="toy", dropout=0.0)
    model = SelfExplainingModel(config).train()
    ids = torch.randint(5, 100, (2, 9))
    mask = torch.ones_like(ids)

    def hidden() -> torch.Tensor:
        return model.encoder(input_ids=ids, attention_mask=mask).last_hidden_state

    assert not torch.equal(hidden(), hidden())
    own = model.encoder.config.hidden_dropout_prob
    assert loop.set_encoder_dropout(model, 0.0) > 0
    assert torch.equal(hidden(), hidden())
    assert model.encoder.config.hidden_dropout_prob == own


def _final_weights(directory: Path) -> dict[str, torch.Tensor]:
    model, _ = load_model_directory(directory)
    return {k: v.clone() for k, v in model.state_dict().items()}


def test_a_run_stopped_mid_epoch_resumes_bit_for_bit(tiny_encoder: Path, tmp_path: Path) -> None:
    # dropout on (the random state must be restored too); eager span layer: native kernels sum in thread order
    config = ModelConfig(encoder=str(tiny_encoder), label_names=["neg", "pos"], name="toy", max_length=128)
    base = dict(epochs=2, batch_size=8, learning_rate=1e-3, head_learning_rate=1e-2, progress=False, fused=False)
    data = toy_examples(48)  # 6 steps an epoch
    whole = train(config, data, data[:16], tmp_path / "whole", TrainOptions(**base))
    stopped = TrainOptions(**base, checkpoint_steps=2, stop_after_steps=4)
    assert train(config, data, data[:16], tmp_path / "parts", stopped) == {}  # stopped at step 4 of epoch 1
    state = json.loads((tmp_path / "parts" / "last" / loop.STATE_JSON).read_text())
    assert (state["epoch"], state["step"]) == (0, 4)
    assert train(config, data, data[:16], tmp_path / "parts", stopped) == {}  # 4 more: step 2 of epoch 2
    state = json.loads((tmp_path / "parts" / "last" / loop.STATE_JSON).read_text())
    assert (state["epoch"], state["step"]) == (1, 2)
    parts = train(config, data, data[:16], tmp_path / "parts", TrainOptions(**base, checkpoint_steps=2))
    assert parts["history"] == whole["history"]
    a, b = _final_weights(tmp_path / "whole" / "last"), _final_weights(tmp_path / "parts" / "last")
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_freeze_layers_keeps_embeddings_and_lower_layers_pretrained(tiny_encoder: Path, tmp_path: Path) -> None:
    config = ModelConfig(encoder=str(tiny_encoder), label_names=["neg", "pos"], name="toy", max_length=128)
    options = TrainOptions(epochs=1, batch_size=8, learning_rate=1e-2, progress=False, freeze_layers=1)
    train(config, toy_examples(16), toy_examples(8), tmp_path / "run", options)
    model, _ = load_model_directory(tmp_path / "run" / "best")
    from transformers import AutoModel

    pretrained = AutoModel.from_pretrained(tiny_encoder).state_dict()
    trained = model.encoder.state_dict()
    frozen = [k for k in trained if k.startswith("embeddings.") or k.startswith("encoder.layer.0.")]
    moved = [k for k in trained if k.startswith("encoder.layer.1.") and k.endswith("weight")]
    assert frozen and all(torch.equal(trained[k], pretrained[k]) for k in frozen)
    assert moved and any(not torch.equal(trained[k], pretrained[k]) for k in moved)
