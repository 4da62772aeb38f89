"""Evidence in words: which spans carry the weight, and how a span's rank is written.

One rule for every page, report and export (:meth:`selfexplain.core.results.explanation.Explanation.evidence_spans`):
a span with alpha 0 (sparsemax and entmax give true zeros) is never listed, highlighted, ranked or
counted as evidence. No Streamlit here; every text is escaped (:func:`escape_text`) and ready for
Markdown or HTML.
"""

from __future__ import annotations

from selfexplain.core.results.explanation import Span
from selfexplain.views.highlight import escape_text

LISTED_PHRASES = 5  # the sentence names at most this many phrases
PHRASE_CHARS = 80  # a longer phrase is cut with an ellipsis


def quoted(text: str, limit: int = PHRASE_CHARS) -> str:
    """A phrase on one line, cut to ``limit`` characters, in quotes, escaped."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return f"“{escape_text(flat)}”"


def rank_text(span: Span) -> str:
    """``rank 3 · alpha 0.1234``, or ``alpha 0, not ranked`` for a span that carries no weight."""
    if span.rank <= 0 or span.alpha <= 0:
        return "alpha 0, not ranked"
    return f"rank {span.rank} · alpha {span.alpha:.4f}"


def selected_caption(span: Span) -> str:
    """The caption under a selected span: the same words as the grid's hover."""
    if span.rank <= 0 or span.alpha <= 0:
        return "Selected: alpha 0, not ranked (this span carries no weight)"
    return f"Selected: rank {span.rank}, alpha {span.alpha:.4f}"


def weight_sentence(evidence: list[Span], num_evidence: int, num_valid: int) -> str | None:
    """One sentence on where the weight lies, or None when every valid span carries some (softmax alpha).

    ``evidence``: the top spans that carry weight (at least :data:`LISTED_PHRASES` of them when there
    are that many), ``num_evidence`` how many spans carry weight, ``num_valid`` how many spans there are.
    One span: "One phrase carries 100% of the weight: “…”."; a few: "3 phrases carry all the weight: …"
    with each one's share of the weight."""
    if num_evidence <= 0 or not evidence:
        return None
    if num_evidence == 1:
        return f"One phrase carries 100% of the weight: {quoted(evidence[0].text)}."
    if num_evidence >= num_valid:
        return None
    total = sum(span.alpha for span in evidence) if num_evidence <= len(evidence) else None
    listed = evidence[:LISTED_PHRASES]
    parts = [quoted(span.text) + (f" ({span.alpha / total:.0%})" if total else "") for span in listed]
    more = num_evidence - len(listed)
    names = ", ".join(parts) + (f" and {more:,} more" if more > 0 else "")
    zeros = num_valid - num_evidence
    return (
        f"{num_evidence:,} phrases carry all the weight: {names}. "
        f"The other {zeros:,} spans have alpha 0 and are not shown."
    )


def kept_caption(held: int, num_evidence: int | None, num_valid: int) -> str:
    """What a saved explanation (a Gallery pin) holds, in words: ``held`` spans that carry weight (alpha above
    0), of ``num_evidence`` that do (None: not recorded) among ``num_valid`` spans; never the grid."""
    grid = "it does not keep the grid."
    if held == 0:
        return f"The pin keeps no span with weight (of {num_valid:,}); {grid}"
    if num_evidence is None:
        return f"The pin keeps {held:,} span{'s' if held != 1 else ''} with weight, of {num_valid:,}; {grid}"
    if num_evidence > held:
        return f"The pin keeps the top {held:,} of the {num_evidence:,} spans that carry weight; {grid}"
    others = num_valid - held
    zeros = f" (the other {others:,} of {num_valid:,} have alpha 0)" if others > 0 else ""
    kept = "the one span that carries" if held == 1 else f"all {held:,} spans that carry"
    return f"The pin keeps {kept} weight{zeros}; {grid}"
