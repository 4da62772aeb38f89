"""The model configuration: everything needed to rebuild a model, stored as JSON."""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Literal

from selfexplain.core.modeling.normalisers import DEFAULT_NORMALISER, NORMALISERS

HeadType = Literal["span", "cls", "mean"]
SpanUnit = Literal["word", "piece"]
Apostrophes = Literal["split", "joined"]
APOSTROPHES: tuple[Apostrophes, ...] = ("split", "joined")

CONFIG_FILE = "selfexplain.json"
MAX_CONFIG_BYTES = 4_000_000  # a config is read whole: a larger (or endless) file is refused unread
MAX_LABELS = 10_000
MAX_LABEL_CHARS = 200  # as a pin's label (selfexplain.core.results.checks)
MAX_NAME_CHARS = 200
MAX_PUNCTUATION_IDS = 100_000
MAX_VOCABULARY = 10_000_000


@dataclass
class ModelConfig:
    """Configuration of a :class:`~selfexplain.core.modeling.model.SelfExplainingModel`.

    ``head`` is "span" for the self-explaining model; "cls" and "mean" are the
    plain baselines (linear head on the [CLS] vector or on mean pooling).
    ``encoder_layer`` indexes the encoder's hidden states (0 = embeddings,
    -1 = last layer). ``max_span_width`` limits ``j - i + 1``. ``uniform_alpha`` fixes alpha
    to the uniform distribution over the valid spans (the paper's AvgSelf-Explaining
    baseline: the interpretation layer is bypassed, the classifier reads the mean span).
    ``span_unit`` "word": spans start at a word's first piece and end at a word's last piece
    (words as the tokenizer's pre-tokenizer splits them); "piece": any sub-word piece (folders
    written before the option existed load as "piece"). ``apostrophes`` (word-level spans): "split" keeps the
    pre-tokenizer's cut at every apostrophe ("doesn't" is three words, "doesn", "'" and "t"); "joined" keeps an
    apostrophe inside its word, so "doesn't", SST's "n't" and "'s" are one word each
    (:func:`selfexplain.core.inputs.words.joined_word_ids`). ``normaliser`` maps span logits to alpha:
    "softmax" (the paper), or "sparsemax" / "entmax15", which give alpha true zeros.
    ``segment_alpha`` (pair models): alpha is normalised within each text, one distribution over the
    premise's spans and one over the hypothesis's, each holding half of the total weight, and the
    classifier reads both weighted sums side by side ``[p; h]`` (folders written before the option
    existed load with one distribution over both texts). ``span_length_prior`` is taken from each
    span's score per piece beyond the first (``o(i,j) - prior * (j - i)``): 0 (the paper) lets long
    spans compete on equal terms, larger values favour short ones. ``punctuation_ids``: token ids a span may
    not start or end on (:func:`selfexplain.core.inputs.words.punctuation_ids`: the tokenizer's pieces of
    punctuation and symbols), so every span starts and ends on a word and the closing full stop cannot carry
    the decision; a text (or one text of a pair) with no such span keeps all its spans. Empty (the default,
    and folders written before the option): any piece may.
    """

    encoder: str
    label_names: list[str]
    pair: bool = False
    head: HeadType = "span"
    span_representation: Literal["sic", "mean"] = "sic"
    encoder_layer: int = -1
    max_span_width: int | None = None
    lambda_: float = 1.0
    uniform_alpha: bool = False
    dropout: float = 0.1
    max_length: int = 512
    window_stride: int = 256
    span_unit: SpanUnit = "word"
    apostrophes: Apostrophes = "split"
    normaliser: str = DEFAULT_NORMALISER
    segment_alpha: bool = False
    span_length_prior: float = 0.0
    punctuation_ids: list[int] = field(default_factory=list)
    name: str = ""
    metrics: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._check_types()
        if not self.label_names:
            raise ValueError("a model needs at least one label name")
        if len(self.label_names) > MAX_LABELS:
            raise ValueError(f"a model has at most {MAX_LABELS:,} labels, got {len(self.label_names):,}")
        if any(not 1 <= len(name) <= MAX_LABEL_CHARS for name in self.label_names):
            raise ValueError(f"every label name must be 1 to {MAX_LABEL_CHARS} characters")
        if len(self.name) > MAX_NAME_CHARS:
            raise ValueError(f"name must be at most {MAX_NAME_CHARS} characters, got {len(self.name):,}")
        if len(set(self.label_names)) != len(self.label_names):
            raise ValueError("label_names must be distinct")
        if not 0 <= self.dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}")
        if self.lambda_ < 0:
            raise ValueError(f"lambda_ must be at least 0, got {self.lambda_}")
        if self.max_length < 4:
            raise ValueError(f"max_length must be at least 4, got {self.max_length}")
        if not 1 <= self.window_stride:
            raise ValueError(f"window_stride must be at least 1, got {self.window_stride}")
        if self.head not in ("span", "cls", "mean"):
            raise ValueError(f"unknown head {self.head!r}; use span, cls or mean")
        if self.max_span_width is not None and self.max_span_width < 1:
            raise ValueError("max_span_width must be at least 1")
        if self.span_unit not in ("word", "piece"):
            raise ValueError(f"unknown span_unit {self.span_unit!r}; use word or piece")
        if self.apostrophes not in APOSTROPHES:
            raise ValueError(f"unknown apostrophes {self.apostrophes!r}; use {' or '.join(APOSTROPHES)}")
        if self.segment_alpha and not (self.pair and self.head == "span"):
            raise ValueError("segment_alpha needs a pair model with the span head")
        if self.span_length_prior < 0:
            raise ValueError(f"span_length_prior must be at least 0, got {self.span_length_prior}")
        if self.normaliser not in NORMALISERS:  # the registered maps (selfexplain.core.modeling.normalisers)
            raise ValueError(f"unknown normaliser {self.normaliser!r}; use one of {', '.join(NORMALISERS)}")

    def _check_types(self) -> None:
        """A hand-edited ``selfexplain.json`` fails here with the field's name, not deep in the model."""
        integer = (int,)
        number = (int, float)
        expected: dict[str, tuple[tuple[type, ...], str]] = {
            "encoder": ((str,), "a string"),
            "pair": ((bool,), "true or false"),
            "head": ((str,), "a string"),
            "span_representation": ((str,), "a string"),
            "encoder_layer": (integer, "an integer"),
            "lambda_": (number, "a number"),
            "uniform_alpha": ((bool,), "true or false"),
            "dropout": (number, "a number"),
            "max_length": (integer, "an integer"),
            "window_stride": (integer, "an integer"),
            "span_unit": ((str,), "a string"),
            "apostrophes": ((str,), "a string"),
            "normaliser": ((str,), "a string"),
            "segment_alpha": ((bool,), "true or false"),
            "span_length_prior": (number, "a number"),
            "name": ((str,), "a string"),
            "metrics": ((dict,), "an object"),
        }
        for name, (types, described) in expected.items():
            value = getattr(self, name)
            if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
                raise ValueError(f"{name} must be {described}, got {value!r}")
        if self.max_span_width is not None and (
            not isinstance(self.max_span_width, int) or isinstance(self.max_span_width, bool)
        ):
            raise ValueError(f"max_span_width must be an integer or null, got {self.max_span_width!r}")
        ids = self.punctuation_ids
        if not isinstance(ids, list) or len(ids) > MAX_PUNCTUATION_IDS or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < MAX_VOCABULARY for i in ids
        ):
            raise ValueError(
                f"punctuation_ids must be a list of at most {MAX_PUNCTUATION_IDS:,} token ids "
                f"(0 to {MAX_VOCABULARY - 1:,})"
            )
        if not isinstance(self.label_names, list) or not all(isinstance(n, str) for n in self.label_names):
            raise ValueError(f"label_names must be a list of strings, got {self.label_names!r}")
        if self.span_representation not in ("sic", "mean"):
            raise ValueError(f"unknown span_representation {self.span_representation!r}; use sic or mean")
        for name in ("lambda_", "dropout", "span_length_prior"):  # JSON's NaN and Infinity parse as floats
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"{name} must be a finite number, got {getattr(self, name)!r}")
        for key, value in self.metrics.items():
            if not isinstance(key, str) or not isinstance(value, (int, float)) or isinstance(value, bool):
                raise ValueError(f"metrics must map names to numbers, got {key!r}: {value!r}")

    @property
    def num_labels(self) -> int:
        return len(self.label_names)

    @property
    def span_edges(self) -> str:
        """"words" when spans may not start or end on punctuation (``punctuation_ids``), else "any"."""
        return "words" if self.punctuation_ids else "any"

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ModelConfig:
        try:
            raw = json.loads(text)
        except RecursionError:
            raise ValueError("JSON nested too deeply to read") from None
        if not isinstance(raw, dict):
            raise ValueError(f"expected a JSON object, got {type(raw).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise ValueError(f"unknown keys in model config: {', '.join(unknown)}")
        missing = sorted(f.name for f in fields(cls) if f.name in ("encoder", "label_names") and f.name not in raw)
        if missing:
            raise ValueError(f"missing keys in model config: {', '.join(missing)}")
        raw.setdefault("span_unit", "piece")  # written before word-level spans existed
        return cls(**raw)

    def save(self, directory: Path) -> None:
        """Write ``selfexplain.json`` atomically (a temporary file renamed into place)."""
        staging = directory / f".{CONFIG_FILE}.tmp"
        staging.write_text(self.to_json() + "\n", encoding="utf-8")
        os.replace(staging, directory / CONFIG_FILE)

    @classmethod
    def load(cls, directory: Path) -> ModelConfig:
        """The config in ``directory``; ValueError for one over :data:`MAX_CONFIG_BYTES` (read no further, so a
        huge or endless file costs nothing), not UTF-8, or invalid."""
        with (directory / CONFIG_FILE).open("rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ValueError(f"the file is larger than {MAX_CONFIG_BYTES:,} bytes")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ValueError(f"not UTF-8 text (byte {err.start})") from None
        return cls.from_json(text)
