"""How fast each model explains, on this machine: a 30-word text (warm, the app's case) and, with
``--document``, a 1,500-word document.

    python benchmarks/model_speed.py sst5-minilm sst2-mpnet [--document] [--repeats 20] [--record]

``--record`` writes the 30-word median into the model folder's ``selfexplain.json`` as
``metrics.explain_ms`` (and the document time as ``metrics.document_s``): the figure the app's model
pickers show. Measure on an idle machine; the ratio between two models is what travels to other machines.
"""

from __future__ import annotations

import argparse
import time

from measure import median_seconds

from selfexplain.core.modeling.config import ModelConfig
from selfexplain.core.pipeline import load_model

SENTENCE = (
    "although the first act drags and a few of the supporting performances feel oddly wooden the film gathers "
    "real emotional force in its second half when the director finally trusts his two leads"
)
PREMISE = "A man in a red jacket is playing the guitar on a crowded street corner."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--document", action="store_true", help="also time a 1,500-word document")
    parser.add_argument("--record", action="store_true", help="store the times in each model's selfexplain.json")
    args = parser.parse_args()
    words = SENTENCE.split()
    text = " ".join((words * 2)[:30])
    document = " ".join((words * 60)[:1500])
    for name in args.models:
        measure(name, text, document, args)


def measure(name: str, text: str, document: str, args: argparse.Namespace) -> None:
    explainer = load_model(name)
    if explainer.config.head != "span":  # a baseline has no explain(); the pickers show no time for it
        print(f"{name}: a {explainer.config.head} baseline, not timed (no span explanation)", flush=True)
        return
    pair = "A man plays music outside." if explainer.config.pair else None
    single = PREMISE if pair else text
    explainer.explain(single, pair=pair)  # warm up
    seconds = median_seconds(lambda: explainer.explain(single, pair=pair), args.repeats)
    line = f"{name}: explain() of a {len(single.split())}-word text {seconds * 1e3:.1f} ms"
    doc_seconds = None
    if args.document and not explainer.config.pair:
        start = time.perf_counter()
        explainer.explain_document(document)
        doc_seconds = time.perf_counter() - start
        line += f"; a 1,500-word document {doc_seconds:.2f} s"
    print(line, flush=True)
    if args.record and explainer.directory is not None:
        config = ModelConfig.load(explainer.directory)
        config.metrics["explain_ms"] = round(seconds * 1e3, 1)
        if doc_seconds is not None:
            config.metrics["document_s"] = round(doc_seconds, 2)
        config.save(explainer.directory)


if __name__ == "__main__":
    main()
