"""The sharpness measures by name: what each summary number is, which way is better and how it is
aggregated over the inputs (docs/sharpness.md, "Measures").

:data:`MEASURES` is a :class:`~selfexplain.support.registry.Registry` (key -> :class:`Measure`, in
registration order, which is the order of the summary tables); a measure is added with
:func:`register_measure`, and the summaries, the comparison of two runs and the model card read it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from selfexplain.support.registry import Registry

Aggregate = Literal["mean", "median"]
ONE_SPAN_NOTE = "automatic when alpha has one span"


@dataclass(frozen=True)
class Measure:
    """A named summary number.

    ``key``: its column in ``sharpness.csv`` (one value per input, NaN where it does not apply);
    ``label``: its name in tables; ``higher_is_better``: its direction (None for a descriptive number
    with no better direction); ``target``: the shipped model's target, if any; ``aggregate``: how the
    per-input values become one number (NaNs skipped); ``trivial_when_one_span``: the value is fixed
    (not measured) whenever alpha has a single nonzero span, e.g. top-3 mass = 1."""

    key: str
    label: str
    higher_is_better: bool | None
    target: str = ""
    aggregate: Aggregate = "mean"
    trivial_when_one_span: bool = False

    @property
    def arrow(self) -> str:
        """``↑``, ``↓`` or ``""`` (no direction)."""
        return "" if self.higher_is_better is None else "↑" if self.higher_is_better else "↓"

    @property
    def better(self) -> str:
        """``higher``, ``lower`` or ``""`` (no direction)."""
        return "" if self.higher_is_better is None else "higher" if self.higher_is_better else "lower"

    @property
    def note(self) -> str:
        return ONE_SPAN_NOTE if self.trivial_when_one_span else ""


MEASURES: Registry[Measure] = Registry("measure")


def register_measure(measure: Measure) -> Measure:
    """Add ``measure`` under its ``key`` (a key taken by another measure is a ``ValueError``)."""
    return MEASURES.register(measure.key, measure)


register_measure(Measure("accuracy", "accuracy", True))
register_measure(Measure("max_alpha", "mean largest alpha", True, ">= 0.30", trivial_when_one_span=True))
register_measure(Measure("effective_spans", "effective number of spans exp(H)", False, trivial_when_one_span=True))
register_measure(Measure("top3_mass", "alpha mass of the top 3 spans", True, ">= 0.60", trivial_when_one_span=True))
register_measure(Measure("uniform_agreement", "prediction kept with uniform alpha", False, "<= 0.70"))
register_measure(Measure("top1_agreement", "prediction kept reading only the top-1 span", True, ">= 0.75"))
register_measure(Measure("position_spearman", "Spearman(token alpha mass, position prior)", False, "<= 0.40"))
register_measure(Measure("split_word_share", "top-5 spans that split a word", False, "0"))
register_measure(Measure("top_span_words", "median top-span length in words", None, aggregate="median"))
register_measure(Measure("nonzero_spans", "mean number of spans with alpha > 0", None))
register_measure(Measure("multi_span_share", "inputs with at least 2 spans of alpha > 0", None))
register_measure(Measure("both_sides_share", "pairs with alpha > 0 on both sides", True))
register_measure(Measure("repeated_top_span", "inputs whose top span is the most common top span", False))
register_measure(Measure("deletion_beats_random", "deleting the top span beats deleting a random span", True))
register_measure(Measure("top_out_flip", "decision flips with the top span out of alpha", True))
register_measure(Measure("sst_phrase_agreement", "top span's SST phrase has the predicted polarity", True))
register_measure(Measure("rationale_token_f1", "token F1 with human rationales", True))

BY_KEY: Registry[Measure] = MEASURES  # the same registry, by its older name
