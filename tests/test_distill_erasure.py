"""``selfexplain distill --erasure-weight``: the teacher's word-deletion effects, measured at the input,
aligned to the student's tokens, cached, and read by the training loop's erasure term."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from test_distill import _distill, _texts, bert_teacher
from transformers import AutoTokenizer

from selfexplain.core.inputs import plan_inputs
from selfexplain.data import Example
from selfexplain.lab.distill.erasure import erasure_effects, pack, unpack
from selfexplain.lab.distill.teacher import read_teacher, teacher_probabilities
from selfexplain.methods.training.erasure_targets import (
    cut_variants,
    token_effects,
    word_cuts,
    word_effects,
    word_spans,
)


@pytest.fixture(scope="module")
def teacher(tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bert_teacher(tiny_encoder, tmp_path_factory.mktemp("erasure-teacher"))


def test_word_cuts_cut_each_word_of_the_student_tokenizer_once(tiny_encoder: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_encoder)
    text = "the film wasn't unwatchable."
    token_words, cuts = word_cuts(tokenizer, text)
    pieces = tokenizer.convert_ids_to_tokens(tokenizer(text)["input_ids"])
    assert len(token_words) == len(pieces) and token_words[0] is None and token_words[-1] is None
    # the pre-tokenizer's words: "wasn't" is three words, "unwatchable" one word of several pieces
    assert len(cuts) == 7 and token_words.count(5) == len(tokenizer.tokenize("unwatchable")) > 1
    real = pieces[1:-1]
    for k, cut in enumerate(cuts):  # the student reads each cut as the text less that word's pieces
        assert tokenizer.tokenize(cut) == [p for p, w in zip(real, token_words[1:-1]) if w != k]
    assert cuts[4] == "the film wasn'  unwatchable."  # a space where the word was: its neighbours stay apart


def test_effects_are_the_teachers_probability_drop_for_its_label(tiny_encoder: Path, teacher: Path) -> None:
    source = read_teacher(str(teacher))
    tokenizer = AutoTokenizer.from_pretrained(tiny_encoder)
    examples = [Example("a good and warm film"), Example("the plot was dull , slow and boring")]
    full = teacher_probabilities(source, examples, progress=False)
    effects = erasure_effects(source, tokenizer, examples, full, progress=False)
    for example, effect, probs in zip(examples, effects, full):
        words, cuts = word_cuts(tokenizer, example.text)
        assert effect.shape == (len(words),)
        label = int(probs.argmax())
        cut = teacher_probabilities(source, [Example(c) for c in cuts], progress=False)[:, label]
        expected = torch.tensor([0.0 if w is None else float(probs[label] - cut[w]) for w in words])
        assert torch.allclose(effect, expected, atol=1e-6)
        assert effect.abs().sum() > 0
    assert [e.tolist() for e in unpack(pack(effects))] == [e.tolist() for e in effects]


def test_the_progress_bar_moves_by_batch_within_a_part(
    tiny_encoder: Path, teacher: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import selfexplain.lab.distill.erasure as erasure

    monkeypatch.setattr(erasure, "CHUNK", 5)  # 10 cut texts: two parts
    source = read_teacher(str(teacher))
    examples = [Example("a good and warm film"), Example("dull , slow and boring")]
    full = teacher_probabilities(source, examples, progress=False)
    erasure_effects(source, AutoTokenizer.from_pretrained(tiny_encoder), examples, full, progress=True)
    err = capsys.readouterr().err
    # each part counts its own batches (it read 0 of 32,768 for minutes on a real run before)
    assert "erasure: 10 texts with one word cut, part 1/2" in err and "part 2/2" in err


def test_a_pair_cuts_each_word_from_its_own_text(tiny_encoder: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_encoder)
    cuts = cut_variants(tokenizer, ["a dog runs", "two cats"], pairs=["it moves", "animals"])
    # words are numbered premise first, then hypothesis; each cut keeps the other text whole
    assert list(zip(cuts.texts, cuts.pairs or [])) == [
        ("dog runs", "it moves"), ("a   runs", "it moves"), ("a dog", "it moves"), ("a dog runs", "moves"),
        ("a dog runs", "it"), ("cats", "animals"), ("two", "animals"), ("two cats", ""),
    ]  # fmt: skip
    assert cuts.owners.tolist() == [0] * 5 + [1] * 3
    # [CLS] a dog runs [SEP] it moves [SEP]: the hypothesis's words carry indices 3 and 4
    assert cuts.token_words[0] == [None, 0, 1, 2, None, 3, 4, None]
    single = cut_variants(tokenizer, ["a dog runs"])
    assert single.pairs is None and single.texts == ["dog runs", "a   runs", "a dog"]


def test_pair_effects_are_the_teachers_drop_for_a_word_of_either_text(tiny_encoder: Path, teacher: Path) -> None:
    source = read_teacher(str(teacher))
    tokenizer = AutoTokenizer.from_pretrained(tiny_encoder)
    examples = [Example("a good and warm film", "it was dull"), Example("the plot was slow", "a fine film")]
    full = teacher_probabilities(source, examples, progress=False)
    effects = erasure_effects(source, tokenizer, examples, full, progress=False)
    cuts = cut_variants(tokenizer, [e.text for e in examples], pairs=[e.pair or "" for e in examples])
    variants = [Example(t, p) for t, p in zip(cuts.texts, cuts.pairs or [])]
    kept = teacher_probabilities(source, variants, progress=False)
    for row, (effect, probs, words) in enumerate(zip(effects, full, cuts.token_words)):
        label = int(probs.argmax())
        drops = probs[label] - kept[cuts.owners == row, label]
        expected = torch.tensor([0.0 if w is None else float(drops[w]) for w in words])
        assert effect.shape == (len(tokenizer(examples[row].text, examples[row].pair)["input_ids"]),)
        assert torch.allclose(effect, expected, atol=1e-6)
        second = tokenizer(examples[row].text, examples[row].pair).sequence_ids()
        assert effect[[s == 1 for s in second]].abs().sum() > 0  # the hypothesis's words have effects too


def test_pair_distill_with_erasure_targets_and_own_effects(
    teacher: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from selfexplain.methods.training import loop

    seen: list[list[str] | None] = []
    mix = loop.with_own_effects

    def spy(model, tokenizer, texts, effects, share, max_length=128, pairs=None):
        seen.append(pairs)
        return mix(model, tokenizer, texts, effects, share, max_length, pairs)

    monkeypatch.setattr(loop, "with_own_effects", spy)
    data = tmp_path / "pairs.jsonl"
    words = ["a good film", "a dull plot", "warm and moving", "slow and boring", "it was fine", "awful acting"]
    rows = [{"text": words[k % 6], "pair": words[(k * 5 + 1) % 6]} for k in range(24)]
    data.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    argv = ("--text-column", "text", "--pair-column", "pair", "--erasure-weight", "1", "--own-erasure-epoch", "2",
            "--epochs", "2", "--normaliser", "sparsemax")  # fmt: skip
    assert _distill(teacher, data, tmp_path / "pairs", *argv) == 0
    assert "erasure effects: 17 of 17 training texts (100%)" in capsys.readouterr().out
    cached = [e for e in unpack(load_file(str(tmp_path / "pairs" / "erasure.safetensors"))) if len(e)]
    assert len(cached) == 17 and all(len(e) >= 6 for e in cached)  # both texts' tokens of every pair
    config = json.loads((tmp_path / "pairs" / "best" / "selfexplain.json").read_text())
    assert config["pair"] is True
    # epoch 2 read the student's own effects, with each batch's hypotheses beside their premises
    assert seen and all(pairs is not None and len(pairs) > 0 and set(pairs) <= set(words) for pairs in seen)
    # the option checks still refuse in one line
    assert _distill(teacher, data, tmp_path / "refused", "--erasure-weight", "-1") == 2
    assert "--erasure-weight must be 0 or above" in capsys.readouterr().err
    assert _distill(teacher, data, tmp_path / "refused", "--erasure-temperature", "0") == 2
    assert "--erasure-temperature must be above 0" in capsys.readouterr().err
    assert not (tmp_path / "refused").exists()


def test_distill_caches_the_effects_of_the_chosen_texts_and_trains_on_them(
    teacher: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from selfexplain.lab.distill import erasure
    from selfexplain.methods.training import loop

    calls: list[float] = []
    temperatures: set[float] = set()

    def counted(model, output, effects, temperature):
        calls.append(float(effects.abs().sum()))
        temperatures.add(temperature)
        return term(model, output, effects, temperature)

    term = loop.erasure_loss
    monkeypatch.setattr(loop, "erasure_loss", counted)
    texts = _texts(tmp_path / "texts.txt")
    out = tmp_path / "student"
    extra = ("--normaliser", "sparsemax", "--epochs", "1", "--erasure-weight", "0.5", "--erasure-texts", "10")
    assert _distill(teacher, texts, out, *extra, "--erasure-temperature", "0.02") == 0
    assert "erasure effects: 10 of 34 training texts (29%)" in capsys.readouterr().out
    cached = unpack(load_file(str(out / "erasure.safetensors")))
    split = json.loads((out / "distill.json").read_text())
    measured = [i for i, effect in enumerate(cached) if len(effect)]
    assert len(cached) == 48 and len(measured) == 10 and set(measured) <= set(split["train"])
    batches = -(-(48 - 12 - 2) // 8)
    assert len(calls) == batches and sum(1 for c in calls if c > 0) >= 1  # batches without a measured text add 0
    options = json.loads((out / "metrics.json").read_text())["options"]
    assert options["erasure_weight"] == 0.5 and options["erasure_temperature"] == 0.02 and temperatures == {0.02}
    # a second run on the same folder reads the cache instead of cutting words again
    monkeypatch.setattr(erasure, "teacher_probabilities", lambda *a, **k: pytest.fail("recomputed"))
    capsys.readouterr()
    assert _distill(teacher, texts, out, *extra[:-2], "--erasure-texts", "10", "--epochs", "2") == 0


def test_own_effects_are_the_models_own_probability_drop(tiny_encoder: Path) -> None:
    from conftest import make_explainer

    from selfexplain.methods.training.erasure_targets import own_effects

    explainer = make_explainer(tiny_encoder, seed=3)
    model, tokenizer = explainer.model, explainer.tokenizer
    texts = ["a good and warm film", "the plot was dull , slow and boring"]
    model.train()
    effects = own_effects(model, tokenizer, texts)
    assert model.training  # restored after its eval-mode reading
    model.eval()

    def probs(text: str) -> torch.Tensor:  # one text at a time: no padding beside it
        ((_, batch),) = plan_inputs(tokenizer, [text], None, 128, "truncate").batches
        with torch.no_grad():
            return torch.softmax(model(**batch.model_inputs(torch.device("cpu"))).logits[0], dim=-1)

    for text, effect in zip(texts, effects):
        words, cuts = word_cuts(tokenizer, text)
        whole = probs(text)
        label = int(whole.argmax())
        drops = [float(whole[label] - probs(cut)[label]) for cut in cuts]
        expected = torch.tensor([0.0 if w is None else drops[w] for w in words])
        assert effect.shape == (len(words),) and torch.allclose(effect, expected, atol=1e-5)
        assert effect.abs().sum() > 0


def test_a_pair_models_own_effects_cut_a_word_of_either_text(tiny_encoder: Path) -> None:
    from conftest import make_explainer

    from selfexplain.methods.training.erasure_targets import own_effects

    explainer = make_explainer(tiny_encoder, pair=True, seed=5)
    model, tokenizer = explainer.model, explainer.tokenizer
    texts, pairs = ["a good and warm film", "the plot was slow"], ["it was dull", "a fine film"]
    effects = own_effects(model, tokenizer, texts, pairs=pairs)

    def probs(text: str, pair: str) -> torch.Tensor:
        ((_, batch),) = plan_inputs(tokenizer, [text], [pair], 128, "truncate").batches
        with torch.no_grad():
            return torch.softmax(model(**batch.model_inputs(torch.device("cpu"))).logits[0], dim=-1)

    cuts = cut_variants(tokenizer, texts, pairs=pairs)
    for row, (text, pair, effect) in enumerate(zip(texts, pairs, effects)):
        whole = probs(text, pair)
        label = int(whole.argmax())
        mine = [k for k in range(len(cuts.texts)) if cuts.owners[k] == row]
        drops = [float(whole[label] - probs(cuts.texts[k], (cuts.pairs or [])[k])[label]) for k in mine]
        words = cuts.token_words[row]
        expected = torch.tensor([0.0 if w is None else drops[w] for w in words])
        assert effect.shape == (len(words),) and torch.allclose(effect, expected, atol=1e-5)
        assert effect.abs().sum() > 0


def test_with_own_effects_mixes_only_the_texts_that_have_effects(
    tiny_encoder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conftest import make_explainer

    from selfexplain.methods.training import erasure_targets as erasure

    explainer = make_explainer(tiny_encoder, seed=3)
    texts = ["a good film", "dull", "a slow , boring plot"]
    own = erasure.own_effects(explainer.model, explainer.tokenizer, texts)
    teacher = [torch.full_like(own[0], 0.4), torch.zeros(0), torch.full_like(own[2], -0.2)]
    seen: list[list[str]] = []
    original = erasure.own_effects

    def spy(model, tokenizer, chosen, max_length=128, batch_size=64, pairs=None):
        seen.append(list(chosen))
        assert pairs is None
        return original(model, tokenizer, chosen, max_length, batch_size)

    monkeypatch.setattr(erasure, "own_effects", spy)
    half = erasure.with_own_effects(explainer.model, explainer.tokenizer, texts, teacher, 0.5)
    assert seen == [[texts[0], texts[2]]]  # the text without teacher effects is not read
    assert len(half[1]) == 0
    assert torch.allclose(half[0], 0.5 * teacher[0] + 0.5 * own[0], atol=1e-6)
    assert torch.allclose(half[2], 0.5 * teacher[2] + 0.5 * own[2], atol=1e-6)
    whole = erasure.with_own_effects(explainer.model, explainer.tokenizer, texts, teacher, 1.0)
    assert torch.allclose(whole[0], own[0], atol=1e-6) and torch.allclose(whole[2], own[2], atol=1e-6)


def test_own_erasure_options_are_checked_in_one_line(
    teacher: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = _texts(tmp_path / "texts.txt")
    out = tmp_path / "refused"
    assert _distill(teacher, texts, out, "--own-erasure-epoch", "1") == 2
    assert "--own-erasure-epoch needs --erasure-weight above 0" in capsys.readouterr().err
    assert _distill(teacher, texts, out, "--erasure-weight", "1", "--own-erasure-epoch", "5") == 2
    assert "--own-erasure-epoch must be between 1 and --epochs (4)" in capsys.readouterr().err
    assert _distill(teacher, texts, out, "--erasure-weight", "1", "--own-erasure-share", "0") == 2
    assert "--own-erasure-share must be above 0 and at most 1" in capsys.readouterr().err
    assert not out.exists()


def test_own_erasure_reads_the_student_from_its_epoch_on(
    teacher: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from selfexplain.methods.training import erasure_targets as erasure
    from selfexplain.methods.training import loop

    epochs: list[int] = []
    reads = erasure.own_effects

    def counted(model, tokenizer, texts, max_length=128, batch_size=64, pairs=None):
        epochs.append(len(history))
        return reads(model, tokenizer, texts, max_length, batch_size, pairs)

    history: list[int] = []
    evaluate = loop.predict_examples

    def evaluated(*args, **kwargs):
        history.append(1)
        return evaluate(*args, **kwargs)

    monkeypatch.setattr(erasure, "own_effects", counted)
    monkeypatch.setattr(loop, "predict_examples", evaluated)
    texts = _texts(tmp_path / "texts.txt")
    out = tmp_path / "student"
    extra = ("--epochs", "2", "--erasure-weight", "1", "--erasure-texts", "20", "--own-erasure-epoch", "2")
    assert _distill(teacher, texts, out, *extra, "--own-erasure-share", "0.5") == 0
    # none in epoch 1 (one dev evaluation not yet run), then on every batch of epoch 2 with a measured text
    assert epochs and set(epochs) == {1}
    options = json.loads((out / "metrics.json").read_text())["options"]
    assert options["own_erasure_epoch"] == 2 and options["own_erasure_share"] == 0.5


def test_word_effects_undo_token_effects(tiny_encoder: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_encoder)
    texts = ["the film wasn't unwatchable.", "fine"]
    token_words = cut_variants(tokenizer, texts).token_words
    kept = torch.tensor([0.9, 0.5, 0.7, 0.6, 0.8, 0.1, 0.4, 0.3])  # p(c | cut), 7 words then 1
    full = torch.tensor([1.0, 0.5])
    for text, effect, drops in zip(texts, token_effects(full, kept, token_words), [1.0 - kept[:7], 0.5 - kept[7:]]):
        spans, found = word_effects(tokenizer, text, effect)
        assert spans == word_spans(tokenizer, text)[1] and torch.allclose(found, drops)


def test_a_joined_student_cuts_and_caches_whole_words(
    tiny_encoder: Path, teacher: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from safetensors import safe_open

    from selfexplain.core.modeling.config import ModelConfig

    tokenizer = AutoTokenizer.from_pretrained(tiny_encoder)
    _, cuts = word_cuts(tokenizer, "the film wasn't unwatchable.", "joined")
    assert cuts == ["film wasn't unwatchable.", "the   wasn't unwatchable.", "the film   unwatchable.",
                    "the film wasn't  .", "the film wasn't unwatchable"]  # fmt: skip
    texts = tmp_path / "texts.txt"
    texts.write_text("".join(f"it doesn't {w} and the film's plot isn't slow\n" for w in ("work", "shine") * 12))
    out = tmp_path / "joined"
    extra = ("--epochs", "1", "--erasure-weight", "0.5", "--erasure-texts", "4", "--apostrophes", "joined")
    assert _distill(teacher, texts, out, *extra) == 0
    assert ModelConfig.load(out / "best").apostrophes == "joined"
    with safe_open(str(out / "erasure.safetensors"), "pt") as handle:
        assert handle.metadata()["apostrophes"] == "joined"  # a split student's cache is not read for it
    effect = next(e for e in unpack(load_file(str(out / "erasure.safetensors"))) if len(e))
    pieces = tokenizer.convert_ids_to_tokens(tokenizer("it doesn't work and the film's plot isn't slow")["input_ids"])
    doesnt = [k for k, p in enumerate(pieces) if p in ("doesn", "'", "t")][:3]
    assert len(effect) == len(pieces) and len({float(effect[k]) for k in doesnt}) == 1


def test_a_student_with_word_edges_keeps_them(teacher: Path, tmp_path: Path) -> None:
    from selfexplain.core.modeling.config import ModelConfig
    from selfexplain.core.pipeline import load_model

    texts = tmp_path / "texts.txt"
    texts.write_text("".join(f"the film was {w} .\n" for w in ("great", "dull") * 8))
    out = tmp_path / "edges"
    extra = ("--epochs", "1", "--erasure-weight", "0.5", "--erasure-texts", "4", "--span-edges", "words")
    assert _distill(teacher, texts, out, *extra) == 0
    assert ModelConfig.load(out / "best").span_edges == "words"
    explanation = load_model(out / "best").explain("the film was dull .")
    rows, cols = explanation.span_mask.nonzero()
    assert "." not in {explanation.tokens[k].text for k in [*rows, *cols]}
    assert explanation.alpha.sum() == pytest.approx(1.0)
