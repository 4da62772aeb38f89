"""explain() on the cut encoder (layers 1..k, the ones the head reads) against the whole encoder.

    python benchmarks/cut_encoder.py [--model snli-minilm] [--words 30] [--repeats 20]

Both models come from the same folder in one process; the whole one is built with the cut turned off.
Prints the median time of each, their ratio, and the largest difference in probabilities and alpha
(0 up to float rounding: the layers above k never reach the decision). A pair model reads the words as a
premise and a hypothesis of half the words each. ``snli-minilm`` reads layer 3 of 6, the MPNet models layer 8
of 12; ``sst5-minilm`` reads all six layers, so it has nothing to cut.
"""

from __future__ import annotations

import argparse

import numpy as np
from measure import median_seconds

import selfexplain.core.modeling.model as model_module
from selfexplain.core.modeling.checkpoint import load_model_directory
from selfexplain.core.pipeline import SelfExplainer, load_model

WORDS = (
    "although the first act drags and a few of the supporting performances feel oddly wooden the film gathers "
    "real emotional force in its second half when the director finally trusts his two leads and lets the quiet "
    "scenes breathe without music or speeches"
).split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="snli-minilm")
    parser.add_argument("--words", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    text = " ".join((WORDS * (1 + args.words // len(WORDS)))[: args.words])
    cut = load_model(args.model)
    saved = model_module.cut_encoder
    model_module.cut_encoder = lambda encoder, keep: ()
    try:
        whole = SelfExplainer(*load_model_directory(cut.directory))
    finally:
        model_module.cut_encoder = saved
    words = text.split()
    half = len(words) // 2
    text, pair = (" ".join(words[:half]), " ".join(words[half:])) if cut.config.pair else (text, None)
    a, b = cut.explain(text, pair=pair), whole.explain(text, pair=pair)
    for explainer in (cut, whole):  # warm up
        explainer.explain(text, pair=pair)
    t_cut = median_seconds(lambda: cut.explain(text, pair=pair), args.repeats)
    t_whole = median_seconds(lambda: whole.explain(text, pair=pair), args.repeats)
    print(f"model {args.model}: {whole.model.num_encoder_layers} layers whole, {cut.model.num_encoder_layers} cut")
    print(f"explain() of {args.words} words: whole {t_whole * 1e3:.1f} ms, cut {t_cut * 1e3:.1f} ms")
    print(f"speed-up {t_whole / t_cut:.2f}x")
    print(
        f"max |diff|: probabilities {np.abs(a.probabilities - b.probabilities).max():.2e}, "
        f"alpha {np.abs(a.alpha - b.alpha).max():.2e}"
    )


if __name__ == "__main__":
    main()
