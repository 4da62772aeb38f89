"""The one JSON schema of an explained input, written once for :class:`~selfexplain.results.explanation.Explanation`
and :class:`~selfexplain.results.document.Document` (their ``to_dict`` and ``from_dict``), and the two records
it is made of, :class:`Token` and :class:`Span` (both re-exported by :mod:`selfexplain.results.explanation`).

Keys, in this order: ``model``, ``text``, ``pair`` (null for a single text), ``label``, ``probabilities``
(label name -> probability, in the model's label order), ``tokens`` (``{text, start, end, segment, piece}``:
character offsets into the token's segment, 0 = text, 1 = pair), ``spans`` (:meth:`Span.to_dict`: ``start_token,
end_token, start_char, end_char, segment, text, alpha, rank``), ``num_valid_spans``, ``num_evidence_spans`` (spans
with alpha above 0), ``span_unit``; then
``windows`` for a text read in encoder windows (the first token of each) and, only when asked for,
``attention_tokens`` and ``attentions``.

What writes it: the CLI's ``explain --json``, the Explain page's JSON download and gallery pins (checked
field by field by :mod:`selfexplain.gallery.pin_schema`). A batch record (:mod:`selfexplain.batch.records`) is
its own format but keeps this schema's ``text``, ``pair``, ``probabilities`` and span fields, so both are read
back here: :func:`read_prediction` gives what every rebuilt Explanation holds (text, pair, prediction, model,
span unit) and :func:`read_tokens` / :func:`read_spans` what a full rebuild adds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int
    segment: int = 0
    piece: str = ""


@dataclass(frozen=True)
class Span:
    """Tokens ``start_token .. end_token`` (inclusive); characters ``start_char:end_char``.

    ``rank``: 1 for the highest alpha; 0 for a span with alpha 0, which is not ranked (it carries no
    weight: see :meth:`Explanation.evidence_spans`)."""

    start_token: int
    end_token: int
    start_char: int
    end_char: int
    segment: int
    text: str
    alpha: float
    rank: int

    @property
    def ranked(self) -> bool:
        """Whether the span carries weight (alpha above 0) and so has a rank."""
        return self.rank > 0

    def overlaps(self, other: Span) -> bool:
        return self.start_token <= other.end_token and other.start_token <= self.end_token

    def to_dict(self) -> dict[str, Any]:
        return {
            "start_token": self.start_token,
            "end_token": self.end_token,
            "start_char": self.start_char,
            "end_char": self.end_char,
            "segment": self.segment,
            "text": self.text,
            "alpha": self.alpha,
            "rank": self.rank,
        }


class Explained(Protocol):
    """What :func:`explanation_dict` reads: an Explanation or a Document."""

    text: str
    model_name: str
    span_unit: str
    label_names: tuple[str, ...]
    probabilities: np.ndarray
    tokens: tuple[Token, ...]

    @property
    def label(self) -> str: ...

    @property
    def num_evidence(self) -> int: ...

    def top_spans(self, k: int | None = 10) -> list[Span]: ...

    def evidence_spans(self, k: int | None = 10) -> list[Span]: ...


def token_dict(token: Token) -> dict[str, Any]:
    return {"text": token.text, "start": token.start, "end": token.end, "segment": token.segment, "piece": token.piece}


def listed_spans(source: Explained, top_k: int | None) -> list[Span]:
    """The spans a dict lists: the ``top_k`` highest-alpha spans that carry weight, or with ``top_k=None``
    every valid span (those with alpha 0 last, rank 0)."""
    return source.top_spans(None) if top_k is None else source.evidence_spans(top_k)


def explanation_dict(
    source: Explained, *, pair: str | None, top_k: int | None, num_valid_spans: int, windows: Sequence[int] | None
) -> dict[str, Any]:
    """The schema's dict of ``source`` (``windows`` None: no ``windows`` key)."""
    data: dict[str, Any] = {
        "model": source.model_name,
        "text": source.text,
        "pair": pair,
        "label": source.label,
        "probabilities": {n: float(p) for n, p in zip(source.label_names, source.probabilities)},
        "tokens": [token_dict(t) for t in source.tokens],
        "spans": [s.to_dict() for s in listed_spans(source, top_k)],
        "num_valid_spans": num_valid_spans,
        "num_evidence_spans": source.num_evidence,
        "span_unit": source.span_unit,
    }
    if windows is not None:
        data["windows"] = list(windows)
    return data


def read_prediction(data: Mapping[str, Any], model_name: str | None = None) -> dict[str, Any]:
    """``text``, ``pair``, ``label_names``, ``probabilities`` (float64 ``[C]``, in the dict's label order),
    ``model_name`` (``model_name`` when given, else the dict's ``model`` or "") and ``span_unit`` (the dict's,
    else "piece") of a schema dict or a batch record: the fields of a token-less Explanation."""
    probabilities = data["probabilities"]
    names = tuple(probabilities)
    return {
        "text": data["text"],
        "pair": data.get("pair"),
        "label_names": names,
        "probabilities": np.asarray([probabilities[n] for n in names], dtype=np.float64),
        "model_name": str(data.get("model", "")) if model_name is None else model_name,
        "span_unit": str(data.get("span_unit", "piece")),
    }


def read_tokens(data: Mapping[str, Any]) -> tuple[Token, ...]:
    """The dict's tokens (none when it has no ``tokens``; ``segment`` 0 and ``piece`` "" when left out)."""
    return tuple(
        Token(t["text"], t["start"], t["end"], t.get("segment", 0), t.get("piece", "")) for t in data.get("tokens", ())
    )


def read_spans(data: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The listed spans as ``(starts, ends, alpha)`` ``[S]`` (int64, int64, float64), ordered by
    ``(start, end)``: the spans a dict lists, which are all the valid spans only when it lists every one."""
    spans = data.get("spans") or []
    starts = np.asarray([s["start_token"] for s in spans], dtype=np.int64)
    ends = np.asarray([s["end_token"] for s in spans], dtype=np.int64)
    alpha = np.asarray([s["alpha"] for s in spans], dtype=np.float64)
    order = np.lexsort((ends, starts))
    return starts[order], ends[order], alpha[order]
