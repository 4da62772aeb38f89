"""Where a page's example inputs come from: the shipped examples of a model, the Batch page's sample
file, and uploaded files read as labelled examples."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from pages.ui import ASSETS
from pages.ui.loading import cached_explainer
from selfexplain.data import Example
from selfexplain.formats.examples import read_examples

SST5_NAMES = ("very negative", "negative", "neutral", "positive", "very positive")


def examples_for(model_name: str) -> list[dict[str, str]]:
    """The shipped examples of a model (``assets/examples/NAME.json``: ``title``, ``text``, maybe ``pair``),
    none when it has no file."""
    path = ASSETS / "examples" / f"{model_name}.json"
    if not path.is_file():
        return []
    return json.loads(path.read_text(encoding="utf-8"))


def sample_csv() -> str:
    """The held-out reviews of assets/heldout/reviews.txt as a CSV with ``text`` and ``label`` columns
    (the Batch page's sample file)."""
    import pandas as pd

    lines = (ASSETS / "heldout" / "reviews.txt").read_text(encoding="utf-8").splitlines()
    rows = [line.split(" ", 1) for line in lines if line.strip()]
    frame = pd.DataFrame({"text": [t for _, t in rows], "label": [SST5_NAMES[int(n)] for n, _ in rows]})
    return frame.to_csv(index=False)


def read_uploaded(data: bytes, suffix: str, label_names: list[str], split: str = "test") -> list[Example]:
    """Examples from uploaded bytes (SST lines, CSV, TSV or JSONL). The bytes go to a fresh private
    folder (0700, unpredictable name, removed afterwards): never a guessable path in a shared /tmp."""
    with tempfile.TemporaryDirectory(prefix="selfexplain-upload-") as folder:
        path = Path(folder) / f"upload{suffix if suffix in ('.txt', '.csv', '.tsv', '.jsonl') else '.txt'}"
        path.write_bytes(data)
        return read_examples(path, txt="labelled", label_names=label_names, split=split)


def upload_examples(directory: str, data: bytes, suffix: str, limit: int) -> list[Example]:
    """Labelled examples from uploaded bytes (SST lines, CSV, TSV or JSONL), at most ``limit``, with the
    label names of the model in ``directory``."""
    return read_uploaded(data, suffix, list(cached_explainer(directory).config.label_names))[:limit]
