"""One loaded model shared by threads (as app sessions share it): gradient work (anatomy, integrated
gradients, LIME) running next to explanations gives the numbers each gives alone."""

from __future__ import annotations

import threading

import numpy as np

from selfexplain.data import Example
from selfexplain.lab.anatomy.corpus import attention_anatomy
from selfexplain.methods.explainers import get_method

TEXTS = [f"sentence {i}: the {w} film is {a} but the end is {b}" for i, (w, a, b) in enumerate(
    [("long", "slow", "kind"), ("short", "sharp", "flat"), ("odd", "warm", "cold"), ("quiet", "dull", "true")]
)]  # fmt: skip


def test_gradients_in_one_thread_do_not_change_explanations_in_another(tiny_explainer) -> None:
    examples = [Example(t, label=i % 5) for i, t in enumerate(TEXTS)]
    alone_anatomy = attention_anatomy(tiny_explainer, examples, batch_size=2, head_sentences=2, progress=False)
    alone = [tiny_explainer.explain(t, attentions=False) for t in TEXTS]
    ig = get_method("integrated_gradients")
    alone_ig = ig.attribute(tiny_explainer, tiny_explainer.instance(TEXTS[0]))

    results: dict[str, object] = {}
    errors: list[BaseException] = []

    def anatomy() -> None:
        try:
            results["anatomy"] = attention_anatomy(
                tiny_explainer, examples, batch_size=2, head_sentences=2, progress=False
            )
            results["ig"] = ig.attribute(tiny_explainer, tiny_explainer.instance(TEXTS[0]))
        except BaseException as err:  # surfaced below: a thread's exception would otherwise vanish
            errors.append(err)

    def explain() -> None:
        try:
            results["explained"] = [tiny_explainer.explain(t, attentions=False) for t in TEXTS * 5]
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=anatomy), threading.Thread(target=explain)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    for index, shared in enumerate(results["explained"]):  # type: ignore[arg-type]
        reference = alone[index % len(TEXTS)]
        np.testing.assert_allclose(shared.probabilities, reference.probabilities, atol=1e-6)
        np.testing.assert_allclose(shared.alpha, reference.alpha, atol=1e-6)
    shared_anatomy = results["anatomy"]
    for name, values in alone_anatomy.stats.items():
        np.testing.assert_allclose(shared_anatomy.stats[name], values, atol=1e-6)  # type: ignore[attr-defined]
    np.testing.assert_allclose(results["ig"], alone_ig, atol=1e-6)
    assert not any(p.grad is not None and p.grad.abs().sum() > 0 for p in tiny_explainer.model.parameters())
