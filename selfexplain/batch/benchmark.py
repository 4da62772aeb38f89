"""Batch throughput vs explaining one sentence at a time.

``python -m selfexplain.batch.benchmark [--model sst5-minilm] [--data SST_FILE] [--limit N]``
prints one JSON line: sentences per second one at a time (``explain``, the default eager
float32 model) and batched in three settings (float32 eager; float32 with the fused span
layer, which gives the same results; bfloat16 encoder with the fused span layer, which does
not), the speed-up of each, and how often the bfloat16 run agrees with float32 on the
predicted label and the top span.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import torch

from selfexplain.batch.reader import Row
from selfexplain.batch.runner import BatchOptions, explain_window
from selfexplain.data import read_sst
from selfexplain.pipeline import SelfExplainer, load_model

DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "sst5" / "test.txt"
SETTINGS = {"float32": (False, "float32"), "float32_fused": (True, "float32"), "bfloat16_fused": (True, "bfloat16")}


def _batched(explainer: SelfExplainer, rows: list[Row], batch_size: int) -> tuple[float, list[dict[str, Any]]]:
    explain_window(explainer, rows[: 2 * batch_size], BatchOptions(batch_size=batch_size))  # warm-up, compile
    start = time.perf_counter()
    records = explain_window(explainer, rows, BatchOptions(batch_size=batch_size))
    return time.perf_counter() - start, records


def measure(model: str | None, data: Path, limit: int, batch_size: int) -> dict[str, Any]:
    """Explain the first ``limit`` sentences one by one and batched (records included)."""
    explainer = load_model(model)
    texts = [e.text for e in read_sst(data)][:limit]
    rows = [Row(i, i + 1, text) for i, text in enumerate(texts)]
    explainer.explain(texts[0], attentions=False)  # warm-up
    start = time.perf_counter()
    for text in texts:
        explainer.explain(text, attentions=False)
    single = time.perf_counter() - start
    result: dict[str, Any] = {
        "model": explainer.name,
        "data": str(data),
        "sentences": len(texts),
        "batch_size": batch_size,
        "threads": torch.get_num_threads(),
        "one_at_a_time_per_s": round(len(texts) / single, 1),
    }
    records = {}
    for name, (fused, precision) in SETTINGS.items():
        explainer.model.set_fused(fused)
        explainer.model.set_encoder_precision(precision)
        seconds, records[name] = _batched(explainer, rows, batch_size)
        result[f"{name}_per_s"] = round(len(texts) / seconds, 1)
        result[f"{name}_speedup"] = round(single / seconds, 2)

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
    args = parser.parse_args()
    print(json.dumps(measure(args.model, args.data, args.limit, args.batch_size)))


if __name__ == "__main__":
    main()
