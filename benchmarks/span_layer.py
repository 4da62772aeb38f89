"""Span layer (forward + backward): selfexplain's vs the reference algorithm, side by side.

For N = 16 .. 256 tokens, batch 10, hidden 384 and 768, prints the median time of
forward + backward for both, the speed-up, and the peak resident-memory increase
of each; writes JSON with --json. Span enumeration is part of each timed step
(the reference enumerates in Python per batch, ours from a cached index).

    python benchmarks/span_layer.py [--repeats 3] [--lengths 16 32 64 128 256] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
from measure import median_seconds, peak_rss_increase
from reference_span_layer import ReferenceSpanLayer, enumerate_spans

from selfexplain.spans import SpanLayer, span_index, span_validity


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--lengths", type=int, nargs="+", default=[16, 32, 64, 128, 256])
    parser.add_argument("--hidden", type=int, nargs="+", default=[384, 768])
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--reference-limit-gb",
        type=float,
        default=8.0,
        help="skip the reference where its ~12 live [B, S, H] tensors would need more memory than this",
    )
    args = parser.parse_args()
    torch.manual_seed(0)
    rows = []
    print(f"batch {args.batch}, median of {args.repeats}, threads {torch.get_num_threads()}")
    print(f"{'H':>4} {'N':>4} {'spans':>6} {'ref ms':>9} {'ours ms':>9} {'speed-up':>8} {'ref MB':>8} {'ours MB':>8}")
    for hidden_size in args.hidden:
        ours_layer = SpanLayer(hidden_size)
        reference = ReferenceSpanLayer(hidden_size)
        reference.load_state_dict(ours_layer.state_dict())
        for n in args.lengths:
            hidden = torch.randn(args.batch, n, hidden_size, requires_grad=True)
            token_mask = torch.ones(args.batch, n, dtype=torch.bool)
            token_mask[:, 0] = token_mask[:, -1] = False
            segments = torch.zeros(args.batch, n, dtype=torch.long)

            def run_reference(hidden=hidden, n=n, reference=reference) -> None:
                starts, ends = enumerate_spans(n)
                mask = torch.zeros(args.batch, starts.numel())
                pooled, alpha = reference(hidden, starts, ends, mask)
                (pooled.sum() + alpha.square().sum()).backward()

            def run_ours(hidden=hidden, n=n, token_mask=token_mask, segments=segments, ours_layer=ours_layer) -> None:
                starts, ends = span_index(n)
                valid = span_validity(token_mask, segments, starts, ends)
                out = ours_layer(hidden, valid, starts, ends)
                (out.pooled.sum() + out.alpha.square().sum()).backward()

            spans = (n - 2) * (n - 1) // 2
            reference_gb = 12 * args.batch * spans * hidden_size * 4 / 2**30
            run_ours()  # warm-up
            ours_s = median_seconds(run_ours, args.repeats)
            ours_mb = peak_rss_increase(run_ours)
            if reference_gb > args.reference_limit_gb:
                print(
                    f"{hidden_size:>4} {n:>4} {spans:>6}  reference skipped (needs ~{reference_gb:.0f} GB); ours "
                    f"{1000 * ours_s:.1f} ms, peak {ours_mb:.1f} MB"
                )
                rows.append(
                    {
                        "hidden": hidden_size,
                        "tokens": n,
                        "spans": spans,
                        "ours_ms": round(1000 * ours_s, 2),
                        "ours_peak_mb": round(ours_mb, 1),
                        "reference_skipped_gb": round(reference_gb, 1),
                    }
                )
                continue
            run_reference()
            ref_s = median_seconds(run_reference, args.repeats)
            ref_mb = peak_rss_increase(run_reference)
            row = {
                "hidden": hidden_size,
                "tokens": n,
                "spans": spans,
                "reference_ms": round(1000 * ref_s, 2),
                "ours_ms": round(1000 * ours_s, 2),
                "speedup": round(ref_s / ours_s, 2),
                "reference_peak_mb": round(ref_mb, 1),
                "ours_peak_mb": round(ours_mb, 1),
            }
            rows.append(row)
            print(
                f"{hidden_size:>4} {n:>4} {row['spans']:>6} {row['reference_ms']:>9.1f} {row['ours_ms']:>9.1f} "
                f"{row['speedup']:>7.2f}x {ref_mb:>8.1f} {ours_mb:>8.1f}"
            )
    if args.json is not None:
        args.json.write_text(json.dumps({"batch": args.batch, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
