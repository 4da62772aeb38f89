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
from selfexplain.lab.distill.carrier import CARRIER_SHARE, TopSpanRepeat, top_span_repeat
from selfexplain.lab.distill.fidelity import Fidelity
from selfexplain.lab.distill.record import record_distillation
from selfexplain.lab.sharpness.measures import top_span_text

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


def test_the_check_counts_the_explained_top_spans(tiny_explainer: SelfExplainer) -> None:
    examples = [Example(t) for t in TEXTS]
    repeat = top_span_repeat(tiny_explainer, examples)
    spans = [top_span_text(tiny_explainer.explain(t)) for t in TEXTS]
    span, count = Counter(spans).most_common(1)[0]
    assert repeat.examples == len(TEXTS) and repeat.span == span
    assert repeat.share == pytest.approx(count / len(TEXTS))
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
    carriers = [line for line in read_model_card(folder).limitations if line.startswith("Its alpha is a carrier")]
    assert carriers == [TopSpanRepeat(".", 0.9, 100).limitation()] and '"." is the top span of 90%' in carriers[0]
    record_distillation(
        folder, "teacher", fidelity, fidelity, parts, "selfexplain distill", "", TopSpanRepeat("dull", 0.1, 100)
    )
    assert ModelConfig.load(folder).metrics["surrogate_top_span_share"] == 0.1
    assert not [line for line in read_model_card(folder).limitations if line.startswith("Its alpha is a carrier")]
