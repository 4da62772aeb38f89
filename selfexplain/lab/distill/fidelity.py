"""Fidelity of a surrogate to its teacher, and the seeded splits it is measured on.

- **agreement**: the share of inputs on which the student predicts the teacher's label (argmax);
- **mean total-variation distance** (TVD): ``0.5 * sum_c |p_student(c) - p_teacher(c)|`` averaged over the
  inputs; 0 when the two give the same probabilities, 1 when they put their mass on different labels;
- **agreement where the teacher is decisive**: the agreement on the inputs where the teacher's two most
  probable labels are at least :data:`DECISIVE_MARGIN` apart, and the share of such inputs. Where the
  teacher hesitates between two labels, a small change of its probabilities flips its label, so most
  disagreements sit there; this figure says how far the surrogate can be trusted where the teacher is sure.

Both are measured, never assumed: on a held-out split of the distillation data the student never trained
on (and was not selected on), or on any other file with ``selfexplain fidelity``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from selfexplain.data import Example
from selfexplain.errors import InvalidInputError

DECISIVE_MARGIN = 0.2
"""The gap between the teacher's two highest probabilities from which the teacher counts as decisive."""


@dataclass(frozen=True)
class Fidelity:
    """How closely a student follows its teacher on ``examples`` inputs; ``decisive_agreement`` is None
    when the teacher is decisive on none of them."""

    agreement: float
    tvd: float
    examples: int
    decisive_agreement: float | None = None
    decisive_share: float = 0.0

    def to_dict(self) -> dict[str, float | int | None]:
        return {
            "agreement": self.agreement, "tvd": self.tvd, "examples": self.examples,
            "decisive_agreement": self.decisive_agreement, "decisive_share": self.decisive_share,
        }  # fmt: skip

    def describe(self) -> str:
        text = f"agreement {self.agreement:.1%}, mean TVD {self.tvd:.3f} on {self.examples:,} inputs"
        if self.decisive_agreement is None:
            return f"{text} (the teacher is decisive on none)"
        return (
            f"{text}; {self.decisive_agreement:.1%} on the {self.decisive_share:.0%} where the teacher is decisive "
            f"(its top two labels {DECISIVE_MARGIN:g} or more apart)"
        )


_TOLERANCE = 1e-12
"""Float slack at a margin cut: a gap of 0.2 in float arithmetic counts as 0.2."""


def teacher_margins(probabilities: np.ndarray | torch.Tensor) -> torch.Tensor:
    """``[E]`` float64: the gap between the two highest values of each row of ``probabilities`` ``[E, C]``."""
    top = torch.as_tensor(probabilities, dtype=torch.float64).topk(2, dim=1).values
    return top[:, 0] - top[:, 1]


def decisive(probabilities: np.ndarray | torch.Tensor) -> torch.Tensor:
    """``[E]`` bool: whether each row of ``probabilities`` ``[E, C]`` (C ≥ 2) has its two highest values
    :data:`DECISIVE_MARGIN` or more apart."""
    return teacher_margins(probabilities) >= DECISIVE_MARGIN - _TOLERANCE


def _tables(
    student: np.ndarray | torch.Tensor, teacher: np.ndarray | torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The two probability tables as float64 ``[E, C]``; refused unless one shape with E ≥ 1, C ≥ 2."""
    s = torch.as_tensor(student, dtype=torch.float64)
    t = torch.as_tensor(teacher, dtype=torch.float64)
    if s.shape != t.shape or s.ndim != 2 or s.shape[0] == 0 or s.shape[1] < 2:
        raise ValueError(
            f"two probability tables [E, C] of one shape are needed, got {tuple(s.shape)} and {tuple(t.shape)}"
        )
    return s, t


MARGIN_EDGES = (0.05, 0.1, 0.2, 0.4)
"""Where :func:`agreement_by_margin` cuts the teacher's margin (its two highest probabilities' gap)."""


@dataclass(frozen=True)
class MarginBand:
    """The inputs whose teacher margin lies in ``[low, high)``: how many, their share, and the agreement
    on them (None when the band is empty)."""

    low: float
    high: float
    count: int
    share: float
    agreement: float | None

    def to_dict(self) -> dict[str, float | int | None]:
        return {"low": self.low, "high": self.high, "count": self.count, "share": self.share,
                "agreement": self.agreement}  # fmt: skip


def agreement_by_margin(
    student: np.ndarray | torch.Tensor, teacher: np.ndarray | torch.Tensor, edges: Sequence[float] = MARGIN_EDGES
) -> tuple[MarginBand, ...]:
    """Agreement between the probability tables ``[E, C]`` in bands of the teacher's margin cut at
    ``edges`` (increasing, inside (0, 1)); the last band runs to 1 inclusive. Near a tie a small change
    of the teacher's probabilities flips its label, so this says where the disagreements sit."""
    s, t = _tables(student, teacher)
    if list(edges) != sorted(set(edges)) or not all(0 < e < 1 for e in edges):
        raise ValueError(f"margin edges must increase inside (0, 1), got {list(edges)}")
    margin = teacher_margins(t)
    same = (s.argmax(dim=1) == t.argmax(dim=1)).double()
    bounds = [0.0, *edges, 1.0]
    band = torch.bucketize(margin + _TOLERANCE, torch.tensor(bounds[1:-1], dtype=torch.float64), right=True)
    bands = []
    for index, (low, high) in enumerate(zip(bounds[:-1], bounds[1:])):
        inside = band == index
        count = int(inside.sum())
        agreement = float(same[inside].mean()) if count else None
        bands.append(MarginBand(low, high, count, count / len(margin), agreement))
    return tuple(bands)


def describe_bands(bands: Sequence[MarginBand]) -> str:
    """One line per band: ``teacher margin 0.05-0.1: 11% of inputs, agreement 72.4% (243)``."""
    lines = []
    for band in bands:
        agreement = "—" if band.agreement is None else f"{band.agreement:.1%}"
        where = f"  teacher margin {band.low:g}-{band.high:g}: {band.share:.0%} of inputs"
        lines.append(f"{where}, agreement {agreement} ({band.count:,})")
    return "\n".join(lines)


def measure_fidelity(student: np.ndarray | torch.Tensor, teacher: np.ndarray | torch.Tensor) -> Fidelity:
    """Agreement, mean TVD and agreement where the teacher is decisive, between the student's and the
    teacher's probability tables ``[E, C]`` (the same label order)."""
    s, t = _tables(student, teacher)
    same = (s.argmax(dim=1) == t.argmax(dim=1)).double()
    tvd = float(0.5 * (s - t).abs().sum(dim=1).mean())
    sure = decisive(t)
    decisive_agreement = float(same[sure].mean()) if bool(sure.any()) else None
    return Fidelity(float(same.mean()), tvd, int(s.shape[0]), decisive_agreement, float(sure.double().mean()))


@dataclass(frozen=True)
class Splits:
    """Indices into the data: what the student trains on, what chooses its checkpoint, what measures it."""

    train: list[int]
    dev: list[int]
    holdout: list[int]


def split_indices(count: int, holdout: float, dev: float, seed: int) -> Splits:
    """A seeded shuffle of ``count`` inputs cut into held-out (``holdout`` of them, at least one), dev
    (``dev`` of them, at least one) and training inputs (the rest, at least one); each sorted."""
    if not 0 < holdout < 1 or not 0 < dev < 1 or holdout + dev >= 1:
        raise InvalidInputError("--holdout and --dev-fraction must be above 0 and sum to less than 1")
    order = list(range(count))
    random.Random(seed).shuffle(order)
    n_holdout = max(1, round(count * holdout))
    n_dev = max(1, round(count * dev))
    if count - n_holdout - n_dev < 1:
        raise InvalidInputError(
            f"{count} inputs are too few to hold out {n_holdout} and keep {n_dev} for dev; give more text"
        )
    held, chosen = order[:n_holdout], order[n_holdout : n_holdout + n_dev]
    return Splits(sorted(order[n_holdout + n_dev :]), sorted(chosen), sorted(held))


def data_fingerprint(examples: Sequence[Example]) -> str:
    """SHA-256 of the texts (and second texts) in order: a cached teacher run belongs to this data only."""
    digest = hashlib.sha256()
    for example in examples:
        digest.update(example.text.encode("utf-8", "surrogatepass") + b"\x00")
        digest.update((example.pair or "").encode("utf-8", "surrogatepass") + b"\x01")
    return digest.hexdigest()


def teacher_labelled(examples: Sequence[Example], probabilities: torch.Tensor) -> list[Example]:
    """The examples with the teacher's predicted label (argmax) in place of any gold label."""
    predicted = probabilities.argmax(dim=1).tolist()
    return [Example(e.text, e.pair, int(label)) for e, label in zip(examples, predicted)]
