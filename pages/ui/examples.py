"""Where a page's example inputs come from: the shipped examples of a model, the Batch page's sample
file, and uploaded files read as labelled examples."""

from __future__ import annotations

import json

from pages.ui import ASSETS
from pages.ui.loading import cached_explainer
from selfexplain.core.formats.examples import read_example_bytes, read_examples
from selfexplain.data import Example

SST5_NAMES = ("very negative", "negative", "neutral", "positive", "very positive")


def examples_for(model_name: str) -> list[dict[str, str]]:
    """The shipped examples of a model (``assets/examples/NAME.json``: ``title``, ``text``, maybe ``pair``),
    none when it has no file."""
    path = ASSETS / "examples" / f"{model_name}.json"
    if not path.is_file():
        return []
    return json.loads(path.read_text(encoding="utf-8"))


def opening_example(examples: list[dict[str, str]]) -> dict[str, str] | None:
    """The example a new session opens with: the first whose title has "but" (a contrast shows spans at
    work), else the first; None when the model has no examples."""
    return next((e for e in examples if "but" in e["title"].lower()), examples[0] if examples else None)


def sample_csv() -> str:
    """The held-out reviews of assets/heldout/reviews.txt (SST lines) as a CSV with ``text`` and ``label``
    columns, labels by name (the Batch page's sample file)."""
    import pandas as pd

    examples = read_examples(ASSETS / "heldout" / "reviews.txt", label_names=SST5_NAMES, txt="labelled")
    frame = pd.DataFrame({"text": [e.text for e in examples], "label": [SST5_NAMES[e.label] for e in examples]})
    return frame.to_csv(index=False)


def read_uploaded(data: bytes, suffix: str, label_names: list[str]) -> list[Example]:
    """Examples from uploaded bytes (SST lines or trees, CSV, TSV or JSONL by ``suffix``), read in memory;
    messages call the file ``upload`` with its suffix."""
    return read_example_bytes(data, f"upload{suffix}", label_names, txt="labelled")


def upload_examples(directory: str, data: bytes, suffix: str, limit: int) -> list[Example]:
    """Labelled examples from uploaded bytes (SST lines, CSV, TSV or JSONL), at most ``limit``, with the
    label names of the model in ``directory``."""
    return read_uploaded(data, suffix, list(cached_explainer(directory).config.label_names))[:limit]
