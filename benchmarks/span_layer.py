"""Span layer (forward + backward): selfexplain's vs the reference algorithm, side by side.

For N = 16 .. 256 tokens, batch 10, hidden 384 and 768, prints the median time of
forward + backward for the reference and for ours, eager and fused (the native kernels,
selfexplain.core.modeling.native_spans; built in the warm-up), the speed-ups, the peak
resident-memory increase of each, and a floor: the per-token projections forward and
backward alone (matrix products every SIC layer, the reference's too, must do); writes
JSON with --json. Span enumeration is part of each timed step
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

from selfexplain.core.modeling.spans import SpanLayer, span_index, span_validity


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
    print(
        f"{'H':>4} {'N':>4} {'spans':>6} {'ref ms':>9} {'eager ms':>9} {'fused ms':>9} {'floor ms':>9} "
        f"{'eager x':>8} {'fused x':>8} "
        f"{'ref MB':>8} {'eager MB':>8} {'fused MB':>8}"
    )
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

            def run_ours(
                fused: bool, hidden=hidden, n=n, token_mask=token_mask, segments=segments, ours_layer=ours_layer
            ) -> None:
                ours_layer.fused = fused
                starts, ends = span_index(n)
                valid = span_validity(token_mask, segments, starts, ends)
                out = ours_layer(hidden, valid, starts, ends)
                (out.pooled.sum() + out.alpha.square().sum()).backward()

            def run_floor(hidden=hidden, ours_layer=ours_layer) -> None:
                # the per-token projections forward and backward: matrix work every SIC layer does
                ours_layer.projection(hidden).sum().backward()

            spans = (n - 2) * (n - 1) // 2
            run_floor()
            floor_s = median_seconds(run_floor, args.repeats)
            reference_gb = 12 * args.batch * spans * hidden_size * 4 / 2**30
            timings = {}
            for mode, fused in (("eager", False), ("fused", True)):
                run_ours(fused)  # warm-up (and the kernels' first build)
                timings[mode] = (
                    median_seconds(lambda f=fused: run_ours(f), args.repeats),
                    peak_rss_increase(lambda f=fused: run_ours(f)),
                )
            ours_s, ours_mb = timings["fused"]
            if reference_gb > args.reference_limit_gb:
                print(
                    f"{hidden_size:>4} {n:>4} {spans:>6}  reference skipped (needs ~{reference_gb:.0f} GB); "
                    f"eager {1000 * timings['eager'][0]:.1f} ms, fused {1000 * ours_s:.1f} ms, "
                    f"peak {timings['eager'][1]:.1f} / {ours_mb:.1f} MB"
                )
                rows.append(
                    {
                        "hidden": hidden_size,
                        "tokens": n,
                        "spans": spans,
                        "eager_ms": round(1000 * timings["eager"][0], 2),
                        "fused_ms": round(1000 * ours_s, 2),
                        "floor_ms": round(1000 * floor_s, 2),
                        "eager_peak_mb": round(timings["eager"][1], 1),
                        "fused_peak_mb": round(ours_mb, 1),
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
                "eager_ms": round(1000 * timings["eager"][0], 2),
                "fused_ms": round(1000 * ours_s, 2),
                "floor_ms": round(1000 * floor_s, 2),
                "eager_speedup": round(ref_s / timings["eager"][0], 2),
                "fused_speedup": round(ref_s / ours_s, 2),
                "reference_peak_mb": round(ref_mb, 1),
                "eager_peak_mb": round(timings["eager"][1], 1),
                "fused_peak_mb": round(ours_mb, 1),
            }
            rows.append(row)
            print(
                f"{hidden_size:>4} {n:>4} {spans:>6} {row['reference_ms']:>9.1f} {row['eager_ms']:>9.1f} "
                f"{row['fused_ms']:>9.1f} {row['floor_ms']:>9.1f} "
                f"{row['eager_speedup']:>7.2f}x {row['fused_speedup']:>7.2f}x "
                f"{ref_mb:>8.1f} {row['eager_peak_mb']:>8.1f} {ours_mb:>8.1f}"
            )
    if args.json is not None:
        args.json.write_text(json.dumps({"batch": args.batch, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
