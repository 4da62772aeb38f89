"""selfexplain distill / fidelity: tiny BERT and RoBERTa sequence-classification teachers built here, a
student trained on their probabilities without labels, its fidelity measured on held-out inputs and
written into its config and card, and teachers that cannot be read refused in one line."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
import torch
from families import WORDS, build_family_encoder
from safetensors.torch import load_file
from transformers import (
    AutoTokenizer,
    BertConfig,
    BertForSequenceClassification,
    BertModel,
    RobertaConfig,
    RobertaForSequenceClassification,
)

from selfexplain.cli import main
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.model_card import read_model_card
from selfexplain.core.pipeline import load_model
from selfexplain.lab.distill.fidelity import agreement_by_margin, describe_bands, measure_fidelity, split_indices

LABELS = {0: "bad", 1: "so-so", 2: "good"}


def _texts(path: Path, count: int = 48) -> Path:
    rng = random.Random(1)
    path.write_text("\n".join(" ".join(rng.choice(WORDS) for _ in range(6)) for _ in range(count)) + "\n")
    return path


POSITIVE, NEGATIVE = {"good", "great", "fine", "warm", "moving"}, {"bad", "awful", "dull", "boring", "slow"}


def _rule(text: str) -> int:
    words = set(text.split())
    return 2 if words & POSITIVE and not words & NEGATIVE else 0 if words & NEGATIVE else 1


def _fit(model: torch.nn.Module, tokenizer, steps: int = 60) -> None:
    """A few steps on a word rule, so that the teacher's decisions differ from input to input (a random
    classifier gives every input the same label)."""
    rng = random.Random(2)
    texts = [" ".join(rng.choice(WORDS) for _ in range(6)) for _ in range(64)]
    labels = torch.tensor([_rule(t) for t in texts])
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for step in range(steps):
        rows = [(step * 16 + i) % 64 for i in range(16)]
        batch = tokenizer([texts[i] for i in rows], padding=True, return_tensors="pt")
        loss = model(**batch, labels=labels[rows]).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()


def bert_teacher(tiny_encoder: Path, directory: Path) -> Path:
    torch.manual_seed(3)
    tokenizer = AutoTokenizer.from_pretrained(tiny_encoder)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128, num_labels=3, id2label=LABELS,
                        label2id={v: k for k, v in LABELS.items()})  # fmt: skip
    model = BertForSequenceClassification(config)
    _fit(model, tokenizer)
    model.save_pretrained(directory, safe_serialization=True)
    tokenizer.save_pretrained(directory)
    return directory


def roberta_teacher(directory: Path) -> Path:
    build_family_encoder("roberta", directory)
    torch.manual_seed(4)
    config = RobertaConfig.from_pretrained(directory)
    config.num_labels, config.id2label, config.label2id = 3, LABELS, {v: k for k, v in LABELS.items()}
    model = RobertaForSequenceClassification(config)
    _fit(model, AutoTokenizer.from_pretrained(directory))
    model.save_pretrained(directory, safe_serialization=True)
    return directory


def _teacher_labels(out: Path) -> int:
    """How many labels the teacher gives on the held-out inputs (from the run's cached teacher output)."""
    probabilities = load_file(str(out / "teacher.safetensors"))["probabilities"]
    held = json.loads((out / "distill.json").read_text())["holdout"]
    return len(set(probabilities[held].argmax(dim=1).tolist()))


def _distill(teacher: Path, data: Path, out: Path, *extra: str) -> int:
    argv = ["distill", "--teacher", str(teacher), "--data", str(data), "--out", str(out), "--holdout", "0.25",
            "--epochs", "4", "--batch-size", "8", "--lr", "1e-3", "--head-lr", "3e-3", "--no-progress",
            "--no-fused", *extra]  # fmt: skip
    return main(argv)


def test_measure_fidelity_and_the_split() -> None:
    student = torch.tensor([[0.8, 0.2], [0.4, 0.6]])
    teacher = torch.tensor([[0.6, 0.4], [0.7, 0.3]])
    fidelity = measure_fidelity(student, teacher)
    assert fidelity.agreement == 0.5 and fidelity.tvd == pytest.approx((0.2 + 0.3) / 2) and fidelity.examples == 2
    assert fidelity.decisive_agreement == 0.5 and fidelity.decisive_share == 1.0  # gaps 0.2 and 0.4
    # the one disagreement sits where the teacher hesitates (gap 0.1): where it is decisive, they agree
    student = torch.tensor([[0.8, 0.2], [0.4, 0.6], [0.3, 0.7]])
    teacher = torch.tensor([[0.6, 0.4], [0.55, 0.45], [0.2, 0.8]])
    fidelity = measure_fidelity(student, teacher)
    assert fidelity.agreement == pytest.approx(2 / 3)
    assert fidelity.decisive_agreement == 1.0 and fidelity.decisive_share == pytest.approx(2 / 3)
    assert "100.0% on the 67% where the teacher is decisive" in fidelity.describe()
    hesitant = measure_fidelity(student[1:2], teacher[1:2])
    assert hesitant.decisive_agreement is None and "decisive on none" in hesitant.describe()
    splits = split_indices(100, 0.1, 0.05, seed=7)
    assert (len(splits.train), len(splits.dev), len(splits.holdout)) == (85, 5, 10)
    assert sorted(splits.train + splits.dev + splits.holdout) == list(range(100))
    assert split_indices(100, 0.1, 0.05, seed=7) == splits != split_indices(100, 0.1, 0.05, seed=8)


def test_agreement_by_the_teachers_margin() -> None:
    # teacher margins 0.02, 0.1 (on the edge: the upper band), 0.3, 0.3, 0.9; the student misses the first two
    teacher = torch.tensor([[0.51, 0.49], [0.45, 0.55], [0.65, 0.35], [0.35, 0.65], [0.95, 0.05]])
    student = torch.tensor([[0.4, 0.6], [0.6, 0.4], [0.9, 0.1], [0.2, 0.8], [0.7, 0.3]])
    bands = agreement_by_margin(student, teacher)
    assert [(b.low, b.high, b.count) for b in bands] == [
        (0.0, 0.05, 1), (0.05, 0.1, 0), (0.1, 0.2, 1), (0.2, 0.4, 2), (0.4, 1.0, 1)
    ]  # fmt: skip
    assert [b.agreement for b in bands] == [0.0, None, 0.0, 1.0, 1.0]
    assert sum(b.share for b in bands) == pytest.approx(1.0) and bands[3].share == pytest.approx(0.4)
    assert sum(b.count * b.agreement for b in bands if b.count) / 5 == measure_fidelity(student, teacher).agreement
    text = describe_bands(bands).splitlines()
    assert text[1] == "  teacher margin 0.05-0.1: 0% of inputs, agreement — (0)"
    assert text[3] == "  teacher margin 0.2-0.4: 40% of inputs, agreement 100.0% (2)"
    assert [b.count for b in agreement_by_margin(student, teacher, edges=[0.5])] == [4, 1]
    with pytest.raises(ValueError, match="must increase"):
        agreement_by_margin(student, teacher, edges=[0.2, 0.1])
    with pytest.raises(ValueError, match="one shape"):
        agreement_by_margin(student[:2], teacher)


@pytest.mark.slow
def test_distill_a_bert_classifier_measures_fidelity_and_writes_it(
    tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    teacher = bert_teacher(tiny_encoder, tmp_path / "teacher")
    out = tmp_path / "student"
    assert _distill(teacher, _texts(tmp_path / "texts.txt"), out) == 0
    printed = capsys.readouterr().out
    result = json.loads(printed.strip().splitlines()[-1])
    assert "fidelity on the held-out split: agreement" in printed
    assert "alpha: the most common top span, " in printed and " of 12 held-out inputs" in printed
    assert result["examples"] == 12 and result["agreement"] > 1 / 3 and 0 <= result["tvd"] < 1
    assert _teacher_labels(out) >= 2  # the teacher's decisions vary: agreement is not a constant's
    config = ModelConfig.load(out / "best")
    assert config.label_names == ["bad", "so-so", "good"] and config.head == "span"
    assert config.metrics["surrogate_agreement"] == pytest.approx(result["agreement"])
    assert config.metrics["surrogate_tvd"] == pytest.approx(result["tvd"])
    assert "dev_accuracy" not in config.metrics  # agreement on the dev split is not an accuracy
    assert 1 / 12 <= config.metrics["surrogate_top_span_share"] <= 1  # softmax: every input has a top span
    card = read_model_card(out / "best")
    assert card.surrogate_of == "teacher" and card.dev_accuracy is None
    assert [m.name for m in card.fidelity][:2] == ["agreement with the teacher", "mean TVD to the teacher"]
    assert "12 held-out inputs, never trained on" in card.fidelity[0].measured_on
    splits = json.loads((out / "distill.json").read_text())
    assert not set(splits["holdout"]) & set(splits["train"])
    # resumable: a second run finds the finished run and the cached teacher, and measures again
    assert _distill(teacher, tmp_path / "texts.txt", out) == 0
    assert "resuming after epoch 4" in capsys.readouterr().out
    assert _distill(teacher, _texts(tmp_path / "other.txt", count=40), out) == 2  # never mixes two runs
    assert "holds a distill run with another teacher or other data" in capsys.readouterr().err
    # fidelity on any file, recorded in the card beside the held-out figures
    assert main(["fidelity", "--model", str(out / "best"), "--teacher", str(teacher), "--data",
                 str(tmp_path / "texts.txt"), "--record", "--no-progress", "--no-fused"]) == 0  # fmt: skip
    lines = capsys.readouterr().out.strip().splitlines()
    measured = json.loads(lines[-1])
    assert measured["examples"] == 48 and measured["agreement"] > 1 / 3
    assert lines[0].startswith(f"agreement {measured['agreement']:.1%}") and "teacher's margin" in lines[1]
    assert sum(band["count"] for band in measured["by_margin"]) == 48 and len(lines) == 2 + 5 + 1
    assert any(str(tmp_path / "texts.txt") in m.measured_on for m in read_model_card(out / "best").fidelity)


def test_distill_a_roberta_classifier(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    teacher = roberta_teacher(tmp_path / "roberta")
    out = tmp_path / "student"
    texts = _texts(tmp_path / "texts.txt")
    assert _distill(teacher, texts, out, "--normaliser", "sparsemax", "--teacher-loss", "mse") == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["agreement"] > 1 / 3 and _teacher_labels(out) >= 2
    assert json.loads((out / "metrics.json").read_text())["options"]["teacher_loss"] == "mse"
    assert ModelConfig.load(out / "best").metrics["surrogate_examples"] == 12.0


def _broken(tiny_encoder: Path, tmp_path: Path, change: str) -> Path:
    folder = bert_teacher(tiny_encoder, tmp_path / change)
    raw = json.loads((folder / "config.json").read_text())
    if change == "labels":
        raw.pop("id2label"), raw.pop("label2id"), raw.pop("num_labels", None)
    elif change == "family":
        raw["model_type"] = "no-such-family"
    elif change == "head":
        BertModel(BertConfig(**{k: v for k, v in raw.items() if k != "architectures"})).save_pretrained(folder)
        raw = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps(raw))
    return folder


@pytest.mark.parametrize(
    ("change", "message"),
    [("labels", "its label count cannot be read"), ("family", "its family cannot be read"),
     ("head", "not a sequence-classification model")],
)  # fmt: skip
@pytest.mark.slow
def test_a_teacher_that_cannot_be_read_is_refused_in_one_line(
    tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str, message: str
) -> None:
    teacher = _broken(tiny_encoder, tmp_path, change)
    assert _distill(teacher, _texts(tmp_path / "texts.txt"), tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "best").exists()


@pytest.mark.slow
def test_the_app_shows_the_surrogate_note_in_the_sidebar_and_on_the_model_card(
    tiny_encoder: Path, tiny_model_dir: Path, tmp_path: Path
) -> None:
    from helpers import open_page

    teacher = bert_teacher(tiny_encoder, tmp_path / "my-bert")
    out = tmp_path / "student"
    assert _distill(teacher, _texts(tmp_path / "texts.txt"), out) == 0
    agreement = ModelConfig.load(out / "best").metrics["surrogate_agreement"]
    page = Path(__file__).resolve().parents[1] / "pages" / "9_Model_card.py"
    at = open_page(page, out / "best")
    assert not at.exception and not at.error
    note = [c.value for c in at.sidebar.caption if "surrogate" in c.value]
    assert (
        note[0].startswith(
            f"Explains a surrogate of **my-bert**: it predicts that model's label on {agreement:.1%} of 12 "
            f"held-out inputs (mean TVD {ModelConfig.load(out / 'best').metrics['surrogate_tvd']:.3f})."
        )
        and len(note) == 1
    )
    assert any(s.value == "Fidelity to the model it imitates" for s in at.subheader)
    table = next(t.value for t in at.table if "measured on" in t.value.columns)
    assert table.index.tolist()[:2] == ["agreement with the teacher", "mean TVD to the teacher"]
    app = Path(__file__).resolve().parents[1] / "app.py"
    explain = open_page(app, out / "best")  # the Explain page's sidebar too
    assert not explain.exception and any("surrogate of **my-bert**" in c.value for c in explain.sidebar.caption)
    from test_surrogate_panel import _run  # the Explain page's check runs the Hugging Face teacher

    check = _run(out / "best")
    assert not check.exception and check.metric[0].label == "Your model (my-bert)"
    assert check.metric[0].value in LABELS.values() and check.metric[1].value in LABELS.values()
    for share, flagged in ((0.96, True), (0.04, False)):  # the held-out alpha check's figure
        folder = shutil.copytree(out / "best", tmp_path / f"share-{share}")  # a new folder: the app caches models
        config = ModelConfig.load(folder)
        config.metrics["surrogate_top_span_share"] = share
        config.save(folder)
        captions = [c.value for c in open_page(page, folder).sidebar.caption if "surrogate" in c.value]
        carrier = "**Its alpha is a carrier**: one span is the top span of 96% of the first 12 of them"
        assert (carrier in captions[0]) == flagged
    plain = open_page(page, tiny_model_dir)  # a model that is no surrogate carries no note
    assert not any("surrogate" in c.value for c in plain.sidebar.caption)
    assert not any(s.value == "Fidelity to the model it imitates" for s in plain.subheader)


def test_distill_a_selfexplain_baseline_starts_from_its_encoder_and_output_layer(
    tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers import SST5_LABELS, make_explainer

    from selfexplain.core.modeling.checkpoint import save_model

    baseline = make_explainer(tiny_encoder, seed=6, head="mean")
    save_model(baseline.model, baseline.tokenizer, tmp_path / "baseline")
    out = tmp_path / "student"
    argv = ("--span-representation", "mean", "--normaliser", "sparsemax", "--name", "tiny-surrogate")
    assert _distill(tmp_path / "baseline", _texts(tmp_path / "texts.txt"), out, *argv) == 0
    printed = capsys.readouterr().out
    assert "teacher: tiny-sst (selfexplain, bert;" in printed
    assert "warm start from" in printed and "encoder and output layer copied" in printed
    config = ModelConfig.load(out / "best")
    assert config.label_names == SST5_LABELS and config.name == "tiny-surrogate" and config.normaliser == "sparsemax"
    assert read_model_card(out / "best").surrogate_of == "tiny-sst"


def test_the_student_records_its_teacher_as_named_and_takes_the_run_options(
    tiny_encoder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative teacher path stays relative in what the run records (not this machine's absolute folder),
    and the run options of ``train`` (frozen layers, bf16, mid-epoch checkpoints) reach the loop."""
    from helpers import make_explainer

    from selfexplain.core.modeling.checkpoint import save_model

    baseline = make_explainer(tiny_encoder, seed=6, head="mean")
    save_model(baseline.model, baseline.tokenizer, tmp_path / "baseline")
    monkeypatch.chdir(tmp_path)
    extra = ("--freeze-layers", "1", "--encoder-precision", "bfloat16", "--checkpoint-steps", "2")
    assert _distill(Path("baseline"), _texts(Path("texts.txt")), Path("student"), *extra) == 0
    options = json.loads(Path("student/metrics.json").read_text())["options"]
    assert options["init_from"] == "baseline" and options["teacher"] == "baseline"
    assert options["freeze_layers"] == 1 and options["encoder_precision"] == "bfloat16"
    assert options["checkpoint_steps"] == 2
    start = baseline.model.encoder.state_dict()
    student = load_model("student/best", fused=False).model.encoder.state_dict()
    frozen = [k for k in start if k.startswith("embeddings.") or ".layer.0." in k]
    assert frozen and all(torch.equal(student[k], start[k]) for k in frozen)  # kept as the teacher had them
    assert not all(torch.equal(student[k], start[k]) for k in start if ".layer.1." in k)


def test_negative_run_options_are_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _distill(tmp_path / "t", _texts(tmp_path / "texts.txt"), tmp_path / "o", "--freeze-layers", "-1") == 2
    assert "--freeze-layers" in capsys.readouterr().err


@pytest.mark.slow
def test_a_pretrained_encoder_student_copies_nothing_from_the_teacher(
    tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers import make_explainer

    from selfexplain.core.modeling.checkpoint import save_model
    from selfexplain.core.modeling.encoders import load_encoder
    from selfexplain.core.pipeline import load_model

    baseline = make_explainer(tiny_encoder, seed=6, head="mean")
    generator = torch.Generator().manual_seed(9)
    with torch.no_grad():  # as fine-tuning would: the teacher's encoder is no longer the published one
        for parameter in baseline.model.encoder.parameters():
            parameter.add_(0.01 * torch.randn(parameter.shape, generator=generator))
    save_model(baseline.model, baseline.tokenizer, tmp_path / "baseline")
    out = tmp_path / "student"
    texts = _texts(tmp_path / "texts.txt")
    assert _distill(tmp_path / "baseline", texts, out, "--pretrained-encoder", "--epochs", "1", "--lr", "0") == 0
    printed = capsys.readouterr().out
    assert "its own pretrained weights (none from the teacher)" in printed and "warm start from" not in printed
    # encoder learning rate 0: the student's encoder is exactly the published one, not the teacher's
    published = load_encoder(str(tiny_encoder)).state_dict()
    teacher = baseline.model.encoder.state_dict()
    student = load_model(str(out / "best")).model.encoder.state_dict()
    name = "embeddings.word_embeddings.weight"
    assert not torch.equal(published[name], teacher[name])  # the check can tell them apart
    assert torch.equal(student[name], published[name])
    # a Hugging Face teacher's folder holds only fine-tuned weights: refused in one line, nothing trained
    hf = bert_teacher(tiny_encoder, tmp_path / "hf")
    argv = ["distill", "--teacher", str(hf), "--data", str(texts), "--out", str(tmp_path / "other"),
            "--pretrained-encoder", "--no-progress"]  # fmt: skip
    assert main(argv) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("selfexplain: error: --pretrained-encoder needs --encoder") and "\n" not in error
    assert not (tmp_path / "other").exists()  # refused before the teacher labelled anything


@pytest.mark.slow
def test_the_student_takes_the_shipped_recipe_span_options(
    tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A surrogate can be built with the shipped models' recipe: span vectors from an inner layer, a width
    limit, a length prior; a bad value is refused in one line before the teacher labels anything."""
    from selfexplain.core.pipeline import load_model

    teacher = bert_teacher(tiny_encoder, tmp_path / "teacher")
    texts = _texts(tmp_path / "texts.txt")
    out = tmp_path / "student"
    extra = ("--epochs", "1", "--encoder-layer", "1", "--max-span-width", "2", "--span-length-prior", "0.1")
    assert _distill(teacher, texts, out, "--normaliser", "sparsemax", *extra) == 0
    config = ModelConfig.load(out / "best")
    assert (config.encoder_layer, config.max_span_width, config.span_length_prior) == (1, 2, 0.1)
    explanation = load_model(str(out / "best"), fused=False).explain("good great fine awful dull slow")
    assert max(len(s.text.split()) for s in explanation.evidence_spans(None)) <= 2
    capsys.readouterr()
    for bad in (("--max-span-width", "0"), ("--span-length-prior", "-1")):
        assert _distill(teacher, texts, tmp_path / "refused", *bad) == 2
        error = capsys.readouterr().err.strip()
        assert error.startswith("selfexplain: error: the student:") and "\n" not in error
        assert not (tmp_path / "refused").exists()


@pytest.mark.slow
def test_the_student_takes_the_complement_sufficiency_and_removal_terms(
    tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--complement-weight``, ``--sufficiency-weight`` and ``--removal-weight`` reach the training loop
    (each term is computed on every batch and recorded in the run's options); a negative weight is refused
    in one line."""
    from selfexplain.methods.training import loop

    calls = {"complement": 0, "sufficiency": 0, "removal": 0}

    def counted(name: str, term):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return term(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(loop, "complement_loss", counted("complement", loop.complement_loss))
    monkeypatch.setattr(loop, "sufficiency_loss", counted("sufficiency", loop.sufficiency_loss))
    monkeypatch.setattr(loop, "removal_loss", counted("removal", loop.removal_loss))
    teacher = bert_teacher(tiny_encoder, tmp_path / "teacher")
    texts = _texts(tmp_path / "texts.txt")
    out = tmp_path / "student"
    terms = ("--complement-weight", "0.5", "--sufficiency-weight", "2", "--removal-weight", "1.5")
    assert _distill(teacher, texts, out, "--normaliser", "sparsemax", "--epochs", "1", *terms) == 0
    batches = -(-(48 - 12 - 2) // 8)  # 12 held out, 2 for the dev split (5% of 48, at least 1), batches of 8
    assert calls == {"complement": batches, "sufficiency": batches, "removal": batches}
    options = json.loads((out / "metrics.json").read_text())["options"]
    assert (options["complement_weight"], options["sufficiency_weight"], options["removal_weight"]) == (0.5, 2.0, 1.5)
    capsys.readouterr()
    assert _distill(teacher, texts, tmp_path / "refused", "--complement-weight", "-1") == 2
    error = capsys.readouterr().err.strip()
    expected = "--complement-weight, --sufficiency-weight and --removal-weight must be 0 or above"
    assert expected in error and "\n" not in error
    assert not (tmp_path / "refused").exists()


def test_a_selfexplain_teacher_on_the_packaged_encoder_reads_with_the_hub_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app switches the Hub off; the shipped baseline names its encoder by the packaged alias
    (all-MiniLM-L6-v2), which is a folder on this machine, not a Hub id: its surrogate check must run."""
    from selfexplain.lab.distill.teacher import read_teacher

    monkeypatch.setenv("SELFEXPLAIN_HUB", "0")
    teacher = read_teacher("sst5-minilm-mean")
    assert teacher.kind == "selfexplain" and teacher.family == "bert" and len(teacher.label_names) == 5


@pytest.mark.slow
def test_dropout_reaches_the_head_and_every_encoder_layer_while_training(
    tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--dropout 0`` sets the head's rate (saved in the student's config) and every encoder dropout layer
    for the run (recorded in its options); a rate outside [0, 1) is refused in one line."""
    from selfexplain.methods.training import loop

    seen: list[list[float]] = []

    def recorded(model, rate):
        count = set_dropout(model, rate)
        seen.append([m.p for m in model.encoder.modules() if isinstance(m, torch.nn.Dropout)])
        return count

    set_dropout = loop.set_encoder_dropout
    monkeypatch.setattr(loop, "set_encoder_dropout", recorded)
    teacher = bert_teacher(tiny_encoder, tmp_path / "teacher")
    texts = _texts(tmp_path / "texts.txt")
    out = tmp_path / "student"
    assert _distill(teacher, texts, out, "--epochs", "1", "--dropout", "0") == 0
    assert len(seen) == 1 and len(seen[0]) >= 5 and set(seen[0]) == {0.0}
    assert ModelConfig.load(out / "best").dropout == 0.0
    assert json.loads((out / "metrics.json").read_text())["options"]["encoder_dropout"] == 0.0
    capsys.readouterr()
    for bad in ("1", "-0.1"):
        assert _distill(teacher, texts, tmp_path / "refused", "--dropout", bad) == 2
        error = capsys.readouterr().err.strip()
        assert "--dropout must be at least 0 and below 1" in error and "\n" not in error
        assert not (tmp_path / "refused").exists()
