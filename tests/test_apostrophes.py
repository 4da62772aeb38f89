"""Words cut at an apostrophe: the tokenizer's words ("split", the default and every folder written before
the option) and "joined" (``selfexplain.core.inputs.words``), on the short path, in windows and in the
erasure targets."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from families import FAMILIES, build_family_encoder
from helpers import make_explainer
from transformers import AutoTokenizer

from selfexplain.core.inputs import tokenise_inputs
from selfexplain.core.inputs.tokens import tokenise
from selfexplain.core.inputs.words import joined_word_ids
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.results.words import word_view
from selfexplain.methods.training.erasure_targets import own_effects, word_spans


@pytest.fixture(scope="module")
def tokenizer(tiny_encoder: Path):
    return AutoTokenizer.from_pretrained(tiny_encoder)


def words_of(tokenizer, text: str, apostrophes: str) -> list[str]:
    """The text's words: the characters of each word id's pieces, in order."""
    row = tokenise_inputs(tokenizer, [text], apostrophes=apostrophes).rows[0]
    spans: dict[int, list[int]] = {}
    for (start, end), word in zip(row.offsets, row.word_ids):
        if word is not None:
            spans.setdefault(word, [start, end])[1] = end
    return [text[a:b] for a, b in spans.values()]


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        ("it doesn't work", ["it", "doesn't", "work"]),
        ("it does n't work", ["it", "does", "n't", "work"]),  # SST's tokenised text
        ("the film 's plot", ["the", "film", "'s", "plot"]),
        ("the film's plot", ["the", "film's", "plot"]),
        ("it isn\u2019t", ["it", "isn\u2019t"]),  # a typographic apostrophe
        ("a 'great' film", ["a", "'great", "'", "film"]),  # a closing quote has no letter after it
        ("rock 'n' roll", ["rock", "'n", "'", "roll"]),
        ("'tis 1990's", ["'tis", "1990", "'s"]),  # a digit before the apostrophe glues nothing to it
        ("no apostrophe here.", ["no", "apostrophe", "here", "."]),
    ],
)
def test_joined_words_keep_an_apostrophe_inside_its_word(tokenizer, text: str, joined: list[str]) -> None:
    assert words_of(tokenizer, text, "joined") == joined


def test_split_words_are_the_tokenizers_own(tokenizer) -> None:
    text = "it doesn't work, the film 's plot"
    row = tokenise_inputs(tokenizer, [text]).rows[0]
    assert row.word_ids == tokenizer(text).word_ids()
    assert words_of(tokenizer, text, "split") == ["it", "doesn", "'", "t", "work", ",", "the", "film", "'", "s", "plot"]


def test_each_text_of_a_pair_is_numbered_from_zero(tokenizer) -> None:
    row = tokenise_inputs(tokenizer, ["I don't"], ["he can't go"], apostrophes="joined").rows[0]
    first = [w for w, s in zip(row.word_ids, row.sequence_ids) if s == 0]
    second = [w for w, s in zip(row.word_ids, row.sequence_ids) if s == 1]
    assert first == [0, 1, 1, 1]  # i, don ' t
    assert second == [0, 1, 1, 1, 2]  # he, can ' t, go
    assert [w for w, s in zip(row.word_ids, row.sequence_ids) if s is None] == [None, None, None]


def test_no_tokens_no_words() -> None:
    assert joined_word_ids([], [], [], ("",)) == []


def test_a_joined_model_starts_and_ends_spans_only_on_whole_words(tiny_encoder: Path) -> None:
    text = "the plot doesn't work"
    joined = make_explainer(tiny_encoder, seed=3, apostrophes="joined", span_unit="word").explain(text)
    split = make_explainer(tiny_encoder, seed=3, span_unit="word").explain(text)
    pieces = [t.text for t in joined.tokens]
    assert pieces == ["the", "plot", "doesn", "'", "t", "work"]
    starts, ends = joined.span_mask.any(axis=1), joined.span_mask.any(axis=0)
    assert starts.tolist() == [True, True, True, False, False, True]
    assert ends.tolist() == [True, True, False, False, True, True]
    assert split.span_mask.any(axis=1).tolist() == [True] * 6  # "'" and "t" are words of their own
    assert np.isclose(joined.alpha[joined.span_mask].sum(), 1.0)
    assert joined.alpha[~joined.span_mask].max() == 0
    assert word_view(joined).labels == ("the", "plot", "doesn't", "work")
    assert word_view(split).labels == ("the", "plot", "doesn", "'", "t", "work")


def test_windows_keep_the_same_words_as_the_short_path(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=3, apostrophes="joined", span_unit="word")
    text = " ".join(["it doesn't work and the cast isn't good either"] * 30)  # over the 128-token window
    tokens = tokenise(explainer.tokenizer, text, "joined")
    plan = explainer.window_plan(tokens)
    pieces = np.array(explainer.tokenizer.convert_ids_to_tokens(tokens.ids))
    starts, ends = (np.unique(part) for part in plan.span_tokens())
    assert len(plan.window_starts) > 1
    assert not np.isin(pieces[starts], ["'", "t"]).any()  # no span starts inside "doesn't" or "isn't"
    assert not np.isin(pieces[ends], ["doesn", "isn", "'"]).any()
    document = explainer.explain(text)
    assert document.span_unit == "word"


def test_the_erasure_targets_cut_whole_words(tokenizer) -> None:
    text = "it doesn't work"
    _, joined = word_spans(tokenizer, text, "joined")
    _, split = word_spans(tokenizer, text)
    assert [text[a:b] for a, b in joined] == ["it", "doesn't", "work"]
    assert [text[a:b] for a, b in split] == ["it", "doesn", "'", "t", "work"]


def test_folders_written_before_the_option_load_split_words() -> None:
    written = json.dumps({"encoder": "e", "label_names": ["a", "b"], "span_unit": "word"})
    assert ModelConfig.from_json(written).apostrophes == "split"
    assert ModelConfig.from_json(ModelConfig("e", ["a", "b"], apostrophes="joined").to_json()).apostrophes == "joined"
    with pytest.raises(ValueError, match="unknown apostrophes 'glued'; use split or joined"):
        ModelConfig("e", ["a", "b"], apostrophes="glued")  # type: ignore[arg-type]


def test_a_joined_models_own_effects_cut_whole_words(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=3, apostrophes="joined", span_unit="word")
    (effect,) = own_effects(explainer.model, explainer.tokenizer, ["it doesn't work"])
    assert effect.shape == (7,)  # [CLS] it doesn ' t work [SEP]
    assert effect[0] == 0 and effect[-1] == 0
    assert effect[2] == effect[3] == effect[4]  # one word, one effect
    assert len({float(effect[1]), float(effect[2]), float(effect[5])}) == 3


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_joins_the_same_words(family: str, tmp_path: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(build_family_encoder(family, tmp_path))
    text = "it doesn't work , the film 's plot"
    assert words_of(tokenizer, text, "joined") == ["it", "doesn't", "work", ",", "the", "film", "'s", "plot"]
    split = words_of(tokenizer, text, "split")
    assert "doesn't" not in split and "doesn" in split  # byte-level BPEs keep "'t", WordPieces cut "'" and "t"
