"""Anatomy: statistics on crafted attention maps, probes, perturbations, confusion, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from scipy.stats import entropy as scipy_entropy

from selfexplain.cli import main
from selfexplain.data import Example
from selfexplain.lab.anatomy import figures as F
from selfexplain.lab.anatomy.agreement import agreement_sentences, confusion_by_layer, confusion_scores, fill
from selfexplain.lab.anatomy.corpus import AnatomyResult, attention_anatomy, decision_gradients
from selfexplain.lab.anatomy.heads import head_distance_sums, js_divergence
from selfexplain.lab.anatomy.perturb import (
    drop_top_span,
    edit_distance,
    example_rng,
    parse_antonyms,
    shuffle_degree,
    shuffle_words,
    swap_antonyms,
)
from selfexplain.lab.anatomy.probing import (
    HiddenCache,
    cache_hidden_states,
    probe_by_layer,
    sentence_splits,
    train_probe,
)
from selfexplain.lab.anatomy.robustness import js_of_dicts, perturbation_study
from selfexplain.lab.anatomy.stats import Roles, batch_statistics, punctuation_ids

# Sequence: [CLS] a , b [SEP] <pad>; one layer, one head, rows hand-written.
ATTN = torch.tensor(
    [
        [0.5, 0.1, 0.1, 0.1, 0.2, 0.0],
        [0.2, 0.3, 0.1, 0.1, 0.3, 0.0],
        [0.1, 0.4, 0.2, 0.2, 0.1, 0.0],
        [0.0, 0.1, 0.3, 0.2, 0.4, 0.0],
        [0.1, 0.1, 0.1, 0.1, 0.6, 0.0],
        [0.2, 0.2, 0.2, 0.2, 0.2, 0.0],  # padding row: must be ignored
    ],
    dtype=torch.float64,
)[None, None, None]  # [L=1, B=1, H=1, N=6, N=6]
ROLES = Roles(
    valid=torch.tensor([[1, 1, 1, 1, 1, 0]], dtype=torch.bool),
    sep=torch.tensor([[0, 0, 0, 0, 1, 0]], dtype=torch.bool),
    punct=torch.tensor([[0, 0, 1, 0, 0, 0]], dtype=torch.bool),
    real=torch.tensor([[0, 1, 1, 1, 0, 0]], dtype=torch.bool),
    segment=torch.zeros(1, 6, dtype=torch.long),
)
SENTENCES = [
    Example("a warm , funny film .", label=4),
    Example("dull and far too long", label=0),
    Example("it is neither good nor bad .", label=2),
    Example("the cast is great but the plot is thin", label=1),
]


def mean(name: str) -> float:
    total, count = batch_statistics(ATTN, ROLES)[name]
    return float(total[0, 0] / count)


def test_statistics_match_hand_computed_values() -> None:
    assert mean("cls") == pytest.approx((0.5 + 0.2 + 0.1 + 0.0 + 0.1) / 5)
    assert mean("sep") == pytest.approx((0.2 + 0.3 + 0.1 + 0.4 + 0.6) / 5)
    assert mean("punct") == pytest.approx((0.1 + 0.1 + 0.2 + 0.3 + 0.1) / 5)
    assert mean("self") == pytest.approx((0.5 + 0.3 + 0.2 + 0.2 + 0.6) / 5)
    assert mean("next") == pytest.approx((0.1 + 0.1 + 0.2 + 0.4) / 4)
    assert mean("prev") == pytest.approx((0.2 + 0.4 + 0.3 + 0.1) / 4)
    assert mean("within") == pytest.approx((0.3 + 0.1 + 0.1 + 0.4 + 0.2 + 0.2 + 0.1 + 0.3 + 0.2) / 3)
    assert mean("across") == 0.0


def test_entropies_match_scipy_on_clark_smoothed_rows() -> None:
    rows = ATTN[0, 0, 0, :5, :5].numpy()  # the padding key carries no smoothing mass
    smoothed = 0.9999 * rows + 0.0001 / 5
    assert mean("entropy") == pytest.approx(np.mean([scipy_entropy(r) for r in smoothed]))
    assert mean("cls_entropy") == pytest.approx(scipy_entropy(smoothed[0]))
    assert mean("entropy") == pytest.approx(np.mean([scipy_entropy(r) for r in rows]), abs=2e-3)
    assert mean("uniform_entropy") == pytest.approx(np.log(5))
    uniform = torch.full((1, 1, 1, 4, 4), 0.25, dtype=torch.float64)
    roles = Roles(*(torch.ones(1, 4, dtype=torch.bool) for _ in range(4)), torch.zeros(1, 4, dtype=torch.long))
    total, count = batch_statistics(uniform, roles)["entropy"]
    assert float(total[0, 0] / count) == pytest.approx(np.log(4))


def test_punctuation_ids_cover_marks_not_words(tiny_explainer) -> None:
    ids = set(punctuation_ids(tiny_explainer.tokenizer).tolist())
    vocab = tiny_explainer.tokenizer.get_vocab()
    assert {vocab[","], vocab["."], vocab["!"]} <= ids and vocab["film"] not in ids


def test_head_distance_and_js() -> None:
    p = torch.tensor([1.0, 0.0])
    assert float(js_divergence(p, torch.tensor([0.0, 1.0]))) == pytest.approx(1.0)
    same = torch.stack([ATTN[0], ATTN[0]])  # two layers with identical heads: distance 0
    total, queries = head_distance_sums(same, ROLES.valid)
    assert queries == 5 and torch.allclose(total, torch.zeros(2, 2, dtype=torch.float64), atol=1e-12)
    shifted = torch.stack([ATTN[0], ATTN[0].roll(1, dims=-1)])
    total, _ = head_distance_sums(shifted, ROLES.valid)
    rows = ATTN[0, 0, 0, :5]
    expected = js_divergence(rows, rows.roll(1, dims=-1)).sum()
    assert float(total[0, 1]) == pytest.approx(float(expected)) and float(total[1, 0]) == pytest.approx(float(expected))


def test_corpus_run_with_gradients_and_save(tiny_explainer, tmp_path: Path) -> None:
    result = attention_anatomy(tiny_explainer, SENTENCES, batch_size=2, head_sentences=3, progress=False)
    assert result.shape == (2, 2) and result.sentences == 4
    assert result.sep_gradient is not None and (result.sep_gradient > 0).all()
    assert result.mds is not None and result.mds.shape == (4, 2)
    shares = np.stack([result.stats[n] for n in ("cls", "sep", "punct", "self", "next", "prev", "within")])
    assert ((shares > 0) & (shares < 1)).all() and (result.stats["across"] == 0).all()  # single texts
    result.save(tmp_path)
    again = AnatomyResult.load(tmp_path)
    assert np.allclose(again.stats["sep"], result.stats["sep"]) and np.allclose(again.mds, result.mds)
    table = F.stats_table(result)
    assert list(table["layer"]) == [1, 1, 2, 2] and "sep_gradient" in table
    for fig in (F.per_layer_lines(result), F.noop_figure(result), F.mds_figure(result), F.entropy_lines(result)):
        assert fig.data
    heat = F.layer_head_heatmap(result.stats["sep"], "x")
    assert np.allclose(np.asarray(heat.data[0].z), result.stats["sep"])


def test_gradients_reach_only_the_layers_the_model_reads() -> None:
    maps = tuple(torch.rand(1, 2, 3, 3, requires_grad=True) for _ in range(3))
    loss = (maps[0] * maps[1]).sum()  # a model that reads hidden state 2: layer 3's map never reaches it
    grads = decision_gradients(loss, maps, encoder_layer=2)
    assert len(grads) == 3 and torch.allclose(grads[0], maps[1]) and not grads[2].any()
    assert len(decision_gradients((maps[0] * maps[1] * maps[2]).sum(), maps, encoder_layer=-1)) == 3


def test_corpus_gradient_test_runs_on_a_model_that_reads_an_inner_layer(tiny_encoder) -> None:
    from helpers import make_explainer

    explainer = make_explainer(tiny_encoder, seed=4, encoder_layer=1)  # reads hidden state 1 of 2 layers
    result = attention_anatomy(explainer, SENTENCES, batch_size=2, head_sentences=3, progress=False)
    assert result.sep_gradient is not None and (result.sep_gradient[0] > 0).all()
    assert not result.sep_gradient[1:].any()  # a layer past the read-out (if the encoder still runs it): 0


def test_pair_model_splits_within_and_across(tiny_pair_explainer) -> None:
    pairs = [Example("a man plays a guitar .", "a person makes music", 0), Example("two dogs run", "cats sleep", 2)]
    result = attention_anatomy(tiny_pair_explainer, pairs, gradients=False, progress=False)
    assert (result.stats["across"] > 0.05).all() and (result.stats["within"] > 0.05).all()


def test_probe_separable_and_shuffled() -> None:
    torch.manual_seed(0)
    x = torch.randn(400, 8)
    y = (x[:, 3] > 0).long()
    x[:, 3] += 2 * y - 1  # a margin of 2 between the classes
    assert train_probe(x[:300], y[:300], x[300:], y[300:]) == 1.0
    noise = y[torch.randperm(400)]
    assert abs(train_probe(x[:300], noise[:300], x[300:], noise[300:]) - 0.5) < 0.15


def test_probe_table_recovers_planted_label_by_layer() -> None:
    torch.manual_seed(0)
    labels = torch.randint(0, 3, (300,))
    planted = torch.randn(300, 16)
    planted[:, 0] = labels * 5.0  # layer 1 carries the label linearly, layer 0 is noise
    sentence = torch.stack([torch.randn(300, 16), planted])
    tokens = torch.randn(2, 10, 16)
    cache = HiddenCache(sentence, labels, tokens, torch.arange(10), torch.arange(10) % 2, torch.zeros(10).long())
    table = probe_by_layer(cache, tasks=("label",), seed=0, progress=False)
    assert table.loc[table.layer == 1, "accuracy"].item() == 1.0
    assert table.loc[table.layer == 0, "accuracy"].item() < 0.6
    assert F.probe_figure(table).data


def test_folds_score_every_item_once_against_the_test_majority() -> None:
    masks = sentence_splits(12, seed=3, folds=5)
    assert len(masks) == 5 and torch.stack(masks).sum(0).tolist() == [1] * 12  # a partition of the sentences
    assert [int(m.sum()) for m in masks] == [3, 3, 2, 2, 2]
    assert len(sentence_splits(3, seed=0, folds=5)) == 3  # never more folds than sentences
    torch.manual_seed(0)
    labels = torch.tensor([0] * 70 + [1] * 30)
    sentence = torch.randn(2, 100, 8)
    sentence[1, :, 0] = labels * 4.0
    tokens = torch.randn(2, 10, 8)
    cache = HiddenCache(sentence, labels, tokens, torch.arange(10), torch.arange(10) % 2, torch.zeros(10).long())
    table = probe_by_layer(cache, tasks=("label",), seed=0, progress=False, folds=5)
    assert table["test"].tolist() == [100, 100] and table["folds"].tolist() == [5, 5]
    assert table["train"].tolist() == [80, 80] and table["majority"].tolist() == [0.7, 0.7]
    assert table.loc[table.layer == 1, "accuracy"].item() == 1.0
    held = probe_by_layer(cache, tasks=("label",), seed=0, progress=False, test_fraction=0.2)
    test = sentence_splits(100, seed=0)[0]
    share = float(torch.bincount(labels[test]).max()) / int(test.sum())
    assert held["test"].tolist() == [20, 20] and held["majority"].tolist() == [share, share]


def test_hidden_cache_shapes(tiny_explainer) -> None:
    cache = cache_hidden_states(tiny_explainer, SENTENCES, batch_size=3, tokens_per_sentence=4, progress=False)
    assert cache.sentence.shape == (3, 4, 32) and cache.token.shape == (3, 16, 32)
    assert cache.labels.tolist() == [4, 0, 2, 1]
    assert cache.in_top_span.sum() >= 1 and cache.token_position.max() < 9


def test_perturbations_are_reproducible_and_degree_matches() -> None:
    text = "one two three four five six"
    first = shuffle_words(text, example_rng(3, 7))
    assert first == shuffle_words(text, example_rng(3, 7)) and sorted(first.split()) == sorted(text.split())
    assert shuffle_degree(text, text) == 0.0
    assert shuffle_degree(text, first) == edit_distance(text.split(), first.split()) / 6
    assert edit_distance(["a", "b", "c"], ["b", "c", "a"]) == 2
    mapping = parse_antonyms("good:bad\nFun : dull")
    assert swap_antonyms("Good fun, not bad.", mapping) == "Bad dull, not good."
    with pytest.raises(ValueError):
        parse_antonyms("good-bad")
    assert js_of_dicts({"a": 1.0}, {"b": 1.0}) == pytest.approx(1.0)
    assert js_of_dicts({"a": 0.5, "b": 0.5}, {"b": 0.5, "a": 0.5}) == 0.0


def test_drop_top_span_and_study(tiny_explainer) -> None:
    explanation = tiny_explainer.explain("a warm , funny film .")
    top = explanation.top_spans(1)[0]
    assert drop_top_span(explanation) == " ".join(
        (explanation.text[: top.start_char] + " " + explanation.text[top.end_char :]).split()
    )
    summary, rows = perturbation_study(tiny_explainer, SENTENCES, seed=1, antonyms={"good": "bad", "bad": "good"})
    assert set(summary.perturbation) == {"shuffle", "distractor", "drop_top_span", "drop_top_attention", "antonyms"}
    again, _ = perturbation_study(tiny_explainer, SENTENCES, seed=1, antonyms={"good": "bad", "bad": "good"})
    assert summary.equals(again)
    assert ((rows.js_alpha >= 0) & (rows.js_alpha <= 1)).all()
    assert F.perturbation_figure(summary).data


def test_confusion_score_on_constructed_case() -> None:
    # tokens: [CLS] subj other verb [SEP]; the verb gives 0.3 to subj and 0.1 to the distractor.
    attn = torch.zeros(1, 1, 1, 5, 5)
    attn[..., 3, :] = torch.tensor([0.2, 0.3, 0.1, 0.2, 0.2])
    masks = [torch.tensor([[False] * 5]) for _ in range(3)]
    masks[0][0, 3], masks[1][0, 1], masks[2][0, 2] = True, True, True
    assert float(confusion_scores(attn, *masks)) == pytest.approx(-np.log2(0.75))


def test_agreement_sentences_and_scores(tiny_explainer) -> None:
    text, spans = fill("the {subj} {verb} .", {"subj": "cats", "verb": "sleep"})
    assert text == "the cats sleep ." and text[slice(*spans["verb"])] == "sleep"
    sentences = agreement_sentences(5, seed=2)
    assert len(sentences) == 20 and sentences == agreement_sentences(5, seed=2)
    plain = [s for s in sentences if s.kind == "agreement" and not s.distractor]
    assert all(s.antecedent[1] < s.target[0] < s.other[0] for s in plain)
    table = confusion_by_layer(tiny_explainer, sentences)
    assert len(table) == 2 * 2 * 2 and (table.confusion >= 0).all()
    assert F.confusion_figure(table).data


@pytest.mark.slow
def test_cli_commands_write_results(tiny_explainer, tmp_path: Path, capsys) -> None:
    from selfexplain.core.modeling.checkpoint import save_model

    model = tmp_path / "model"
    save_model(tiny_explainer.model, tiny_explainer.tokenizer, model)
    data = tmp_path / "data.txt"
    data.write_text("".join(f"{e.label} {e.text}\n" for e in SENTENCES), encoding="utf-8")
    common = ["--model", str(model), "--data", str(data), "--no-progress", "--batch-size", "2"]
    assert main(["anatomy", *common, "--out", str(tmp_path / "a"), "--agreement", "2"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["sentences"] == 4 and len(summary["sep_by_layer"]) == 2
    assert (tmp_path / "a" / "attention_stats.csv").is_file() and (tmp_path / "a" / "heatmap_sep.html").is_file()
    assert main(["probe", *common, "--out", str(tmp_path / "p"), "--test-fraction", "0.5"]) == 0
    assert "position" in json.loads(capsys.readouterr().out)["probes"]
    assert main(["perturb", *common, "--out", str(tmp_path / "x"), "--perturbations", "shuffle"]) == 0
    assert "shuffle" in capsys.readouterr().out
    assert main(["perturb", *common, "--out", str(tmp_path / "x"), "--perturbations", "nope"]) == 2
    assert main(["perturb", *common, "--out", str(tmp_path / "x"), "--antonyms", "bad"]) == 2
    assert "antonym pair" in capsys.readouterr().err


def test_shuffled_training_examples_keep_words_and_labels() -> None:
    from selfexplain.data import Example
    from selfexplain.lab.anatomy.perturb import shuffled_examples

    rows = [Example("the film was very good indeed", None, 1), Example("a man sleeps", "someone rests now", 0)]
    once, again = shuffled_examples(rows, seed=5), shuffled_examples(rows, seed=5)
    assert once == again  # reproducible by seed
    for original, shuffled in zip(rows, once):
        assert sorted(shuffled.text.split()) == sorted(original.text.split())
        assert shuffled.label == original.label
        if original.pair:
            assert sorted(shuffled.pair.split()) == sorted(original.pair.split())
    assert once[0].text != rows[0].text
    assert shuffled_examples(rows, seed=6) != once


def test_separator_gradients_leave_the_shared_model_untouched(tiny_explainer) -> None:
    """The app shares one model between sessions: the gradient statistics must write no parameter .grad."""
    for parameter in tiny_explainer.model.parameters():
        parameter.grad = None
    result = attention_anatomy(tiny_explainer, SENTENCES, batch_size=2, head_sentences=2, progress=False)
    assert result.sep_gradient is not None and np.isfinite(result.sep_gradient).all()
    assert all(p.grad is None for p in tiny_explainer.model.parameters())
