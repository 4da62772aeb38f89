"""Running the sharpness measures over examples with a loaded model, in batches."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.explanation import Explanation
from selfexplain.data import Example
from selfexplain.lab.faithfulness.alpha_tests import span_view
from selfexplain.lab.plausibility.metrics import alpha_token_f1s
from selfexplain.lab.plausibility.sst_phrases import PhraseIndex
from selfexplain.lab.sharpness.instances import batch_instances
from selfexplain.lab.sharpness.measures import decisiveness, explanation_row, repeated_top_span, top_span_text
from selfexplain.lab.sharpness.measures_model import DRAWS, Probabilities, deletion_scores, top_out_flip
from selfexplain.lab.sharpness.plausibility import sst_phrase_agreement
from selfexplain.methods.training.evaluation import predict_examples

Rationales = Sequence[Sequence[tuple[int, int]]]  # per example: human rationale [start, end) characters


@dataclass(frozen=True)
class SharpnessOptions:
    """``seed``/``draws``: the random deletions of ``deletion_beats_random``; ``phrases``: the SST
    phrase labels of the sentences (adds ``sst_phrase_agreement``); ``rationales``: one list of
    human rationale spans per example, in example order (adds ``rationale_token_f1``)."""

    seed: int = 0
    draws: int = DRAWS
    phrases: PhraseIndex | None = None
    rationales: Rationales | None = None


def probabilities_of(explainer: SelfExplainer) -> Probabilities:
    """``(texts, pairs) -> [B, C]`` class probabilities, long single texts read in windows."""

    def probabilities(texts: Sequence[str], pairs: Sequence[str] | None) -> np.ndarray:
        examples = [Example(t, pairs[i] if pairs is not None else None) for i, t in enumerate(texts)]
        return predict_examples(explainer, examples, progress=False, windows=not explainer.config.pair).probabilities

    return probabilities


def measure_examples(
    explainer: SelfExplainer,
    examples: Sequence[Example],
    batch_size: int = 32,
    progress: bool = True,
    options: SharpnessOptions | None = None,
) -> list[dict[str, float | str]]:
    """One row per example: the text, gold and predicted label, ``correct`` (as ``accuracy``) and
    every measure of :mod:`selfexplain.lab.sharpness.measures`, :mod:`~selfexplain.lab.sharpness.measures_model`
    and (with ``options.phrases`` / ``options.rationales``) :mod:`~selfexplain.lab.sharpness.plausibility`."""
    options = options or SharpnessOptions()
    if options.rationales is not None and len(options.rationales) != len(examples):
        raise ValueError(f"{len(options.rationales)} rationale lists for {len(examples)} examples")
    probabilities = probabilities_of(explainer)
    rows: list[dict[str, float | str]] = []
    explanations: list[Explanation] = []
    starts = range(0, len(examples), batch_size)
    for lo in tqdm(starts, desc="sharpness", unit="batch", disable=not progress):
        chunk = examples[lo : lo + batch_size]
        pairs = [e.pair or "" for e in chunk] if explainer.config.pair else None
        instances = batch_instances(explainer, [e.text for e in chunk], pairs)
        batch = [instance.explanation for instance in instances]
        decisive = decisiveness(
            batch,
            lambda texts, pairs: explainer.predict(texts, pairs),
            lambda texts, pairs: explainer.predict(texts, pairs, uniform_alpha=True),
        )
        deleted = deletion_scores(batch, probabilities, options.seed, options.draws, first_index=lo)
        for example, instance, extra, deletion in zip(chunk, instances, decisive, deleted):
            explanation = instance.explanation
            row: dict[str, float | str] = {"text": example.text, "predicted": explanation.label}
            if example.pair is not None:
                row["pair"] = example.pair
            if example.label is not None:
                row["gold"] = explainer.config.label_names[example.label]
                row["accuracy"] = float(explanation.predicted_index == example.label)
            row["top_span"] = top_span_text(explanation)
            row.update(explanation_row(explanation))
            row.update(extra)
            row.update(deletion)
            row["top_out_flip"] = top_out_flip(span_view(explainer, instance))
            if options.phrases is not None:
                row["sst_phrase_agreement"] = sst_phrase_agreement(explanation, options.phrases)
            rows.append(row)
        if options.rationales is not None:
            explanations.extend(batch)
    for row, repeated in zip(rows, repeated_top_span([str(r["top_span"]) for r in rows]).tolist()):
        row["repeated_top_span"] = repeated
    if options.rationales is not None:
        for row, score in zip(rows, rationale_scores(explanations, options.rationales).tolist()):
            row["rationale_token_f1"] = score
    return rows


def rationale_scores(explanations: Sequence[Explanation], rationales: Rationales) -> np.ndarray:
    """``[E]`` token F1 of alpha's hard rationale per input (NaN without a human rationale; all NaN
    when no input has one)."""
    try:
        return alpha_token_f1s(explanations, rationales)
    except ValueError:  # no document has a human rationale on its tokens
        return np.full(len(explanations), np.nan)
