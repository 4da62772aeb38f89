"""Which class alpha's top span pushes towards, read by deleting it, per predicted class.

``deletion_beats_random`` (``selfexplain sharpness``) asks whether deleting the top span lowers the
probability of the predicted class more than deleting random words. On an ordered label scale (SST-5:
very negative ... very positive) a top span can carry the decision's *side* and still fail: in a
sentence called "positive", deleting "jolly" may move probability from "very positive" to
"positive", so the predicted class gains. ``selfexplain deletion-direction`` reads a ``sharpness.csv``,
deletes each input's top span (alpha > 0) once more, and names the class that loses the most probability: the class the
span's words push towards. Per predicted class it reports the inputs, ``deletion_beats_random``,
where the span pushes (the predicted class itself, a stronger label on the same side, i.e. further from
the middle label, any other for the middle label, or elsewhere), and ``deletion_beats_random`` on the
inputs whose span pushes the same class and on those whose span pushes a stronger one
(docs/sharpness.md, "Comparing two models").

    selfexplain deletion-direction --model sst5-minilm --sharpness runs/sharp-dev300/sharpness.csv
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import numpy as np
import pandas as pd

from selfexplain.core.pipeline import load_model
from selfexplain.data import Example
from selfexplain.errors import DataError
from selfexplain.lab.sharpness.measures import positive_top_span, span_words, words_of
from selfexplain.lab.sharpness.measures_model import without_words


def direction(predicted: int, pushed: int, labels: int) -> str:
    """``same``, ``stronger`` (further from the middle label on the predicted class's side, or any other
    class when the middle one is predicted) or ``elsewhere``."""
    if pushed == predicted:
        return "same"
    middle = (labels - 1) / 2
    side = np.sign(predicted - middle)
    further = abs(pushed - middle) > abs(predicted - middle)
    return "stronger" if further and (side == 0 or np.sign(pushed - middle) == side) else "elsewhere"


def pushes(explainer, texts: Sequence[str]) -> list[tuple[int, int] | None]:
    """Per text, ``(predicted, pushed)``: the predicted class and the class whose probability falls most
    when the top span's words are deleted (None without a top span or when it covers the whole text)."""
    explanations = explainer.explain_batch(list(texts), long="truncate")
    cuts, owners = [], []
    for index, explanation in enumerate(explanations):
        span = positive_top_span(explanation)
        if span is None:
            continue
        words = words_of(explanation)
        first, last = span_words(words, span)
        cut, _ = without_words(explanation, words, first, last)
        if cut.strip():
            cuts.append(Example(cut))
            owners.append(index)
    deleted = explainer.predict_probabilities(cuts, progress=False) if cuts else np.zeros((0, 0))  # [K, C]
    out: list[tuple[int, int] | None] = [None] * len(explanations)
    for row, index in enumerate(owners):
        full = np.asarray(explanations[index].probabilities)  # [C]
        out[index] = (int(full.argmax()), int((full - deleted[row]).argmax()))
    return out


def table(frame: pd.DataFrame, found: Sequence[tuple[int, int] | None], labels: Sequence[str]) -> pd.DataFrame:
    """One row per predicted class: inputs with a top span, ``deletion_beats_random`` on them, the
    share whose top span pushes towards the same class / a stronger one / elsewhere, and
    ``deletion_beats_random`` where it pushes the same class and where it pushes a stronger one."""
    rows = []
    for position, item in enumerate(found):
        if item is not None:
            predicted, pushed = item
            rows.append(
                {
                    "predicted": labels[predicted],
                    "beats": frame["deletion_beats_random"].iloc[position],
                    "direction": direction(predicted, pushed, len(labels)),
                }
            )
    data = pd.DataFrame(rows)
    shares = pd.crosstab(data["predicted"], data["direction"], normalize="index")
    groups = data.groupby("predicted")
    result = pd.DataFrame({"inputs": groups.size(), "deletion_beats_random": groups["beats"].mean()})
    for name in ("same", "stronger", "elsewhere"):
        result[f"pushes {name}"] = shares[name] if name in shares else 0.0
    for name in ("same", "stronger"):  # NaN where no input of the class pushes that way
        result[f"beats where {name}"] = data[data["direction"] == name].groupby("predicted")["beats"].mean()
    return result.reindex([name for name in labels if name in result.index])


def run(args: argparse.Namespace) -> pd.DataFrame:
    """The measurement for ``selfexplain deletion-direction``: prints the table and its JSON, returns it."""
    frame = pd.read_csv(args.sharpness)
    if "pair" in frame.columns or not {"text", "deletion_beats_random"} <= set(frame.columns):
        raise DataError(f"{args.sharpness}: needs the text and deletion_beats_random columns of single texts")
    explainer = load_model(args.model)
    result = table(frame, pushes(explainer, frame["text"].astype(str).tolist()), explainer.config.label_names)
    print(result.round(3).to_string())
    print(json.dumps(result.round(4).reset_index().to_dict("records")))
    return result
