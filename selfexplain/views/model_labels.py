"""One line per model for pickers: its task, kind, test accuracy and measured speed, read from its
``selfexplain.json`` alone (no weights are loaded to draw a picker).

The speed is ``metrics.explain_ms``: the median time of ``explain()`` for a 30-word text on the idle
2-core reference machine, written by ``python benchmarks/model_speed.py MODEL --record``.
"""

from __future__ import annotations

from pathlib import Path

from selfexplain.core.modeling.config import ModelConfig

SENTIMENT_WORDS = ("positive", "negative")


def task_of(config: ModelConfig) -> str:
    """A short task name from the labels: NLI for a pair model, sentiment where the labels say so."""
    labels = [name.lower() for name in config.label_names]
    count = f"{len(labels)} labels"
    if config.pair:
        return f"text pairs, {count}" if "entailment" not in labels else f"NLI, {count}"
    if any(word in name for name in labels for word in SENTIMENT_WORDS):
        return f"sentiment, {count}"
    return count


def kind_of(config: ModelConfig) -> str:
    return "self-explaining" if config.head == "span" else f"{config.head} baseline"


def model_label(name: str, directory: Path | str | None) -> str:
    """``"sst5-minilm · sentiment, 5 labels · self-explaining · test 50.2% · 12 ms"``; the bare name when
    the folder's config cannot be read (the picker still offers it, and loading it says why)."""
    if directory is None:
        return name
    try:
        config = ModelConfig.load(Path(directory))
    except (OSError, ValueError, TypeError):
        return name
    parts = [name, task_of(config), kind_of(config)]
    accuracy = config.metrics.get("test_accuracy")
    if isinstance(accuracy, (int, float)) and 0 <= accuracy <= 1:
        parts.append(f"test {accuracy:.1%}")
    speed = config.metrics.get("explain_ms")
    if isinstance(speed, (int, float)) and speed > 0:
        parts.append(f"{speed:.0f} ms")
    return " · ".join(parts)
