"""Peak memory and time to explain long inputs.

    python benchmarks/long_inputs.py [--model sst5-minilm] [--fused] [--json out.json]
    python benchmarks/long_inputs.py --document 50000 [--json out.json]

The first form explains one 512-token input and one 4,096-token document (dense Explanation).
The second explains one document of about that many tokens end to end as a sparse
:class:`selfexplain.core.results.document.Document` (windows, one forward, the sentence overview and the top
spans, as the app and ``selfexplain explain`` do) and compares wall time and the process's peak
resident memory with the targets (60 s, 2 GB). Its text is written here from a seeded grammar of
film-review sentences (no data set is read; no sentence repeats), in paragraphs of 4-8 sentences;
the character limit is raised to the text's length for the run.

Memory: the peak resident-set increase during the call (after the model is loaded) and, with
``--document``, the process's peak resident set since start (``getrusage``, model included). Like
the command line and the app, the script first fixes glibc's mmap threshold
(selfexplain.support.malloc_tuning); ``--default-malloc`` leaves it alone.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import time
from pathlib import Path

import torch
from measure import peak_rss_increase

from selfexplain.core.pipeline import load_model
from selfexplain.support.limits import max_chars_setting
from selfexplain.support.malloc_tuning import fix_mmap_threshold

WORDS = "the film is slow but the cast is warm and the ending lands with real grace".split()
TARGET_SECONDS, TARGET_GB = 60.0, 2.0
SUBJECTS = (
    "the director", "the lead actress", "the script", "the second act", "the score", "the supporting cast",
    "the camera work", "the final scene", "the editing", "the villain", "the dialogue", "the opening sequence",
    "the young star", "the production design", "the pacing", "the screenplay", "the cinematographer", "the sequel",
)  # fmt: skip
VERBS = (
    "wastes", "rescues", "undercuts", "elevates", "smothers", "sharpens", "drags down", "carries", "muddles",
    "illuminates", "betrays", "earns", "squanders", "deepens", "flattens", "redeems", "rushes", "honours",
)  # fmt: skip
OBJECTS = (
    "every quiet moment", "the central mystery", "a promising premise", "its own best ideas", "the love story",
    "the jokes", "the tension", "the themes", "a talented ensemble", "the emotional payoff", "the source novel",
    "the action scenes", "the characters", "the small town setting", "the long flashbacks", "the big reveal",
)  # fmt: skip
TAILS = (
    "", "", "", " with surprising grace", " far too often", " in the last twenty minutes", " without apology",
    " more than once", " for no clear reason", " with real wit", " almost by accident", " by the end",
)  # fmt: skip
OPENERS = ("", "", "", "Sadly, ", "Still, ", "In the end, ", "At times, ", "Oddly, ", "Worse, ", "Happily, ")
CLOSERS = (".", ".", ".", ".", "!", "?")


def review_sentence(rng: random.Random) -> str:
    """One film-review sentence from the grammar above."""
    body = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}{rng.choice(TAILS)}"
    opener = rng.choice(OPENERS)
    return opener + (body if opener else body[0].upper() + body[1:]) + rng.choice(CLOSERS)


def synthetic_document(tokenizer, tokens: int, seed: int = 0) -> str:
    """About ``tokens`` tokens of distinct film-review sentences in paragraphs (seeded)."""
    rng = random.Random(seed)
    seen: set[str] = set()
    paragraphs, count = [], 0
    while count < tokens:
        sentences = []
        for _ in range(rng.randint(4, 8)):
            while True:
                sentence = review_sentence(rng)
                if sentence not in seen:
                    seen.add(sentence)
                    break
            sentences.append(sentence)
        paragraph = " ".join(sentences)
        count += len(tokenizer(paragraph, add_special_tokens=False)["input_ids"])
        paragraphs.append(paragraph)
    return "\n\n".join(paragraphs)


def text_of_tokens(explainer, count: int) -> str:
    """A text of exactly ``count`` tokens (special tokens not counted)."""
    words = (WORDS * (count // len(WORDS) + 2))[: count * 2]
    ids = explainer.tokenizer(" ".join(words), add_special_tokens=False)["input_ids"][:count]
    return explainer.tokenizer.decode(ids)


def peak_rss_gb() -> float:
    """The process's peak resident set since it started (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def cpu_seconds() -> float:
    """User plus system CPU time of this process so far, all threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_document(explainer, tokens: int) -> dict:
    """Explain a synthetic document of about ``tokens`` tokens as a Document; time and memory."""
    text = synthetic_document(explainer.tokenizer, tokens)
    result: dict = {}

    def run() -> None:
        start, cpu = time.perf_counter(), cpu_seconds()
        with max_chars_setting(len(text)):
            document = explainer.explain_document(text)
        parts = document.parts("sentence")
        top = document.top_spans(10)
        result.update(document=document, parts=parts, top=top, seconds=time.perf_counter() - start)
        result["cpu"] = cpu_seconds() - cpu

    load = os.getloadavg()[0]
    increase = peak_rss_increase(run)
    document = result["document"]
    row = {
        "input": f"a {document.num_tokens:,}-token document (Document)",
        "characters": len(text),
        "tokens": document.num_tokens,
        "windows": len(document.window_starts),
        "spans": document.num_spans,
        "sentences": len(result["parts"]),
        "seconds": round(result["seconds"], 2),
        "cpu_seconds": round(result["cpu"], 2),
        "threads": torch.get_num_threads(),
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "peak_mb": round(increase, 1),
        "process_peak_gb": round(peak_rss_gb(), 3),
    }
    row["time_vs_target"] = round(row["seconds"] / TARGET_SECONDS, 3)
    row["memory_vs_target"] = round(row["process_peak_gb"] / TARGET_GB, 3)
    print(
        f"{row['input']}: {row['characters']:,} characters, {row['windows']} windows, {row['spans']:,} spans, "
        f"{row['sentences']:,} sentences\n"
        f"  wall time {row['seconds']:.1f} s ({row['time_vs_target']:.2f} of the {TARGET_SECONDS:.0f} s target); "
        f"CPU time {row['cpu_seconds']:.1f} s on {row['threads']} threads; load average {row['load_before']:.1f} "
        f"before, {row['load_after']:.1f} after (other processes share the cores)\n"
        f"  peak RSS {row['process_peak_gb']:.2f} GB for the whole process ({row['memory_vs_target']:.2f} of the "
        f"{TARGET_GB:.0f} GB target); +{row['peak_mb']:.0f} MB during the call\n"
        f"  prediction {document.label}; top span {result['top'][0].text!r} (alpha {result['top'][0].alpha:.3f})"
    )
    return row


def run_rows(explainer) -> list[dict]:
    """One 512-token input (with attentions) and one 4,096-token document (dense Explanation)."""
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
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--fused", action="store_true", help="the native span kernels (built in the warm-up)")
    parser.add_argument("--document", type=int, default=None, metavar="TOKENS", help="one document of this size")
    parser.add_argument("--default-malloc", action="store_true", help="keep glibc's dynamic mmap threshold")
    args = parser.parse_args()
    if not args.default_malloc:
        fix_mmap_threshold()
    fused = args.fused or args.document is not None  # the document runs as the app and CLI do: native
    explainer = load_model(args.model, fused=fused)
    explainer.explain("warm up", attentions=False)
    rows = [run_document(explainer, args.document)] if args.document is not None else run_rows(explainer)
    if args.json is not None:
        args.json.write_text(json.dumps({"model": explainer.name, "fused": fused, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
