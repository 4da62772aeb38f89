"""The held-out alpha check of ``selfexplain distill``: a surrogate whose alpha sits on one span on most
inputs is called a carrier in the command's output, its model card and the app's note."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.model_card import read_model_card
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.data import Example
from selfexplain.lab.distill.carrier import CARRIER_SHARE, CLOSING_SHARE, TopSpanRepeat, top_span_repeat
from selfexplain.lab.distill.fidelity import Fidelity
from selfexplain.lab.distill.record import record_distillation
from selfexplain.lab.sharpness.measures import closing_punctuation, top_span_text

TEXTS = [
    f"the film was {w} and the cast was {v} ."
    for w in ("good", "dull", "fine", "slow")
    for v in ("warm", "flat", "odd")
]


def test_a_carrier_is_named_and_an_ordinary_alpha_is_not() -> None:
    carrier = TopSpanRepeat(".", 0.96, 300)
    assert carrier.carrier and CARRIER_SHARE == 0.5
    assert carrier.describe().endswith("a carrier, not an explanation: the surrogate routes its decisions through it")
    assert carrier.limitation() == (
        'Its alpha is a carrier: "." is the top span of 96% of 300 held-out inputs, so its spans do not show '
        "what decided (docs/surrogates.md)."
    )
    ordinary = TopSpanRepeat("dull", 0.04, 300)
    assert not ordinary.carrier and ordinary.limitation() is None and "carrier" not in ordinary.describe()
    few = TopSpanRepeat("", math.nan, 4)
    assert not few.carrier and "too few to check" in few.describe()


def test_a_top_span_on_the_closing_full_stop_is_a_carrier_with_another_word_each_time() -> None:
    """A different word each time, so no one span repeats, but the label goes through the final "."."""
    closing = TopSpanRepeat("roll .", 0.05, 300, closing=0.48)
    assert CLOSING_SHARE == 0.10 and closing.carrier and not closing.repeated
    assert closing.describe().endswith(
        "the top span ends on the closing punctuation on 48%; a carrier, not an explanation: the surrogate "
        "routes its decisions through it"
    )
    assert closing.limitation() == (
        "Its alpha is a carrier: its top span ends on the text's closing punctuation on 48% of 300 held-out "
        "inputs (the last word with the full stop), so those spans do not show what decided (docs/accuracy.md)."
    )
    for share in (0.0, 0.10):  # at the line: not flagged
        ordinary = TopSpanRepeat("dull", 0.04, 300, closing=share)
        assert not ordinary.carrier and ordinary.limitation() is None and "carrier" not in ordinary.describe()


def test_the_sidebar_note_names_a_closing_carrier(tiny_model_dir: Path) -> None:
    from pages.ui.surrogate import surrogate_line

    config = ModelConfig.load(tiny_model_dir)
    config.metrics.update(surrogate_agreement=0.95, surrogate_examples=400.0, surrogate_top_span_share=0.05)
    for closing, flagged in ((0.48, True), (0.02, False)):
        config.metrics["surrogate_closing_share"] = closing
        line = surrogate_line(config, None)
        assert line is not None and line.startswith("Explains a surrogate of **another model**")
        note = "**Its alpha is a carrier**: its top span ends on the closing punctuation on 48% of the first 300"
        assert (note in line) == flagged


def test_the_check_counts_the_explained_top_spans(tiny_explainer: SelfExplainer) -> None:
    examples = [Example(t) for t in TEXTS]
    repeat = top_span_repeat(tiny_explainer, examples)
    spans = [top_span_text(tiny_explainer.explain(t)) for t in TEXTS]
    span, count = Counter(spans).most_common(1)[0]
    assert repeat.examples == len(TEXTS) and repeat.span == span
    assert repeat.share == pytest.approx(count / len(TEXTS))
    ends = [closing_punctuation(tiny_explainer.explain(t)) for t in TEXTS]
    assert repeat.closing == pytest.approx(sum(ends) / len(ends))
    few = top_span_repeat(tiny_explainer, examples[:9])
    assert math.isnan(few.share) and not few.carrier


def test_the_card_says_carrier_and_a_rerun_replaces_it(tiny_model_dir: Path, tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "student"
    shutil.copytree(tiny_model_dir, folder)
    fidelity = Fidelity(0.9, 0.1, 100)
    parts = (("held out", "texts.txt: 100 inputs"),)
    record_distillation(
        folder, "teacher", fidelity, fidelity, parts, "selfexplain distill", "", TopSpanRepeat(".", 0.9, 100)
    )
    assert ModelConfig.load(folder).metrics["surrogate_top_span_share"] == 0.9
    assert "surrogate_closing_share" not in ModelConfig.load(folder).metrics  # not measured: not recorded
    carriers = [line for line in read_model_card(folder).limitations if line.startswith("Its alpha is a carrier")]
    assert carriers == [TopSpanRepeat(".", 0.9, 100).limitation()] and '"." is the top span of 90%' in carriers[0]
    record_distillation(
        folder, "teacher", fidelity, fidelity, parts, "selfexplain distill", "", TopSpanRepeat("dull", 0.1, 100, 0.0)
    )
    assert ModelConfig.load(folder).metrics["surrogate_top_span_share"] == 0.1
    assert ModelConfig.load(folder).metrics["surrogate_closing_share"] == 0.0
    assert not [line for line in read_model_card(folder).limitations if line.startswith("Its alpha is a carrier")]
