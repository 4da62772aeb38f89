"""Batch throughput vs explaining one sentence at a time.

``python -m selfexplain.batch.benchmark [--model sst5-minilm] [--data SST_FILE] [--limit N]``
prints one JSON line: sentences per second both ways and their ratio.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from selfexplain.batch.reader import Row
from selfexplain.batch.runner import BatchOptions, explain_window
from selfexplain.data import read_sst
from selfexplain.pipeline import load_model

DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "sst5" / "test.txt"


def measure(model: str | None, data: Path, limit: int, batch_size: int) -> dict[str, object]:
    """Explain the first ``limit`` sentences batched (records included) and one by one (``explain``)."""
    explainer = load_model(model)
    texts = [e.text for e in read_sst(data)][:limit]
    rows = [Row(i, i + 1, text) for i, text in enumerate(texts)]
    explainer.explain_batch(texts[:4])  # warm-up
    start = time.perf_counter()
    explain_window(explainer, rows, BatchOptions(batch_size=batch_size))
    batched = time.perf_counter() - start
    start = time.perf_counter()
    for text in texts:
        explainer.explain(text, attentions=False)
    single = time.perf_counter() - start
    return {
        "model": explainer.name,
        "data": str(data),
        "sentences": len(texts),
        "batch_size": batch_size,
        "threads": torch.get_num_threads(),
        "batched_per_s": round(len(texts) / batched, 1),
        "one_at_a_time_per_s": round(len(texts) / single, 1),
        "speedup": round(single / batched, 2),
    }


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
