"""Model cards from what is known: the Markdown body of a card, and cards built from a model's config,
from a finished training run, or updated by an evaluation.

Every value that came from a user (data paths, label names, notes) is escaped for Markdown before it
reaches the body; commands go into fenced code blocks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from selfexplain.config import ModelConfig
from selfexplain.model_card import ModelCard, Scalar, has_model_card, read_model_card, write_model_card

PACKAGED_ENCODERS = {"all-MiniLM-L6-v2": "sentence-transformers/all-MiniLM-L6-v2"}
# config field -> its name in the card's recipe (the training options have their own max_length)
CONFIG_RECIPE = {
    "head": "head",
    "span_unit": "span_unit",
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
            lines.append(f"- This model is {abs(gap):.1f} points {'above' if gap >= 0 else 'below'} the baseline.")
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
                f"{config.normaliser} gives most spans an alpha of exactly 0: the explanation usually names one "
                "span, and the 2nd and 3rd spans of a ranking often carry no weight."
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
    recipe = tuple((name, getattr(config, key)) for key, name in CONFIG_RECIPE.items()) + tuple(extra.items())
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
