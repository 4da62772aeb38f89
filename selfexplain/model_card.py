"""Model cards: the ``README.md`` of a model folder, in the Hugging Face layout.

A card is YAML front matter followed by Markdown. The front matter holds the Hub's fields
(``library_name``, ``pipeline_tag``, ``tags``, ``metrics``; ``datasets`` and ``base_model`` when they
have Hub ids; ``model-index`` when a test accuracy is known) and this library's facts under
``selfexplain``; the Markdown body is rendered from those facts (:mod:`selfexplain.model_card_text`).
:func:`read_model_card` parses the front matter only, with PyYAML's safe loader (PyYAML is pinned, and
required by transformers), and checks the type of every field it keeps: the Markdown body is never read
back, so a page that shows the parsed fields escaped shows nothing a card's author could inject.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from selfexplain.errors import ModelDirectoryError

CARD_FILE = "README.md"
MAX_CARD_BYTES = 1_000_000
Scalar = str | int | float | bool | None


@dataclass(frozen=True)
class Measure:
    """One measured number of the explanation: its name, its value as shown, what it means, and what it
    was measured on (which inputs: the same name can hold different numbers on different subsets)."""

    name: str
    value: str
    meaning: str = ""
    measured_on: str = ""

    def to_dict(self) -> dict[str, str]:
        row = {"measure": self.name, "value": self.value, "meaning": self.meaning}
        return row | ({"measured_on": self.measured_on} if self.measured_on else {})


@dataclass(frozen=True)
class ModelCard:
    """What a model folder's card says. ``data`` and ``recipe`` are ordered ``(key, value)`` pairs;
    accuracies are fractions in [0, 1]; ``sources`` are the commands that produced the numbers."""

    name: str
    encoder: str
    labels: tuple[str, ...]
    pair: bool = False
    head: str = "span"
    base_model: str = ""
    datasets: tuple[str, ...] = ()
    data: tuple[tuple[str, str], ...] = ()
    recipe: tuple[tuple[str, Scalar], ...] = ()
    dev_accuracy: float | None = None
    test_accuracy: float | None = None
    test_examples: int | None = None
    test_data: str = ""
    baseline: str = ""
    baseline_accuracy: float | None = None
    sharpness: tuple[Measure, ...] = ()
    faithfulness: tuple[Measure, ...] = ()
    limitations: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    # a surrogate (``selfexplain distill``): the teacher it imitates, and how closely, measured on held-out inputs
    surrogate_of: str = ""
    fidelity: tuple[Measure, ...] = ()


def _front_matter(card: ModelCard) -> dict[str, Any]:
    """The YAML mapping written above the Markdown (Hub fields first, then this library's facts)."""
    meta: dict[str, Any] = {
        "library_name": "selfexplain",
        "pipeline_tag": "text-classification",
        "tags": ["selfexplain", "self-explaining", "interpretability", "span-attribution", "text-classification"],
        "metrics": ["accuracy"],
        "language": ["en"],
    }
    if card.datasets:
        meta["datasets"] = list(card.datasets)
    if card.base_model:
        meta["base_model"] = card.base_model
    if card.test_accuracy is not None and card.datasets:
        result = {
            "task": {"type": "text-classification", "name": "Text Classification"},
            "dataset": {"name": card.test_data or card.datasets[0], "type": card.datasets[0], "split": "test"},
            "metrics": [{"type": "accuracy", "value": round(card.test_accuracy, 4), "name": "Test accuracy"}],
        }
        meta["model-index"] = [{"name": card.name, "results": [result]}]
    meta["selfexplain"] = {
        "name": card.name,
        "encoder": card.encoder,
        "labels": list(card.labels),
        "pair": card.pair,
        "head": card.head,
        "data": dict(card.data),
        "recipe": dict(card.recipe),
        "accuracy": {
            "dev": card.dev_accuracy,
            "test": card.test_accuracy,
            "test_examples": card.test_examples,
            "test_data": card.test_data,
            "baseline": card.baseline,
            "baseline_accuracy": card.baseline_accuracy,
        },
        "sharpness": [m.to_dict() for m in card.sharpness],
        "faithfulness": [m.to_dict() for m in card.faithfulness],
        "limitations": list(card.limitations),
        "sources": list(card.sources),
    }
    if card.surrogate_of:
        meta["selfexplain"]["surrogate_of"] = card.surrogate_of
        meta["selfexplain"]["fidelity"] = [m.to_dict() for m in card.fidelity]
    return meta


def card_text(card: ModelCard) -> str:
    """The whole ``README.md``: front matter between ``---`` lines, then the Markdown body."""
    from selfexplain.model_card_text import card_markdown

    front = yaml.safe_dump(_front_matter(card), sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{front}---\n\n{card_markdown(card)}"


def write_model_card(folder: Path, card: ModelCard) -> Path:
    """Write ``folder/README.md`` atomically (a temporary file renamed into place); returns its path."""
    target = Path(folder) / CARD_FILE
    staging = target.with_name(f".{CARD_FILE}.tmp")
    staging.write_text(card_text(card), encoding="utf-8")
    os.replace(staging, target)
    return target


class _Fields:
    """Typed access to one mapping of the front matter; every mismatch names the field."""

    def __init__(self, raw: object, where: str) -> None:
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise ModelDirectoryError(f"{where} must be a mapping")
        self.raw, self.where = raw, where

    def _get(self, key: str, kinds: tuple[type, ...], default: Any) -> Any:
        value = self.raw.get(key)
        if value is None:
            return default
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            self._bad(key)
        return value

    def _bad(self, key: str) -> Any:
        raise ModelDirectoryError(f"{self.where}.{key} has the wrong type")

    def text(self, key: str) -> str:
        return str(self._get(key, (str,), ""))

    def flag(self, key: str) -> bool:
        return bool(self._get(key, (bool,), False))

    def number(self, key: str) -> float | None:
        value = self._get(key, (int, float), None)
        return None if value is None else float(value)

    def fraction(self, key: str) -> float | None:
        value = self.number(key)
        if value is not None and not 0.0 <= value <= 1.0:
            raise ModelDirectoryError(f"{self.where}.{key} must be a fraction between 0 and 1")
        return value

    def texts(self, key: str) -> tuple[str, ...]:
        values = self._get(key, (list,), [])
        if not all(isinstance(v, str) for v in values):
            self._bad(key)
        return tuple(values)

    def pairs(self, key: str) -> tuple[tuple[str, Scalar], ...]:
        values = _Fields(self.raw.get(key), f"{self.where}.{key}").raw
        kinds = (str, int, float, bool)
        if not all(isinstance(k, str) and (v is None or isinstance(v, kinds)) for k, v in values.items()):
            self._bad(key)
        return tuple(values.items())

    def measures(self, key: str) -> tuple[Measure, ...]:
        rows = self._get(key, (list,), [])
        fields = [_Fields(row, f"{self.where}.{key}[{i}]") for i, row in enumerate(rows)]
        return tuple(
            Measure(f.text("measure"), f.text("value"), f.text("meaning"), f.text("measured_on")) for f in fields
        )


def parse_model_card(text: str, where: str = CARD_FILE) -> ModelCard:
    """The facts of a card's front matter; :class:`ModelDirectoryError` when it is missing or malformed."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---" or "---" not in (line.strip() for line in lines[1:]):
        raise ModelDirectoryError(f"{where} has no front matter between --- lines")
    end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    try:
        meta = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as err:
        raise ModelDirectoryError(f"{where}: the front matter is not valid YAML ({str(err).splitlines()[0]})") from err
    top = _Fields(meta, where)
    facts = _Fields(top.raw.get("selfexplain"), f"{where}: selfexplain")
    accuracy = _Fields(facts.raw.get("accuracy"), f"{where}: selfexplain.accuracy")
    examples = accuracy.number("test_examples")
    name, labels = facts.text("name"), facts.texts("labels")
    if not name or not labels:
        raise ModelDirectoryError(f"{where}: selfexplain.name and selfexplain.labels are required")
    return ModelCard(
        name=name,
        encoder=facts.text("encoder"),
        labels=labels,
        pair=facts.flag("pair"),
        head=facts.text("head") or "span",
        base_model=top.text("base_model"),
        datasets=top.texts("datasets"),
        data=tuple((k, str(v)) for k, v in facts.pairs("data")),
        recipe=facts.pairs("recipe"),
        dev_accuracy=accuracy.fraction("dev"),
        test_accuracy=accuracy.fraction("test"),
        test_examples=None if examples is None else int(examples),
        test_data=accuracy.text("test_data"),
        baseline=accuracy.text("baseline"),
        baseline_accuracy=accuracy.fraction("baseline_accuracy"),
        sharpness=facts.measures("sharpness"),
        faithfulness=facts.measures("faithfulness"),
        limitations=facts.texts("limitations"),
        sources=facts.texts("sources"),
        surrogate_of=facts.text("surrogate_of"),
        fidelity=facts.measures("fidelity"),
    )


def read_model_card(folder: Path) -> ModelCard:
    """Parse ``folder/README.md`` (a regular file of at most 1 MB)."""
    path = Path(folder) / CARD_FILE
    if not path.is_file():
        raise ModelDirectoryError(f"{path} does not exist or is not a regular file")
    with path.open("rb") as handle:
        data = handle.read(MAX_CARD_BYTES + 1)
    if len(data) > MAX_CARD_BYTES:
        raise ModelDirectoryError(f"{path} is larger than {MAX_CARD_BYTES:,} bytes")
    try:
        return parse_model_card(data.decode("utf-8"), str(path))
    except UnicodeDecodeError as err:
        raise ModelDirectoryError(f"{path} is not UTF-8 text") from err


def has_model_card(folder: Path) -> bool:
    return (Path(folder) / CARD_FILE).is_file()
