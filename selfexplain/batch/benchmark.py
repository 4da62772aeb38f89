"""Batch throughput vs explaining one sentence at a time.

``python -m selfexplain.batch.benchmark [--model sst5-minilm] [--data SST_FILE] [--limit N]``
prints one JSON line: sentences per second one at a time (``explain(text, attentions=False)``
with the default model: float32, native span layer) and batched in three settings (float32
with the span layer in eager PyTorch; float32 with the native span layer, the ``batch``
default, which gives the same results; bfloat16 encoder with the native span layer, which does
not), the speed-up of each, and how often the other runs agree with the first on the
predicted label and the top span.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from selfexplain.batch.reader import Row
from selfexplain.batch.runner import BatchOptions, explain_rows, explain_window
from selfexplain.core.formats.examples import read_examples
from selfexplain.core.pipeline import load_model

DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "sst5" / "test.txt"
SETTINGS = {"float32": (False, "float32"), "float32_fused": (True, "float32"), "bfloat16_fused": (True, "bfloat16")}


def _timed(run: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def measure(model: str | None, data: Path, limit: int, batch_size: int, rounds: int = 4) -> dict[str, Any]:
    """Explain the first ``limit`` sentences one by one and batched (records included).

    The sentences are cut into ``rounds`` consecutive parts, and each part is run one at a
    time and then in every batched setting before the next part starts, so a machine that
    slows down for a while slows every method alike. Batches go through the ``batch``
    command's own path (windows of 32 batches, sorted by length inside each window).
    """
    explainer = load_model(model)
    texts = [e.text for e in read_examples(data, txt="labelled")][:limit]
    rows = [Row(i, i + 1, text) for i, text in enumerate(texts)]
    options = BatchOptions(batch_size=batch_size)
    explainer.explain(texts[0], attentions=False)  # warm-up (and the native kernels' build)
    seconds = dict.fromkeys(["one_at_a_time", *SETTINGS], 0.0)
    records: dict[str, list[dict[str, Any]]] = {name: [] for name in SETTINGS}
    size = -(-len(rows) // rounds)
    for lo in range(0, len(rows), size):
        part = rows[lo : lo + size]
        explainer.model.set_fused(True)
        explainer.model.set_encoder_precision("float32")
        elapsed, _ = _timed(lambda part=part: [explainer.explain(row.text, attentions=False) for row in part])
        seconds["one_at_a_time"] += elapsed
        for name, (fused, precision) in SETTINGS.items():
            explainer.model.set_fused(fused)
            explainer.model.set_encoder_precision(precision)
            if lo == 0:
                explain_window(explainer, part[: 2 * batch_size], options)  # warm-up
            elapsed, windows = _timed(lambda part=part: list(explain_rows(explainer, part, options)))
            seconds[name] += elapsed
            records[name].extend(record for window in windows for record in window)
    result: dict[str, Any] = {
        "model": explainer.name,
        "data": str(data),
        "sentences": len(texts),
        "batch_size": batch_size,
        "rounds": rounds,
        "threads": torch.get_num_threads(),
        "one_at_a_time_per_s": round(len(texts) / seconds["one_at_a_time"], 1),
    }
    for name in SETTINGS:
        result[f"{name}_per_s"] = round(len(texts) / seconds[name], 1)
        result[f"{name}_speedup"] = round(seconds["one_at_a_time"] / seconds[name], 2)

    def same(key: str, other: str) -> float:
        pairs = list(zip(records["float32"], records[other]))
        return round(sum(a[key] == b[key] for a, b in pairs) / len(pairs), 4)

    for name in ("float32_fused", "bfloat16_fused"):
        for record in (*records["float32"], *records[name]):
            record["top_span"] = record["spans"][0]["text"] if record.get("spans") else None
        result[f"{name}_label_agreement"] = same("label", name)
        result[f"{name}_top_span_agreement"] = same("top_span", name)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="SST lines (LABEL TEXT)")
    parser.add_argument("--limit", type=int, default=2210, help="sentences to use (SST-5 test has 2,210)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=4, help="parts run in turn by every method")
    args = parser.parse_args()
    print(json.dumps(measure(args.model, args.data, args.limit, args.batch_size, args.rounds)))


if __name__ == "__main__":
    main()
