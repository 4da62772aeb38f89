"""selfexplain needed-words (lab/measures): the teacher's most-needed words over a corpus beside models' top spans."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
import torch
from test_distill import bert_teacher
from transformers import AutoTokenizer

from selfexplain.cli import main
from selfexplain.data import Example
from selfexplain.lab.distill.teacher import read_teacher, teacher_probabilities
from selfexplain.lab.measures import needed_words as script
from selfexplain.methods.training.erasure_targets import word_cuts

TEXTS = ["a good and warm film", "the plot was dull , slow and boring", "it isn't bad"]


@pytest.fixture(scope="module")
def teacher(tiny_encoder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bert_teacher(tiny_encoder, tmp_path_factory.mktemp("needed-teacher"))


@pytest.mark.slow
def test_most_needed_is_the_largest_drop_found_one_cut_at_a_time(teacher: Path) -> None:
    source = read_teacher(str(teacher))
    tokenizer = AutoTokenizer.from_pretrained(teacher)
    examples = [Example(t) for t in TEXTS]
    full = teacher_probabilities(source, examples, progress=False)
    effects = script.erasure_effects(source, tokenizer, examples, full, progress=False)
    found = script.most_needed(effects, tokenizer, TEXTS)
    for text, word, probs in zip(TEXTS, found, full):
        label = int(probs.argmax())
        _, cuts = word_cuts(tokenizer, text)
        drops = probs[label] - teacher_probabilities(source, [Example(c) for c in cuts], progress=False)[:, label]
        words = [w for w in text.replace("'", " ' ").split()]  # the pre-tokenizer's words of these texts
        expected = words[int(drops.argmax())] if float(drops.max()) > 0 else ""
        assert word == expected


def test_no_word_is_needed_where_no_deletion_lowers_the_probability(tiny_encoder: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_encoder)
    effects = [torch.tensor([0.0, -0.2, -0.1, 0.0]), torch.tensor([0.0, 0.1, 0.3, 0.3, 0.0])]
    assert script.most_needed(effects, tokenizer, ["Great Film", "so very bad"]) == ["", "very"]  # tie: first


def test_common_holds_and_table() -> None:
    assert script.common(["but", "", "t", "but", "bad"], 2) == [("but", 2, 0.5), ("t", 1, 0.25)]
    held = script.holds(["n't", "goodness", "", "too long", "but"], ["t", "good", "but", "long", ""])
    assert held[:2].tolist() == [1.0, 0.0] and math.isnan(held[2]) and held[3] == 1.0 and math.isnan(held[4])
    assert script.table(["but", "but", "t"], {"A": ["t", "bad", ""]}, 2).splitlines() == [
        "| rank | teacher's most-needed word | A's top span |",
        "|---:|---|---|",
        '| 1 | "but" 66.7% (2) | "t" 50.0% (1) |',
        '| 2 | "t" 33.3% (1) | "bad" 50.0% (1) |',
    ]


def test_main_prints_the_table_and_refuses_mismatched_files(
    teacher: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    pd.DataFrame({"text": TEXTS, "top_span": ["good", "dull", "t"]}).to_csv(first, index=False)
    pd.DataFrame({"text": TEXTS, "top_span": ["film", "", "bad"]}).to_csv(second, index=False)
    argv = [
        "needed-words",
        "--teacher",
        str(teacher),
        "--sharpness",
        str(first),
        str(second),
        "--names",
        "A",
        "B",
        "--top",
        "3",
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    assert printed[0] == "| rank | teacher's most-needed word | A's top span | B's top span |"
    reported = json.loads(printed[-1])
    assert reported["texts"] == 3 and set(reported) == {"texts", "teacher", "A", "B"}
    assert reported["B"]["top_spans"] == [["film", 1, 0.5], ["bad", 1, 0.5]]  # the text without a span left out
    assert 0.0 <= reported["A"]["holds_needed_word"] <= 1.0 and all(w for w, _, _ in reported["teacher"])
    pd.DataFrame({"text": TEXTS[::-1], "top_span": ["a", "b", "c"]}).to_csv(second, index=False)
    assert main(argv) == 2 and "its texts differ" in capsys.readouterr().err
    pd.DataFrame({"text": TEXTS}).to_csv(second, index=False)
    assert main(argv) == 2 and "needs the text and top_span columns" in capsys.readouterr().err
    assert main(["needed-words", "--teacher", str(teacher), "--sharpness", str(first), "--names", "A", "B"]) == 2
    assert "one distinct name per sharpness file" in capsys.readouterr().err
