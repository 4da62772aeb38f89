"""Is a surrogate's alpha an explanation or a carrier? A student started from a fine-tuned encoder can
learn to write its decision into one token every input has (the final "." of a sentence) and put all
of alpha there: its uniform-alpha figure then looks selective while its spans explain nothing
(docs/surrogates.md), or route one label through that "." with a different word attached each time
("roll ."). After ``selfexplain distill`` the held-out inputs' top spans are counted; when one span is
the top span of at least :data:`CARRIER_SHARE` of them, or the top span ends on the text's closing
punctuation on more than :data:`CLOSING_SHARE`, the command, the model card and the app's surrogate note
say so."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from selfexplain.data import Example
from selfexplain.lab.sharpness.measures import closing_punctuation, modal_top_span, repeated_top_span, top_span_text

CARRIER_SHARE = 0.5  # the shipped sst5-minilm's most common top span: 4% of SST-5 dev sentences
CLOSING_SHARE = 0.10  # docs/accuracy.md, the rule's third amendment (shipped sst2-mpnet: 0 of 300 dev)
CARRIER_PREFIX = "Its alpha is a carrier:"  # the model card's limitation starts so (a rerun replaces it)
CARRIER_INPUTS = 300  # held-out inputs explained for the check (the first ones of the split)
BATCH = 32


@dataclass(frozen=True)
class TopSpanRepeat:
    """``span``: the most common top span (alpha > 0), lower-cased ("" when no input has one);
    ``share``: the share of the ``examples`` inputs with a top span whose top span it is (NaN when
    fewer than :data:`~selfexplain.lab.sharpness.measures.REPEAT_MIN_INPUTS` have one); ``closing``: the
    share of them whose top span ends on the text's closing punctuation
    (:func:`~selfexplain.lab.sharpness.measures.closing_punctuation`; NaN when not measured)."""

    span: str
    share: float
    examples: int
    closing: float = math.nan

    @property
    def repeated(self) -> bool:
        return not math.isnan(self.share) and self.share >= CARRIER_SHARE

    @property
    def closing_carrier(self) -> bool:
        return not math.isnan(self.closing) and self.closing > CLOSING_SHARE

    @property
    def carrier(self) -> bool:
        return self.repeated or self.closing_carrier

    def describe(self) -> str:
        if math.isnan(self.share):
            return f"alpha: {self.examples} held-out inputs with a weighted span, too few to check for a carrier"
        line = (
            f'alpha: the most common top span, "{self.span}", is the top span of {self.share:.0%} of '
            f"{self.examples:,} held-out inputs"
        )
        if not math.isnan(self.closing):
            line += f"; the top span ends on the closing punctuation on {self.closing:.0%}"
        if self.carrier:
            line += "; a carrier, not an explanation: the surrogate routes its decisions through it"
        return line

    def limitation(self) -> str | None:
        """The model card's line for a carrier, None otherwise."""
        if self.repeated:
            return (
                f'{CARRIER_PREFIX} "{self.span}" is the top span of {self.share:.0%} of {self.examples:,} '
                "held-out inputs, so its spans do not show what decided (docs/surrogates.md)."
            )
        if self.closing_carrier:
            return (
                f"{CARRIER_PREFIX} its top span ends on the text's closing punctuation on {self.closing:.0%} of "
                f"{self.examples:,} held-out inputs (the last word with the full stop), so those spans do not "
                "show what decided (docs/accuracy.md)."
            )
        return None


def top_span_repeat(explainer, examples: Sequence[Example], progress: bool = False) -> TopSpanRepeat:
    """Explain ``examples`` (long ones cut to fit) with ``explainer`` (a
    :class:`~selfexplain.core.pipeline.SelfExplainer`) and count their top spans."""
    spans: list[str] = []
    closing: list[float] = []
    starts = range(0, len(examples), BATCH)
    for lo in tqdm(starts, desc="alpha check", unit="batch", disable=not progress):
        chunk = examples[lo : lo + BATCH]
        pairs = [e.pair or "" for e in chunk] if explainer.config.pair else None
        batch = explainer.explain_batch([e.text for e in chunk], pairs, long="truncate")
        spans.extend(top_span_text(e) for e in batch)
        closing.extend(closing_punctuation(e) for e in batch)
    values = repeated_top_span(spans)
    share = float(np.nanmean(values)) if np.isfinite(values).any() else float("nan")
    ends = np.array(closing, dtype=np.float64)
    closed = float(np.nanmean(ends)) if np.isfinite(values).any() else float("nan")  # as few inputs as ``share``
    return TopSpanRepeat(modal_top_span(spans), share, sum(1 for s in spans if s), closed)
