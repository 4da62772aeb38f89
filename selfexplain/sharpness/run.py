"""Running the sharpness measures over examples with a loaded model, in batches."""

from __future__ import annotations

from collections.abc import Sequence

from tqdm.auto import tqdm

from selfexplain.data import Example
from selfexplain.pipeline import SelfExplainer
from selfexplain.sharpness.measures import decisiveness, explanation_row


def measure_examples(
    explainer: SelfExplainer, examples: Sequence[Example], batch_size: int = 32, progress: bool = True
) -> list[dict[str, float | str]]:
    """One row per example: the text, gold and predicted label, ``correct`` (as ``accuracy``) and
    every measure of :mod:`selfexplain.sharpness.measures`."""
    rows: list[dict[str, float | str]] = []
    starts = range(0, len(examples), batch_size)
    for lo in tqdm(starts, desc="sharpness", unit="batch", disable=not progress):
        chunk = examples[lo : lo + batch_size]
        pairs = [e.pair or "" for e in chunk] if explainer.config.pair else None
        explanations = explainer.explain_batch([e.text for e in chunk], pairs)
        decisive = decisiveness(
            explanations,
            lambda texts, pairs: explainer.predict(texts, pairs),
            lambda texts, pairs: explainer.predict(texts, pairs, uniform_alpha=True),
        )
        for example, explanation, extra in zip(chunk, explanations, decisive):
            row: dict[str, float | str] = {"text": example.text, "predicted": explanation.label}
            if example.pair is not None:
                row["pair"] = example.pair
            if example.label is not None:
                row["gold"] = explainer.config.label_names[example.label]
                row["accuracy"] = float(explanation.predicted_index == example.label)
            row.update(explanation_row(explanation))
            row.update(extra)
            rows.append(row)
    return rows
