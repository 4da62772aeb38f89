"""Two models on one input: one common word axis, each model's alpha on it, and how far they agree.

The two models may have different tokenizers, so the axis is built from characters: each model's
words (:func:`selfexplain.core.results.words.word_view`) are character intervals of the text, and the common
words are the smallest groups in which every model word lies whole (two models with the same
pre-tokenizer get exactly their own words). Shapes: ``T`` real tokens of one model, ``W`` its
words, ``C`` common words, ``V`` compared items (spans or words).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.explanation import Explanation
from selfexplain.core.results.words import WordView, group_view, word_view
from selfexplain.errors import InvalidInputError
from selfexplain.methods.explainers import get_method

RBO_PERSISTENCE = 0.9  # rank-biased overlap: the first 10 ranks hold about 86% of the weight


@dataclass(frozen=True, eq=False)
class Side:
    """One model's reading of the input. ``head`` is the model's head ("span", "cls" or "mean");
    a baseline's explanation has no valid span (alpha ``[T, T]`` all 0, span_mask all False) and
    carries ``gradient`` ``[T]``: gradient x input for the predicted class (positive supports it),
    and ``word_of_token`` ``[T]``: its tokenizer's pre-tokenizer words (None: whitespace words)."""

    explanation: Explanation
    head: str = "span"
    gradient: np.ndarray | None = None
    word_of_token: np.ndarray | None = None

    @property
    def baseline(self) -> bool:
        return self.head != "span"

    @property
    def words(self) -> WordView:
        """The model's words: :func:`word_view`, or a baseline's tokenizer words."""
        if self.word_of_token is not None:
            return group_view(self.explanation, self.word_of_token)
        return word_view(self.explanation)


@dataclass(frozen=True)
class WordAxis:
    """``C`` common words: ``labels`` and ``extents`` ``(segment, start_char, end_char)`` in the
    text (segment 0) or the pair (segment 1)."""

    text: str
    pair: str | None
    labels: tuple[str, ...]
    extents: tuple[tuple[int, int, int], ...]

    def __len__(self) -> int:
        return len(self.labels)

    def span_text(self, first: int, last: int) -> str:
        """The text of common words ``first .. last`` (one segment)."""
        segment, start, _ = self.extents[first]
        source = self.pair or "" if segment == 1 else self.text
        return source[start : self.extents[last][2]]


@dataclass(frozen=True, eq=False)
class RankAgreement:
    """How far two models agree on which items carry weight, with measures defined when scores tie at 0.

    Only items with a score above 0 are ranked (alpha 0 is no evidence; for gradient x input, only words
    that support the prediction). ``starts``/``ends`` ``[U]`` are the items ranked by either model
    (common word spans; for words ``starts == ends``), ``ranks_a``/``ranks_b`` ``[U]`` their ranks
    (1 = highest, ties by position; 0 = not ranked by that model). ``count`` items were compared in all,
    ``nonzero_a``/``nonzero_b`` are ranked by each model and ``both`` by the two. ``jaccard`` is the
    overlap of the two ranked sets (``both / U``) and ``rbo`` the rank-biased overlap of the two
    rankings (Webber et al., 2010, extrapolated, persistence ``persistence``: the top ranks weigh most);
    each is None when neither model ranks anything."""

    unit: str
    starts: np.ndarray
    ends: np.ndarray
    ranks_a: np.ndarray
    ranks_b: np.ndarray
    count: int
    nonzero_a: int
    nonzero_b: int
    both: int
    jaccard: float | None
    rbo: float | None
    persistence: float = RBO_PERSISTENCE

    @property
    def union(self) -> int:
        return int(self.starts.shape[0])


@dataclass(frozen=True, eq=False)
class Comparison:
    """Both models on the common axis: alpha and valid spans ``[C, C]`` per model (a baseline's are
    all 0 / False), ``zmax`` the shared top of the colour scale, ``word_scores`` ``[C]`` per model
    (alpha mass of the spans covering each word, or a baseline's summed gradient x input)."""

    axis: WordAxis
    alpha_a: np.ndarray
    mask_a: np.ndarray
    alpha_b: np.ndarray
    mask_b: np.ndarray
    word_scores_a: np.ndarray
    word_scores_b: np.ndarray
    zmax: float
    agreement: RankAgreement


def check_compatible(a: ModelConfig, b: ModelConfig) -> None:
    """Raise :class:`InvalidInputError` unless both models take pairs or both take one text."""
    if a.pair != b.pair:
        kinds = {True: "a premise and a hypothesis", False: "one text"}
        raise InvalidInputError(
            f"model A ({a.name or 'unnamed'}) takes {kinds[a.pair]} but model B ({b.name or 'unnamed'}) takes "
            f"{kinds[b.pair]}; choose two pair models or two single-text models"
        )


def default_partner(first: str, known: dict[str, Path]) -> str | None:
    """The model to compare ``first`` with, from ``known`` (name -> folder): for a self-explaining model,
    the first other self-explaining model of the same task (same input kind and labels), so Compare sets
    alpha against alpha; failing that (or for a baseline), the first other model of the same task, then the
    first that takes the same input kind. None when there is none; a model whose config cannot be read is skipped."""

    def config(name: str) -> ModelConfig | None:
        try:
            return ModelConfig.load(known[name])
        except (OSError, ValueError, TypeError, KeyError):
            return None

    wanted = config(first)
    if wanted is None:
        return None
    others = [(name, config(name)) for name in sorted(known) if name != first]
    same_kind = [(name, c) for name, c in others if c is not None and c.pair == wanted.pair]
    same_task = [(n, c) for n, c in same_kind if list(c.label_names) == list(wanted.label_names)]
    if wanted.head == "span":
        explained = [n for n, c in same_task if c.head == "span"]
        if explained:
            return explained[0]
    if same_task:  # a model of the same task (its baseline, say) before one of another task
        return same_task[0][0]
    return same_kind[0][0] if same_kind else None


def fit_both(
    explainers: tuple[SelfExplainer, SelfExplainer], text: str, pair: str | None
) -> tuple[str, str | None, bool]:
    """Cut the input so it fits one encoder window of every model (a prefix of each text).
    Returns ``(text, pair, truncated)``."""
    cut = False
    for explainer in explainers:
        text, pair, truncated = explainer.truncate_to_fit(text, pair)
        cut = cut or truncated
    return text, pair, cut


def explain_side(explainer: SelfExplainer, text: str, pair: str | None = None) -> Side:
    """Explain one input that fits one window. A span model gives its :class:`Explanation`; a
    baseline gives one with no spans, its attention maps and gradient x input token scores."""
    if explainer.config.head == "span":
        return Side(explainer.explain(text, pair, attentions=True))
    instance = explainer.instance(text, pair)
    batch = instance.batch
    with explainer.exclusive():  # the gradient pass runs the model too
        gradient = get_method("grad_x_input").attribute(explainer, instance)
    fast = batch.word_start is not None  # a fast tokenizer gives its pre-tokenizer words
    words = np.cumsum(batch.word_start[0, instance.positions].numpy()) - 1 if fast else None
    # no spans mark word starts; Side.words holds the tokenizer's words
    explanation = replace(instance.explanation, span_unit="piece")
    return Side(explanation, explainer.config.head, gradient, words)


def _keys(extents: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``extents`` ``[K, 3]`` (segment, start, end) -> start and end keys ``[K]`` ordered across segments."""
    return extents[:, 0] * size + extents[:, 1], extents[:, 0] * size + extents[:, 2]


def common_axis(*sides: Side) -> WordAxis:
    """The common words of several models' readings of one input: model words (character intervals)
    that overlap are merged, so every model word lies in exactly one common word."""
    first = sides[0].explanation
    if any((s.explanation.text, s.explanation.pair) != (first.text, first.pair) for s in sides):
        raise ValueError("the explanations are of different inputs")
    size = max(len(first.text), len(first.pair or "")) + 1
    extents = np.array([x for s in sides for x in s.words.extents], dtype=np.int64).reshape(-1, 3)
    starts, ends = _keys(extents, size)
    order = np.lexsort((ends, starts))
    starts, ends, segments = starts[order], ends[order], extents[order, 0]
    reach = np.maximum.accumulate(ends)
    new = np.ones(starts.size, dtype=bool)
    new[1:] = starts[1:] >= reach[:-1]  # no overlap with anything before: a new common word
    heads = np.flatnonzero(new)
    group_ends = np.maximum.reduceat(ends, heads)
    group_segments = segments[heads]
    bounds = np.stack([group_segments, starts[heads] - group_segments * size, group_ends - group_segments * size], 1)
    result = tuple((int(s), int(a), int(b)) for s, a, b in bounds.tolist())
    sources = (first.text, first.pair or "")
    labels = tuple(sources[s][a:b].strip() or sources[s][a:b] for s, a, b in result)
    return WordAxis(first.text, first.pair, labels, result)


def word_index(view: WordView, axis: WordAxis) -> np.ndarray:
    """``[W]``: the common word holding each of the model's words ``view``."""
    size = max(len(axis.text), len(axis.pair or "")) + 1
    axis_starts, _ = _keys(np.array(axis.extents, dtype=np.int64).reshape(-1, 3), size)
    own_starts, _ = _keys(np.array(view.extents, dtype=np.int64).reshape(-1, 3), size)
    return np.clip(np.searchsorted(axis_starts, own_starts, side="right") - 1, 0, None)


def alpha_on_axis(side: Side, axis: WordAxis) -> tuple[np.ndarray, np.ndarray]:
    """``(alpha [C, C], valid [C, C])``: the model's word alpha summed into common word spans."""
    view = side.words
    index = word_index(view, axis)
    alpha, valid = np.zeros((len(axis),) * 2), np.zeros((len(axis),) * 2, dtype=bool)
    rows, cols = np.nonzero(view.span_mask)
    np.add.at(alpha, (index[rows], index[cols]), view.alpha[rows, cols])
    valid[index[rows], index[cols]] = True
    return alpha, valid


def axis_of_token(side: Side, axis: WordAxis) -> np.ndarray:
    """``[T]``: the common word of ``axis`` that holds each of the model's tokens (non-decreasing)."""
    view = side.words
    return word_index(view, axis)[view.word_of_token]


def token_scores_on_axis(side: Side, scores: np.ndarray, axis: WordAxis) -> np.ndarray:
    """``[C]``: token scores ``[T]`` summed over the tokens of each common word."""
    return np.bincount(axis_of_token(side, axis), weights=scores, minlength=len(axis)).astype(float)


def covering_mass(alpha: np.ndarray) -> np.ndarray:
    """``[C]``: alpha mass of the spans covering each word, ``sum_{a <= w <= b} alpha(a, b)``."""
    from_right = np.cumsum(alpha[:, ::-1], axis=1)[:, ::-1]
    return np.diagonal(np.cumsum(from_right, axis=0)).copy()


def evidence_order(scores: np.ndarray) -> np.ndarray:
    """Positions of the items with a score above 0, best first (ties by position)."""
    ranked = np.flatnonzero(scores > 0)
    return ranked[np.argsort(-scores[ranked], kind="stable")]


def rank_biased_overlap(first: np.ndarray, second: np.ndarray, persistence: float = RBO_PERSISTENCE) -> float | None:
    """Rank-biased overlap (Webber, Moffat and Zobel 2010) of two complete rankings of distinct items,
    which may differ in length and need not hold the same items: the mean over depths ``d`` of the share
    of the top ``d`` both rankings hold (``X_d / d``), depth ``d`` weighted ``persistence**d`` (the top
    ranks weigh most), down to the longer ranking's end; past its end a shorter ranking counts whole.
    The weights are normalised over those depths, so the same ranking scores 1 and no common item 0.
    Unlike Webber's extrapolated RBO, a ranking that ends is taken as complete (its other items carry
    no weight), not as the start of a longer one. None when both are empty; 0 when only one is."""
    if first.size == 0 and second.size == 0:
        return None
    if first.size == 0 or second.size == 0:
        return 0.0
    short, long = (first, second) if first.size <= second.size else (second, first)
    depth_short = {int(item): d for d, item in enumerate(short.tolist(), start=1)}
    seen = np.zeros(long.size + 1)  # seen[d]: common items first in both top-d lists at depth d
    for d, item in enumerate(long.tolist(), start=1):
        if int(item) in depth_short:
            seen[max(d, depth_short[int(item)])] += 1
    overlap = np.cumsum(seen)[1:]  # X_d for d = 1 .. len(long)
    depths = np.arange(1, long.size + 1, dtype=np.float64)
    weights = persistence**depths
    return float((overlap / depths * weights).sum() / weights.sum())


def rank_agreement(
    scores_a: np.ndarray,
    scores_b: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    unit: str,
    persistence: float = RBO_PERSISTENCE,
) -> RankAgreement:
    """Agreement of two score vectors ``[V]`` over the same items (see :class:`RankAgreement`)."""
    order_a, order_b = evidence_order(scores_a), evidence_order(scores_b)
    ranks_a = np.zeros(scores_a.size, dtype=int)
    ranks_b = np.zeros(scores_b.size, dtype=int)
    ranks_a[order_a] = np.arange(1, order_a.size + 1)
    ranks_b[order_b] = np.arange(1, order_b.size + 1)
    either = np.flatnonzero((ranks_a > 0) | (ranks_b > 0))
    both = int(((ranks_a > 0) & (ranks_b > 0)).sum())
    return RankAgreement(
        unit=unit,
        starts=starts[either],
        ends=ends[either],
        ranks_a=ranks_a[either],
        ranks_b=ranks_b[either],
        count=int(scores_a.size),
        nonzero_a=int(order_a.size),
        nonzero_b=int(order_b.size),
        both=both,
        jaccard=both / either.size if either.size else None,
        rbo=rank_biased_overlap(order_a, order_b, persistence),
        persistence=persistence,
    )


def word_scores(side: Side, alpha: np.ndarray, axis: WordAxis) -> np.ndarray:
    """``[C]``: alpha mass per common word, or a baseline's gradient x input summed per word."""
    if side.baseline:
        gradient = side.gradient if side.gradient is not None else np.zeros(side.explanation.num_tokens)
        return token_scores_on_axis(side, gradient, axis)
    return covering_mass(alpha)


def compare(a: Side, b: Side) -> Comparison:
    """Both sides on one word axis with one colour scale. Two span models are compared over the
    common word spans valid for both (alpha); otherwise over common words (alpha mass per word
    against gradient x input)."""
    axis = common_axis(a, b)
    alpha_a, mask_a = alpha_on_axis(a, axis)
    alpha_b, mask_b = alpha_on_axis(b, axis)
    words_a, words_b = word_scores(a, alpha_a, axis), word_scores(b, alpha_b, axis)
    if not a.baseline and not b.baseline:
        starts, ends = np.nonzero(mask_a & mask_b)
        agreement = rank_agreement(alpha_a[starts, ends], alpha_b[starts, ends], starts, ends, "span")
    else:
        index = np.arange(len(axis))
        agreement = rank_agreement(words_a, words_b, index, index, "word")
    zmax = max(float(alpha_a.max(initial=0.0)), float(alpha_b.max(initial=0.0)))
    return Comparison(axis, alpha_a, mask_a, alpha_b, mask_b, words_a, words_b, zmax, agreement)
