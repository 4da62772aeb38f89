"""Token-level perturbation experiments for one input and several explainers, in one batch.

For each explainer's ranking: the prefix-removal curve (remove the top 1..T tokens),
ERASER comprehensiveness/sufficiency over :data:`ERASER_FRACTIONS`, the decision-flip
fraction and the single-top erasure JS. All perturbations of all explainers run through
the model as one batched call.
"""

from __future__ import annotations

import numpy as np

from selfexplain.explainers.base import Instance
from selfexplain.explainers.occlusion import Removal, predict_kept
from selfexplain.faithfulness.metrics import (
    aopc,
    bin_sizes,
    curve_on_grid,
    first_flip,
    js_divergence,
    ranking,
    top_k_masks,
)
from selfexplain.pipeline import SelfExplainer


def token_experiments(
    model: SelfExplainer,
    instance: Instance,
    scores: dict[str, np.ndarray],
    random_token: int,
    removal: Removal = "delete",
) -> dict[str, dict[str, object]]:
    """Metrics per explainer name; ``scores[name]`` ``[T]``; ``random_token`` the index erased
    for the single-top baseline (shared by every explainer)."""
    count = instance.num_tokens
    sizes = bin_sizes(count)
    blocks, names = [], list(scores)
    for name in names:
        order = ranking(scores[name])
        blocks.append(~top_k_masks(order, np.arange(1, count + 1)))  # [T, T] remove top 1..T
        blocks.append(top_k_masks(order, sizes))  # [bins, T] keep only the top k
    random_keep = np.ones((1, count), dtype=bool)
    random_keep[0, random_token] = False
    probs = predict_kept(model, instance, np.concatenate([*blocks, random_keep]), removal)
    full = instance.probabilities
    target = instance.target
    original = int(np.argmax(full))
    js_random = float(js_divergence(full, probs[-1]))
    results: dict[str, dict[str, object]] = {}
    step = count + len(sizes)
    for index, name in enumerate(names):
        removed = probs[index * step : index * step + count]  # [T, C] after removing top 1..T
        kept = probs[index * step + count : (index + 1) * step]  # [bins, C]
        flip = first_flip(removed[: count - 1].argmax(axis=1), original)
        js_top = float(js_divergence(full, removed[0]))
        results[name] = {
            "comprehensiveness": aopc(full[target], removed[sizes - 1, target]),
            "sufficiency": aopc(full[target], kept[:, target]),
            "flip_fraction": flip / count if flip is not None else 1.0,
            "flipped": flip is not None,
            "js_top": js_top,
            "js_random": js_random,
            "js_difference": js_top - js_random,
            "curve": np.round(curve_on_grid(np.r_[full[target], removed[:, target]]), 6).tolist(),
        }
    return results
