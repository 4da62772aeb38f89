"""Full self-explaining forward vs encoder-only forward, by sequence length.

Prints a table (and writes JSON with --json) of, for N = 16 .. 512 tokens:
encoder-only forward time, full model forward time with the span layer eager and
fused (the native kernels, selfexplain.core.modeling.native_spans; built during the warm-up), their
ratios to the encoder, and the peak resident-memory increase of each. Both are measured side by side in one run,
alternating, so a busy machine slows both alike.

    python benchmarks/forward_overhead.py [--model sst5-minilm] [--batch 1] [--repeats 5] [--json out.json]
    python benchmarks/forward_overhead.py --model snli-minilm --pair   # two texts of N/2 tokens each

With ``--pair`` the input is a premise and a hypothesis of half the tokens each (segment ids 0 and 1),
so a pair model with per-text alpha runs its normaliser once per text.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import torch
from measure import peak_rss_increase

from selfexplain.core.pipeline import load_model

LENGTHS = (16, 32, 64, 128, 256, 512)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None, help="model name or folder (default: the shipped default)")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--pair", action="store_true", help="two texts of N/2 tokens (segment ids 0, 1)")
    parser.add_argument("--lengths", default=",".join(map(str, LENGTHS)), help="comma-separated token counts")
    args = parser.parse_args()

    explainer = load_model(args.model)
    model = explainer.model.eval()
    vocab = explainer.tokenizer.vocab_size
    generator = torch.Generator().manual_seed(0)
    rows = []
    print(f"model {explainer.name}, batch {args.batch}, median of {args.repeats}, threads {torch.get_num_threads()}")
    print(
        f"{'N':>5} {'encoder ms':>11} {'full ms':>9} {'fused ms':>9} {'ratio':>6} {'fused r':>7} "
        f"{'enc MB':>7} {'full MB':>8} {'fused MB':>8} {'spans':>7}"
    )
    for n in (int(part) for part in args.lengths.split(",")):
        ids = torch.randint(1000, vocab, (args.batch, n), generator=generator)
        ids[:, 0], ids[:, -1] = explainer.tokenizer.cls_token_id, explainer.tokenizer.sep_token_id
        attention = torch.ones_like(ids)
        token_mask = attention.bool().clone()
        token_mask[:, 0] = token_mask[:, -1] = False
        segments = torch.zeros_like(ids)
        spans = (n - 2) * (n - 1) // 2
        if args.pair:  # [CLS] premise [SEP] hypothesis [SEP]: spans never cross the separator
            middle = n // 2
            ids[:, middle] = explainer.tokenizer.sep_token_id
            token_mask[:, middle] = False
            segments[:, middle + 1 :] = 1
            first, second = middle - 1, n - middle - 2
            spans = first * (first + 1) // 2 + second * (second + 1) // 2

        def encoder_only(ids=ids, attention=attention) -> object:
            return model.encoder(input_ids=ids, attention_mask=attention)

        def full(ids=ids, attention=attention, token_mask=token_mask, segments=segments) -> object:
            model.set_fused(False)
            return model(
                input_ids=ids, attention_mask=attention, token_mask=token_mask, segment_ids=segments,
                word_start=token_mask, word_end=token_mask,  # every token a word: the most spans
            )  # fmt: skip

        def fused(ids=ids, attention=attention, token_mask=token_mask, segments=segments) -> object:
            model.set_fused(True)
            return model(
                input_ids=ids, attention_mask=attention, token_mask=token_mask, segment_ids=segments,
                word_start=token_mask, word_end=token_mask,  # every token a word: the most spans
            )  # fmt: skip

        runs = {"encoder": encoder_only, "full": full, "fused": fused}
        with torch.inference_mode():
            for fn in runs.values():
                fn()  # warm-up
            times: dict[str, list[float]] = {name: [] for name in runs}
            for _ in range(args.repeats):
                for name, fn in runs.items():
                    start = time.perf_counter()
                    fn()
                    times[name].append(time.perf_counter() - start)
            memory = {name: peak_rss_increase(fn) for name, fn in runs.items()}
        ms = {name: 1000 * statistics.median(values) for name, values in times.items()}
        row = {
            "tokens": n,
            "encoder_ms": round(ms["encoder"], 2),
            "full_ms": round(ms["full"], 2),
            "fused_ms": round(ms["fused"], 2),
            "ratio": round(ms["full"] / ms["encoder"], 3),
            "fused_ratio": round(ms["fused"] / ms["encoder"], 3),
            "encoder_peak_mb": round(memory["encoder"], 1),
            "full_peak_mb": round(memory["full"], 1),
            "fused_peak_mb": round(memory["fused"], 1),
            "spans": spans,
        }
        rows.append(row)
        print(
            f"{n:>5} {ms['encoder']:>11.1f} {ms['full']:>9.1f} {ms['fused']:>9.1f} {row['ratio']:>6.2f} "
            f"{row['fused_ratio']:>7.2f} {memory['encoder']:>7.1f} {memory['full']:>8.1f} {memory['fused']:>8.1f} "
            f"{row['spans']:>7}"
        )
    if args.json is not None:
        args.json.write_text(json.dumps({"model": explainer.name, "batch": args.batch, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
