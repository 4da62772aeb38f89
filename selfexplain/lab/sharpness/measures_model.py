"""Sharpness measures that run the model again: alpha replaced by the uniform distribution
(``uniform_agreement``), the model reading only the top-1 span's words (``top1_agreement``), deleting the
top span's words against deleting random spans (``deletion_beats_random``), and taking the top span out of
alpha (``top_out_flip``). Their computations over a batch are registered in
:mod:`selfexplain.lab.sharpness.columns.model`.

``deletion_beats_random``: the top span (highest alpha, alpha > 0) touches ``L`` words of its
text (:func:`~selfexplain.lab.sharpness.measures.words_of`). The model reads the input again with
those words deleted from the text, and with ``L`` contiguous words deleted at random places of
the same text (for a pair, the other text stays whole): places that do not overlap the top span
when there are any, else any other place; ``draws`` places drawn without replacement with a
generator seeded by ``(seed, input index)``, or every possible place when there are no more than
``draws``. The *drop* of a deletion is ``p_full[c] - p_deleted[c]`` for the class ``c`` predicted
on the whole input. The measure is **1.0 when the top span's drop exceeds the mean drop of the
random deletions, else 0.0** (a tie is 0.0); NaN when no span has alpha > 0 or the text has no
other place for ``L`` words (the top span covers its whole text). The CSV also keeps both drops
(``top_deletion_drop``, ``random_deletion_drop``). All deleted variants of a batch of inputs run
in one batched prediction.

``top_out_flip``: 1.0 when the decision changes once the top span is taken out of alpha and the
model's normaliser is re-applied to the remaining spans' scores, else 0.0 (NaN with fewer than
two valid spans). Computed exactly through the span layer (:func:`~selfexplain.lab.faithfulness.
alpha_tests.span_view` and :func:`~selfexplain.lab.faithfulness.alpha_tests.removal_logits`, no
encoder pass), so it follows whatever those functions renormalise over.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from selfexplain.core.results.explanation import Explanation
from selfexplain.lab.sharpness.measures import Words, positive_top_span, span_words, words_of

if TYPE_CHECKING:
    from selfexplain.lab.faithfulness.alpha_tests import SpanView

# texts ``[B]`` (and pairs ``[B]``, or None for single texts) -> class probabilities ``[B, C]``
Probabilities = Callable[[Sequence[str], Sequence[str] | None], np.ndarray]
Variant = tuple[str, str | None]
DRAWS = 5
NAN_DELETION = {"deletion_beats_random": np.nan, "top_deletion_drop": np.nan, "random_deletion_drop": np.nan}


def top_span_input(explanation: Explanation) -> Variant:
    """The input reduced to the words of the top-1 span: its text replaces its segment; the other
    text of a pair is kept (a pair model needs both)."""
    span = explanation.top_spans(1)[0]
    if span.segment == 1:
        return explanation.text, span.text
    return span.text, explanation.pair


def delete_chars(text: str, start: int, end: int) -> str:
    """``text`` without ``text[start:end]``: the whitespace around the gap becomes one space (none
    when the cut touched no whitespace, e.g. the ``n`` of ``n't``), and the ends are stripped."""
    left, right = text[:start], text[end:]
    if not left.strip() or not right.strip():
        return (left + right).strip()
    gap = " " if left[-1].isspace() or right[0].isspace() else ""
    return left.rstrip() + gap + right.lstrip()


def without_words(explanation: Explanation, words: Words, first: int, last: int) -> Variant:
    """The input with words ``first .. last`` (one text's words) deleted from their text."""
    segment = int(words.segment[first])
    cut = delete_chars(explanation.segment_text(segment), int(words.start_char[first]), int(words.end_char[last]))
    return (explanation.text, cut) if segment == 1 else (cut, explanation.pair)


def random_places(words: Words, first: int, last: int, rng: np.random.Generator, draws: int = DRAWS) -> np.ndarray:
    """First words ``[R]`` (``R <= draws``) of the random deletions of ``last - first + 1`` words in the
    text of word ``first`` (see the module docstring); empty when there is no other place."""
    length = last - first + 1
    own = np.flatnonzero(words.segment == words.segment[first])  # this text's words, in order
    places = np.arange(own[0], own[-1] - length + 2)
    places = places[places != first]
    apart = places[(places + length - 1 < first) | (places > last)]
    pool = apart if apart.size else places
    return pool if pool.size <= draws else np.sort(rng.choice(pool, size=draws, replace=False))


def deletion_variants(explanation: Explanation, rng: np.random.Generator, draws: int = DRAWS) -> list[Variant]:
    """``[1 + R]`` inputs: the top span's words deleted, then ``R`` random deletions of as many words;
    empty when the measure is undefined (no span with alpha > 0, or no other place)."""
    span = positive_top_span(explanation)
    if span is None:
        return []
    words = words_of(explanation)
    first, last = span_words(words, span)
    places = random_places(words, first, last, rng, draws)
    if not places.size:
        return []
    length = last - first + 1
    return [without_words(explanation, words, first, last)] + [
        without_words(explanation, words, int(p), int(p) + length - 1) for p in places.tolist()
    ]


def deletion_scores(
    explanations: Sequence[Explanation],
    probabilities: Probabilities,
    seed: int = 0,
    draws: int = DRAWS,
    first_index: int = 0,
) -> list[dict[str, float]]:
    """Per input: ``deletion_beats_random``, ``top_deletion_drop``, ``random_deletion_drop``. Input ``i``
    draws its places with the generator seeded ``(seed, first_index + i)`` (its index in the data),
    so results do not depend on the batch size. One ``probabilities`` call for the whole batch."""
    plans = [
        deletion_variants(e, np.random.default_rng([seed, first_index + i]), draws) for i, e in enumerate(explanations)
    ]
    flat = [variant for plan in plans for variant in plan]
    if not flat:
        return [dict(NAN_DELETION) for _ in explanations]
    pair = explanations[0].pair is not None
    probs = probabilities([t for t, _ in flat], [p or "" for _, p in flat] if pair else None)  # [sum(1 + R), C]
    rows: list[dict[str, float]] = []
    for explanation, chunk in zip(explanations, np.split(probs, np.cumsum([len(p) for p in plans])[:-1])):
        if not chunk.shape[0]:
            rows.append(dict(NAN_DELETION))
            continue
        predicted = explanation.predicted_index
        drops = float(explanation.probabilities[predicted]) - chunk[:, predicted]  # [1 + R]
        top, random = float(drops[0]), float(drops[1:].mean())
        beats = float(top > random)
        rows.append({"deletion_beats_random": beats, "top_deletion_drop": top, "random_deletion_drop": random})
    return rows


def top_out_flip(view: SpanView) -> float:
    """1.0 when the predicted class changes with the top span (highest alpha, ties by position as in
    :attr:`Explanation.ranking`) removed from alpha and the normaliser re-applied to the rest
    (:func:`removal_logits`, first row), else 0.0; NaN with fewer than two valid spans or no alpha > 0."""
    if view.alpha.size < 2 or not (view.alpha > 0).any():
        return float("nan")
    from selfexplain.lab.faithfulness.alpha_tests import removal_logits  # here: it imports torch and the model

    order = np.lexsort((view.ends, view.starts, -view.alpha))
    predicted = int(np.argmax(view.logits(view.alpha)))
    return float(int(np.argmax(removal_logits(view, order, steps=1)[0])) != predicted)
