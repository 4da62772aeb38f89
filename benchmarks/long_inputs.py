"""Peak memory and time to explain one 512-token input and one 4,096-token document (windows).

    python benchmarks/long_inputs.py [--model sst5-minilm] [--json out.json]

Memory is the peak resident-set increase during the call, after the model is loaded. Like
the command line and the app, the script first fixes glibc's mmap threshold
(selfexplain.malloc_tuning); ``--default-malloc`` leaves it alone.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from measure import peak_rss_increase

from selfexplain.malloc_tuning import fix_mmap_threshold
from selfexplain.pipeline import load_model

WORDS = "the film is slow but the cast is warm and the ending lands with real grace".split()


def text_of_tokens(explainer, count: int) -> str:
    """A text of exactly ``count`` tokens (special tokens not counted)."""
    words = (WORDS * (count // len(WORDS) + 2))[: count * 2]
    ids = explainer.tokenizer(" ".join(words), add_special_tokens=False)["input_ids"][:count]
    return explainer.tokenizer.decode(ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--fused", action="store_true", help="the native span kernels (built in the warm-up)")
    parser.add_argument("--default-malloc", action="store_true", help="keep glibc's dynamic mmap threshold")
    args = parser.parse_args()
    if not args.default_malloc:
        fix_mmap_threshold()
    explainer = load_model(args.model, fused=args.fused)
    explainer.explain("warm up", attentions=False)
    rows = []
    for label, count in (("one 512-token input", explainer.max_tokens - 2), ("a 4,096-token document", 4096)):
        text = text_of_tokens(explainer, count)
        result = {}

        def run(text=text, result=result, count=count) -> None:
            start = time.perf_counter()
            result["explanation"] = explainer.explain(text, attentions=count < explainer.max_tokens)
            result["seconds"] = time.perf_counter() - start

        peak = peak_rss_increase(run)
        explanation = result["explanation"]
        row = {
            "input": label,
            "tokens": explanation.num_tokens,
            "windows": len(explanation.windows or [0]),
            "spans": int(explanation.span_mask.sum()),
            "seconds": round(result["seconds"], 2),
            "peak_mb": round(peak, 1),
        }
        rows.append(row)
        print(
            f"{label:<24} tokens {row['tokens']:>5}  windows {row['windows']:>2}  spans {row['spans']:>9,}  "
            f"{row['seconds']:>6.2f} s  peak +{row['peak_mb']:.0f} MB"
        )
    if args.json is not None:
        args.json.write_text(json.dumps({"model": explainer.name, "fused": args.fused, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
