"""Load: one shared model under concurrent use, and memory over many explanations."""

from __future__ import annotations

import gc
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import psutil
import pytest

TEXTS = [f"review {i}: the {w} film was {a} but the ending felt {b}" for i, (w, a, b) in enumerate(
    [("long", "slow", "right"), ("short", "sharp", "rushed"), ("odd", "warm", "cold"), ("quiet", "dull", "true"),
     ("bright", "funny", "flat"), ("dark", "tense", "earned"), ("loud", "messy", "kind"), ("new", "fresh", "odd")]
)]  # fmt: skip


def test_concurrent_sessions_get_their_own_correct_results(tiny_explainer) -> None:
    expected = [tiny_explainer.explain(t, attentions=False) for t in TEXTS]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda t: tiny_explainer.explain(t, attentions=True), TEXTS * 3))
    for index, result in enumerate(results):
        reference = expected[index % len(TEXTS)]
        assert result.text == reference.text
        np.testing.assert_allclose(result.probabilities, reference.probabilities, atol=1e-5)
        np.testing.assert_allclose(result.alpha, reference.alpha, atol=1e-5)


@pytest.mark.slow
def test_memory_stays_flat_over_500_explanations(tiny_explainer) -> None:
    process = psutil.Process()
    for i in range(100):  # warm-up: allocator pools and caches settle
        tiny_explainer.explain(TEXTS[i % 8] + f" #{i}")
    gc.collect()
    start = process.memory_info().rss
    for i in range(500):
        tiny_explainer.explain(TEXTS[i % 8] + f" run {i}")
    gc.collect()
    growth_mb = (process.memory_info().rss - start) / 2**20
    print(f"RSS growth over 500 explanations: {growth_mb:.1f} MB")
    assert growth_mb < 40
