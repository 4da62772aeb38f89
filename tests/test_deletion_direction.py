"""selfexplain deletion-direction (lab/measures): which class alpha's top span pushes towards, by predicted class."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import make_explainer

from selfexplain.cli import main
from selfexplain.core.modeling.checkpoint import save_model
from selfexplain.lab.measures import deletion_direction as script
from selfexplain.lab.sharpness.measures import positive_top_span, span_words, words_of
from selfexplain.lab.sharpness.measures_model import without_words

TEXTS = ["the acting was wooden and it dragged", "a fine film", "not bad at all , in fact rather good !"]


@pytest.mark.parametrize(
    ("predicted", "pushed", "labels", "expected"),
    [
        (3, 3, 5, "same"),
        (3, 4, 5, "stronger"),
        (1, 0, 5, "stronger"),
        (3, 2, 5, "elsewhere"),
        (3, 1, 5, "elsewhere"),
        (4, 3, 5, "elsewhere"),
        (2, 0, 5, "stronger"),  # the middle label: any other class is stronger
        (2, 4, 5, "stronger"),
        (1, 0, 2, "elsewhere"),  # two labels: no stronger one
    ],
)
def test_direction(predicted: int, pushed: int, labels: int, expected: str) -> None:
    assert script.direction(predicted, pushed, labels) == expected


def test_pushes_names_the_class_that_loses_most(tiny_encoder: Path) -> None:
    explainer = make_explainer(tiny_encoder, seed=6)
    found = script.pushes(explainer, TEXTS)
    for text, item in zip(TEXTS, found):  # brute force: the cut read on its own
        whole = explainer.explain(text, attentions=False)
        words = words_of(whole)
        first, last = span_words(words, positive_top_span(whole))
        cut, _ = without_words(whole, words, first, last)
        loss = np.asarray(whole.probabilities) - np.asarray(explainer.explain(cut, attentions=False).probabilities)
        assert item == (whole.predicted_index, int(loss.argmax()))


def test_table_and_main(tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = ["neg", "mid", "pos"]
    frame = pd.DataFrame({"deletion_beats_random": [1.0, 0.0, 0.0, 1.0, np.nan]})
    found = [(2, 2), (2, 1), None, (1, 0), (2, 2)]
    table = script.table(frame, found, labels)
    assert table.index.tolist() == ["mid", "pos"]
    assert table.loc["pos", "inputs"] == 3 and table.loc["pos", "deletion_beats_random"] == pytest.approx(0.5)
    assert table.loc["pos", "pushes same"] == pytest.approx(2 / 3)
    assert table.loc["pos", "pushes elsewhere"] == pytest.approx(1 / 3)
    assert table.loc["mid", "pushes stronger"] == 1.0 and table.loc["mid", "pushes same"] == 0.0
    assert table.loc["pos", "beats where same"] == 1.0  # rows 0 and 4: 1.0 and NaN
    assert np.isnan(table.loc["pos", "beats where stronger"]) and table.loc["mid", "beats where stronger"] == 1.0
    explainer = make_explainer(tiny_encoder, seed=6)
    folder = tmp_path / "tiny"
    save_model(explainer.model, explainer.tokenizer, folder)
    csv = tmp_path / "sharpness.csv"
    pd.DataFrame({"text": TEXTS, "deletion_beats_random": [1.0, 0.0, 1.0]}).to_csv(csv, index=False)
    assert main(["deletion-direction", "--model", str(folder), "--sharpness", str(csv)]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    assert printed[0].split()[:2] == ["inputs", "deletion_beats_random"]
    assert sum(row["inputs"] for row in json.loads(printed[-1])) == 3
    pd.DataFrame({"text": TEXTS}).to_csv(csv, index=False)
    assert main(["deletion-direction", "--model", str(folder), "--sharpness", str(csv)]) == 2
    assert "needs the text and deletion_beats_random columns" in capsys.readouterr().err
