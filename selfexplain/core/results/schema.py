"""The one JSON schema of an explained input, written once for
:class:`~selfexplain.core.results.explanation.Explanation` and :class:`~selfexplain.core.results.document.Document`
(their ``to_dict`` and ``from_dict``), checked once (:func:`validate_explanation`), and the two records it is
made of, :class:`Token` and :class:`Span` (both re-exported by :mod:`selfexplain.core.results.explanation`).

Keys, in this order: ``schema_version`` (:data:`SCHEMA_VERSION`), ``model``, ``text``, ``pair`` (null for a
single text), ``label``, ``probabilities`` (label name -> probability, in the model's label order), ``tokens``
(``{text, start, end, segment, piece}``: character offsets into the token's segment, 0 = text, 1 = pair),
``spans`` (:meth:`Span.to_dict`: ``start_token, end_token, start_char, end_char, segment, text, alpha, rank``),
``num_valid_spans``, ``num_evidence_spans`` (spans with alpha above 0), ``span_unit``; then ``windows`` for a
text read in encoder windows (the first token of each) and, only when asked for, ``attention_tokens`` and
``attentions``. A *token-less* Explanation leaves ``tokens`` out.

Versions: 1 is the shape before the key existed (a dict without ``schema_version`` is read as version 1);
2 added ``schema_version`` and made the batch record an Explanation (:mod:`selfexplain.batch.records`). A
dict of a newer version is refused (:class:`~selfexplain.errors.SchemaError`) rather than half read.

What writes it: the CLI's ``explain --json``, the Explain page's JSON download, and two records that are an
Explanation plus their own fields, each checked here with :func:`validate_explanation`: a gallery pin
(:mod:`selfexplain.gallery.records`: the Explanation under ``explanation``, with the pin's id, time and
note) and a batch record (:mod:`selfexplain.batch.records`: a token-less Explanation's keys at the top
level, with the row's index, gold label and measures). :func:`read_prediction` gives what every rebuilt
Explanation holds (text, pair, prediction, model, span unit) and :func:`read_tokens` / :func:`read_spans`
what a full rebuild adds; the field checks themselves are in :mod:`selfexplain.core.results.checks`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from selfexplain.core.results import checks
from selfexplain.core.results.checks import MAX_LABEL_CHARS, MAX_MODEL_CHARS, MAX_SPANS, require, text_field, whole

SCHEMA_VERSION = 2


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
    source: Explained,
    *,
    pair: str | None,
    top_k: int | None,
    num_valid_spans: int,
    windows: Sequence[int] | None,
    spans: Sequence[Span] | None = None,
    tokens: bool = True,
) -> dict[str, Any]:
    """The schema's dict of ``source`` (``windows`` None: no ``windows`` key). ``spans``: the spans to list
    instead of :func:`listed_spans`; ``tokens=False``: the token-less dict (no ``tokens`` key)."""
    listed = listed_spans(source, top_k) if spans is None else spans
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "model": source.model_name,
        "text": source.text,
        "pair": pair,
        "label": source.label,
        "probabilities": {n: float(p) for n, p in zip(source.label_names, source.probabilities)},
        "tokens": [token_dict(t) for t in source.tokens],
        "spans": [s.to_dict() for s in listed],
        "num_valid_spans": num_valid_spans,
        "num_evidence_spans": source.num_evidence,
        "span_unit": source.span_unit,
    }
    if not tokens:
        del data["tokens"]
    if windows is not None:
        data["windows"] = list(windows)
    return data


def read_prediction(data: Mapping[str, Any], model_name: str | None = None) -> dict[str, Any]:
    """``text``, ``pair``, ``label_names``, ``probabilities`` (float64 ``[C]``, in the dict's label order),
    ``model_name`` (``model_name`` when given, else the dict's ``model`` or "") and ``span_unit`` (the dict's,
    else "piece") of a schema dict or a batch record: the fields of a token-less Explanation. A dict of a
    schema version newer than :data:`SCHEMA_VERSION` is refused (SchemaError)."""
    read_version(data)
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


def read_version(data: Mapping[str, Any], where: str = "") -> int:
    """The dict's ``schema_version``: 1 when it has none (written before the key existed); SchemaError for
    anything but a whole number from 1 to :data:`SCHEMA_VERSION` (a newer one: upgrade selfexplain)."""
    name = f"{where}.schema_version" if where else "schema_version"
    version = data.get("schema_version", 1)
    require(checks.is_int(version) and version >= 1, f"{name} must be a whole number from 1")
    require(
        version <= SCHEMA_VERSION,
        f"{name} is {version}: written by a newer selfexplain (this one reads 1 to {SCHEMA_VERSION}); upgrade it",
    )
    return int(version)


def validate_explanation(
    data: object,
    text: str,
    pair: str | None,
    *,
    where: str = "explanation",
    tokens: bool = True,
    num_tokens: int = 0,
    max_spans: int = MAX_SPANS,
) -> dict[str, Any]:
    """The checked copy of ``data``, an Explanation dict of ``text``/``pair`` of any version up to
    :data:`SCHEMA_VERSION`, in the current version: only the keys above, each type- and range-checked
    (:mod:`selfexplain.core.results.checks`; attention maps are not kept). SchemaError names the first field that
    breaks the schema, prefixed with ``where`` ("" for the keys of a record's top level).

    ``tokens=False`` reads a token-less Explanation (a batch record): its spans are checked against
    ``num_tokens`` tokens and the texts' lengths. ``max_spans`` bounds the listed spans."""
    name = f"{where}." if where else ""
    require(isinstance(data, dict), f"{where or 'the record'} must be an object")
    assert isinstance(data, dict)
    read_version(data, where)
    require(data.get("text") == text and data.get("pair") == pair, f"{where or 'it'} is of a different text or pair")
    lengths = (len(text), len(pair) if pair is not None else -1)
    label = text_field(data.get("label"), f"{name}label", MAX_LABEL_CHARS, least=1)
    checked: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "model": text_field(data.get("model", ""), f"{name}model", MAX_MODEL_CHARS),
        "text": text,
        "pair": pair,
        "label": label,
        "probabilities": checks.probabilities(data.get("probabilities"), label, f"{name}probabilities"),
    }
    segments = None
    if tokens:
        checked["tokens"] = checks.tokens(data.get("tokens"), lengths, f"{name}tokens")
        segments = [token["segment"] for token in checked["tokens"]]
        num_tokens = len(segments)
    valid = whole(data.get("num_valid_spans"), 0, num_tokens * (num_tokens + 1) // 2, f"{name}num_valid_spans")
    checked["spans"] = checks.spans(data.get("spans"), segments, num_tokens, lengths, valid, f"{name}spans", max_spans)
    checked["num_valid_spans"] = valid
    if "num_evidence_spans" in data:
        checked["num_evidence_spans"] = whole(data["num_evidence_spans"], 0, valid, f"{name}num_evidence_spans")
    if "span_unit" in data:
        require(data["span_unit"] in ("word", "piece"), f'{name}span_unit must be "word" or "piece"')
        checked["span_unit"] = data["span_unit"]
    if "windows" in data:
        checked["windows"] = checks.windows(data["windows"], num_tokens, f"{name}windows")
    return checked
