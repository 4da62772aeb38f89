"""Training throughput (examples/s) on SST-5: selfexplain's span layer (eager and fused) vs the reference one.

All run the same training loop (selfexplain.methods.training.loop.batch_loss, AdamW, batch 32,
default encoder) for the same batches; only the span layer differs. "fused" is what
``selfexplain train`` uses by default (the native kernels; built during the warm-up).

    python benchmarks/training_throughput.py --data ../shared/data/sst5/train.txt [--steps 10] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
from reference_span_layer import ReferenceSpanLayer, enumerate_spans

from selfexplain.core.formats.examples import read_examples
from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.modeling.encoders import load_tokenizer
from selfexplain.core.modeling.model import SelfExplainingModel
from selfexplain.core.modeling.spans import SpanLayer, SpanLayerOutput
from selfexplain.methods.training.loop import TrainOptions, batch_loss, epoch_batches


class ReferenceAdapter(torch.nn.Module):
    """The reference layer behind selfexplain's span-layer interface (spans re-enumerated in Python)."""

    def __init__(self, layer: SpanLayer) -> None:
        super().__init__()
        self.reference = ReferenceSpanLayer(layer.W1.in_features)
        self.reference.load_state_dict(layer.state_dict())

    def forward(self, hidden, valid, starts, ends) -> SpanLayerOutput:
        n = hidden.shape[1]
        ref_starts, ref_ends = enumerate_spans(n + 2)  # positions 1 .. n
        ref_starts, ref_ends = ref_starts - 1, ref_ends - 1  # all spans over 0 .. n-1, in our order
        keep = torch.isin(ref_starts * n + ref_ends, starts * n + ends)
        mask = (~valid).float() * 1e4
        pooled, alpha = self.reference(hidden, ref_starts[keep], ref_ends[keep], mask)
        return SpanLayerOutput(pooled=pooled, logits=alpha.log(), alpha=alpha)


def throughput(model, tokenizer, batches, examples, options) -> float:
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-5)
    model.train()
    count, start = 0, time.perf_counter()
    for index in batches:
        chunk = [examples[i] for i in index]
        loss = batch_loss(model, tokenizer, chunk, options, torch.device("cpu"))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        count += len(chunk)
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    torch.manual_seed(0)
    examples = read_examples(args.data, txt="labelled")
    options = TrainOptions(batch_size=32)
    batches = epoch_batches(examples, options.batch_size, seed=0)[: args.steps]
    tokenizer = load_tokenizer("all-MiniLM-L6-v2")
    config = ModelConfig(encoder="all-MiniLM-L6-v2", label_names=[str(i) for i in range(5)])
    results = {}
    for name in ("reference", "selfexplain", "selfexplain_fused"):
        torch.manual_seed(0)
        model = SelfExplainingModel(config)
        model.set_fused(name == "selfexplain_fused")
        if name == "reference":
            model.span_layer = ReferenceAdapter(model.span_layer)
        throughput(model, tokenizer, batches[:1], examples, options)  # warm-up
        results[name] = throughput(model, tokenizer, batches, examples, options)
        print(f"{name:<12} {results[name]:7.1f} examples/s")
    ratio = results["selfexplain"] / results["reference"]
    fused = results["selfexplain_fused"] / results["reference"]
    print(f"speed-up     {ratio:7.2f}x eager, {fused:.2f}x fused  ({args.steps} batches of {options.batch_size})")
    if args.json is not None:
        summary = {**results, "speedup": ratio, "fused_speedup": fused, "steps": args.steps}
        args.json.write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
