"""Is a surrogate's alpha an explanation or a carrier? A student started from a fine-tuned encoder can
learn to write its decision into one token every input has (the final "." of a sentence) and put all
of alpha there: its uniform-alpha figure then looks selective while its spans explain nothing
(docs/surrogates.md). After ``selfexplain distill`` the held-out inputs' top spans are counted; when
one span is the top span of at least :data:`CARRIER_SHARE` of them, the command, the model card and
the app's surrogate note say so."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from selfexplain.data import Example
from selfexplain.lab.sharpness.measures import modal_top_span, repeated_top_span, top_span_text

CARRIER_SHARE = 0.5  # the shipped sst5-minilm's most common top span: 4% of SST-5 dev sentences
CARRIER_PREFIX = "Its alpha is a carrier:"  # the model card's limitation starts so (a rerun replaces it)
CARRIER_INPUTS = 300  # held-out inputs explained for the check (the first ones of the split)
BATCH = 32


@dataclass(frozen=True)
class TopSpanRepeat:
    """``span``: the most common top span (alpha > 0), lower-cased ("" when no input has one);
    ``share``: the share of the ``examples`` inputs with a top span whose top span it is (NaN when
    fewer than :data:`~selfexplain.lab.sharpness.measures.REPEAT_MIN_INPUTS` have one)."""

    span: str
    share: float
    examples: int

    @property
    def carrier(self) -> bool:
        return not math.isnan(self.share) and self.share >= CARRIER_SHARE

    def describe(self) -> str:
        if math.isnan(self.share):
            return f"alpha: {self.examples} held-out inputs with a weighted span, too few to check for a carrier"
        line = (
            f'alpha: the most common top span, "{self.span}", is the top span of {self.share:.0%} of '
            f"{self.examples:,} held-out inputs"
        )
        if self.carrier:
            line += "; a carrier, not an explanation: the surrogate routes its decisions through it"
        return line

    def limitation(self) -> str | None:
        """The model card's line for a carrier, None otherwise."""
        if not self.carrier:
            return None
        return (
            f'{CARRIER_PREFIX} "{self.span}" is the top span of {self.share:.0%} of {self.examples:,} '
            "held-out inputs, so its spans do not show what decided (docs/surrogates.md)."
        )


def top_span_repeat(explainer, examples: Sequence[Example], progress: bool = False) -> TopSpanRepeat:
    """Explain ``examples`` (long ones cut to fit) with ``explainer`` (a
    :class:`~selfexplain.core.pipeline.SelfExplainer`) and count their top spans."""
    spans: list[str] = []
    starts = range(0, len(examples), BATCH)
    for lo in tqdm(starts, desc="alpha check", unit="batch", disable=not progress):
        chunk = examples[lo : lo + BATCH]
        pairs = [e.pair or "" for e in chunk] if explainer.config.pair else None
        batch = explainer.explain_batch([e.text for e in chunk], pairs, long="truncate")
        spans.extend(top_span_text(e) for e in batch)
    values = repeated_top_span(spans)
    share = float(np.nanmean(values)) if np.isfinite(values).any() else float("nan")
    return TopSpanRepeat(modal_top_span(spans), share, sum(1 for s in spans if s))
