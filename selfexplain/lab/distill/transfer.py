"""What a surrogate's alpha says about its teacher: does deleting the surrogate's top span move the
*teacher* more than deleting a random span of as many words?

A surrogate's alpha explains the surrogate. It tells something about the teacher only where the words
it points at are words the teacher needs. This measure asks exactly that, at the input: for each text,
the surrogate's top span (highest alpha, alpha > 0) is deleted and the teacher reads what is left, and
so are ``draws`` random deletions of as many words (the places and the rule of ``selfexplain
sharpness``'s ``deletion_beats_random``: :func:`selfexplain.lab.sharpness.measures_model.deletion_scores`).
The drop is taken in the teacher's probability of the teacher's own label. ``selfexplain fidelity
--deletion`` prints it; 50% is what an alpha that knows nothing of the teacher scores.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.data import Example
from selfexplain.lab.distill.predictor import TeacherPredictor
from selfexplain.lab.sharpness.measures_model import DRAWS, deletion_scores

BATCH = 32


@dataclass(frozen=True)
class TeacherDeletion:
    """``beats``: share of inputs (those with a top span and another place for it) where deleting the
    surrogate's top span lowers the teacher's probability of its label more than the random deletions
    do on average; the mean drops of both; the same share where surrogate and teacher agree; counts."""

    beats: float
    top_drop: float
    random_drop: float
    beats_where_agreeing: float
    inputs: int
    measured: int

    def to_dict(self) -> dict[str, float | int]:
        return {
            "teacher_deletion_beats_random": self.beats,
            "teacher_top_deletion_drop": self.top_drop,
            "teacher_random_deletion_drop": self.random_drop,
            "teacher_deletion_beats_random_where_agreeing": self.beats_where_agreeing,
            "deletion_inputs": self.inputs,
            "deletion_measured": self.measured,
        }

    def describe(self) -> str:
        return (
            f"deleting the surrogate's top span lowers the teacher's probability more than a random span on "
            f"{self.beats:.1%} of {self.measured} inputs (mean drop {self.top_drop:.3f} against "
            f"{self.random_drop:.3f}; {self.beats_where_agreeing:.1%} where they agree)"
        )


def teacher_deletion(
    explainer: SelfExplainer,
    teacher: TeacherPredictor,
    examples: Sequence[Example],
    seed: int = 0,
    draws: int = DRAWS,
    max_length: int = 512,
    progress: bool = True,
) -> TeacherDeletion:
    """Measure :class:`TeacherDeletion` over ``examples`` (single texts or pairs)."""
    pair = any(e.pair for e in examples)

    def teacher_probabilities(texts: Sequence[str], pairs: Sequence[str] | None) -> np.ndarray:
        rows = [Example(t, pairs[i] if pairs is not None else None) for i, t in enumerate(texts)]
        return teacher.probabilities(rows, max_length)

    beats, tops, randoms, agreeing = [], [], [], []
    for lo in tqdm(range(0, len(examples), BATCH), desc="teacher deletion", disable=not progress):
        chunk = examples[lo : lo + BATCH]
        pairs = [e.pair or "" for e in chunk] if pair else None
        own = explainer.explain_batch([e.text for e in chunk], pairs, long="truncate")
        full = teacher.probabilities(list(chunk), max_length)  # [B, C]
        # the surrogate's spans, the teacher's probabilities: the drops are the teacher's
        as_teacher = [dataclasses.replace(e, probabilities=p) for e, p in zip(own, full)]
        rows = deletion_scores(as_teacher, teacher_probabilities, seed, draws, first_index=lo)
        for explanation, probs, row in zip(own, full, rows):
            beats.append(row["deletion_beats_random"])
            tops.append(row["top_deletion_drop"])
            randoms.append(row["random_deletion_drop"])
            agreeing.append(explanation.predicted_index == int(np.argmax(probs)))
    beat = np.asarray(beats, dtype=float)
    same = np.asarray(agreeing, dtype=bool)
    defined = ~np.isnan(beat)

    def mean(values: np.ndarray) -> float:
        return float(values.mean()) if values.size else float("nan")

    return TeacherDeletion(
        beats=mean(beat[defined]),
        top_drop=mean(np.asarray(tops, dtype=float)[defined]),
        random_drop=mean(np.asarray(randoms, dtype=float)[defined]),
        beats_where_agreeing=mean(beat[defined & same]),
        inputs=len(examples),
        measured=int(defined.sum()),
    )
