"""The model configuration: everything needed to rebuild a model, stored as JSON."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Literal

HeadType = Literal["span", "cls", "mean"]
SpanUnit = Literal["word", "piece"]
NORMALISER_NAMES = ("softmax", "sparsemax", "entmax15")

CONFIG_FILE = "selfexplain.json"


@dataclass
class ModelConfig:
    """Configuration of a :class:`~selfexplain.model.SelfExplainingModel`.

    ``head`` is "span" for the self-explaining model; "cls" and "mean" are the
    plain baselines (linear head on the [CLS] vector or on mean pooling).
    ``encoder_layer`` indexes the encoder's hidden states (0 = embeddings,
    -1 = last layer). ``max_span_width`` limits ``j - i + 1``. ``uniform_alpha`` fixes alpha
    to the uniform distribution over the valid spans (the paper's AvgSelf-Explaining
    baseline: the interpretation layer is bypassed, the classifier reads the mean span).
    ``span_unit`` "word": spans start at a word's first piece and end at a word's last piece
    (words as the tokenizer's pre-tokenizer splits them); "piece": any sub-word piece (folders
    written before the option existed load as "piece"). ``normaliser`` maps span logits to alpha:
    "softmax" (the paper), or "sparsemax" / "entmax15", which give alpha true zeros.
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
    normaliser: str = "softmax"
    name: str = ""
    metrics: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.label_names:
            raise ValueError("a model needs at least one label name")
        if self.head not in ("span", "cls", "mean"):
            raise ValueError(f"unknown head {self.head!r}; use span, cls or mean")
        if self.max_span_width is not None and self.max_span_width < 1:
            raise ValueError("max_span_width must be at least 1")
        if self.span_unit not in ("word", "piece"):
            raise ValueError(f"unknown span_unit {self.span_unit!r}; use word or piece")
        if self.normaliser not in NORMALISER_NAMES:
            raise ValueError(f"unknown normaliser {self.normaliser!r}; use one of {', '.join(NORMALISER_NAMES)}")

    @property
    def num_labels(self) -> int:
        return len(self.label_names)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ModelConfig:
        raw = json.loads(text)
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise ValueError(f"unknown keys in model config: {', '.join(unknown)}")
        if isinstance(raw, dict):
            raw.setdefault("span_unit", "piece")  # written before word-level spans existed
        return cls(**raw)

    def save(self, directory: Path) -> None:
        """Write ``selfexplain.json`` atomically (a temporary file renamed into place)."""
        staging = directory / f".{CONFIG_FILE}.tmp"
        staging.write_text(self.to_json() + "\n", encoding="utf-8")
        os.replace(staging, directory / CONFIG_FILE)

    @classmethod
    def load(cls, directory: Path) -> ModelConfig:
        return cls.from_json((directory / CONFIG_FILE).read_text(encoding="utf-8"))
