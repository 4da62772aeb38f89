"""Token-level perturbation experiments for one input and several explainers, batched.

For each explainer's ranking: ERASER comprehensiveness/sufficiency over
:data:`ERASER_FRACTIONS`, the decision-flip fraction, the single-top erasure JS and the
perturbation curve (the target probability after removing ``round(f * T)`` of the ``T``
tokens, ``f`` on :data:`CURVE_POINTS`).

The flip search is exact but staged, so that an explainer which flips the decision early
does not pay for every prefix: stage 1 runs, for every explainer at once, the prefixes
``1 .. ceil(T / 4)`` plus those the other metrics need; stage 2 runs, for explainers not yet
flipped, the prefixes between ``ceil(T / 4)`` and the first evaluated prefix that flips (all
remaining ones when none does). Every prefix before the first flip is therefore evaluated.
"""

from __future__ import annotations

import math

import numpy as np

from selfexplain.core.pipeline import SelfExplainer
from selfexplain.core.results.instance import Instance
from selfexplain.lab.faithfulness.metrics import (
    CURVE_POINTS,
    aopc,
    bin_sizes,
    first_flip,
    js_divergence,
    ranking,
    top_k_masks,
)
from selfexplain.methods.explainers.occlusion import Removal, predict_kept


def _first_flip(removed: dict[int, np.ndarray], count: int, original: int) -> int | None:
    """The smallest evaluated prefix ``k < count`` whose prediction differs from ``original``."""
    evaluated = sorted(k for k in removed if k < count)
    step = first_flip(np.array([int(np.argmax(removed[k])) for k in evaluated]), original)
    return evaluated[step - 1] if step is not None else None


def token_experiments(
    explainer: SelfExplainer,
    instance: Instance,
    scores: dict[str, np.ndarray],
    random_token: int,
    removal: Removal = "delete",
) -> dict[str, dict[str, object]]:
    """Metrics per explainer name; ``scores[name]`` ``[T]``; ``random_token`` the index erased
    for the single-top baseline (shared by every explainer)."""
    count = instance.num_tokens
    sizes = bin_sizes(count)
    curve_sizes = np.rint(CURVE_POINTS * count).astype(int)  # removals at 0 %, 10 %, ..., 100 %
    head = max(1, math.ceil(count / 4))
    names = list(scores)
    orders = {name: ranking(scores[name]) for name in names}
    wanted = sorted(
        {*range(1, head + 1), *sizes.tolist(), *curve_sizes[curve_sizes > 0].tolist()} & set(range(1, count + 1))
    )

    # stage 1: the fixed prefixes and the keep-only bins of every explainer, and the random token
    blocks = [~top_k_masks(orders[name], np.array(wanted)) for name in names]
    blocks += [top_k_masks(orders[name], sizes) for name in names]
    random_keep = np.ones((1, count), dtype=bool)
    random_keep[0, random_token] = False
    probs = predict_kept(explainer, instance, np.concatenate([*blocks, random_keep]), removal)
    removed = {name: dict(zip(wanted, probs[i * len(wanted) : (i + 1) * len(wanted)])) for i, name in enumerate(names)}
    offset = len(names) * len(wanted)
    kept = {name: probs[offset + i * len(sizes) : offset + (i + 1) * len(sizes)] for i, name in enumerate(names)}
    js_random = float(js_divergence(instance.probabilities, probs[-1]))

    # stage 2: the prefixes still needed to find each explainer's first flip exactly
    original = int(np.argmax(instance.probabilities))
    extra: dict[str, list[int]] = {}
    for name in names:
        found = _first_flip(removed[name], count, original)
        if found is not None and found <= head:
            continue
        stop = found if found is not None else count
        extra[name] = [k for k in range(head + 1, stop) if k not in removed[name]]
    requests = [(name, k) for name, ks in extra.items() for k in ks]
    if requests:
        masks = np.concatenate([~top_k_masks(orders[name], np.array([k])) for name, k in requests])
        for (name, k), row in zip(requests, predict_kept(explainer, instance, masks, removal)):
            removed[name][k] = row

    full = instance.probabilities
    target = instance.target
    results: dict[str, dict[str, object]] = {}
    for name in names:
        flip = _first_flip(removed[name], count, original)
        curve = [full[target] if k == 0 else removed[name][int(k)][target] for k in curve_sizes]
        js_top = float(js_divergence(full, removed[name][1]))
        results[name] = {
            "comprehensiveness": aopc(full[target], np.array([removed[name][int(k)][target] for k in sizes])),
            "sufficiency": aopc(full[target], kept[name][:, target]),
            "flip_fraction": flip / count if flip is not None else 1.0,
            "flipped": flip is not None,
            "js_top": js_top,
            "js_random": js_random,
            "js_difference": js_top - js_random,
            "curve": np.round(np.asarray(curve, dtype=np.float64), 6).tolist(),
        }
    return results
