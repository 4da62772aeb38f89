"""A second opinion beside alpha (issue 23 item 3): another attribution method scored on the alpha grid's
words, and how far its ranking agrees with alpha's.

Alpha per word is the alpha mass of the spans covering it (word-level alpha,
:func:`selfexplain.core.results.words.word_view`).
Leave-one-out removes each *word* whole (all its pieces at once, one batch of ``W`` inputs) with the
registry method's removal; any other registered method's token scores are summed over each word's pieces.
Agreement is :func:`selfexplain.methods.analysis.compare.rank_agreement`: only words with a score above 0 are ranked, so
ties at 0 (sparse alpha) never count as agreement: the overlap of the two ranked sets (Jaccard) and the
rank-biased overlap of the two rankings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.words import word_view
from selfexplain.methods.analysis.compare import RankAgreement, covering_mass, evidence_order, rank_agreement
from selfexplain.methods.explainers import get_method
from selfexplain.methods.explainers.base import Instance
from selfexplain.methods.explainers.loo import LeaveOneOutMethod
from selfexplain.methods.explainers.occlusion import predict_kept

DEFAULT_METHOD = "loo"
MIN_PUSH = 0.01  # a word pushes against the decision when removing it raises the label's probability this much


@dataclass(frozen=True, eq=False)
class SecondOpinion:
    """``labels`` ``[W]`` (the alpha grid's words, in order), ``alpha`` ``[W]`` (alpha mass covering each
    word), ``scores`` ``[W]`` (the method's score per word, higher = more important for the prediction),
    ``method`` (its name shown to readers), ``agreement`` over the ``W`` words. Leave-one-out also keeps
    ``probabilities`` ``[C]`` of the whole input, ``removed`` ``[W, C]`` (the probabilities with word ``w``
    removed), the class ``names`` and the predicted class ``target``: which way a word pushes."""

    labels: tuple[str, ...]
    alpha: np.ndarray
    scores: np.ndarray
    method: str
    agreement: RankAgreement
    probabilities: np.ndarray | None = None
    removed: np.ndarray | None = None
    names: tuple[str, ...] = ()
    target: int = 0


def word_removals(
    explainer: SelfExplainer, instance: Instance, word_of_token: np.ndarray, method: LeaveOneOutMethod
) -> np.ndarray:
    """``[W, C]``: the class probabilities with word ``w`` (all its pieces) removed."""
    count = int(word_of_token.max()) + 1 if word_of_token.size else 0
    keep = word_of_token[None, :] != np.arange(count)[:, None]  # [W, T]: every word but one
    return np.asarray(predict_kept(explainer, instance, keep, method.removal), dtype=float)


def word_leave_one_out(
    explainer: SelfExplainer, instance: Instance, word_of_token: np.ndarray, method: LeaveOneOutMethod
) -> np.ndarray:
    """``[W]``: the drop in the target class's probability when word ``w`` (all its pieces) is removed."""
    removed = word_removals(explainer, instance, word_of_token, method)
    return instance.probabilities[instance.target] - removed[:, instance.target]


def second_opinion(
    explainer: SelfExplainer, text: str, pair: str | None = None, method: str = DEFAULT_METHOD
) -> SecondOpinion:
    """Run ``method`` (a name in :data:`selfexplain.methods.explainers.METHODS`) on the input's words and compare
    its ranking with alpha's. One forward for the input, then the method's own (``W`` for leave-one-out)."""
    attribution = get_method(method)
    instance = explainer.instance(text, pair)
    view = word_view(instance.explanation)
    removed = None
    if isinstance(attribution, LeaveOneOutMethod):
        removed = word_removals(explainer, instance, view.word_of_token, attribution)
        scores = instance.probabilities[instance.target] - removed[:, instance.target]
    else:
        tokens = attribution.attribute(explainer, instance)
        scores = np.bincount(view.word_of_token, weights=tokens, minlength=len(view.labels))
    alpha = covering_mass(np.where(view.span_mask, view.alpha, 0.0))
    words = np.arange(len(view.labels))
    agreement = rank_agreement(alpha, np.asarray(scores, dtype=float), words, words, "word")
    return SecondOpinion(
        view.labels, alpha, np.asarray(scores, dtype=float), attribution.label, agreement,
        np.asarray(instance.probabilities, dtype=float), removed, tuple(explainer.config.label_names),
        int(instance.target),
    )  # fmt: skip


def contrast_sentence(opinion: SecondOpinion, least: float = MIN_PUSH, plain: bool = False) -> str | None:
    """One plain line on the word that pushes hardest against the decision, or None when no word does (or the
    method is not leave-one-out). A word pushes against it when removing it makes the predicted label more
    likely by at least ``least``; it pushes towards the label that loses most without it.

    Plain text (the caller escapes it): "Leave-one-out: “gorgeous” pushes towards positive (without it,
    negative gets 12 points more likely); alpha gives it no weight.". ``plain`` (presentation mode) says it
    without method names: "Without “gorgeous” the answer negative gets 12 points more likely: the word pushes
    towards positive, and the model gives it no weight."."""
    if opinion.removed is None or opinion.probabilities is None or not opinion.scores.size:
        return None
    word = int(np.argmin(opinion.scores))
    if opinion.scores[word] > -least:
        return None
    losses = opinion.probabilities - opinion.removed[word]  # what each label loses without the word
    losses[opinion.target] = -np.inf
    towards = int(np.argmax(losses))
    name = opinion.names[towards] if towards < len(opinion.names) else f"class {towards}"
    predicted = opinion.names[opinion.target] if opinion.target < len(opinion.names) else "the prediction"
    points = -100 * float(opinion.scores[word])
    mass = float(opinion.alpha[word])
    unit = f"point{'' if round(points) == 1 else 's'}"
    if plain:
        weight = "the model gives it no weight" if mass <= 0 else f"the model still gives it {mass:.0%} of its weight"
        return (
            f"Without “{opinion.labels[word]}” the answer {predicted} gets {points:.0f} {unit} more likely: the word "
            f"pushes towards {name}, and {weight}."
        )
    weight = "alpha gives it no weight" if mass <= 0 else f"alpha gives it a weight of {mass:.2f} (alpha has no sign)"
    return (
        f"{opinion.method}: “{opinion.labels[word]}” pushes towards {name} (without it, {predicted} gets "
        f"{points:.0f} {unit} more likely); {weight}."
    )


def agreement_sentence(opinion: SecondOpinion, top: int = 5) -> str:
    """One line: how many of each method's top words (score above 0) the other shares, with the measures.

    Plain text (the caller escapes it): "Alpha and Leave-one-out share 2 of their top 3 words ("a", "b");
    over every word with a score above 0: Jaccard 0.40, rank-biased overlap 0.55."."""
    first, second = evidence_order(opinion.alpha)[:top], evidence_order(opinion.scores)[:top]
    agreement = opinion.agreement
    if first.size == 0 or second.size == 0:
        who = "alpha" if first.size == 0 else opinion.method
        return f"No word has a score above 0 for {who}, so there is nothing to compare."
    shared = [int(w) for w in first.tolist() if w in set(second.tolist())]
    size = max(first.size, second.size)
    names = ", ".join(f"“{opinion.labels[w]}”" for w in shared)
    overlap = f"share {len(shared)} of their top {size} words" + (f" ({names})" if names else "")
    measures = (
        f"Jaccard {agreement.jaccard:.2f}, rank-biased overlap {agreement.rbo:.2f}"
        if agreement.jaccard is not None and agreement.rbo is not None
        else "no common ranking"
    )
    return f"Alpha and {opinion.method} {overlap}; over every word with a score above 0: {measures}."
