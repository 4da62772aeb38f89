"""Model cards: the ``README.md`` of a model folder, in the Hugging Face layout.

A card is YAML front matter followed by Markdown. The front matter holds the Hub's fields
(``library_name``, ``pipeline_tag``, ``tags``, ``metrics``; ``datasets`` and ``base_model`` when they
have Hub ids; ``model-index`` when a test accuracy is known) and this library's facts under
``selfexplain``; the Markdown body is rendered from those facts (:func:`card_markdown`).
:func:`read_model_card` parses the front matter only, with PyYAML's safe loader (PyYAML is pinned, and
required by transformers), and checks the type of every field it keeps: the Markdown body is never read
back, so a page that shows the parsed fields escaped shows nothing a card's author could inject.

Cards are built from what is known: a model's config (:func:`card_from_config`), a finished training run
(:func:`card_from_training`), or updated by an evaluation (:func:`record_evaluation`). Every value that
came from a user (data paths, label names, notes) is escaped for Markdown before it reaches the body;
commands go into fenced code blocks.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from selfexplain.core.modeling.config import ModelConfig
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
    if card.surrogate_of or card.fidelity:  # a distilled student shipped as a model of its own keeps its agreement
        meta["selfexplain"]["fidelity"] = [m.to_dict() for m in card.fidelity]
    return meta


def card_text(card: ModelCard) -> str:
    """The whole ``README.md``: front matter between ``---`` lines, then the Markdown body."""
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


PACKAGED_ENCODERS = {
    "all-MiniLM-L6-v2": "sentence-transformers/all-MiniLM-L6-v2",
    "all-mpnet-base-v2": "sentence-transformers/all-mpnet-base-v2",
}
# config field -> its name in the card's recipe (the training options have their own max_length)
CONFIG_RECIPE = {
    "head": "head",
    "span_unit": "span_unit",
    "apostrophes": "apostrophes",
    "normaliser": "normaliser",
    "lambda_": "lambda",
    "span_representation": "span_representation",
    "encoder_layer": "encoder_layer",
    "max_span_width": "max_span_width",
    "span_length_prior": "span_length_prior",
    "uniform_alpha": "uniform_alpha",
    "segment_alpha": "alpha_per_text",
    "dropout": "dropout",
    "max_length": "inference_max_length",
    "window_stride": "window_stride",
}
_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]<>#+!|~$&])")


def md(text: object) -> str:
    """One line of Markdown that shows ``text`` as typed: whitespace collapsed, syntax backslash-escaped."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", " ".join(str(text).split()))


def _code(command: str, language: str = "bash") -> str:
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", command)), default=0))
    return f"{fence}{language}\n{command}\n{fence}"


def _percent(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.1%}"


def _table(header: tuple[str, ...], rows: list[tuple[object, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md("" if cell is None else cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _what_it_is(card: ModelCard) -> str:
    reads = "a premise and a hypothesis" if card.pair else "one text"
    labels = ", ".join(md(label) for label in card.labels)
    if card.head != "span":
        pooled = "mean pooling" if card.head == "mean" else "the \\[CLS\\] vector"
        kind = f"A plain baseline classifier: a linear head on {pooled} of the encoder `{md(card.encoder)}`. "
        kind += "It gives no span explanation; it is trained to compare accuracy with a self-explaining model."
    else:
        kind = (
            "A self-explaining text classifier (Sun et al., 2020, arXiv 2012.01786) built with selfexplain: the "
            f"encoder {md(card.encoder)} plus a span layer that gives every span of the input a weight alpha. "
            "The classifier reads only the alpha-weighted sum of span vectors, so alpha is the explanation."
        )
        if dict(card.recipe).get("uniform_alpha"):
            kind += " Here alpha is fixed uniform over the spans (the paper's AvgSelf-Explaining baseline)."
    return f"{kind}\n\nIt reads {reads} and predicts one of {len(card.labels)} labels: {labels}."


def _accuracy(card: ModelCard) -> str:
    lines = []
    if card.test_accuracy is not None:
        count = f", {card.test_examples:,} examples" if card.test_examples else ""
        lines.append(f"- Test accuracy: **{_percent(card.test_accuracy)}** ({md(card.test_data or 'test set')}{count})")
    else:
        lines.append("- Not evaluated on a test set yet: `selfexplain eval --model FOLDER --data TEST --record`.")
    if card.dev_accuracy is not None:
        lines.append(f"- Dev accuracy: {_percent(card.dev_accuracy)}")
    if card.baseline_accuracy is not None:
        lines.append(f"- Baseline ({md(card.baseline or 'baseline')}): {_percent(card.baseline_accuracy)}")
        if card.test_accuracy is not None:
            gap = 100 * (card.test_accuracy - card.baseline_accuracy)
            side = "above" if gap >= 0 else "below"
            if round(abs(gap), 1) == 0 and gap != 0 and card.test_examples:  # "0.0 points below" says nothing
                inputs = round(abs(gap) * card.test_examples / 100)
                lines.append(f"- This model is {side} the baseline by {inputs:,} of {card.test_examples:,} inputs.")
            else:
                lines.append(f"- This model is {abs(gap):.1f} points {side} the baseline.")
    else:
        lines.append("- No baseline recorded: train one with the same command and `--head mean` to compare.")
    return "\n".join(lines)


def _measures(card_measures: tuple, missing: str) -> str:
    if not card_measures:
        return missing
    if any(m.measured_on for m in card_measures):  # which inputs each number is from
        rows = [(m.name, m.value, m.measured_on, m.meaning) for m in card_measures]
        return _table(("measure", "value", "measured on", "what it means"), rows)
    return _table(("measure", "value", "what it means"), [(m.name, m.value, m.meaning) for m in card_measures])


def _surrogate(card: ModelCard) -> list[str]:
    """The section of a surrogate's card (``selfexplain distill``): whose decisions it imitates, how often
    it agrees, measured on inputs it never trained on, and what its explanation can stand for."""
    if not card.surrogate_of and card.fidelity:  # a distilled student shipped as a model of its own
        text = (
            "This model was trained by distillation (`selfexplain distill`): on its teacher's predicted "
            "probabilities, not on gold labels. It is shipped as a classifier of its own: its alpha explains its "
            "own decisions, which agree with its teacher's as often as measured here."
        )
        return ["## Agreement with the model it was distilled from", text, _measures(card.fidelity, "Not measured.")]
    if not card.surrogate_of:
        return []
    text = (
        f"This model is a self-explaining surrogate of {md(card.surrogate_of)}: it was trained to reproduce that "
        "model's predicted probabilities, not gold labels. Its alpha explains its own decision; it says "
        "something about the teacher only where the two agree, and how often they agree is measured here, "
        "on inputs the surrogate never trained on."
    )
    return ["## Fidelity to the teacher", text, _measures(card.fidelity, "Not measured.")]


def card_markdown(card: ModelCard) -> str:
    """The Markdown body of ``card`` (everything below the front matter)."""
    data = _table(("part", "data"), list(card.data)) if card.data else "Not recorded."
    recipe = _table(("option", "value"), [(key, "none" if v is None else v) for key, v in card.recipe])
    sources = _code("\n".join(card.sources)) if card.sources else "Not recorded."
    limitations = "\n".join(f"- {md(item)}" for item in card.limitations) or "None recorded."
    sharpness = _measures(
        card.sharpness, "Not measured yet: `selfexplain sharpness --model FOLDER --data TEST --out DIR`."
    )
    faithfulness = _measures(
        card.faithfulness, "Not measured yet: `selfexplain faithfulness --model FOLDER --data TEST --out DIR`."
    )
    sections = [
        f"# {md(card.name)}",
        _what_it_is(card),
        *_surrogate(card),
        "## Use",
        _code(f"from selfexplain import load_model\n\nexplainer = load_model({card.name!r})  # or a folder", "python"),
        "## Data",
        data,
        "## Training recipe",
        recipe if card.recipe else "Not recorded.",
        "## Accuracy",
        _accuracy(card),
        "## Sharpness of alpha",
        sharpness,
        "## Faithfulness of alpha",
        faithfulness,
        "## Limitations",
        limitations,
        "## Where the numbers come from",
        sources,
    ]
    return "\n\n".join(sections) + "\n"


def base_model_of(encoder: str) -> str:
    """The Hub id of the encoder: the packaged alias's source, a Hub id as given, "" for a local folder."""
    if encoder in PACKAGED_ENCODERS:
        return PACKAGED_ENCODERS[encoder]
    looks_like_hub_id = re.fullmatch(r"[\w.-]+/[\w.-]+", encoder) is not None
    return encoder if looks_like_hub_id and not Path(encoder).exists() else ""


def default_limitations(config: ModelConfig) -> tuple[str, ...]:
    """What holds for every model of this kind, by construction."""
    items = [f"It always answers with one of its {config.num_labels} labels, even for text unrelated to its task."]
    if config.head == "span":
        items += [
            "Alpha says which spans the classifier reads; each span vector is built from contextual encoder states "
            "that mix in the rest of the input, so words outside the top span still shape the decision.",
            "Measured at the token level, alpha can rank single words worse than gradient or leave-one-out methods; "
            "compare them on the Faithfulness page before relying on it.",
        ]
        if config.normaliser != "softmax":
            items.append(
                f"{config.normaliser} gives most spans an alpha of exactly 0: the explanation names only the spans "
                "with weight, and the 2nd and 3rd spans of a ranking may carry none."
            )
    else:
        items.append("A plain baseline: it gives no span explanation.")
    return tuple(items)


def card_from_config(config: ModelConfig, sources: Mapping[str, Scalar] | None = None) -> ModelCard:
    """A card from ``selfexplain.json`` alone (and, from training, the data sources and extra options)."""
    extra = dict(sources or {})
    data = tuple((part, str(extra.pop(part))) for part in ("train", "dev") if extra.get(part) is not None)
    datasets = tuple(
        dict.fromkeys(str(v)[3:].split(":")[0] for _, v in data if str(v).startswith("hf:") and len(str(v)) > 3)
    )
    command = extra.pop("command", None)
    recipe = tuple((name, getattr(config, key)) for key, name in CONFIG_RECIPE.items())
    if config.punctuation_ids:  # listed only when set, so the cards of earlier models read as they did
        recipe += (("span_edges", f"words ({len(config.punctuation_ids):,} punctuation pieces start or end no span)"),)
    recipe += tuple(extra.items())
    examples = config.metrics.get("test_examples")
    return ModelCard(
        name=config.name or "model",
        encoder=config.encoder,
        labels=tuple(config.label_names),
        pair=config.pair,
        head=config.head,
        base_model=base_model_of(config.encoder),
        datasets=datasets,
        data=data,
        recipe=recipe,
        dev_accuracy=config.metrics.get("dev_accuracy"),
        test_accuracy=config.metrics.get("test_accuracy"),
        test_examples=None if examples is None else int(examples),
        limitations=default_limitations(config),
        sources=(str(command),) if command else (),
    )


def card_from_training(
    config: ModelConfig,
    options: Mapping[str, Scalar],
    sources: Mapping[str, Scalar] | None,
    train_examples: int,
    dev_examples: int,
) -> ModelCard:
    """The card ``train`` writes into ``OUT/best``: the config, every training option, the data with
    its size and the best dev accuracy (``config.metrics``). ``sources`` holds the data sources
    (``train``, ``dev``), the command line (``command``) and options the caller applied to the data."""
    card = card_from_config(config, sources)
    counts = {"train": train_examples, "dev": dev_examples}
    data = dict(card.data)
    for part, count in counts.items():
        data[part] = f"{data[part]} ({count:,} examples)" if part in data else f"{count:,} examples"
    recipe = card.recipe + tuple((key, value) for key, value in options.items() if key != "progress")
    return replace(card, data=tuple(data.items()), recipe=recipe)


def record_evaluation(folder: Path, config: ModelConfig, data: str) -> Path:
    """After ``eval --record``: the folder's card (or a new one from ``config``) with the test accuracy of
    ``config.metrics`` measured on ``data``."""
    card = read_model_card(folder) if has_model_card(folder) else card_from_config(config)
    examples = config.metrics.get("test_examples")
    card = replace(
        card,
        test_accuracy=config.metrics.get("test_accuracy"),
        test_examples=None if examples is None else int(examples),
        test_data=data,
    )
    command = f"selfexplain eval --model {card.name} --data {data} --record"
    return write_model_card(folder, replace(card, sources=tuple(dict.fromkeys((*card.sources, command)))))
