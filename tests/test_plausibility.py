from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from selfexplain.cli import main
from selfexplain.core.results.explanation import Explanation, Token
from selfexplain.data import DataError
from selfexplain.lab.plausibility.metrics import (
    average_precision,
    hard_spans,
    human_token_mask,
    iou_f1,
    plausibility,
    random_spans,
    token_f1,
    token_runs,
)
from selfexplain.lab.plausibility.rationales import parse_tagged, read_rationale_jsonl


def explanation_with_alpha(weights: dict[tuple[int, int], float], n: int = 6) -> Explanation:
    text = " ".join(f"w{i}" for i in range(n))
    tokens = tuple(Token(f"w{i}", 3 * i, 3 * i + 2, 0, f"w{i}") for i in range(n))
    mask = np.triu(np.ones((n, n), dtype=bool))
    alpha = np.where(mask, 1e-6, 0.0)
    for (i, j), value in weights.items():
        alpha[i, j] = value
    alpha /= alpha.sum()
    return Explanation(text, None, tokens, ("neg", "pos"), np.array([0.3, 0.7]), alpha, mask, "demo")


def test_parse_tagged_gives_clean_text_and_character_spans() -> None:
    text, spans = parse_tagged("a  <POS> ably captures </POS> the\n<NEG>dull</NEG> end")
    assert text == "a ably captures the dull end"
    assert [text[a:b] for a, b in spans] == ["ably captures", "dull"]
    for bad, message in (("<POS> x", "never closed"), ("x </NEG>", "without an opening"), ("<POS> <NEG>", "inside")):
        with pytest.raises(DataError, match=message):
            parse_tagged(bad, "r.txt")


def test_average_precision_matches_hand_value() -> None:
    # ranks: T F F T -> precision at hits 1/1 and 2/4
    assert average_precision(np.array([0.9, 0.8, 0.1, 0.5]), np.array([1, 0, 1, 0], dtype=bool)) == pytest.approx(0.75)
    assert average_precision(np.array([0.1, 0.2]), np.zeros(2, dtype=bool)) == 0.0


def test_iou_and_token_f1_match_hand_values() -> None:
    human = np.array([[0, 3], [6, 7]])
    # [0,2] vs [0,3]: IOU 3/4 match; [5,9] vs [6,7]: IOU 2/5 no match -> P 1/2, R 1/2
    assert iou_f1(np.array([[0, 2], [5, 9]]), human) == pytest.approx(0.5)
    predicted = np.array([1, 1, 0, 0], dtype=bool)
    truth = np.array([0, 1, 1, 0], dtype=bool)
    assert token_f1(predicted, truth) == pytest.approx(0.5)
    assert token_runs(np.array([1, 1, 0, 1, 0, 1, 1, 1], dtype=bool)).tolist() == [[0, 1], [3, 3], [5, 7]]


def test_hard_spans_fill_the_budget_without_overlap() -> None:
    exp = explanation_with_alpha({(1, 2): 0.5, (2, 3): 0.3, (4, 4): 0.1, (0, 5): 0.05})
    assert hard_spans(exp, 3).tolist() == [[1, 2], [4, 4]]  # (2,3) overlaps, (0,5) is too long


def test_human_mask_and_random_floor() -> None:
    exp = explanation_with_alpha({(1, 2): 0.9})
    assert human_token_mask(exp, [(3, 8)]).tolist() == [False, True, True, False, False, False]
    rng = np.random.default_rng(0)
    spans = random_spans(np.array([2, 1]), 6, rng)
    covered = np.concatenate([np.arange(a, b + 1) for a, b in spans])
    assert sorted((b - a + 1) for a, b in spans) == [1, 2] and len(set(covered)) == 3 and covered.max() < 6


def test_alpha_on_the_rationale_beats_random() -> None:
    docs = [explanation_with_alpha({(1, 2): 0.9}), explanation_with_alpha({(3, 4): 0.9})]
    result = plausibility(docs, [[(3, 8)], [(9, 14)]], seed=0)
    assert result["alpha"] == {"auprc": pytest.approx(1.0), "token_f1": 1.0, "iou_f1": 1.0}
    assert result["random"]["auprc"] < 1.0 and result["setting"]["fraction"] == pytest.approx(2 / 6)


def test_rationales_and_plausibility_commands(
    tiny_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "movies"
    for polarity, tag in (("neg", "NEG"), ("pos", "POS")):
        (folder / f"withRats_{polarity}").mkdir(parents=True)
        for number in range(4):
            body = f"the plot was <{tag}> truly {polarity} stuff </{tag}> and the end came . " * 3
            (folder / f"withRats_{polarity}" / f"{polarity}R_{number:03d}.txt").write_text(body, encoding="utf-8")
    assert main(["rationales", str(folder), "--out", str(tmp_path), "--train", "0:2", "--dev", "2:3"]) == 0
    assert json.loads(capsys.readouterr().out) == {"out": str(tmp_path), "train": 4, "dev": 2, "test": 0}
    rows = read_rationale_jsonl(tmp_path / "movies-train.jsonl")
    assert {r.text[a:b] for r in rows for a, b in r.rationales} == {"truly neg stuff", "truly pos stuff"}
    out = tmp_path / "plaus.json"
    data = tmp_path / "movies-train.jsonl"
    assert main(["plausibility", "--model", str(tiny_model_dir), "--data", str(data), "--out", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert summary["documents"] == 4 and 0 <= summary["accuracy"] <= 1
    assert set(summary["alpha"]) == {"auprc", "token_f1", "iou_f1"}
    args = ["plausibility", "--model", str(tiny_model_dir), "--data", str(data), "--out", str(out)]
    assert main([*args, "--explainers", "integrated_gradients,loo", "--limit", "2"]) == 0
    summary = json.loads(out.read_text())
    assert summary["documents"] == 2 and summary["truncated_to_window"] is True
    for name in ("alpha", "integrated_gradients", "loo", "random"):
        assert 0 <= summary[name]["auprc"] <= 1 and 0 <= summary[name]["token_f1"] <= 1, name
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "short", "label": 0, "rationales": [[0, 99]]}\n')
    assert main(["plausibility", "--model", str(tiny_model_dir), "--data", str(bad)]) == 2
    assert "bad.jsonl:1: a rationale span lies outside the text" in capsys.readouterr().err


TREES = "(4 (3 sweet) (4 (2 and) (3 funny)))\n(0 (2 a) (0 (1 dull) (2 film)))\n"


def test_phrase_index_and_hits_against_hand_labels(tmp_path: Path) -> None:
    from selfexplain.lab.plausibility.sst_phrases import best_window, phrase_hits, phrase_index

    trees = tmp_path / "trees.txt"
    trees.write_text(TREES, encoding="utf-8")
    index = phrase_index(trees)
    assert index["sweet and funny"] == {(0, 2): 4, (0, 0): 3, (1, 2): 4, (1, 1): 2, (2, 2): 3}
    assert best_window(np.array([0.1, 0.5, 0.4, 0.0]), 2) == (1, 2)
    assert best_window(np.array([0.1, 0.5, 0.4, 0.9]), 2) == (2, 3)
    rows = [
        {  # predicted very positive; alpha's top span "and funny" is a 4-phrase; gradient's "sweet and" is no phrase
            "text": "Sweet and funny",
            "pair": None,
            "predicted": 4,
            "offsets": [[0, 5], [6, 9], [10, 15]],
            "alpha": {"top_span": [1, 2]},
            "scores": {"alpha": [0.2, 0.4, 0.4], "gradient": [0.9, 0.1, 0.0]},
        },
        {  # predicted negative; alpha's "dull" is a 1-phrase (polar, not strong); gradient's "film" is neutral
            "text": "a dull film",
            "pair": None,
            "predicted": 1,
            "offsets": [[0, 1], [2, 6], [7, 11]],
            "alpha": {"top_span": [1, 1]},
            "scores": {"alpha": [0.1, 0.8, 0.1], "gradient": [0.0, 0.0, 1.0]},
        },
        {"text": "a dull film", "pair": None, "predicted": 2, "offsets": [], "alpha": {"top_span": [0, 0]}},
    ]
    table = phrase_hits(rows, index, seed=0).set_index("explainer")
    assert table.loc["alpha", ["strong_phrase", "polar_phrase", "examples"]].tolist() == [0.5, 1.0, 2]
    assert table.loc["gradient", ["strong_phrase", "polar_phrase"]].tolist() == [0.0, 0.0]
    assert table.loc["random", "examples"] == 2  # the neutral prediction is skipped
