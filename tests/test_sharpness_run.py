"""The sharpness measures with tiny random models: batch instances, a run over examples, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import make_explainer

from selfexplain.cli import main
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.data import Example
from selfexplain.lab.faithfulness.alpha_tests import span_view
from selfexplain.lab.sharpness.instances import batch_instances
from selfexplain.lab.sharpness.measures import MEASURES
from selfexplain.lab.sharpness.run import SharpnessOptions, measure_examples

TEXTS = ["a warm , funny film that is n't dull at all .", "two hours of shouting .", "fine"]
PAIRS = ["someone likes the film .", "it is loud .", "ok"]


@pytest.fixture(scope="module")
def sparse_explainer(tiny_encoder: Path) -> SelfExplainer:
    return make_explainer(tiny_encoder, seed=3, normaliser="sparsemax", span_unit="word")


@pytest.mark.parametrize("pair", [False, True])
def test_batch_instances_read_as_single_instances(
    tiny_explainer: SelfExplainer, tiny_pair_explainer: SelfExplainer, pair: bool
) -> None:
    explainer = tiny_pair_explainer if pair else tiny_explainer
    instances = batch_instances(explainer, TEXTS, PAIRS if pair else None)
    for index, instance in enumerate(instances):
        alone = explainer.instance(TEXTS[index], PAIRS[index] if pair else None)
        assert instance.explanation.text == TEXTS[index] and instance.batch.input_ids.shape[0] == 1
        np.testing.assert_allclose(instance.explanation.alpha, alone.explanation.alpha, atol=1e-5)
        ours, theirs = span_view(explainer, instance), span_view(explainer, alone)
        np.testing.assert_allclose(ours.alpha, theirs.alpha, atol=1e-5)
        np.testing.assert_allclose(ours.contributions, theirs.contributions, atol=1e-4)
        assert (ours.starts == theirs.starts).all() and (ours.ends == theirs.ends).all()


def test_measure_examples_rows(sparse_explainer: SelfExplainer) -> None:
    examples = [Example(t, None, i % 5) for i, t in enumerate(TEXTS)]
    rows = measure_examples(sparse_explainer, examples, batch_size=2, progress=False)
    keys = {m.key for m in MEASURES.values()} - {"both_sides_share", "sst_phrase_agreement", "rationale_token_f1"}
    for row in rows:
        assert keys <= set(row), keys - set(row)
        assert np.isnan(row["both_sides_share"])
        for key in ("deletion_beats_random", "top_out_flip", "multi_span_share"):
            assert np.isnan(row[key]) or row[key] in (0.0, 1.0), key
        assert 1 <= row["nonzero_spans"] <= row["num_spans"] and row["top_span_words"] >= 1
    assert np.isnan(rows[2]["deletion_beats_random"])  # one word: no other place for the top span's words
    again = measure_examples(sparse_explainer, examples, batch_size=3, progress=False)
    for ours, theirs in zip(rows, again):  # the draws do not depend on the batches
        assert ours["top_deletion_drop"] == pytest.approx(theirs["top_deletion_drop"], nan_ok=True, abs=1e-5)
        assert ours["random_deletion_drop"] == pytest.approx(theirs["random_deletion_drop"], nan_ok=True, abs=1e-5)


def test_a_new_measure_is_one_registration(sparse_explainer: SelfExplainer, monkeypatch: pytest.MonkeyPatch) -> None:
    from selfexplain.lab.sharpness.measures import num_spans, summarise, summary_rows
    from selfexplain.lab.sharpness.registry import COLUMNS, Measure, each, register_measure

    for registry in (COLUMNS, MEASURES):  # register into copies, which the test's end takes back
        monkeypatch.setattr(registry, "_entries", dict(registry.items()))
    new = Measure(key="valid_spans", label="valid spans", higher_is_better=None, rank=95, compute=each(num_spans))
    register_measure(new)
    examples = [Example(t, None, 0) for t in TEXTS]
    rows = measure_examples(sparse_explainer, examples, batch_size=2, progress=False)
    keys = list(rows[0])
    assert keys.index("valid_spans") == keys.index("top_span_words") + 1  # after the alpha columns ranked below
    assert [r["valid_spans"] for r in rows] == [r["num_spans"] for r in rows]
    labels = [r["measure"] for r in summary_rows(summarise(rows))]
    assert labels.index("valid spans") == labels.index("median top-span length in words") + 1


def test_pair_rows_say_both_sides(tiny_pair_explainer: SelfExplainer) -> None:
    examples = [Example(t, p, 0) for t, p in zip(TEXTS, PAIRS)]
    rows = measure_examples(tiny_pair_explainer, examples, progress=False, options=SharpnessOptions(seed=1))
    assert [r["both_sides_share"] for r in rows] == [1.0, 1.0, 1.0]  # softmax: every span has alpha > 0
    assert all(r["top_out_flip"] in (0.0, 1.0) for r in rows)


TREES = "(3 (2 a) (4 (3 (4 warm) (2 film)) (2 .)))\n(1 (2 two) (1 (1 (2 hours) (1 shouting)) (2 .)))\n"


def test_command_with_trees_and_rationales(tiny_model_dir: Path, tmp_path: Path, capsys) -> None:
    trees = tmp_path / "trees.txt"
    trees.write_text(TREES, encoding="utf-8")
    out = tmp_path / "sharp"
    args = ["sharpness", "--model", str(tiny_model_dir), "--data", str(trees), "--out", str(out), "--no-progress"]
    assert main([*args, "--draws", "3", "--seed", "2"]) == 0
    table = pd.read_csv(out / "sharpness.csv")
    assert len(table) == 2 and "sst_phrase_agreement" in table and "deletion_beats_random" in table
    assert table["sst_phrase_agreement"].dropna().isin([0.0, 1.0]).all()
    markdown = (out / "sharpness.md").read_text(encoding="utf-8")
    assert "median top-span length in words" in markdown and "† automatic when alpha has one span" in markdown
    assert capsys.readouterr().out == markdown
    data = tmp_path / "movies.jsonl"
    rows = [
        {"text": " the plot was truly dull stuff", "label": 0, "rationales": [[14, 24]]},
        {"text": "a warm and funny film", "label": 1, "rationales": [[2, 6]]},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["sharpness", "--model", str(tiny_model_dir), "--data", str(data), "--out", str(out)]) == 0
    table = pd.read_csv(out / "sharpness.csv")
    assert table["rationale_token_f1"].between(0, 1).all() and "sst_phrase_agreement" not in table
    assert main([*args, "--draws", "0"]) == 2


def test_rationales_follow_the_stripped_text() -> None:
    from selfexplain.data import DataError
    from selfexplain.lab.plausibility.rationales import Review
    from selfexplain.lab.sharpness.cli import aligned_rationales

    review = Review("  the plot was truly dull", 0, ((15, 25),), "r")
    example = Example("the plot was truly dull", None, 0)
    (spans,) = aligned_rationales([example], [review])
    assert [example.text[a:b] for a, b in spans] == ["truly dull"]
    with pytest.raises(DataError, match="not the example's text"):
        aligned_rationales([Example("another text")], [review])
