"""The result type every view consumes: one input, its prediction and its spans.

An :class:`Explanation` is plain data (numpy arrays, tuples, strings): it can be
cached, serialised to JSON and compared in tests without a model. Token indices
count real tokens only (no [CLS]/[SEP]/padding); character offsets point into
the text of the token's segment (0 = ``text``, 1 = ``pair``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from selfexplain.core.results import display
from selfexplain.core.results.schema import Span, Token, explanation_dict, read_prediction, read_spans, read_tokens
from selfexplain.errors import InvalidInputError
from selfexplain.support.limits import DENSE_MAX_TOKENS


def disjoint_spans(
    starts: np.ndarray, ends: np.ndarray, num_tokens: int, count: int | None = None, budget: int | None = None
) -> list[int]:
    """Greedy walk over spans given in priority order (``starts``/``ends`` ``[S]``, inclusive).

    A span is kept when it shares no token with a kept span and, with ``budget``, fits in the
    tokens still uncovered. Stops after ``count`` spans or once ``budget`` tokens are covered.
    Returns the kept spans' positions in the given order.
    """
    taken = np.zeros(num_tokens, dtype=bool)
    kept: list[int] = []
    left = num_tokens if budget is None else budget
    for rank, (i, j) in enumerate(zip(starts.tolist(), ends.tolist())):  # stops early: see the checks
        if len(kept) == count or left <= 0:
            break
        if j - i + 1 > left or taken[i : j + 1].any():
            continue
        taken[i : j + 1] = True
        kept.append(rank)
        if budget is not None:
            left -= j - i + 1
    return kept


def evidence_ranks(alpha: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``[G, G]`` rank of each valid cell with alpha above 0 (1 = highest; ties by start, then end),
    0 elsewhere: a span with alpha 0 (sparse maps give true zeros) carries no weight and has no rank.

    The one ranking rule for every grid, table and hover (token, word or sentence level)."""
    flat = np.where(mask & (alpha > 0), alpha, -np.inf).ravel()
    count = int(np.isfinite(flat).sum())
    order = np.argsort(-flat, kind="stable")[:count]  # row-major: ties by start, then end
    ranks = np.zeros(flat.size, dtype=int)
    ranks[order] = np.arange(1, count + 1)
    return ranks.reshape(alpha.shape)


def position_prior(segments: np.ndarray) -> np.ndarray:
    """``[T]`` for the tokens' segments ``[T]``: how many spans of its own text cover each token,
    ``(t + 1)(T_s - t)`` with ``t`` its index in segment ``s`` of ``T_s`` tokens (the token view of
    uniform alpha)."""
    prior = np.zeros(len(segments))
    for segment in np.unique(segments):  # one or two segments
        where = np.flatnonzero(segments == segment)
        t = np.arange(where.size)
        prior[where] = (t + 1) * (where.size - t)
    return prior


class Prediction:
    """The prediction read from ``probabilities`` ``[C]`` and ``label_names``, and the token count: shared by
    :class:`Explanation` and :class:`selfexplain.core.results.document.Document`."""

    probabilities: np.ndarray
    label_names: tuple[str, ...]
    tokens: tuple[Token, ...]

    @property
    def predicted_index(self) -> int:
        return int(np.argmax(self.probabilities))

    @property
    def label(self) -> str:
        return self.label_names[self.predicted_index]

    @property
    def confidence(self) -> float:
        return float(self.probabilities[self.predicted_index])

    @property
    def num_tokens(self) -> int:
        return len(self.tokens)


@dataclass(frozen=True, eq=False)
class Explanation(Prediction):
    """One explained input.

    probabilities ``[C]``; alpha ``[T, T]`` (upper triangle, 0 off the valid spans);
    span_mask ``[T, T]`` bool (valid spans); attentions ``[L, heads, N, N]`` over the
    full encoder sequence ``attention_tokens`` (``N`` includes special tokens), with
    ``token_positions`` ``[T]`` the place of each real token in that sequence.
    ``windows``: for a text read in encoder windows, the first token of each window
    (then there are no attention maps). ``span_unit``: "word" when the model's spans start and
    end on word boundaries (then a token starts a word exactly when a valid span starts there),
    "piece" when any sub-word piece can bound a span.
    """

    text: str
    pair: str | None
    tokens: tuple[Token, ...]
    label_names: tuple[str, ...]
    probabilities: np.ndarray
    alpha: np.ndarray
    span_mask: np.ndarray
    model_name: str = ""
    attention_tokens: tuple[str, ...] | None = None
    token_positions: np.ndarray | None = None
    attentions: np.ndarray | None = None
    windows: tuple[int, ...] | None = None
    span_unit: str = "piece"

    def segment_text(self, segment: int) -> str:
        return self.pair or "" if segment == 1 else self.text

    @cached_property
    def ranking(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Valid spans ranked by alpha (descending; ties by position): ``(starts, ends, alpha)``, each ``[V]``."""
        starts, ends = np.nonzero(self.span_mask)
        weights = self.alpha[starts, ends]
        order = np.lexsort((ends, starts, -weights))
        return starts[order], ends[order], weights[order]

    @cached_property
    def num_evidence(self) -> int:
        """How many valid spans carry weight (alpha above 0): all of them for softmax alpha, often a
        handful for sparsemax or entmax alpha, whose other spans have alpha exactly 0."""
        return int((self.ranking[2] > 0).sum())

    def _span(self, rank: int) -> Span:
        starts, ends, weights = self.ranking
        i, j = int(starts[rank]), int(ends[rank])
        first, last = self.tokens[i], self.tokens[j]
        source = self.segment_text(first.segment)
        text = source[first.start : last.end]
        weight = float(weights[rank])
        return Span(i, j, first.start, last.end, first.segment, text, weight, rank + 1 if weight > 0 else 0)

    def span_at(self, start_token: int, end_token: int) -> Span | None:
        """The span ``start_token .. end_token`` with its rank, or None if it is not a valid span."""
        starts, ends, _ = self.ranking
        found = np.flatnonzero((starts == start_token) & (ends == end_token))
        return self._span(int(found[0])) if found.size else None

    @property
    def spans(self) -> list[Span]:
        """Every valid span, ranked by alpha (those with alpha 0 last, by position, with rank 0)."""
        return self.top_spans(None)

    def top_spans(self, k: int | None = 10) -> list[Span]:
        """The ``k`` highest-alpha valid spans (all when ``k`` is None), alpha-0 spans included once the
        weighted ones run out. What is shown or counted as evidence uses :meth:`evidence_spans`."""
        count = len(self.ranking[0]) if k is None else min(max(k, 0), len(self.ranking[0]))
        return [self._span(rank) for rank in range(count)]

    def evidence_spans(self, k: int | None = 10) -> list[Span]:
        """The ``k`` highest-alpha spans that carry weight (all of them when ``k`` is None): a span with
        alpha 0 is never listed, highlighted, ranked or counted as evidence. For softmax alpha (no
        exact zeros) this is :meth:`top_spans`."""
        count = self.num_evidence if k is None else min(max(k, 0), self.num_evidence)
        return [self._span(rank) for rank in range(count)]

    def top_spans_non_overlapping(self, k: int = 5) -> list[Span]:
        """Greedy: walk the spans that carry weight by alpha, keep those sharing no token with a kept span."""
        starts, ends, _ = self.ranking
        count = self.num_evidence
        return [self._span(rank) for rank in disjoint_spans(starts[:count], ends[:count], self.num_tokens, count=k)]

    def token_scores(self) -> np.ndarray:
        """``[T]``: alpha mass of the spans covering each token, ``sum_{i<=t<=j} alpha(i,j)``."""
        if self.num_tokens == 0:
            return np.zeros(0)
        weights = np.where(self.span_mask, self.alpha, 0.0)
        from_right = np.cumsum(weights[:, ::-1], axis=1)[:, ::-1]  # sum over j >= t
        covering = np.cumsum(from_right, axis=0)  # then over i <= t
        return np.diagonal(covering).copy()

    def _repr_html_(self) -> str:
        """Jupyter's inline view (static HTML and SVG, every text escaped), supplied by the views layer
        (:mod:`selfexplain.views.notebook`, registered in :mod:`selfexplain.core.results.display`)."""
        return display.html(self)

    def show(self, path: str | Path | None = None) -> Path | None:
        """Display inline in Jupyter; elsewhere (or with ``path``) write an HTML file and return its path."""
        return display.show(self, path)

    def to_dict(self, top_k: int | None = 10, attentions: bool = False) -> dict[str, Any]:
        """JSON-ready dict in the one schema (:mod:`selfexplain.core.results.schema`). ``spans``: the ``top_k``
        highest-alpha spans that carry weight (:meth:`evidence_spans`); ``top_k=None`` lists every valid span, those
        with alpha 0 too (last, with rank 0). ``num_evidence_spans`` counts the spans with alpha above 0."""
        data = explanation_dict(
            self, pair=self.pair, top_k=top_k, num_valid_spans=int(self.span_mask.sum()), windows=self.windows
        )
        if attentions and self.attentions is not None:
            data["attention_tokens"] = list(self.attention_tokens or ())
            data["attentions"] = np.round(self.attentions, 6).tolist()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, tokens: bool = True, model_name: str | None = None) -> Explanation:
        """The Explanation of a :meth:`to_dict` dict (or of a batch record): text, pair, prediction, model
        (``model_name`` when given), span unit, and with ``tokens`` its tokens, windows and listed spans.

        The listed spans become the valid spans of the ``[T, T]`` grid (float64), so it is the original
        exactly when the dict lists every valid span (``top_k=None``, or ``top_k`` at least
        :attr:`num_evidence` when no span has alpha 0); attention maps are not read back. A grid over
        :data:`~selfexplain.support.limits.DENSE_MAX_TOKENS` tokens is refused (InvalidInputError).
        ``tokens=False`` (or a dict without tokens) gives the token-less Explanation (``T = 0``, no
        alpha) that a batch record or a gallery pin is shown with: enough for ``highlight_html`` with
        spans given and ``probability_figure``."""
        fields = read_prediction(data, model_name)
        if not tokens or not data.get("tokens"):
            return cls(tokens=(), alpha=np.zeros((0, 0)), span_mask=np.zeros((0, 0), dtype=bool), **fields)
        read = read_tokens(data)
        if len(read) > DENSE_MAX_TOKENS:
            raise InvalidInputError(
                f"the text has {len(read):,} tokens; a dense explanation stops at {DENSE_MAX_TOKENS:,}"
            )
        starts, ends, weights = read_spans(data)
        alpha = np.zeros((len(read), len(read)))
        mask = np.zeros((len(read), len(read)), dtype=bool)
        alpha[starts, ends] = weights
        mask[starts, ends] = True
        windows = tuple(data["windows"]) if data.get("windows") is not None else None
        return cls(tokens=read, alpha=alpha, span_mask=mask, windows=windows, **fields)
