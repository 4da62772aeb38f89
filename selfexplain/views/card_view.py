"""What the Model card page shows of a card, decided without Streamlit: which measures answer "how sharp"
and which answer "is it faithful", and how a command names the model without a server path.

A card written by ``selfexplain sharpness`` lists every measure of that run under ``sharpness``, the
deletion and flip tests among them; those tests say whether the explanation is faithful (does the decision
change when the spans it names are removed?), so where the card records no other faithfulness measure the
page shows them under that question.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from selfexplain.core.modeling.model_card import Measure, ModelCard

# Measures that answer "is the explanation faithful?": they remove or change what alpha points at and see
# whether the decision follows (matched on the measure's name, lower case).
FAITHFULNESS_WORDS = ("deleting", "flips", "uniform alpha", "reading only", "comprehensiveness", "sufficiency")
MODEL_PLACEHOLDER = "MODEL_FOLDER"


def is_faithfulness(measure: Measure) -> bool:
    """Whether ``measure`` tests the explanation's faithfulness (see :data:`FAITHFULNESS_WORDS`)."""
    name = measure.name.lower()
    return any(word in name for word in FAITHFULNESS_WORDS)


def measure_sections(card: ModelCard) -> tuple[tuple[Measure, ...], tuple[Measure, ...]]:
    """``(sharpness, faithfulness)``: a card that records no faithfulness measure but whose sharpness run holds
    faithfulness tests shows those tests under faithfulness (not "Not measured" below them); a card that
    records both keeps each measure where it put it."""
    if card.faithfulness:
        return card.sharpness, card.faithfulness
    moved = tuple(m for m in card.sharpness if is_faithfulness(m))
    sharp = tuple(m for m in card.sharpness if not is_faithfulness(m))
    return sharp, card.faithfulness + moved


def command_model(directory: Path, known: Mapping[str, Path]) -> str:
    """How a command shown to a reader names the model in ``directory``: its name when that name finds this
    folder (``known``: name -> folder, a shipped model or one in the models folder), else a placeholder; never
    the server's path."""
    found = known.get(Path(directory).name)
    if found is not None and Path(found).resolve() == Path(directory).resolve():
        return Path(directory).name
    return MODEL_PLACEHOLDER
