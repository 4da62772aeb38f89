"""selfexplain own-need (lab/measures): whether alpha's top span holds the word its own model needs most."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import make_explainer

from selfexplain.cli import main
from selfexplain.core.modeling.checkpoint import save_model
from selfexplain.lab.measures import own_need
from selfexplain.methods.training.erasure_targets import word_cuts, word_spans

TEXTS = ["the acting was wooden and it dragged", "a fine film", "not bad at all , in fact rather good !"]


def test_the_needed_word_is_the_largest_single_word_drop(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=6)
    found = own_need.needed_words(explainer, TEXTS)
    for text, (start, end) in zip(TEXTS, found):  # brute force: each cut read on its own
        whole = explainer.explain(text, attentions=False)
        label = whole.predicted_index
        _, cuts = word_cuts(explainer.tokenizer, text)
        drops = [whole.probabilities[label] - explainer.explain(c, attentions=False).probabilities[label] for c in cuts]
        _, spans = word_spans(explainer.tokenizer, text)
        assert spans[int(np.argmax(drops))] == (start, end)
        assert text[start:end] in text.split() or text[start:end].isalpha()


def test_holds_and_summary(tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = own_need
    explainer = make_explainer(tiny_encoder, seed=6)
    explanations = [explainer.explain(t, attentions=False) for t in TEXTS]
    tops = [e.top_spans(1)[0] for e in explanations]
    inside = [(t.start_char, t.end_char) for t in tops]
    outside = [(len(t) + 1, len(t) + 2) for t in TEXTS]  # past the text: never inside its top span
    assert script.holds(explanations, inside).all() and not script.holds(explanations, outside).any()
    result = script.summary(np.array([True, True, False]), np.array([1.0, np.nan, 0.0]))
    assert result == {
        "texts": 3, "top_span_holds_needed_word": pytest.approx(2 / 3), "deletion_beats_random_where_held": 1.0,
        "held_measured": 1, "deletion_beats_random_elsewhere": 0.0, "elsewhere_measured": 1,
    }  # fmt: skip
    folder = tmp_path / "tiny"
    save_model(explainer.model, explainer.tokenizer, folder)
    csv = tmp_path / "sharpness.csv"
    pd.DataFrame({"text": TEXTS, "deletion_beats_random": [1.0, 0.0, 1.0]}).to_csv(csv, index=False)
    assert main(["own-need", "--model", str(folder), "--sharpness", str(csv)]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    reported = json.loads(printed[-1])
    assert reported["texts"] == 3 and set(reported) == set(result)
    assert printed[0].startswith("top span holds the model's own most-needed word on ")
    pd.DataFrame({"text": TEXTS}).to_csv(csv, index=False)
    assert main(["own-need", "--model", str(folder), "--sharpness", str(csv)]) == 2
    assert "needs the text and deletion_beats_random columns" in capsys.readouterr().err
