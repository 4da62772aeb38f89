"""Span edges on words (``ModelConfig.punctuation_ids``): no span starts or ends on punctuation, on the short
path, in windows, for pairs and after a save; a text of punctuation alone keeps its spans."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import make_explainer
from transformers import AutoTokenizer

from selfexplain.core.inputs.words import punctuation_ids, span_edge_ids
from selfexplain.core.modeling.checkpoint import save_model
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.model_card import card_from_config
from selfexplain.core.pipeline import load_model
from selfexplain.core.results.words import word_view


@pytest.fixture(scope="module")
def ids(tiny_encoder: Path) -> list[int]:
    return punctuation_ids(AutoTokenizer.from_pretrained(tiny_encoder))


def test_the_punctuation_pieces_are_punctuation_and_symbols_only(tiny_encoder: Path, ids: list[int]) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_encoder)
    pieces = set(tokenizer.convert_ids_to_tokens(ids))
    assert {".", ",", "!", "?", "'", "-", "##.", "$", "("} <= pieces
    assert not pieces & {"a", "good", "##s", "1", "[CLS]", "[SEP]", "[PAD]", "[UNK]", "[MASK]"}
    assert ids == sorted(ids) and span_edge_ids(str(tiny_encoder), "any") == []
    assert span_edge_ids(str(tiny_encoder), "words") == ids


def edges_of(explanation) -> list[str]:
    """The first and last token of every span the explanation holds."""
    rows, cols = np.nonzero(explanation.span_mask)
    return [explanation.tokens[k].text for k in np.r_[rows, cols]]


def test_no_span_starts_or_ends_on_punctuation(tiny_encoder: Path, ids: list[int]) -> None:
    text = "a dull , plodding film . not good !"
    free = make_explainer(tiny_encoder, seed=3, max_span_width=4).explain(text)
    ruled = make_explainer(tiny_encoder, seed=3, max_span_width=4, punctuation_ids=ids).explain(text)
    assert {",", ".", "!"} <= set(edges_of(free))
    assert not {",", ".", "!"} & set(edges_of(ruled))
    words = [t.text for t in ruled.tokens]
    assert ruled.span_mask[words.index("film"), words.index("good")]  # "film . not good": punctuation inside
    assert ruled.alpha[~ruled.span_mask].max() == 0 and ruled.alpha.sum() == pytest.approx(1.0)
    # a dull | dull , plodding | plodding film . not | not good: 11 spans of at most 4 pieces
    assert int(ruled.span_mask.sum()) == 11 and int(free.span_mask.sum()) == 23
    view = word_view(ruled)  # a punctuation mark stays a word of its own, with no span on it
    assert view.labels == word_view(free).labels == ("a", "dull", ",", "plodding", "film", ".", "not", "good", "!")
    assert not view.span_mask[view.labels.index(".")].any() and not view.span_mask[:, view.labels.index("!")].any()
    assert ruled.probabilities.shape == free.probabilities.shape


def test_a_text_of_punctuation_alone_keeps_its_spans(tiny_encoder: Path, ids: list[int]) -> None:
    explanation = make_explainer(tiny_encoder, seed=3, punctuation_ids=ids).explain("?!")
    assert int(explanation.span_mask.sum()) == 3 and explanation.alpha.sum() == pytest.approx(1.0)


def test_each_text_of_a_pair_is_ruled_on_its_own(tiny_encoder: Path, ids: list[int]) -> None:
    explainer = make_explainer(tiny_encoder, pair=True, seed=3, segment_alpha=True, punctuation_ids=ids)
    explanation = explainer.explain("a man sleeps .", "!")
    rows, cols = np.nonzero(explanation.span_mask)
    by_text = {0: set(), 1: set()}
    for k in np.r_[rows, cols]:
        by_text[explanation.tokens[k].segment].add(explanation.tokens[k].text)
    assert by_text == {0: {"a", "man", "sleeps"}, 1: {"!"}}  # the premise loses its "."; "!" keeps its one span
    assert explanation.alpha.sum() == pytest.approx(1.0)


def test_windows_follow_the_rule(tiny_encoder: Path, ids: list[int]) -> None:
    explainer = make_explainer(tiny_encoder, seed=3, max_span_width=3, punctuation_ids=ids)
    text = " ".join(["the cast is good , the plot is not ."] * 30)  # over the 128-token window
    document = explainer.explain_document(text)
    pieces = np.array([t.piece for t in document.tokens])
    assert len(document.window_starts) > 1
    assert not np.isin(pieces[document.starts], [".", ","]).any()
    assert not np.isin(pieces[document.ends], [".", ","]).any()
    assert np.isin(pieces[document.ends], ["not"]).any() and document.alpha.sum() == pytest.approx(1.0, abs=1e-4)
    dense = explainer.explain(text)  # the same spans, laid out [T, T]
    assert int(dense.span_mask.sum()) == len(document.starts)


def test_the_rule_survives_a_save_and_shows_on_the_card(tiny_encoder: Path, ids: list[int], tmp_path: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=3, punctuation_ids=ids)
    save_model(explainer.model, explainer.tokenizer, tmp_path / "m")
    loaded = load_model(tmp_path / "m")
    text = "not good ."
    torch.testing.assert_close(
        torch.from_numpy(loaded.explain(text).alpha), torch.from_numpy(explainer.explain(text).alpha)
    )
    assert loaded.model.config.span_edges == "words"
    recipe = dict(card_from_config(loaded.model.config).recipe)
    assert recipe["span_edges"] == f"words ({len(ids):,} punctuation pieces start or end no span)"
    assert "span_edges" not in dict(card_from_config(make_explainer(tiny_encoder).model.config).recipe)


def test_a_bad_list_is_refused_and_old_folders_allow_any_edge() -> None:
    assert ModelConfig.from_json(json.dumps({"encoder": "e", "label_names": ["a"]})).punctuation_ids == []
    for bad in ([-1], ["."], [True], 5):
        with pytest.raises(ValueError, match="punctuation_ids must be a list of at most 100,000 token ids"):
            ModelConfig("e", ["a"], punctuation_ids=bad)  # type: ignore[arg-type]
