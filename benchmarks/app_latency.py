"""Warm response of the Explain page's work for one sentence: explain + every figure and table.

    python benchmarks/app_latency.py [--model sst5-minilm] [--tokens 40] [--repeats 10] [--json out.json]

Measures the library calls the page makes (the model is loaded once, as the app caches it);
Streamlit's own rendering and the browser are not included.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from measure import median_seconds

from selfexplain.core.pipeline import load_model
from selfexplain.core.results.attention import aggregate_attention
from selfexplain.views.figures import (
    attention_figure,
    model_view_figure,
    probability_figure,
    span_grid_figure,
    span_table,
)
from selfexplain.views.highlight import highlight_html

SENTENCE = (
    "Although the first act drags and a few of the supporting performances feel oddly wooden, the film gathers "
    "real emotional force in its second half, when the director finally trusts his two leads."
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None)
    parser.add_argument("--tokens", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    explainer = load_model(args.model)
    ids = explainer.tokenizer(SENTENCE * 4, add_special_tokens=False)["input_ids"][: args.tokens]
    text = explainer.tokenizer.decode(ids)
    timings = {}

    def explain():
        return explainer.explain(text)

    explanation = explain()
    timings["explain"] = median_seconds(explain, args.repeats)
    steps = {
        "probabilities": lambda: probability_figure(explanation),
        "highlight": lambda: highlight_html(explanation, explanation.top_spans_non_overlapping(5)),
        "span grid": lambda: span_grid_figure(explanation, log_colour=True),
        "attention": lambda: attention_figure(
            aggregate_attention(explanation.attentions, "mean over heads"), explanation.attention_tokens, "a"
        ),
        "model view": lambda: model_view_figure(explanation.attentions),
        "span table": lambda: span_table(explanation, 20),
        "figures to JSON": lambda: [
            f.to_json()
            for f in (
                probability_figure(explanation),
                span_grid_figure(explanation),
                model_view_figure(explanation.attentions),
            )
        ],
    }
    for name, step in steps.items():
        step()
        timings[name] = median_seconds(step, args.repeats)
    total = sum(v for k, v in timings.items() if k != "figures to JSON")
    print(f"model {explainer.name}, {explanation.num_tokens} tokens, median of {args.repeats}")
    for name, seconds in timings.items():
        print(f"  {name:<16} {1000 * seconds:8.1f} ms")
    print(f"  {'total (page)':<16} {1000 * total:8.1f} ms   target < 300 ms")
    if args.json is not None:
        args.json.write_text(
            json.dumps({k: round(1000 * v, 2) for k, v in timings.items()} | {"total_ms": 1000 * total})
        )


if __name__ == "__main__":
    main()
