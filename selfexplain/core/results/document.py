"""A long text's explanation kept sparse: its valid spans as COO arrays, never a ``[T, T]`` grid.

A :class:`Document` holds what :meth:`SelfExplainer.explain_document` read from the encoder
windows of one text: the prediction, the tokens, the windows, and for each of the ``S`` valid
spans its first and last token and its alpha (``starts``/``ends``/``alpha`` ``[S]``, ordered by
``(start, end)``). Memory grows with ``S`` (12 bytes a span; about 310 word spans a token with
the shipped models' windows), so a 50,000-token document takes about 190 MB where a dense grid
and mask would take 12.5 GB. It is split
into sentences or paragraphs (:mod:`selfexplain.core.results.document_parts`), and any one part becomes an
ordinary dense :class:`Explanation` (:meth:`Document.part`), so every figure works on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from selfexplain.core.inputs.positions import dense_alpha
from selfexplain.core.results.document_parts import DocumentParts, PartLevel, split_parts
from selfexplain.core.results.explanation import Explanation, Prediction, Span, Token
from selfexplain.core.results.schema import explanation_dict, read_prediction, read_spans, read_tokens
from selfexplain.errors import InvalidInputError
from selfexplain.support.limits import DENSE_MAX_TOKENS


@dataclass(frozen=True, eq=False)
class Document(Prediction):
    """One long text explained over encoder windows.

    ``probabilities`` ``[C]``; ``window_starts``: first token of each window, each holding
    ``window_size`` real tokens; ``starts``/``ends`` ``[S]`` int32 (token indices, ends
    inclusive) and ``alpha`` ``[S]`` float32 for every valid span, ordered by ``(start, end)``.
    """

    text: str
    tokens: tuple[Token, ...]
    label_names: tuple[str, ...]
    probabilities: np.ndarray
    window_starts: tuple[int, ...]
    window_size: int
    starts: np.ndarray
    ends: np.ndarray
    alpha: np.ndarray
    model_name: str = ""
    span_unit: str = "piece"
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def num_spans(self) -> int:
        return int(self.starts.size)

    @property
    def token_chars(self) -> np.ndarray:
        """``[T, 2]`` character offsets (start, end) of every token."""
        if "chars" not in self._cache:
            flat = np.fromiter((c for t in self.tokens for c in (t.start, t.end)), dtype=np.int64)
            self._cache["chars"] = flat.reshape(-1, 2)
        return self._cache["chars"]

    @property
    def num_evidence(self) -> int:
        """How many spans carry weight (alpha above 0), as :attr:`Explanation.num_evidence`."""
        if "evidence" not in self._cache:
            self._cache["evidence"] = int(np.count_nonzero(self.alpha > 0))
        return self._cache["evidence"]

    def _span(self, index: int, rank: int) -> Span:
        i, j = int(self.starts[index]), int(self.ends[index])
        first, last = self.tokens[i].start, self.tokens[j].end
        weight = float(self.alpha[index])
        return Span(i, j, first, last, 0, self.text[first:last], weight, rank if weight > 0 else 0)

    def top_indices(self, k: int | None) -> np.ndarray:
        """Positions in the span arrays of the ``k`` highest-alpha spans (all when None), ranked by
        alpha, ties by position (the order of :attr:`Explanation.ranking`)."""
        count = self.num_spans if k is None else min(max(k, 0), self.num_spans)
        if count == 0:
            return np.zeros(0, dtype=np.int64)
        if count < self.num_spans:
            kth = np.partition(self.alpha, self.num_spans - count)[self.num_spans - count]  # the k-th largest
            above = np.flatnonzero(self.alpha > kth)
            ties = np.flatnonzero(self.alpha == kth)[: count - above.size]  # positions ordered: earliest win
            chosen = np.concatenate([above, ties])
        else:
            chosen = np.arange(self.num_spans)
        return chosen[np.lexsort((chosen, -self.alpha[chosen]))]

    def top_spans(self, k: int | None = 10) -> list[Span]:
        """The ``k`` highest-alpha spans (all when None), as in :meth:`Explanation.top_spans`."""
        return [self._span(int(index), rank) for rank, index in enumerate(self.top_indices(k).tolist(), start=1)]

    def evidence_spans(self, k: int | None = 10) -> list[Span]:
        """The ``k`` highest-alpha spans that carry weight (all of them when None), as in
        :meth:`Explanation.evidence_spans`: a span with alpha 0 is never listed as evidence."""
        count = self.num_evidence if k is None else min(max(k, 0), self.num_evidence)
        return self.top_spans(count)

    def _extents(self, level: PartLevel) -> DocumentParts:
        key = f"parts:{level}"
        if key not in self._cache:
            self._cache[key] = split_parts(self.text, self.token_chars, level)
        return self._cache[key]

    def parts(self, level: PartLevel = "sentence") -> DocumentParts:
        """Sentences or paragraphs with their extents and alpha mass: a part's mass is the alpha of the
        spans inside it; spans crossing a boundary add to ``across`` instead (masses + across = 1).
        ``touching`` adds to each part the crossing spans that reach into it (a running sum over parts
        of where each span begins minus where it has ended)."""
        key = f"mass:{level}"
        if key not in self._cache:
            extents = self._extents(level)
            count = len(extents)
            part_of = extents.part_of_token
            first, last = part_of[self.starts], part_of[self.ends]
            inside = first == last
            weights = self.alpha.astype(np.float64)
            mass = np.bincount(first[inside], weights=weights[inside], minlength=count)
            begins = np.bincount(first, weights=weights, minlength=count + 1)
            ended = np.bincount(last + 1, weights=weights, minlength=count + 1)
            touching = np.cumsum(begins - ended)[:count]
            self._cache[key] = extents.with_mass(mass, float(weights[~inside].sum()), touching)
        return self._cache[key]

    def _part_spans(self, first: int, end: int) -> np.ndarray:
        """Positions of the spans inside tokens ``first .. end - 1`` (spans are ordered by start)."""
        lo, hi = np.searchsorted(self.starts, [first, end], side="left")
        window = np.arange(lo, hi)
        return window[self.ends[lo:hi] < end]

    def part(self, index: int, level: PartLevel = "sentence") -> Explanation:
        """Part ``index`` as a dense :class:`Explanation` of its own tokens: its text, tokens (character
        offsets into the part's text), the document's prediction, and the alpha of the spans inside the
        part as they are in the document. They are not renormalised (they sum to the part's mass, not
        to 1); spans crossing the part's edges are left out. ``span_unit`` is the document's."""
        parts = self._extents(level)
        if not 0 <= index < len(parts):
            raise IndexError(f"{level} {index} does not exist (the document has {len(parts)})")
        first, end = int(parts.token_starts[index]), int(parts.token_ends[index])
        if end - first > DENSE_MAX_TOKENS:
            raise InvalidInputError(
                f"this {level} has {end - first:,} tokens; parts over {DENSE_MAX_TOKENS:,} stay sparse"
            )
        offset = int(parts.char_starts[index])
        chosen = self._part_spans(first, end)
        rows, cols = self.starts[chosen] - first, self.ends[chosen] - first
        alpha = np.zeros((end - first, end - first), dtype=np.float32)
        mask = np.zeros((end - first, end - first), dtype=bool)
        alpha[rows, cols] = self.alpha[chosen]
        mask[rows, cols] = True
        tokens = tuple(Token(t.text, t.start - offset, t.end - offset, 0, t.piece) for t in self.tokens[first:end])
        return Explanation(
            text=self.text[offset : int(parts.char_ends[index])],
            pair=None,
            tokens=tokens,
            label_names=self.label_names,
            probabilities=self.probabilities,
            alpha=alpha,
            span_mask=mask,
            model_name=self.model_name,
            span_unit=self.span_unit,
        )

    def window_of(self, index: int, level: PartLevel = "sentence") -> int:
        """The window that holds part ``index``: of the windows holding all of it, the one where it sits
        nearest the middle; when none holds it all (a part longer than a window), the one holding most."""
        parts = self._extents(level)
        first, end = int(parts.token_starts[index]), int(parts.token_ends[index])
        lo = np.asarray(self.window_starts)
        hi = np.minimum(lo + self.window_size, self.num_tokens)
        holds = (lo <= first) & (end <= hi)
        if holds.any():
            distance = np.abs((lo + hi) - (first + end)).astype(float)
            return int(np.argmin(np.where(holds, distance, np.inf)))
        return int(np.argmax(np.minimum(hi, end) - np.maximum(lo, first)))

    def explanation(self) -> Explanation:
        """The dense :class:`Explanation` (``[T, T]`` alpha and mask, float32) of the whole text; refused
        over :data:`~selfexplain.support.limits.DENSE_MAX_TOKENS` tokens, where the grid would not fit in memory."""
        count = self.num_tokens
        if count > DENSE_MAX_TOKENS:
            raise InvalidInputError(
                f"the text has {count:,} tokens; a dense explanation stops at {DENSE_MAX_TOKENS:,} "
                "(use explain_document)"
            )
        alpha, mask = dense_alpha(count, self.starts, self.ends, self.alpha, np.float32)
        return Explanation(
            text=self.text,
            pair=None,
            tokens=self.tokens,
            label_names=self.label_names,
            probabilities=self.probabilities,
            alpha=alpha,
            span_mask=mask,
            model_name=self.model_name,
            windows=self.window_starts,
            span_unit=self.span_unit,
        )

    def to_dict(self, top_k: int | None = 10) -> dict[str, Any]:
        """JSON-ready, with the keys of :meth:`Explanation.to_dict` for a windowed text (``top_k`` spans
        that carry weight; None: every valid span, alpha 0 included): :mod:`selfexplain.core.results.schema`."""
        return explanation_dict(
            self, pair=None, top_k=top_k, num_valid_spans=self.num_spans, windows=self.window_starts
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, window_size: int | None = None) -> Document:
        """The Document of a :meth:`to_dict` dict: its listed spans become the document's spans, so it is the
        original when the dict lists every valid span (``top_k=None``). The dict does not keep the window size:
        without ``window_size`` it is read from the windows (the last one ends at the last token), which gives
        the original whenever the text took more than one window (else the token count)."""
        fields = read_prediction(data)
        tokens = read_tokens(data)
        windows = tuple(data.get("windows") or (0,))
        starts, ends, alpha = read_spans(data)
        return cls(
            text=fields["text"],
            tokens=tokens,
            label_names=fields["label_names"],
            probabilities=fields["probabilities"],
            window_starts=windows,
            window_size=len(tokens) - windows[-1] if window_size is None else window_size,
            starts=starts.astype(np.int32),
            ends=ends.astype(np.int32),
            alpha=alpha.astype(np.float32),
            model_name=fields["model_name"],
            span_unit=fields["span_unit"],
        )


@dataclass(frozen=True)
class WindowAttention:
    """The raw self-attention of one encoder window: ``attentions`` ``[L, heads, n, n]`` over the
    window's sequence ``tokens`` (special tokens included); ``token_index`` ``[n]`` is the document
    token at each position (-1 on special tokens)."""

    start: int
    tokens: tuple[str, ...]
    token_index: np.ndarray
    attentions: np.ndarray

    def positions(self, first: int, end: int, limit: int = 120) -> np.ndarray:
        """Window positions to show for document tokens ``first .. end - 1``: the window's leading
        special tokens ([CLS]), then those tokens' positions, at most ``limit`` in all."""
        real = self.token_index >= 0
        leading = np.flatnonzero(~real[: int(np.argmax(real))] if real.any() else ~real)
        inside = np.flatnonzero((self.token_index >= first) & (self.token_index < end))
        return np.concatenate([leading, inside])[:limit]
