"""Agreement with people, per input (plausibility, not faithfulness), for ``selfexplain sharpness``.

``sst_phrase_agreement`` (SST sentences with their trees): the top span (highest alpha, alpha > 0),
widened to whole space-separated words, is looked up among the labelled phrases of the sentence's
tree (:mod:`selfexplain.lab.plausibility.sst_phrases`). **1.0 when that phrase's polarity equals the
predicted polarity, else 0.0**, with polarity negative (labels 0, 1), neutral (2) or positive (3, 4);
a 5-class model's classes are read as SST-5 labels, a 2-class model's as negative / positive. So
a neutral prediction agrees with a neutral phrase (unlike the Faithfulness lab's phrase hits, which
skip neutral predictions). NaN when the top span's words are not a phrase of the tree, the sentence
is not in the tree file, no span has alpha > 0, the input is a pair or the model has another number
of classes.

``rationale_token_f1`` (data with human rationales): alpha's hard rationale against the human
tokens, exactly as ``selfexplain plausibility`` scores it
(:func:`selfexplain.lab.plausibility.metrics.alpha_token_f1s`: the top spans, non-overlapping, until the
data set's mean rationale share of the tokens is covered), so its mean is that command's alpha token F1.
"""

from __future__ import annotations

import numpy as np

from selfexplain.core.results.explanation import Explanation
from selfexplain.lab.plausibility.sst_phrases import PhraseIndex, phrase_label
from selfexplain.lab.sharpness.measures import positive_top_span

SST_POLARITY = (-1, -1, 0, 1, 1)  # SST-5 label -> negative (-1), neutral (0), positive (1)
CLASS_POLARITY = {5: SST_POLARITY, 2: (-1, 1)}  # a model's class count -> each class's polarity


def sst_phrase_agreement(explanation: Explanation, phrases: PhraseIndex) -> float:
    """1.0 / 0.0 / NaN for one input: see the module docstring."""
    polarity = CLASS_POLARITY.get(len(explanation.label_names))
    span = positive_top_span(explanation)
    if explanation.pair is not None or polarity is None or span is None:
        return float("nan")
    offsets = np.array([[t.start, t.end] for t in explanation.tokens], dtype=np.int64).reshape(-1, 2)  # [T, 2]
    label = phrase_label(phrases, explanation.text, offsets, span.start_token, span.end_token)
    if label is None:
        return float("nan")
    return float(SST_POLARITY[label] == polarity[explanation.predicted_index])
