"""Presentation mode in plain words: figure titles without jargon, one sentence per figure about this input,
and a short glossary (issue 23 item 5). No Streamlit here; every text is escaped and ready for Markdown.

Sentences about the explanation are built only from spans that carry weight (alpha above 0,
:meth:`~selfexplain.core.results.explanation.Explanation.evidence_spans`): a span with alpha 0 is never named.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from selfexplain.core.results.explanation import Explanation
from selfexplain.views.evidence import quoted
from selfexplain.views.highlight import escape_attribute, escape_text

TITLES = {  # figure titles in presentation mode
    "probabilities": "How sure the model is",
    "grid": "How much each phrase counted",
    "attention": "Where the model's layers look (not the explanation)",
}
GLOSSARY: dict[str, str] = {
    "weight": "How much a phrase counted: the model reads the text only through these weights (they add up "
    "to 100%), so they are its explanation. The technical name is alpha.",
    "phrase": "Any run of consecutive words of the text; the model weighs every one of them.",
    "look at": "Inside the model, each word gathers information from other words (attention). Where it looks "
    "is not why the model decided: the weights are.",
    "sure": "The probability the model gives its answer, from 0% to 100%.",
}
DECISION_PHRASES = 2  # the decision sentence names at most two phrases


def _label(text: str) -> str:
    return f"*{escape_text(text)}*"


def _names(texts: Sequence[str]) -> str:
    quotes = [quoted(text, 40) for text in texts]
    return quotes[0] if len(quotes) == 1 else ", ".join(quotes[:-1]) + " and " + quotes[-1]


def decision_sentence(explanation: Explanation, phrases: int = DECISION_PHRASES) -> str:
    """Says "The model decided *negative* mostly because of “wooden” and “dragged”." from the highest-weight
    phrases that share no word (never a phrase with weight 0)."""
    spans = explanation.top_spans_non_overlapping(phrases)
    decided = f"The model decided {_label(explanation.label)}"
    if not spans:
        return f"{decided}; no phrase of this text carries weight."
    if explanation.num_evidence == 1:
        return f"{decided} because of {quoted(spans[0].text, 40)} alone: it carries all the weight."
    return f"{decided} mostly because of {_names([span.text for span in spans])}."


def probability_sentence(explanation: Explanation) -> str:
    """Says "The model is 87% sure the answer is *negative*; next comes *neutral* at 9%."."""
    order = np.argsort(-np.asarray(explanation.probabilities), kind="stable")
    first = f"The model is {explanation.confidence:.0%} sure the answer is {_label(explanation.label)}"
    if len(order) < 2:
        return first + "."
    second = int(order[1])
    chance = float(explanation.probabilities[second])
    return f"{first}; next comes {_label(explanation.label_names[second])} at {chance:.0%}."


def grid_sentence(explanation: Explanation, band: bool = False) -> str:
    """What the weight grid shows for this input: its heaviest phrase and its share of the weight. ``band``: the
    grid is drawn as a band (a long text: first word across, the phrase's length in words down)."""
    square = (
        "Each square is one phrase, starting at the word above it and as many words long as its row says"
        if band
        else "Each square is one phrase, from the word on its row to the word in its column"
    )
    top = explanation.evidence_spans(1)
    if not top:
        return f"{square}; none carries weight."
    return (
        f"{square}; the darker, the more it counted. The darkest, {quoted(top[0].text, 40)}, got "
        f"{top[0].alpha:.0%} of the weight."
    )


def highlight_sentence(count: int) -> str:
    """Under the shaded text: what the shading means."""
    if count <= 0:
        return "No phrase of this text carries weight."
    which = "The phrase" if count == 1 else f"The {count} phrases"
    return f"{which} the decision was read from, darker for more weight."


def attention_sentence(words: np.ndarray, labels: Sequence[str]) -> str:
    """What the word attention map ``[W, W]`` (rows: looking words) shows: the word most looked at overall,
    and a reminder that looking is not deciding."""
    if words.size == 0:
        return "There are no words to show."
    received = np.asarray(words, dtype=float).sum(axis=0)  # [W]: attention each word gets from all
    share = received / max(float(received.sum()), 1e-12)
    best = int(np.argmax(share))
    return (
        f"Each row is a word and how much it looks at every other word inside the model. The words look most at "
        f"{quoted(labels[best], 40)} ({share[best]:.0%} of all looking); that is how the model reads, not why it "
        "decided."
    )


def glossary_html() -> str:
    """One line, "Words used here: weight · phrase · …", each word with its meaning on hover (escaped)."""
    items = " · ".join(
        f"<abbr title=\"{escape_attribute(meaning)}\" style='cursor:help'>{escape_text(word)}</abbr>"
        for word, meaning in GLOSSARY.items()
    )
    return f"<div class='selfexplain-glossary'>Words used here (hover for their meaning): {items}</div>"
